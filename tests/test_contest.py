"""The contest server for real: TLS with a test CA, accounts and tokens in SQLite, bots as
processes that connect like remote ones, reconnects, spectators, limits and graceful shutdown."""

from __future__ import annotations

import logging
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
import trio
from grpc_health.v1 import health_pb2

from croupier.v1 import common_pb2, referee_pb2, referee_pb2_grpc
from referee import transport
from referee.contest import serving
from referee.contest.config import ServeConfig
from referee.contest.serving import RECORD_FAILURE_PAUSE_SECONDS, serve_matches
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.verify import standings_of, verify_ladder
from referee.match.clock import TimeControl
from referee.match.records import read_all
from referee.match.replay import verify
from referee.match.runner import MatchOutcome
from referee.results.database import Finished, Store
from referee.transport import ServerSettings
from tests.tls_helpers import make_ca_and_server_cert

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BAD = str(ROOT / "tests" / "bots" / "misbehaving.py")
RANDOM = str(ROOT / "examples" / "python" / "random_bot.py")
XIX = get_game("xix")


@dataclass
class Served:
    """`croupier serve` as a process, two bot processes playing there, and each bot's
    MATCHES_LOG (see tests/bots/misbehaving.py)."""

    serve: subprocess.Popen[bytes]
    bots: list[subprocess.Popen[bytes]]
    logs: list[Path]

    def stop(self, stop: signal.Signals) -> str:
        """Stop the referee with `stop` (it exits 0); its log, once the bots exited too."""
        self.serve.send_signal(stop)
        logs = self.serve.communicate(timeout=60)[1].decode()
        assert self.serve.returncode == 0, logs
        for bot in self.bots:
            bot.wait(timeout=30)
        return logs


@dataclass
class Contest:
    """A referee served in-process, with helpers to run bot processes against it."""

    folder: Path
    port: int = 0
    outcomes: list[MatchOutcome] = field(default_factory=list)
    ca_file: Path | None = None

    def env(self, token: str, **extra: str) -> dict[str, str]:
        env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{self.port}", "CROUPIER_TOKEN": token}
        if self.ca_file is not None:
            env["CROUPIER_CA_FILE"] = str(self.ca_file)
        return env | extra

    async def bot(
        self, script: str, token: str, *args: str, **extra: str
    ) -> subprocess.CompletedProcess[bytes]:
        log = self.folder / f"bot-{token[:8]}-{len(list(self.folder.glob('bot-*')))}.log"
        with log.open("wb") as out:
            result = await trio.run_process(
                [PYTHON, script, *args],
                env=self.env(token, **extra),
                stdout=out,
                stderr=out,
                check=False,
            )
        result.stderr = log.read_bytes()
        return result


def run_contest(
    tmp_path: Path,
    scenario: Callable[[Contest, trio.Event], Awaitable[None]],
    *,
    tls: bool = False,
    **overrides: object,
) -> Contest:
    """Serve a XIX contest and run `scenario` against it; returns when the referee stopped."""
    contest = Contest(tmp_path)
    settings = ServerSettings()
    if tls:
        ca, cert, key = make_ca_and_server_cert(tmp_path)
        contest.ca_file = ca
        settings = ServerSettings(tls_cert=cert, tls_key=key)
    if "settings" in overrides:
        settings = overrides.pop("settings")  # type: ignore[assignment]
    config = ServeConfig(
        game=XIX,
        options=parse_options(XIX, {}),
        settings=settings,
        tokens=overrides.pop("tokens", tmp_path / "contest.db"),  # type: ignore[arg-type]
        records=tmp_path / "records",
        time_control=TimeControl(move_ms=5000, bank_ms=0),
        drain_seconds=5,
        **overrides,  # type: ignore[arg-type]
    )

    async def main() -> None:
        stop = trio.Event()
        listening = trio.Event()

        def on_listening(port: int) -> None:
            contest.port = port
            listening.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_matches, config, on_listening, contest.outcomes.append, stop)
            await listening.wait()
            with trio.fail_after(90):
                await scenario(contest, stop)
            stop.set()

    transport.run(main)
    return contest


