"""The challenge desk's rules on a real contest database and version store (issue 45): consent
to ranked challenges from a higher rating (refused at once, waiting and answered, expired,
withdrawn mid-challenge), the hourly limit's time to retry, and what stays private."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.challenges.book import ChallengeBook, Outcome, State
from referee.challenges.desk import ChallengeCounter
from referee.challenges.terms import Ask, ChallengeTerms, Consent, Ranked
from referee.errors import NotFoundError, QuotaError, RefusedError
from referee.hosted.store import VersionStore, entrant
from tests.challenge_helpers import add_bot


class Clock:
    """Time as the test says (unix seconds)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def desk(tmp_path: Path) -> ChallengeCounter:
    store = VersionStore(tmp_path / "versions")
    ratings = {}
    for account, rating in (("alice", 1600.0), ("bob", 1400.0)):
        version = store.version(add_bot(store, account, None, account))
        ratings[entrant(version)] = rating
    terms = ChallengeTerms(ranked=Ranked.UPWARD, per_hour=2, consent_seconds=60)
    return ChallengeCounter(
        ChallengeBook(tmp_path / "contest.db"), store, terms, ratings.get, clock=Clock()
    )


def test_a_ranked_challenge_downward_needs_the_opponent_s_consent(desk: ChallengeCounter) -> None:
    # Upward (bob below alice) needs nobody's consent: queued at once.
    up = desk.challenge("bob", Ask("alice", ranked=True))
    assert up.state is State.QUEUED
    desk.cancel("bob", up.id)
    # Downward, bob refusing: refused at once, nothing stored.
    desk.set_consent("bob", Consent.REFUSE)
    with pytest.raises(RefusedError, match="bob refuses ranked challenges from a higher rating"):
        desk.challenge("alice", Ask("bob", ranked=True))
    # Asking (the default again): it waits, bob accepts, it is queued.
    desk.set_consent("bob", Consent.ASK)
    waiting = desk.challenge("alice", Ask("bob", ranked=True))
    assert waiting.state is State.WAITING and "bob's consent" in waiting.reason
    with pytest.raises(NotFoundError):  # only the opponent answers
        desk.answer("alice", waiting.id, True)
    assert desk.answer("bob", waiting.id, True).state is State.QUEUED
    # Playing, bob withdraws his consent: it is asked to stop after its match.
    desk.book.set_state(waiting.id, State.PLAYING)
    desk.set_consent("bob", Consent.REFUSE)
    assert desk.book.get(waiting.id).stop == "bob withdrew its consent"


def test_an_unanswered_challenge_expires_and_the_hourly_limit_says_when_to_retry(
    desk: ChallengeCounter,
) -> None:
    clock = desk.clock
    assert isinstance(clock, Clock)
    waiting = desk.challenge("alice", Ask("bob", ranked=True))
    clock.now += 61
    (expired,) = desk.expire()
    assert expired.id == waiting.id and expired.outcome == Outcome.REFUSED
    assert "did not answer within 60 s" in expired.reason
    desk.challenge("alice", Ask("bob"))
    clock.now += 100
    with pytest.raises(QuotaError, match=r"challenges per hour: at most 2 .* retry in 3439 s"):
        desk.challenge("alice", Ask("bob"))


def test_an_account_sees_only_its_own_challenges(desk: ChallengeCounter) -> None:
    mine = desk.challenge("alice", Ask("bob"))
    assert [c.id for c in desk.shown("bob")] == [mine.id]  # asked of him: his to see
    desk.book.set_consent("carol", Consent.ACCEPT)
    assert desk.shown("carol") == []
    with pytest.raises(NotFoundError, match="no challenge"):
        desk.shown_one("carol", mine.id)
    with pytest.raises(NotFoundError, match="asked by account 'bob'"):
        desk.cancel("bob", mine.id)  # only its author cancels it
