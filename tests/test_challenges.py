"""Challenges end to end (issue 45): a real contest referee (`serve_matches` with accounts and
hosted versions in the sandbox), real gRPC calls with the generated stubs, real bot processes:
the heuristic against its noisy copy decides H1 within its budget, an equal-strength challenge
does not decide H1, unranked challenges leave the standings alone, a ranked one downward waits
for consent, and the limits refuse with their named status. Each challenge match's record names
its challenge, ranked or not, and `croupier ladder verify` refuses a record whose header says
otherwise than the database (issue 45.5)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import trio
from typer.testing import CliRunner

from croupier.v1 import challenges_pb2 as pb
from croupier.v1 import challenges_pb2_grpc, desk_pb2, desk_pb2_grpc
from referee import transport
from referee.challenges.book import ChallengeBook
from referee.challenges.terms import ChallengeTerms
from referee.cli import app
from referee.contest.config import ServeConfig
from referee.contest.serving import serve_matches
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.store import VersionId, VersionStore, beside
from referee.ladder.verify import standings_of
from referee.match.clock import TimeControl
from referee.match.records import ChallengeMark, read_all
from referee.results.database import Store
from tests.challenge_helpers import CRASHES, add_bot

pytestmark = pytest.mark.usefixtures("bubblewrap")


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

    async def decided_event(self, account: str, id: int) -> desk_pb2.FollowEventsResponse:
        """The CHALLENGE_DECIDED event of challenge `id` that `account`'s team follows
        (FollowEvents from the first event, until that one)."""

        def follow() -> desk_pb2.FollowEventsResponse:
            channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
            stub = desk_pb2_grpc.DeskStub(channel)
            metadata = (("authorization", f"Bearer {self.tokens[account]}"),)
            stream = stub.FollowEvents(desk_pb2.FollowEventsRequest(), metadata=metadata)
            try:
                for event in stream:
                    decided = event.kind == desk_pb2.DESK_EVENT_KIND_CHALLENGE_DECIDED
                    if decided and event.challenge_id == id:
                        return event
                raise AssertionError(f"{account}'s events ended before challenge {id}'s")
            finally:
                stream.cancel()
                channel.close()

        with trio.fail_after(60):  # written just after the challenge is stored as ended
            return await trio.to_thread.run_sync(follow, abandon_on_cancel=True)

    def rated_above(self, a: str, b: str) -> bool:
        """Whether the standings rate `a`'s version above `b`'s."""
        rows = {row.bot.split("@")[0]: row for row in standings_of(self.folder / "contest.db").rows}
        ours, theirs = rows.get(a), rows.get(b)
        if ours is None or theirs is None or ours.rating is None or theirs.rating is None:
            return False
        return ours.rating > theirs.rating

    def committed(self, id: int) -> list[str]:
        """The ids of challenge `id`'s committed matches."""
        book = ChallengeBook(self.folder / "contest.db")
        try:
            return [m.match_id for m in book.matches(book.get(id)) if m.rows is not None]
        finally:
            book.close()

    def ranked_matches(self) -> list[str]:
        store = Store(self.folder / "contest.db", create=False)
        try:
            return [p.match_id for p in store.played()]
        finally:
            store.close()