def accounts(tmp_path: Path, *names: str) -> dict[str, str]:
    store = TokenStore(tmp_path / "contest.db")
    return {name: store.add(name) for name in names}


def test_tls_and_tokens(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob", "carol")
    TokenStore(tmp_path / "contest.db").revoke("carol")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for name in ("alice", "bob"):
                nursery.start_soon(contest.bot, RANDOM, tokens[name])
            refused = [
                await contest.bot(RANDOM, "wrong-token"),
                await contest.bot(RANDOM, tokens["carol"]),
            ]
            for result in refused:
                assert result.returncode == 1
                assert b"UNAUTHENTICATED" in result.stderr
            # A revoked account's token is told so; an unknown one is not.
            assert b"token revoked: the account 'carol'" in refused[1].stderr
            assert b"revoked" not in refused[0].stderr
            missing = await contest.bot(RANDOM, "")
            assert b"no token given" in missing.stderr
            plain = await contest.bot(RANDOM, tokens["alice"], CROUPIER_CA_FILE="")
            assert plain.returncode == 1  # plaintext against a TLS server
            while len(contest.outcomes) < 2:
                await trio.sleep(0.05)
            stop.set()

    contest = run_contest(tmp_path, scenario, tls=True)
    assert len(contest.outcomes) >= 2
    for outcome in contest.outcomes:
        # Under accounts, the account names the seat; the bot's Hello.name stands beside it.
        assert {seat.name for seat in outcome.result.seats} == {"alice (random)", "bob (random)"}
        assert outcome.record_path is not None
        assert verify(outcome.record_path).ok


def test_a_revoked_token_is_cut_off_mid_match(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, RANDOM, tokens["alice"])
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "slow_good")
            while not list((tmp_path / "records").glob("*.jsonl")):
                await trio.sleep(0.02)  # a match is under way: bob takes 20 ms a decision
            TokenStore(tmp_path / "contest.db").revoke("bob")
            while not contest.outcomes:
                await trio.sleep(0.05)
            stop.set()

    contest = run_contest(tmp_path, scenario)
    outcome = contest.outcomes[0]
    bob = next(s for s in outcome.result.seats if s.name == "bob (bad-slow_good)")
    assert bob.retired
    reasons = {f.reason for f in outcome.faults if f.seat == bob.seat}
    assert reasons == {common_pb2.FAULT_REASON_DISCONNECTED}
    assert outcome.record_path is not None
    assert verify(outcome.record_path).ok
    assert "token revoked" in outcome.record_path.read_text()


@pytest.mark.parametrize(
    ("mode", "grace", "reason"),
    [
        ("other_match", 5.0, common_pb2.FAULT_REASON_WRONG_REQUEST),
        ("reconnect", 5.0, None),
        ("reconnect_late", 1.0, common_pb2.FAULT_REASON_DISCONNECTED),
    ],
)
def test_bots_cannot_act_for_others_and_may_reconnect_within_the_grace(
    tmp_path: Path, mode: str, grace: float, reason: int | None
) -> None:
    tokens = accounts(tmp_path, "good", "odd")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["good"], "good")
            nursery.start_soon(contest.bot, BAD, tokens["odd"], mode)
            while not contest.outcomes:
                await trio.sleep(0.05)
            stop.set()

    contest = run_contest(tmp_path, scenario, matches=1, reconnect_grace=grace)
    outcome = contest.outcomes[0]
    odd = next(s for s in outcome.result.seats if s.name == f"odd (bad-{mode})")
    good = 1 - odd.seat
    assert not [f for f in outcome.faults if f.seat == good]
    if reason is None:
        assert outcome.faults == ()  # came back in time and answered the re-sent request
        assert outcome.result.termination == common_pb2.TERMINATION_NORMAL
    else:
        assert reason in {f.reason for f in outcome.faults if f.seat == odd.seat}
    assert outcome.record_path is not None
    assert verify(outcome.record_path).ok


