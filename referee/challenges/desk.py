"""What an author asks of challenges, checked against the organiser's terms (grpc-free: the
Challenges service, referee.transport.challenges, maps its errors to status codes).

Each refusal names what refused it: a limit (QuotaError: RESOURCE_EXHAUSTED, with when to try
again), bounds that cannot decide or a bad budget (ChallengeError: INVALID_ARGUMENT), an unknown
version or opponent (NotFoundError), a rule (RefusedError: FAILED_PRECONDITION). Nothing is
stored for a refused challenge. The runner (referee.challenges.runner) plays what is stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from referee.challenges.book import (
    Challenge,
    ChallengeBook,
    Outcome,
    State,
    challenge_entrant,
    opponent_entrant,
)
from referee.challenges.decision import bounds_problem, test_of
from referee.challenges.terms import Ask, ChallengeError, ChallengeTerms, Consent, Ranked
from referee.errors import FrozenError, NotFoundError, QuotaError, RefusedError
from referee.games.base import Game
from referee.games.options import Options
from referee.hosted.house import is_house
from referee.hosted.store import (
    SHORT_ID,
    StoreError,
    Version,
    VersionStatus,
    VersionStore,
    by_prefix,
    entrant,
)
from referee.ladder.schedule import Layout

HOUR = 3600.0


def sides_problem(game: Game, options: Options) -> str | None:
    """Why no challenge can be played in this game, or None: a challenge's duplicate deals put
    the challenger on one side and its opponent on the other (issue 45.1: a team game's usual
    seat plan, Xeri's two teams), so a free-for-all (Xactika with more than 2 players) has no
    other side to give the opponent."""
    sides = len(Layout.of(game, options).sides)
    if sides == 2:
        return None
    return (
        f"challenges need a game of two sides, and this contest's {game.id} has {sides} with "
        "its options (a free-for-all): challenge in a contest of two players or two teams"
    )


class ChallengeDesk:
    """Authors' challenges for one contest: `book` keeps them, `store` holds the versions."""

    def __init__(
        self,
        book: ChallengeBook,
        store: VersionStore,
        terms: ChallengeTerms,
        rating: Callable[[str], float | None] = lambda _: None,
        revoked: Callable[[], set[str]] = set,
        frozen: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.time,
        unplayable: str | None = None,
    ) -> None:
        self.book = book
        self.store = store
        self.terms = terms
        #: An entrant's rating now (the contest's pairing ratings), None: not rated yet.
        self.rating = rating
        self.revoked = revoked
        self.frozen = frozen
        self.clock = clock
        #: Why no challenge can be played in this contest (sides_problem), or None.
        self.unplayable = unplayable

    # -- asking --------------------------------------------------------------------------

    def challenge(self, account: str, ask: Ask) -> Challenge:
        """Store `account`'s challenge as asked, or refuse it (nothing stored)."""
        if self.unplayable is not None:
            raise RefusedError(self.unplayable)
        terms = self.terms
        elo0 = terms.elo0 if ask.elo0 is None else ask.elo0
        elo1 = terms.elo1 if ask.elo1 is None else ask.elo1
        alpha = terms.alpha if ask.alpha is None else ask.alpha
        beta = terms.beta if ask.beta is None else ask.beta
        problem = bounds_problem(elo0, elo1, alpha, beta, terms.on)
        if problem is not None:
            raise ChallengeError(f"bounds that cannot decide: {problem}")
        deals = terms.default_deals if ask.deals is None else ask.deals
        if deals < 2:
            raise ChallengeError(f"a challenge needs at least 2 deals, not {deals!r}")
        if deals > terms.max_deals:
            raise QuotaError(
                f"deals per challenge: at most {terms.max_deals:,} (asked {deals:,}); ask "
                "for fewer (the test usually decides long before)"
            )
        if ask.ranked and terms.ranked is Ranked.OFF:
            raise RefusedError("ranked challenges are not allowed in this contest: ask unranked")
        if ask.ranked and self.frozen():
            raise FrozenError(
                "submissions are frozen: no ranked challenge counts now; ask unranked"
            )
        mine = self._own_version(account, ask.version)
        theirs, follows = self._opponent(account, ask.opponent)
        if theirs.id == mine.id:
            raise RefusedError(
                f"{entrant(mine)} would play itself: challenge another version or account"
            )
        if ask.ranked and theirs.account == account:
            raise RefusedError("a ranked challenge is against another account, not your own")
        if ask.ranked and is_house(theirs.account):
            raise RefusedError(
                f"{theirs.account} is a house bot, outside the standings: challenge it unranked"
            )
        self._limits(account, theirs.account)
        now = self.clock()
        state, expires, consented = State.QUEUED, None, False
        if ask.ranked and self._downward(mine, theirs):
            consent = self.book.consent(theirs.account)
            if consent is Consent.REFUSE:
                raise RefusedError(
                    f"{theirs.account} refuses ranked challenges from a higher rating: ask "
                    "unranked, or challenge an equal or higher rating"
                )
            if consent is Consent.ASK:
                state, expires = State.WAITING, now + terms.consent_seconds
            consented = True
        return self.book.add(
            Challenge(
                id=0,
                account=account,
                version=mine.id,
                opponent=theirs.account,
                opponent_version=theirs.id,
                follows_active=follows,
                ranked=ask.ranked,
                deals=deals,
                elo0=elo0,
                elo1=elo1,
                alpha=alpha,
                beta=beta,
                on=terms.on,
                state=state,
                outcome="",
                reason=(
                    f"waiting for {theirs.account}'s consent (a ranked challenge from a higher "
                    "rating)"
                    if state is State.WAITING
                    else "queued"
                ),
                summary="",
                llr=0.0,
                played=0,
                stop="",
                consented=consented,
                created_at=now,
                started_at=None,
                ended_at=None,
                expires_at=expires,
            )
        )

    def _own_version(self, account: str, asked: str | None) -> Version:
        if asked is None:
            active = self.store.active(account)
            if active is None:
                raise NotFoundError(
                    f"account {account!r} has no active version: submit one, or name one "
                    "with --version"
                )
            return active
        try:
            version = by_prefix(self.store.versions(account), asked)
        except StoreError as error:
            raise NotFoundError(str(error)) from None
        if version.status is not VersionStatus.QUALIFIED:
            raise RefusedError(
                f"version {version.id[:SHORT_ID]} is {version.status}, not qualified: only a "
                "qualified version plays"
            )
        return version

    def _opponent(self, account: str, named: str) -> tuple[Version, bool]:
        """The opponent's version, and whether it must stay its account's active one."""
        name, _, prefix = named.partition("@")
        if not name:
            raise ChallengeError(f"name the opponent as ACCOUNT or ACCOUNT@VERSION, not {named!r}")
        if name in self.revoked():
            raise RefusedError(f"account {name!r} was revoked: it plays no more")
        if name == account:
            if not prefix:
                raise RefusedError(
                    "a challenge of your own active version against itself would loop: name "
                    "an earlier version, ACCOUNT@VERSION"
                )
            return self._own_version(account, prefix), False
        active = self.store.active(name)
        if active is None:
            house = sorted(v.account for v in self.store.active_versions() if is_house(v.account))
            listed = f" (its house bots: {', '.join(house)})" if house else ""
            raise NotFoundError(
                f"no account {name!r} with an active version in this contest{listed}"
            )
        if prefix and not active.id.startswith(prefix):
            raise NotFoundError(
                f"{named!r} is not {name}'s active version ({entrant(active)}): another "
                "account's versions are challenged only while they are active"
            )
        return active, True

    def _downward(self, mine: Version, theirs: Version) -> bool:
        """Whether the challenger is rated above its opponent (an unrated one is not)."""
        a, b = self.rating(entrant(mine)), self.rating(entrant(theirs))
        return a is not None and b is not None and a > b

    def _limits(self, account: str, opponent: str) -> None:
        terms = self.terms
        now = self.clock()
        mine = [c for c in self.book.of_account(account) if c.account == account]
        flying = [c for c in mine if c.in_flight]
        if len(flying) >= terms.in_flight:
            raise QuotaError(
                f"challenges in flight: at most {terms.in_flight} per account; retry when one "
                "ends (croupier challenge list), or cancel one"
            )
        asked = self.book.asked_since(account, now - HOUR)
        if len(asked) >= terms.per_hour:
            wait = asked[len(asked) - terms.per_hour] + HOUR - now
            raise QuotaError(
                f"challenges per hour: at most {terms.per_hour} per account; retry in "
                f"{max(1, round(wait))} s"
            )
        pair = {account, opponent}
        between = [
            c
            for c in self.book.of_account(account)
            if c.in_flight and {c.account, c.opponent} == pair
        ]
        if len(between) >= terms.per_pair:
            raise QuotaError(
                f"challenges per pair: at most {terms.per_pair} in flight between two accounts; "
                "retry when one ends"
            )

    # -- reading and answering -----------------------------------------------------------

    def listed(self, account: str) -> list[Challenge]:
        """The challenges `account` asked or was asked, oldest first."""
        return self.book.of_account(account)

    def show(self, account: str, id: int) -> Challenge:
        found = self.book.find(id)
        if found is None or account not in (found.account, found.opponent):
            raise NotFoundError(f"no challenge {id} of account {account!r}")
        return found

    def cancel(self, account: str, id: int) -> Challenge:
        """End the author's challenge: at once if it has not started, else after its match."""
        found = self.show(account, id)
        if found.account != account:
            raise NotFoundError(f"no challenge {id} asked by account {account!r}")
        if found.state in (State.WAITING, State.QUEUED):
            return self.book.set_state(
                id, State.ENDED, outcome=str(Outcome.UNDECIDED), reason="cancelled by its author"
            )
        if found.state is State.PLAYING:
            self.book.ask_stop(id, "cancelled by its author")
        return self.book.get(id)

    def set_consent(self, account: str, consent: Consent) -> None:
        """What `account` answers ranked challenges from above from now on. Refusing ends
        those waiting for its answer, and those it consented to, after their current match."""
        self.book.set_consent(account, consent)
        if consent is not Consent.REFUSE:
            return
        for found in self.book.of_account(account):
            if found.opponent == account and found.consented and found.in_flight:
                self._withdraw_consent(found)

    def answer(self, account: str, id: int, accept: bool) -> Challenge:
        """The opponent answers a ranked challenge from above (or withdraws its consent)."""
        found = self.show(account, id)
        if found.opponent != account or not found.consented:
            raise NotFoundError(f"no challenge {id} waiting for account {account!r}'s consent")
        if accept:
            if found.state is State.WAITING:
                return self.book.set_state(id, State.QUEUED, reason="queued")
            return found
        self._withdraw_consent(found)
        return self.book.get(id)

    def _withdraw_consent(self, found: Challenge) -> None:
        if found.state is State.WAITING:
            self.book.set_state(
                found.id,
                State.ENDED,
                outcome=str(Outcome.REFUSED),
                reason=f"refused by {found.opponent}",
            )
        elif found.in_flight:
            self.book.ask_stop(found.id, f"{found.opponent} withdrew its consent")

    def expire(self) -> list[Challenge]:
        """End the challenges whose opponent's consent did not come in time."""
        now = self.clock()
        ended = []
        for found in self.book.every(State.WAITING):
            if found.expires_at is not None and found.expires_at <= now:
                why = f"{found.opponent} did not answer within {self.terms.consent_seconds:g} s"
                ended.append(
                    self.book.set_state(
                        found.id, State.ENDED, outcome=str(Outcome.REFUSED), reason=why
                    )
                )
        return ended


@dataclass(frozen=True, slots=True)
class Shown:
    """A challenge as one account is shown it (the wire's Challenge)."""

    id: int
    challenger: str
    opponent: str
    ranked: bool
    deals: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    on: str
    state: str
    outcome: str
    reason: str
    summary: str
    played: int
    llr: float
    lower: float
    upper: float
    match_ids: tuple[str, ...]
    created_at: float


class ChallengeCounter(ChallengeDesk):
    """The desk as the Challenges service calls it: each answer a `Shown`."""

    def shown_of(self, found: Challenge) -> Shown:
        test = test_of(found)
        return Shown(
            id=found.id,
            challenger=challenge_entrant(found),
            opponent=opponent_entrant(found),
            ranked=found.ranked,
            deals=found.deals,
            elo0=found.elo0,
            elo1=found.elo1,
            alpha=found.alpha,
            beta=found.beta,
            on=found.on,
            state=str(found.state),
            outcome=found.outcome,
            reason=found.reason,
            summary=found.summary,
            played=found.played,
            llr=found.llr,
            lower=test.lower,
            upper=test.upper,
            match_ids=tuple(m.match_id for m in self.book.matches(found) if m.rows is not None),
            created_at=found.created_at,
        )

    def ask(
        self,
        account: str,
        opponent: str,
        version: str | None,
        ranked: bool,
        deals: int | None,
        bounds: tuple[float | None, float | None, float | None, float | None],
    ) -> Shown:
        elo0, elo1, alpha, beta = bounds
        asked = Ask(opponent, version, ranked, deals, elo0, elo1, alpha, beta)
        return self.shown_of(self.challenge(account, asked))

    def shown(self, account: str) -> list[Shown]:
        return [self.shown_of(c) for c in self.listed(account)]

    def shown_one(self, account: str, id: int) -> Shown:
        return self.shown_of(self.show(account, id))

    def cancelled(self, account: str, id: int) -> Shown:
        return self.shown_of(self.cancel(account, id))

    def consent_to(self, account: str, consent: str) -> None:
        self.set_consent(account, Consent(consent))

    def answered(self, account: str, id: int, accept: bool) -> Shown:
        return self.shown_of(self.answer(account, id, accept))