def run_contest(
    tmp_path: Path,
    scenario: Callable[[Contest], Awaitable[None]],
    versions: dict[str, float | str | None],
    terms: ChallengeTerms,
    game: str = "xix",
    options: dict[str, str] | None = None,
    house: dict[str, Path] | None = None,
) -> Contest:
    """A contest of `game` (XIX unless told) with each account of `versions` holding one
    active version (the heuristic, its noisy copy with that noise, or that example program:
    challenge_helpers.add_bot), and the organiser's `house` bots, running `scenario` against
    it."""
    database = tmp_path / "contest.db"
    store = TokenStore(database)
    contest = Contest(tmp_path, {name: store.add(name) for name in versions})
    hosted = VersionStore(beside(database))
    try:
        for name, noise in versions.items():
            contest.versions[name] = add_bot(hosted, name, noise, f"{name}-bot", game=game)
    finally:
        hosted.close()
    played = get_game(game)
    config = ServeConfig(
        game=played,
        options=parse_options(played, options or {}),
        tokens=database,
        records=tmp_path / "records",
        time_control=TimeControl(move_ms=5000, bank_ms=0),
        drain_seconds=5,
        challenges=terms,
        house=house or {},
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


QUICK = ChallengeTerms(share=0.9, elo0=0, elo1=100, max_deals=60, default_deals=40, per_pair=2)


def verified(database: Path) -> str:
    """`croupier ladder verify` on the contest's database: its output, having passed."""
    result = CliRunner().invoke(app, ["ladder", "verify", str(database), "--no-cache"])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_heuristic_beats_its_noisy_copy_and_standings_ignore_unranked(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    async def scenario(contest: Contest) -> None:
        asked = await contest.call(
            "alice", "CreateChallenge", pb.CreateChallengeRequest(opponent="bob")
        )
        assert isinstance(asked, pb.CreateChallengeResponse)
        assert asked.challenge.state == pb.CHALLENGE_STATE_QUEUED
        seen["decided"] = await contest.until_ended("alice", asked.challenge.id)
        seen["contest"] = contest.ranked_matches()
        # Issue 46.2: both teams follow the end, the challenger's and the opponent's.
        seen["told"] = [
            await contest.decided_event(a, asked.challenge.id) for a in ("alice", "bob")
        ]

    contest = run_contest(tmp_path, scenario, {"alice": None, "bob": 0.6}, QUICK)
    decided = seen["decided"]
    assert isinstance(decided, pb.Challenge)
    assert decided.outcome == pb.CHALLENGE_OUTCOME_BETTER, decided.reason
    assert decided.deals_played <= QUICK.default_deals and decided.llr >= decided.upper
    assert decided.summary.startswith(f"alice@{contest.versions['alice'][:12]} vs bob@")
    assert "H1 accepted after" in decided.summary, decided.summary
    told = seen["told"]
    assert isinstance(told, list)
    assert [event.version_id for event in told] == [
        contest.versions["alice"],
        contest.versions["bob"],
    ]
    assert all(event.reason == decided.summary for event in told), told
    # Each deal played in both rotations, every match a challenge's own, none in the contest.
    assert len(decided.match_ids) >= 2 * decided.deals_played
    assert all(m.startswith("challenge-") for m in decided.match_ids)
    contest_matches = seen["contest"]
    assert isinstance(contest_matches, list)
    assert not any("challenge" in m for m in contest_matches)
    standings = standings_of(contest.folder / "contest.db")
    assert sum(row.matches for row in standings.rows) <= 2 * len(ranked_after(contest))
    output = verified(contest.folder / "contest.db")
    assert f"{len(ranked_after(contest)) + len(decided.match_ids)} matches" in output, output


def ranked_after(contest: Contest) -> list[str]:
    return contest.ranked_matches()


def marks(database: Path, table: str) -> dict[str, ChallengeMark | None]:
    """What the header of each committed record in `table` (challenge_matches, or the
    contest's matches) says its match was played for, by match id."""
    with sqlite3.connect(database) as db:
        rows = db.execute(f"SELECT match_id, record FROM {table} WHERE record IS NOT NULL")
        found = {}
        for match_id, record in rows.fetchall():
            (header, *_), _ = read_all(database.parent / record, strict=True)
            found[match_id] = ChallengeMark.of(header.header)
    db.close()
    return found


def copied(folder: Path, into: Path) -> Path:
    """The contest's database and records copied to `into` (the database names its records
    relatively); the copy's database."""
    into.mkdir()
    database = into / "contest.db"
    with sqlite3.connect(folder / "contest.db") as source, sqlite3.connect(database) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    shutil.copytree(folder / "records", into / "records")
    return database


def tampered(
    folder: Path, into: Path, table: str, match_id: str, change: Callable[[dict[str, Any]], None]
) -> Path:
    """The contest's database and records copied to `into`, match `match_id`'s record's header
    line rewritten by `change` (every other line kept byte for byte) and its hash in `table`
    made the new one's: a tamper that hashing cannot see."""
    database = copied(folder, into)
    with sqlite3.connect(database) as db:
        (record,) = db.execute(
            f"SELECT record FROM {table} WHERE match_id = ?", (match_id,)
        ).fetchone()
        path = database.parent / record
        first, rest = path.read_bytes().split(b"\n", 1)
        line = json.loads(first)
        change(line["header"])
        data = json.dumps(line, separators=(",", ":")).encode() + b"\n" + rest
        path.write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        db.execute(f"UPDATE {table} SET record_sha256 = ? WHERE match_id = ?", (digest, match_id))
    db.close()
    return database


def refused_by_verify(database: Path, problems: int = 1) -> list[str]:
    """The problems `croupier ladder verify` prints of challenges (it must fail, finding
    `problems`)."""
    result = CliRunner().invoke(app, ["ladder", "verify", str(database), "--no-cache"])
    assert result.exit_code == 1, result.output
    assert f"; {problems} problem" in result.output, result.output
    return [line for line in result.output.splitlines() if "challenge" in line.split(": ", 1)[-1]]


def test_a_tampered_challenge_header_fails_verify_naming_its_match(tmp_path: Path) -> None:
    """Unranked: every challenge match's record names challenge 1 (unranked), the contest's
    own none; `croupier replay` says so; a header flipped to ranked, naming another challenge,
    or naming none fails `ladder verify`, naming that match."""
    seen: dict[str, int] = {}

    async def scenario(contest: Contest) -> None:
        asked = await contest.call(
            "alice", "CreateChallenge", pb.CreateChallengeRequest(opponent="bob", deals=2)
        )
        assert isinstance(asked, pb.CreateChallengeResponse)
        seen["id"] = asked.challenge.id
        await contest.until_ended("alice", asked.challenge.id)

    folder = tmp_path / "contest"
    folder.mkdir()
    contest = run_contest(folder, scenario, {"alice": None, "bob": 0.6}, QUICK)
    database = contest.folder / "contest.db"
    mark = ChallengeMark(seen["id"], False)
    played = marks(database, "challenge_matches")
    assert played and set(played.values()) == {mark}, played
    assert set(marks(database, "matches").values()) <= {None}
    verified(database)
    victim = sorted(played)[-1]
    with sqlite3.connect(database) as db:
        (record,) = db.execute(
            "SELECT record FROM challenge_matches WHERE match_id = ?", (victim,)
        ).fetchone()
    db.close()
    shown = CliRunner().invoke(app, ["replay", str(database.parent / record), "--plain"])
    assert f"match {victim}, challenge {mark.id} (unranked), " in shown.output, shown.output

    def flipped(header: dict[str, Any]) -> None:
        header["challenge"]["ranked"] = True

    def another(header: dict[str, Any]) -> None:
        header["challenge"]["id"] = str(mark.id + 1)

    def dropped(header: dict[str, Any]) -> None:
        del header["challenge"]

    for name, change, says in (
        ("flipped", flipped, f"challenge {mark.id} (ranked)"),
        ("another", another, f"challenge {mark.id + 1} (unranked)"),
        ("dropped", dropped, "no challenge"),
    ):
        copy = tampered(folder, tmp_path / name, "challenge_matches", victim, change)
        assert refused_by_verify(copy) == [
            f"{victim}: the record says {says}, the database {mark}"
        ], name
    # The database made to say the challenge was ranked: each of its records says otherwise,
    # and none of its matches is the contest's.
    copy = copied(folder, tmp_path / "ranked")
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE challenges SET ranked = 1 WHERE id = ?", (mark.id,))
    db.close()
    claimed = ChallengeMark(mark.id, True)
    assert sorted(refused_by_verify(copy, 2 * len(played))) == sorted(
        [
            f"{m}: {claimed} in the database, but its match is not one of the contest's"
            for m in played
        ]
        + [f"{m}: the record says {mark}, the database {claimed}" for m in played]
    )


async def refused(
    contest: Contest, account: str, request: pb.CreateChallengeRequest
) -> grpc.RpcError:
    """The refusal of `request` (it must be refused)."""
    try:
        await contest.call(account, "CreateChallenge", request)
    except grpc.RpcError as error:
        return error
    raise AssertionError(f"{request} was not refused")


def test_limits_equal_strength_and_a_ranked_challenge_downward(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    async def scenario(contest: Contest) -> None:
        ask = pb.CreateChallengeRequest
        for request, code, words in (
            (
                ask(opponent="bob", deals=10**9),
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "deals per challenge",
            ),
            (
                ask(opponent="bob", elo0=10, elo1=5),
                grpc.StatusCode.INVALID_ARGUMENT,
                "cannot decide",
            ),
            (ask(opponent="bob", alpha=0.7), grpc.StatusCode.INVALID_ARGUMENT, "alpha and beta"),
            (ask(opponent="alice"), grpc.StatusCode.FAILED_PRECONDITION, "would loop"),
            (ask(opponent="nobody"), grpc.StatusCode.NOT_FOUND, "no account 'nobody'"),
            (ask(opponent="bob@000000"), grpc.StatusCode.NOT_FOUND, "active version"),
        ):
            error = await refused(contest, "alice", request)
            assert error.code() == code and words in (error.details() or ""), error
        # Equal strength: the heuristic against itself (another version of it) never decides H1.
        equal = await contest.call("alice", "CreateChallenge", ask(opponent="carol", deals=6))
        assert isinstance(equal, pb.CreateChallengeResponse)
        # The limit per pair: two in flight between alice and bob, a third refused.
        first = await contest.call("alice", "CreateChallenge", ask(opponent="bob"))
        await contest.call("bob", "CreateChallenge", ask(opponent="alice"))
        error = await refused(contest, "alice", ask(opponent="bob"))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error
        assert "challenges per pair" in (error.details() or ""), error
        assert isinstance(first, pb.CreateChallengeResponse)
        await contest.call(
            "alice", "CancelChallenge", pb.CancelChallengeRequest(id=first.challenge.id)
        )
        seen["cancelled"] = await contest.until_ended("alice", first.challenge.id)
        seen["equal"] = await contest.until_ended("alice", equal.challenge.id)
        # Ranked downward: once alice is rated above bob, her ranked challenge waits for him.
        with trio.fail_after(120):
            while not contest.rated_above("alice", "bob"):
                await trio.sleep(0.5)
        down = await contest.call(
            "alice", "CreateChallenge", ask(opponent="bob", ranked=True, deals=QUICK.max_deals)
        )
        assert isinstance(down, pb.CreateChallengeResponse)
        seen["waiting"] = down.challenge
        await trio.sleep(1.5)  # the runner looks twice a second: a waiting one is never played
        still = await contest.call(
            "alice", "GetChallenge", pb.GetChallengeRequest(id=down.challenge.id)
        )
        assert isinstance(still, pb.GetChallengeResponse)
        assert still.challenge.state == pb.CHALLENGE_STATE_WAITING, still
        answer = pb.AnswerChallengeRequest
        await contest.call("bob", "AnswerChallenge", answer(id=down.challenge.id, accept=True))
        # Bob withdraws his consent once it is playing: it ends after its current match.
        with trio.fail_after(120):
            while not contest.committed(down.challenge.id):
                await trio.sleep(0.1)
        await contest.call("bob", "AnswerChallenge", answer(id=down.challenge.id, accept=False))
        seen["ranked"] = await contest.until_ended("alice", down.challenge.id)
        seen["contest"] = contest.ranked_matches()

    run = run_contest(tmp_path, scenario, {"alice": None, "bob": 0.6, "carol": None}, QUICK)
    cancelled = seen["cancelled"]
    assert isinstance(cancelled, pb.Challenge)
    assert cancelled.outcome == pb.CHALLENGE_OUTCOME_UNDECIDED
    assert "cancelled by its author" in cancelled.reason
    equal = seen["equal"]
    assert isinstance(equal, pb.Challenge)
    assert equal.outcome in (pb.CHALLENGE_OUTCOME_UNDECIDED, pb.CHALLENGE_OUTCOME_NOT_BETTER)
    waiting = seen["waiting"]
    assert isinstance(waiting, pb.Challenge)
    assert waiting.state == pb.CHALLENGE_STATE_WAITING and "consent" in waiting.reason
    ranked = seen["ranked"]
    assert isinstance(ranked, pb.Challenge)
    assert ranked.outcome == pb.CHALLENGE_OUTCOME_UNDECIDED, ranked
    assert ranked.reason == "bob withdrew its consent", ranked.reason
    assert ranked.match_ids and all(m.startswith("ranked-challenge-") for m in ranked.match_ids)
    contest_matches = seen["contest"]
    assert isinstance(contest_matches, list)
    assert set(ranked.match_ids) <= set(contest_matches)  # ranked: counted in the standings
    assert not set(equal.match_ids) & set(contest_matches)
    database = run.folder / "contest.db"
    verified(database)
    # Issue 45.5: the contest's matches name the ranked challenge they were played for, and
    # no other; the unranked ones name theirs, unranked.
    in_contest = marks(database, "matches")
    mark = ChallengeMark(ranked.id, True)
    assert {in_contest[m] for m in ranked.match_ids} == {mark}, in_contest
    assert {v for m, v in in_contest.items() if m not in ranked.match_ids} == {None}
    assert {marks(database, "challenge_matches")[m] for m in equal.match_ids} == {
        ChallengeMark(equal.id, False)
    }

    def dropped(header: dict[str, Any]) -> None:
        del header["challenge"]

    def claimed(header: dict[str, Any]) -> None:
        header["challenge"] = {"id": str(ranked.id), "ranked": True}

    victim = ranked.match_ids[0]
    copy = tampered(run.folder, tmp_path / "dropped", "matches", victim, dropped)
    assert refused_by_verify(copy) == [
        f"{victim}: the record says no challenge, the database {mark}"
    ]
    ordinary = next(m for m, v in in_contest.items() if v is None)
    copy = tampered(run.folder, tmp_path / "claimed", "matches", ordinary, claimed)
    assert refused_by_verify(copy) == [
        f"{ordinary}: the record says {mark}, the database no challenge"
    ]


def test_a_crashing_version_and_a_withdrawn_one_end_their_challenges_with_the_reason(
    tmp_path: Path,
) -> None:
    """A version that crashes at its first decision is launched once again, then its
    challenge ends saying so; a version withdrawn mid-challenge ends its challenge after the
    match in hand; what was played of each stays committed."""
    seen: dict[str, pb.Challenge] = {}

    async def scenario(contest: Contest) -> None:
        ask = pb.CreateChallengeRequest
        crashing = await contest.call("alice", "CreateChallenge", ask(opponent="bob"))
        assert isinstance(crashing, pb.CreateChallengeResponse)
        seen["crashing"] = await contest.until_ended("alice", crashing.challenge.id)
        long = await contest.call("alice", "CreateChallenge", ask(opponent="carol", deals=60))
        assert isinstance(long, pb.CreateChallengeResponse)
        with trio.fail_after(120):
            while not contest.committed(long.challenge.id):
                await trio.sleep(0.1)
        store = VersionStore(beside(contest.folder / "contest.db"))
        try:
            store.withdraw("alice", VersionId(contest.versions["alice"]))
        finally:
            store.close()
        seen["withdrawn"] = await contest.until_ended("alice", long.challenge.id)

    contest = run_contest(tmp_path, scenario, {"alice": None, "bob": CRASHES, "carol": None}, QUICK)
    crashing = seen["crashing"]
    assert crashing.outcome == pb.CHALLENGE_OUTCOME_UNDECIDED, crashing
    assert "could not be kept running" in crashing.reason, crashing.reason
    withdrawn = seen["withdrawn"]
    assert withdrawn.outcome == pb.CHALLENGE_OUTCOME_UNDECIDED, withdrawn
    assert "your version" in withdrawn.reason and "withdrawn" in withdrawn.reason, withdrawn
    assert withdrawn.match_ids  # what it played is kept
    verified(contest.folder / "contest.db")