def test_spectators_see_every_public_event_and_nothing_else(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")
    watched: list[referee_pb2.WatchMessage] = []

    async def spectate(port: int) -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            while not (listing := await stub.ListMatches(referee_pb2.ListMatchesRequest())).matches:
                await trio_sleep_on_asyncio(0.02)
            async for message in stub.Watch(
                referee_pb2.WatchRequest(match_id=listing.matches[0].match_id)
            ):
                watched.append(message)

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["alice"], "slow_good")
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "slow_good")
            await transport.host.call_asyncio(spectate(contest.port))

    contest = run_contest(tmp_path, scenario, matches=1)
    assert watched[0].WhichOneof("kind") == "match_start"
    assert watched[-1].WhichOneof("kind") == "match_end"
    record_path = contest.outcomes[0].record_path
    assert record_path is not None
    records, _ = read_all(record_path, strict=True)
    public = [r.event.event for r in records if r.WhichOneof("line") == "event" and r.event.public]
    seen = [m.event.event for m in watched if m.WhichOneof("kind") == "event"]
    assert seen == public  # all of the public events, in order, and no private one
    assert any(r.WhichOneof("line") == "event" and not r.event.public for r in records)


async def trio_sleep_on_asyncio(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def test_fifty_bots_then_a_graceful_shutdown(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, *(f"bot{i:02d}" for i in range(50)))
    token_file = tmp_path / "tokens.txt"
    token_file.write_text("\n".join(tokens.values()))

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                contest.bot,
                str(ROOT / "tests" / "bots" / "many_bots.py"),
                "unused",
                str(token_file),
            )
            while len(contest.outcomes) < 60:
                await trio.sleep(0.05)
            stop.set()  # as SIGTERM does: drain, end every session; the bots then exit

    contest = run_contest(tmp_path, scenario)
    records = sorted((tmp_path / "records").glob("*.jsonl"))
    assert len(records) >= 60
    for record in records:
        assert verify(record).ok, record
    finished = [
        o for o in contest.outcomes if o.result.termination == common_pb2.TERMINATION_NORMAL
    ]
    assert len(finished) >= 60
    firsts = sum(seat.rank == 1 for o in finished for seat in o.result.seats)
    assert firsts == len(finished)  # one winner a XIX match
    players = {s.name for o in finished for s in o.result.seats}
    assert players <= {f"{name} (random)" for name in tokens}  # every one an account's
    # The contest's standings and history live in the ladder database: they add up.
    committed = [
        o for o in contest.outcomes if o.result.termination != common_pb2.TERMINATION_ABORTED
    ]
    standings = standings_of(tmp_path / "contest.db")
    assert {row.bot for row in standings.rows} <= set(tokens)
    assert sum(row.matches for row in standings.rows) == 2 * len(committed)
    wins = sum(row.score * row.matches for row in standings.rows if row.score is not None)
    assert round(wins) == len(committed)  # one win a match (XIX has no draws)
    check = verify_ladder(tmp_path / "contest.db")
    assert check.ok, check.problems
    assert check.matches == len(committed)


@pytest.mark.parametrize(
    ("mode", "limit"),
    [("flood", "rate limit"), ("huge", "RESOURCE_EXHAUSTED")],
)
def test_limits_give_a_status_and_the_match_goes_on(tmp_path: Path, mode: str, limit: str) -> None:
    tokens = accounts(tmp_path, "good", "bad")
    results: list[subprocess.CompletedProcess[bytes]] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["good"], "slow_good")
            results.append(await contest.bot(BAD, tokens["bad"], mode))
            while not contest.outcomes:
                await trio.sleep(0.05)
            # Only now does the referee stop: had the match's end stopped it (`matches=1`), its
            # shutdown could reach the bad bot before the status that ended its stream.
            stop.set()

    settings = ServerSettings(max_messages_per_second=200, message_burst=50)
    contest = run_contest(tmp_path, scenario, reconnect_grace=0.0, settings=settings)
    assert limit.encode() in results[0].stderr
    outcome = contest.outcomes[0]
    assert outcome.record_path is not None
    assert verify(outcome.record_path).ok
    assert outcome.result.termination == common_pb2.TERMINATION_RETIRED


def test_session_and_match_limits(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        # Alone, bob's sessions wait for an opponent: the third is over the limit.
        three = await contest.bot(RANDOM, tokens["bob"], CROUPIER_SESSIONS="3")
        assert b"session limit: at most 2 open sessions per token" in three.stderr
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, RANDOM, tokens["alice"])
            one = await contest.bot(RANDOM, tokens["bob"])
            assert b"match limit: 1 matches per session" in one.stderr
            stop.set()

    settings = ServerSettings(max_sessions_per_token=2)
    run_contest(
        tmp_path, scenario, settings=settings, max_matches_per_session=1, reconnect_grace=0.0
    )


def test_sigterm_drains_then_exits(tmp_path: Path) -> None:
    """`croupier serve` as a process: SIGTERM turns health to NOT_SERVING, lets the running
    match finish, closes every record and exits 0."""
    tokens = accounts(tmp_path, "alice", "bob")
    serve = subprocess.Popen(
        [
            str(Path(PYTHON).parent / "croupier"),
            "serve",
            "--port",
            "0",
            "--db",
            str(tmp_path / "contest.db"),
            "--records",
            str(tmp_path / "records"),
            "--drain-seconds",
            "20",
            "--log-json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert serve.stdout is not None
    assert serve.stdout.readline().startswith(b"master seed sha256: ")  # the contest's
    port = int(serve.stdout.readline().split(b"127.0.0.1:")[1].split()[0])
    env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
    bots = [
        subprocess.Popen(
            [PYTHON, BAD, "slow_good"],
            env=env | {"CROUPIER_TOKEN": token},
            stderr=subprocess.DEVNULL,
        )
        for token in tokens.values()
    ]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        while not stub.ListMatches(referee_pb2.ListMatchesRequest()).matches:
            time.sleep(0.02)
        serve.send_signal(signal.SIGTERM)
        check = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        for _ in range(500):
            status = check(health_pb2.HealthCheckRequest(service=""))
            if status.status == health_pb2.HealthCheckResponse.NOT_SERVING:
                break
            time.sleep(0.01)
        assert status.status == health_pb2.HealthCheckResponse.NOT_SERVING
    assert serve.wait(timeout=60) == 0
    for bot in bots:
        assert bot.wait(timeout=30) == 0
    records = sorted((tmp_path / "records").glob("*.jsonl"))
    assert records
    for record in records:
        assert verify(record).ok
        last = read_all(record, strict=True)[0][-1]
        assert last.WhichOneof("line") == "result"
    assert serve.stderr is not None
    logs = serve.stderr.read()
    serve.stdout.close()
    serve.stderr.close()
    assert b'"event": "session opened"' in logs
    assert b'"event": "draining"' in logs


def test_without_accounts_two_copies_of_one_bot_are_paired(tmp_path: Path) -> None:
    """No --db: every token is anyone's, so two sessions sharing a token make a table."""

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for _ in range(2):
                nursery.start_soon(contest.bot, RANDOM, "one-token")

    contest = run_contest(tmp_path, scenario, tokens=None, matches=2)
    assert len(contest.outcomes) == 2
    for outcome in contest.outcomes:
        assert outcome.faults == ()
        assert outcome.record_path is not None and verify(outcome.record_path).ok


@pytest.mark.parametrize(
    ("metadata", "hello", "code", "detail"),
    [
        ((), referee_pb2.Hello(name="x"), "UNAUTHENTICATED", "missing or unknown token"),
        (
            (("authorization", "Bearer t"),),
            referee_pb2.Hello(name="x", games=["xeri"]),
            "FAILED_PRECONDITION",
            "the bot plays only ['xeri']; this referee runs ['xix']",
        ),
        (
            (("authorization", "Bearer t"),),
            referee_pb2.Hello(name="x", protocol_version=3),
            "FAILED_PRECONDITION",
            "protocol version 3 is not supported: this referee speaks 1, 2",
        ),
        (
            (("authorization", "Bearer t"),),
            referee_pb2.Hello(name="x", games=["xeri", "xix"], protocol_version=1),
            "OK",
            "welcome",
        ),
        (
            (("authorization", "Bearer t"),),
            referee_pb2.Hello(name="x", games=["xix"], protocol_version=2),
            "OK",
            "welcome",
        ),
    ],
)
def test_serve_without_accounts_checks_token_games_and_protocol_at_hello(
    tmp_path: Path,
    metadata: tuple[tuple[str, str], ...],
    hello: referee_pb2.Hello,
    code: str,
    detail: str,
) -> None:
    seen: list[tuple[str, str]] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async def client() -> tuple[str, str]:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{contest.port}") as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play(metadata=metadata)
                try:
                    await call.write(referee_pb2.BotMessage(hello=hello))
                    first = await call.read()
                except grpc.aio.AioRpcError as error:
                    return error.code().name, error.details() or ""
                assert isinstance(first, referee_pb2.RefereeMessage)
                # the version in force: the one declared (issue 24.0)
                assert first.welcome.protocol_version == hello.protocol_version
                call.cancel()
                return "OK", first.WhichOneof("kind") or ""

        seen.append(await transport.host.call_asyncio(client()))

    run_contest(tmp_path, scenario, tokens=None)
    assert seen[0][0] == code
    assert detail in seen[0][1]


def test_a_contests_matches_are_a_total_and_it_is_finished_only_at_its_end(
    tmp_path: Path,
) -> None:
    """Issue 24.3: a contest stopped halfway is not finished, and run again with the same
    `matches` it plays what is left of that total, not that many more; then it is finished."""
    tokens = accounts(tmp_path, "alice", "bob")
    database = tmp_path / "contest.db"

    def scenario_until(count: int | None) -> Callable[[Contest, trio.Event], Awaitable[None]]:
        async def scenario(contest: Contest, stop: trio.Event) -> None:
            async def stop_after() -> None:
                while count is not None and len(contest.outcomes) < count:
                    await trio.sleep(0.05)
                if count is not None:
                    stop.set()

            async with trio.open_nursery() as nursery:
                for token in tokens.values():
                    nursery.start_soon(contest.bot, RANDOM, token)
                nursery.start_soon(stop_after)

        return scenario

    run_contest(tmp_path, scenario_until(2), matches=6)
    first = standings_of(database)
    assert not first.finished
    done = len(Store(database, create=False).committed())
    assert 2 <= done < 6
    second = run_contest(tmp_path, scenario_until(None), matches=6)
    assert len(second.outcomes) == 6 - done
    assert len(Store(database, create=False).committed()) == 6
    assert standings_of(database).finished


def test_a_contest_s_record_is_on_disk_before_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43.2: a contest hashed its record and committed the row without flushing the record,
    so after a power cut a row could name bytes that never reached the disk. Each record and
    then its folder are flushed before its row is written: the order of the calls is watched
    (the OS's and SQLite's own, not ours)."""
    calls: list[tuple[str, str]] = []
    fsync = os.fsync
    records = tmp_path / "records"

    def watched_fsync(fd: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def watched_commit(store: Store, finished: Finished) -> None:
        calls.append(("row", str(finished.record.resolve())))
        commit(store, finished)

    commit = Store.commit
    monkeypatch.setattr(os, "fsync", watched_fsync)
    monkeypatch.setattr(Store, "commit", watched_commit)
    tokens = accounts(tmp_path, "alice", "bob")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for token in tokens.values():
                nursery.start_soon(contest.bot, RANDOM, token)

    run_contest(tmp_path, scenario, matches=2)
    rows = [where for what, where in calls if what == "row"]
    assert len(rows) == 2
    for record in rows:
        flushed = calls.index(("fsync", record))
        folder = calls.index(("fsync", str(records.resolve())), flushed)
        assert flushed < folder < calls.index(("row", record))


def _open_files(pid: int) -> tuple[int, int]:
    """The soft and hard limits of open files of process `pid`, from /proc."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError(f"no open files limit for process {pid!r}")


@pytest.mark.skipif(not Path("/proc/self/limits").is_file(), reason="reads /proc")
def test_serve_raises_its_open_files_limit_to_the_hard_one(tmp_path: Path) -> None:
    """A referee holds a file per match (issue 29.3: at the 1,024 open files many systems set,
    `serve` stopped at 957 matches at once): it raises its soft limit to the hard one, and warns
    when that is still few."""
    accounts(tmp_path, "alice")

    def few() -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    command = [str(Path(PYTHON).parent / "croupier"), "serve", "--port", "0", "--log-json"]
    serve = subprocess.Popen(
        [*command, "--db", str(tmp_path / "contest.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=few,
        cwd=ROOT,
    )
    assert serve.stdout is not None and serve.stderr is not None
    try:
        assert serve.stdout.readline().startswith(b"master seed sha256: ")
        assert b"127.0.0.1:" in serve.stdout.readline()  # listening: the limit was raised
        soft, hard = _open_files(serve.pid)
        assert soft == hard, (soft, hard)
    finally:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=30) == 0
    logs = serve.stderr.read()
    serve.stdout.close()
    serve.stderr.close()
    assert (b"few open files allowed" in logs) == (hard < serving.FEW_OPEN_FILES), logs


def test_a_record_that_cannot_be_written_gives_up_its_table_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table whose record cannot be opened (here a file already there; a full disk or no file
    descriptor left go the same way) is given up alone: the serve plays on, its bots sit at the
    next table, and what is committed verifies. It once ended the whole serve."""
    caplog.set_level(logging.INFO, logger="croupier.referee")
    tokens = accounts(tmp_path, "alice", "bob")
    records = tmp_path / "records"
    records.mkdir()
    (records / "contest-00001.jsonl").write_text("not ours\n")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for token in tokens.values():
                nursery.start_soon(contest.bot, RANDOM, token)

    contest = run_contest(tmp_path, scenario, matches=3)
    given_up = [r for r in caplog.records if r.getMessage() == "match given up"]
    assert [getattr(r, "match", None) for r in given_up] == ["contest-00001"]
    assert "File exists" in getattr(given_up[0], "why", "")
    # No table sits down for a second after, though its bots were back at once.
    started = [r for r in caplog.records if r.getMessage() == "match started"]
    assert [getattr(r, "match", None) for r in started[1:2]] == ["contest-00002"]
    assert started[1].created - given_up[0].created >= RECORD_FAILURE_PAUSE_SECONDS * 0.99
    assert [o.match_id for o in contest.outcomes] == ["contest-00002", "contest-00003"]
    assert (records / "contest-00001.jsonl").read_text() == "not ours\n"
    check = verify_ladder(tmp_path / "contest.db")
    assert check.ok, check.problems
    assert len(Store(tmp_path / "contest.db", create=False).committed()) == 2


#: The largest file the referee may write in the test below: its record's header fits, the
#: record of a whole XIX match (about 20 KB) does not.
RECORD_LIMIT_BYTES = 4096


def serve_and_play(
    tmp_path: Path, bot_mode: str, *options: str, limit: Callable[[], None] | None = None
) -> Served:
    """`croupier serve` as a process (any token, records in tmp_path/records, `limit` run in
    it before it starts) and two misbehaving.py bots in `bot_mode`, each noting the matches
    it is told of in its own MATCHES_LOG."""
    serve = subprocess.Popen(
        [
            *(str(Path(PYTHON).parent / "croupier"), "serve", "--port", "0", "--log-json"),
            *("--records", str(tmp_path / "records"), *options),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
        cwd=ROOT,
    )
    assert serve.stdout is not None
    serve.stdout.readline()  # the master seed's SHA-256
    port = int(serve.stdout.readline().split(b"127.0.0.1:")[1].split()[0])
    served = Served(serve, [], [tmp_path / f"bot{seat}.matches" for seat in range(2)])
    for seat, log in enumerate(served.logs):
        env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
        mine = {"CROUPIER_TOKEN": f"token-{seat}", "MATCHES_LOG": str(log)}
        with log.with_suffix(".err").open("wb") as err:
            bot = subprocess.Popen([PYTHON, BAD, bot_mode], env=env | mine, stderr=err)
        served.bots.append(bot)
    return served


def lines_once(log: Path, count: int) -> list[str]:
    """The first `count` lines of a bot's MATCHES_LOG, once it has that many (30 s at most)."""
    for _ in range(3000):
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= count:
            return lines[:count]
        time.sleep(0.01)
    raise AssertionError(f"{log.name!r} has {lines!r}, not {count} lines, after 30 s")


def test_bots_are_told_the_end_of_a_match_whose_record_fails_mid_match(tmp_path: Path) -> None:
    """A record that fails mid-match (here the referee's file size limit, EFBIG: a full disk
    goes the same way) gives up its table, and the bots get a MatchEnd that says aborted
    before they sit down at the next table. They had been left in a match that never ended."""

    def small_files() -> None:  # SIGXFSZ is ignored by Python: the write fails with EFBIG
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.setrlimit(resource.RLIMIT_FSIZE, (RECORD_LIMIT_BYTES, hard))

    served = serve_and_play(tmp_path, "good", limit=small_files)
    try:
        told = [lines_once(log, 2) for log in served.logs]
    finally:
        output = served.stop(signal.SIGTERM)
    match_id = told[0][0].removeprefix("start ")
    assert told == [[f"start {match_id}", f"end {match_id} TERMINATION_ABORTED"]] * 2, output
    assert [bot.returncode for bot in served.bots] == [0, 0]  # each said Goodbye as it left
    assert '"event": "match given up"' in output and "File too large" in output
    record = tmp_path / "records" / f"{match_id}.jsonl"
    assert record.stat().st_size <= RECORD_LIMIT_BYTES
    assert len(record.read_text().splitlines()) > 1  # its header and more: cut mid-match


def test_bots_are_told_the_end_of_a_match_a_stopping_referee_aborts(tmp_path: Path) -> None:
    """Ctrl-C with no time to drain aborts the running match: its bots still get a MatchEnd
    that says aborted (sent shielded from the shutdown's cancellation), then Goodbye, both of
    them. The bot to move is writing its reply meanwhile: the referee leaves each stream open
    until the bot closes its side (half a second at most), since a call ended under a write
    fails it, and the bot's gRPC client then drops what it had not read."""
    served = serve_and_play(tmp_path, "slow_good", "--drain-seconds", "0")
    try:
        started = [lines_once(log, 1) for log in served.logs]
    finally:
        served.stop(signal.SIGINT)
    match_id = started[0][0].removeprefix("start ")
    told = [log.read_text().splitlines() for log in served.logs]
    ended = [f"start {match_id}", f"end {match_id} TERMINATION_ABORTED"]
    assert told == [ended, ended], told
    record = read_all(tmp_path / "records" / f"{match_id}.jsonl", strict=True)[0]
    assert record[-1].result.result.termination == common_pb2.TERMINATION_ABORTED
