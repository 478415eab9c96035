"""A hostile token holder against `croupier serve` run as a process (issue 20): a flood costs the
referee no memory, the account names every seat, a lost bot's fault names what happened first,
no token reaches a log, record or page, and streams without Hello are logged, rate-limited."""

from __future__ import annotations

import gc
import json
import logging
import os
import secrets
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import trio

from croupier.v1 import common_pb2, referee_pb2, referee_pb2_grpc
from referee.contest.tokens import TokenStore
from referee.match.lobby import Lobby
from referee.match.records import read_all
from referee.match.replay import verify
from referee.match.session import Backlog, Closed, Session
from referee.match.wire import WireRequest
from referee.transport import ServerSettings
from tests.pipes import drain
from tests.test_contest import Contest, run_contest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CROUPIER = str(Path(PYTHON).parent / "croupier")
HOSTILE = str(ROOT / "tests" / "bots" / "hostile.py")
BAD = str(ROOT / "tests" / "bots" / "misbehaving.py")
RANDOM = str(ROOT / "examples" / "python" / "random_bot.py")


@dataclass
class Referee:
    """A `croupier serve --log-json` process, and the bot processes run against it."""

    folder: Path
    process: subprocess.Popen[bytes]
    port: int
    bots: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _done: set[Path] = field(default_factory=set)

    @property
    def records(self) -> Path:
        return self.folder / "records"

    def bot(self, script: str, token: str, *args: str, **env: str) -> subprocess.Popen[bytes]:
        log = self.folder / f"bot-{len(self.bots)}.log"
        with log.open("wb") as out:
            bot = subprocess.Popen(
                [PYTHON, script, *args],
                env={**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{self.port}"}
                | {"CROUPIER_TOKEN": token}
                | env,
                stdout=subprocess.DEVNULL,
                stderr=out,
            )
        self.bots.append(bot)
        return bot

    def rss_kb(self, field_name: str = "VmRSS") -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(f"{field_name}:"):
                return int(line.split()[1])
        raise AssertionError(f"no {field_name} for the referee")

    def finished(self) -> list[Path]:
        """Records with a result line (matches over)."""
        for path in set(self.records.glob("*.jsonl")) - self._done:
            records, _ = read_all(path, strict=False)
            if records and records[-1].WhichOneof("line") == "result":
                self._done.add(path)
        return sorted(self._done)

    def wait_for(self, matches: int, timeout: float = 60) -> list[Path]:
        deadline = time.monotonic() + timeout
        while len(done := self.finished()) < matches:
            assert self.process.poll() is None, "the referee exited"
            assert time.monotonic() < deadline, f"{len(done)} of {matches} matches in {timeout} s"
            time.sleep(0.1)
        return done

    def logs(self) -> list[dict[str, Any]]:
        lines = (self.folder / "serve.log").read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]


@contextmanager
def referee(folder: Path, *args: str, db: bool = True) -> Iterator[Referee]:
    """Serve XIX on a free loopback port; on leaving, SIGTERM, then every bot is seen out."""
    command = [CROUPIER, "serve", "--port", "0", "--records", str(folder / "records")]
    command += ["--db", str(folder / "contest.db")] if db else []
    command += ["--log-json", "--drain-seconds", "5", *args]
    with (folder / "serve.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, cwd=ROOT)
    assert process.stdout is not None
    line = b""
    while b"127.0.0.1:" not in line:  # after the master seed's SHA-256
        line = process.stdout.readline()
        assert line, "the referee said nothing"
    port = int(line.split(b"127.0.0.1:")[1].split()[0])
    drain(process.stdout)
    serving = Referee(folder, process, port)
    try:
        yield serving
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=60) == 0
        finally:
            process.kill()
            for bot in serving.bots:
                try:
                    bot.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    bot.kill()
                    bot.wait()


def accounts(folder: Path, *names: str) -> dict[str, str]:
    store = TokenStore(folder / "contest.db")
    return {name: store.add(name) for name in names}


def seat_faults(paths: list[Path]) -> dict[str, list[common_pb2.Fault]]:
    """Every fault in the records, by the name of the seat it was recorded against."""
    faults: dict[str, list[common_pb2.Fault]] = {}
    for path in paths:
        records, _ = read_all(path, strict=True)
        names = [seat.name for seat in records[0].header.seats]
        for name in names:
            faults.setdefault(name, [])
        for record in records:
            if record.WhichOneof("line") == "fault":
                faults[names[record.fault.fault.seat]].append(record.fault.fault)
    return faults


def test_a_flood_costs_no_memory_and_honest_matches_go_on(tmp_path: Path) -> None:
    """60 KB messages at 400 a second for 10 s, never asked for: the referee's RSS stays within
    a few MB of where it started (it grew by 176 MB in 8 s when they were all queued).

    What it does grow by is the transport's own: the Python heap stays flat (tracemalloc), and
    malloc_trim gives none of it back. It levels off at 8-10 MB within about 15 s of flooding
    and stays there (a 90 s flood: 8.2 MB at 16 s, 9.4 MB at 60 s, while honest matches add
    about 1 MB a minute), and reaches 5-7 MB in these 10 s, 9 MB on a busy CI machine. An
    unbounded queue would pass 16 MB within the first second.
    """
    tokens = accounts(tmp_path, "alice", "bob", "mallory")
    go = tmp_path / "go"
    with referee(tmp_path) as serving:
        serving.bot(RANDOM, tokens["alice"])
        serving.bot(RANDOM, tokens["bob"])
        flooder = serving.bot(HOSTILE, tokens["mallory"], "flood", HOSTILE_GO=str(go))
        before = len(serving.wait_for(5))  # warmed up: honest matches under way
        start = serving.rss_kb()
        go.touch()
        peak = start
        while flooder.poll() is None:
            peak = max(peak, serving.rss_kb())
            time.sleep(0.2)
        after = serving.rss_kb()
        done = serving.wait_for(before + 5)
    flood_log = (tmp_path / "bot-2.log").read_text()
    assert int(flood_log.split("sent ")[1].split()[0]) >= 3000, flood_log  # 4000 at full speed
    print(f"referee RSS: {start} kB before, peak {peak} kB, {after} kB after the flood")
    assert peak - start < 16 * 1024, (start, peak)
    assert after - start < 16 * 1024, (start, after)
    faults = seat_faults(done)
    honest = {name: f for name, f in faults.items() if not name.startswith("mallory")}
    assert honest and not any(honest.values()), honest
    for path in done:
        assert verify(path).ok, path
    dropped = [line for line in serving.logs() if line["event"] == "messages dropped"]
    assert dropped and {line["bot"] for line in dropped} == {"mallory"}


def test_the_account_names_the_seat_everywhere_not_the_bots_own_name(tmp_path: Path) -> None:
    """An impostor saying Hello as "honest0": opponents, spectators, records and the fault lines
    of the JSON log all show its account, its own name only beside it."""
    tokens = accounts(tmp_path, "honest0", "impostor")
    with referee(tmp_path) as serving:
        serving.bot(RANDOM, tokens["honest0"])
        serving.bot(HOSTILE, tokens["impostor"], "impostor", HOSTILE_NAME="honest0")
        with grpc.insecure_channel(f"127.0.0.1:{serving.port}") as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            while not (listing := stub.ListMatches(referee_pb2.ListMatchesRequest())).matches:
                time.sleep(0.02)
            watch = stub.Watch(referee_pb2.WatchRequest(match_id=listing.matches[0].match_id))
            watched = next(iter(watch))
            watch.cancel()
        done = serving.wait_for(2)
    expected = {"honest0 (random)", "impostor (honest0)"}
    assert set(watched.match_start.seat_names) == expected
    assert set(listing.matches[0].seat_names) == expected
    for path in done:
        records, _ = read_all(path, strict=True)
        assert {seat.name for seat in records[0].header.seats} == expected
        assert {seat.name for seat in records[-1].result.result.seats} == expected
    faults = seat_faults(done)
    assert faults["impostor (honest0)"] and not faults["honest0 (random)"]
    logs = serving.logs()
    blamed = {line["bot"] for line in logs if line["event"] == "fault"}
    assert blamed == {"impostor (honest0)"}
    opened = {(line["bot"], line["bot_name"]) for line in logs if line["event"] == "session opened"}
    assert opened == {("honest0", "random"), ("impostor", "honest0")}


def test_twice_two_places_and_slowloris_cost_honest_bots_nothing(tmp_path: Path) -> None:
    """Issue 32.1's last kinds: a bot that sends every reply twice (out of turn), one account on
    two connections that sends each reply on both (another match's ids), and raw connections
    that never finish the HTTP/2 preface. Each is faulted in its own name; honest bots are not,
    and the referee keeps serving."""
    tokens = accounts(tmp_path, "alice", "carol", "twice", "twin", "loris")
    with referee(tmp_path) as serving:
        serving.bot(HOSTILE, tokens["loris"], "slowloris", HOSTILE_STREAMS="30")
        serving.bot(RANDOM, tokens["alice"])
        serving.bot(RANDOM, tokens["carol"])
        serving.bot(HOSTILE, tokens["twice"], "twice")
        serving.bot(HOSTILE, tokens["twin"], "two_places")
        done = serving.wait_for(8, timeout=120)
    faults = seat_faults(done)
    honest = {name: f for name, f in faults.items() if name.split(" (")[0] in {"alice", "carol"}}
    assert honest and not any(honest.values()), honest
    twice = [fault for name, f in faults.items() if name.startswith("twice") for fault in f]
    assert common_pb2.FAULT_REASON_OUT_OF_TURN in {fault.reason for fault in twice}, faults
    twin = [fault for name, f in faults.items() if name.startswith("twin") for fault in f]
    assert twin, faults  # replies to the other connection's match land as faults of its own


def first_loss(faults: list[common_pb2.Fault]) -> list[common_pb2.FaultReason]:
    """The reasons from the first crash or disconnect on: what was recorded once a bot was lost."""
    lost = {common_pb2.FAULT_REASON_DISCONNECTED, common_pb2.FAULT_REASON_CRASHED}
    reasons = [fault.reason for fault in faults]
    first = next((i for i, reason in enumerate(reasons) if reason in lost), len(reasons))
    return reasons[first:]


def test_a_dropped_connection_is_a_disconnect_though_the_clock_is_shorter_than_the_grace(
    tmp_path: Path,
) -> None:
    """With 100 ms a move and 10 s to reconnect, the clock runs out while the seat waits for its
    bot: the fault is what happened first, `disconnected`, never `timeout`."""
    tokens = accounts(tmp_path, "alice", "bob")
    with referee(tmp_path, "--move-ms", "100", "--bank-ms", "0") as serving:
        serving.bot(RANDOM, tokens["alice"])
        serving.bot(HOSTILE, tokens["bob"], "drop", HOSTILE_SECONDS="3")
        done = serving.wait_for(1)
    bob = next(f for name, f in seat_faults(done).items() if "drop" in name)
    lost = first_loss(bob)  # (a busy machine may make bob time out before it drops)
    assert lost and set(lost) == {common_pb2.FAULT_REASON_DISCONNECTED}, bob


def test_a_revoked_token_is_a_disconnect_though_the_clock_is_shorter_than_the_grace(
    tmp_path: Path,
) -> None:
    tokens = accounts(tmp_path, "alice", "bob")
    with referee(tmp_path, "--move-ms", "100", "--bank-ms", "0") as serving:
        serving.bot(RANDOM, tokens["alice"])
        serving.bot(HOSTILE, tokens["bob"], "slow", HOSTILE_SECONDS="0.04")
        while not list(serving.records.glob("*.jsonl")):
            time.sleep(0.01)
        TokenStore(tmp_path / "contest.db").revoke("bob")  # mid-match: bob takes 40 ms a move
        done = serving.wait_for(1)
    bob = next(f for name, f in seat_faults(done).items() if "slow" in name)
    lost = first_loss(bob)
    assert lost and set(lost) == {common_pb2.FAULT_REASON_DISCONNECTED}, bob
    assert all(fault.detail == "token revoked" for fault in bob[-len(lost) :])


def test_a_crashed_bot_is_a_crash_though_the_clock_is_shorter_than_the_crash_grace(
    tmp_path: Path,
) -> None:
    """`croupier match` knows its bots' processes. One that drops its stream and exits 150 ms
    later, with 100 ms a move: lost (`disconnected`) while its process lives, then `crashed`;
    never `timeout` (which every fault was when the clock cut the referee's wait short)."""
    hostile = f"{PYTHON} {HOSTILE} exit_late"
    # --no-sandbox: the sandbox would scrub HOSTILE_SECONDS from the bot's environment.
    command = [CROUPIER, "match", "xix", "--no-sandbox", "--records", str(tmp_path / "records")]
    command += ["--bot", hostile, "--bot", f"{PYTHON} {RANDOM}", "--move-ms", "100"]
    command += ["--bank-ms", "0", "--max-faults", "10"]  # faults go on past the exit
    env = os.environ | {"HOSTILE_SECONDS": "0.15"}
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT, timeout=120, env=env)
    records = sorted((tmp_path / "records").glob("*.jsonl"))
    crashed = next(f for name, f in seat_faults(records).items() if "exit_late" in name)
    reasons = first_loss(crashed)
    assert common_pb2.FAULT_REASON_CRASHED in reasons, crashed
    assert set(reasons) <= {common_pb2.FAULT_REASON_DISCONNECTED, common_pb2.FAULT_REASON_CRASHED}
    assert "bot process exited: exit code 3" in crashed[-1].detail


@pytest.mark.parametrize("db", [True, False], ids=["accounts", "any-token"])
def test_no_token_in_any_log_record_or_page(tmp_path: Path, db: bool) -> None:
    """Tokens are secrets: with accounts or without (where any token is let in, and the token
    used to name the bot), none reaches the JSON log, a record, the standings or a report page."""
    if db:
        tokens = accounts(tmp_path, "alice", "bob")
    else:
        tokens = {name: f"secret-{name}-{secrets.token_hex(8)}" for name in ("alice", "bob")}
    with referee(tmp_path, db=db) as serving:
        serving.bot(RANDOM, tokens["alice"])
        serving.bot(HOSTILE, tokens["bob"], "impostor", HOSTILE_NAME="alice")
        for mode in ("no_hello", "silent"):
            serving.bot(HOSTILE, tokens["bob"], mode).wait(timeout=30)
        serving.wait_for(3)
    files = [tmp_path / "serve.log", *serving.records.glob("*.jsonl")]
    shown = [path.read_text() for path in files]
    if db:
        html = tmp_path / "report"
        for command in (
            ["report", str(tmp_path / "contest.db"), "--html", str(html)],
            ["standings", str(tmp_path / "contest.db")],
        ):
            ran = subprocess.run([CROUPIER, "ladder", *command], capture_output=True, check=True)
            shown.append(ran.stdout.decode() + ran.stderr.decode())
        pages = [path for path in html.rglob("*") if path.is_file()]
        assert len(pages) > 3
        shown += [path.read_bytes().decode(errors="replace") for path in pages]
    for token in tokens.values():
        for text in shown:
            assert token not in text
    events = {line["event"] for line in serving.logs()}
    assert {"session opened", "match started", "fault", "no hello"} <= events, events


def test_streams_without_hello_are_logged_rate_limited(tmp_path: Path) -> None:
    """A valid token whose first message is not Hello, or streams that send nothing: logged
    with the account, address and reason, at most 5 lines a second per account (or address,
    for a bad token), however many such streams a bot opens."""
    tokens = accounts(tmp_path, "mallory", "eve")
    with referee(tmp_path) as serving:
        serving.bot(HOSTILE, tokens["mallory"], "no_hello").wait(timeout=30)
        streams = {"HOSTILE_STREAMS": "40"}
        started = time.monotonic()
        bots = [
            serving.bot(HOSTILE, tokens["eve"], "silent", **streams),
            serving.bot(HOSTILE, tokens["eve"], "no_hello", **streams),
            serving.bot(HOSTILE, "not-a-token", "silent", **streams),
        ]
        for bot in bots:
            bot.wait(timeout=30)
        seconds = time.monotonic() - started
    logs = serving.logs()
    mallory = [line for line in logs if line["event"] == "no hello" and line["bot"] == "mallory"]
    assert len(mallory) == 1
    assert mallory[0]["why"] == "the first message is action_reply, not Hello"
    assert mallory[0]["peer"].startswith("ipv4:127.0.0.1:")
    eve = [line for line in logs if line["event"] == "no hello" and line["bot"] == "eve"]
    whys = {line["why"] for line in eve}
    assert "the stream ended before its first message" in whys or len(eve) == 5
    assert 5 <= len(eve) <= 5 * (seconds + 1), (len(eve), seconds)  # of 80 streams
    refused = [line for line in logs if line["event"] == "refused"]
    assert 1 <= len(refused) <= 5 * (seconds + 1), (len(refused), seconds)  # of 40 streams
    assert all(line["why"] == "bad token" for line in refused)


def test_a_damaged_ladder_database_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A few hundred bytes overwritten in the SQLite file: `ladder verify`, `standings`, `run`
    and `report` say in one line what is damaged and how to recover, and exit 2."""
    ladder = tmp_path / "ladder.toml"
    database = tmp_path / "ladder.sqlite"
    lines = [
        'game = "xix"',
        f"root = {json.dumps(str(ROOT))}",
        f"database = {json.dumps(str(database))}",
        f"records = {json.dumps(str(tmp_path / 'records'))}",
        "matches_per_pairing = 4",
    ]
    random_bot = json.dumps("{python} examples/python/random_bot.py")
    for name in ("one", "two"):
        lines += ["[[bot]]", f'name = "{name}"', f"command = {random_bot}"]
    ladder.write_text("\n".join(lines) + "\n")
    subprocess.run([CROUPIER, "ladder", "run", str(ladder)], check=True, capture_output=True)
    size = database.stat().st_size
    assert size >= 10 * 4096
    with database.open("r+b") as damage:  # 300 bytes over the first page of each table
        for page in range(3, 9):  # schedule, matches, seats, faults: past `meta` (pages 1-3)
            damage.seek(page * 4096)
            damage.write(b"\xa5" * 300)
    commands = [
        ["verify", str(database)],
        ["standings", str(database)],
        ["run", str(ladder)],
        ["report", str(database), "--html", str(tmp_path / "report")],
    ]
    for command in commands:
        ran = subprocess.run([CROUPIER, "ladder", *command], capture_output=True, text=True)
        said = ran.stderr.strip()  # (one line: the console does not wrap it)
        assert ran.returncode == 2, (command, ran.stdout, said)
        assert "Traceback" not in said and len(said.splitlines()) == 1, said
        assert said.startswith(f"error: the ladder database {str(database)!r} is damaged ("), said
        assert ".recover" in said


async def test_what_a_bot_holds_unread_is_capped_per_session_and_per_bot() -> None:
    """Sessions of one bot share a byte cap; each holds at most 8 messages; the rest are dropped
    and counted. A closed session keeps at most the first message a seat would fault on, and
    the lobby lets it go once its pool is next read (nothing of it stays referenced)."""
    lobby = Lobby(open_access=True)
    junk = referee_pb2.BotMessage(hello=referee_pb2.Hello(name="x" * 60_000)).SerializeToString()
    backlog = Backlog(limit_bytes=5 * len(junk) + 100)
    sent: list[referee_pb2.RefereeMessage | WireRequest] = []

    def session() -> Session:
        return Session(
            identity="t",
            hello=referee_pb2.Hello(name="flood"),
            send=sent.append,
            finish=lambda _: None,
            account="flood",
            backlog=backlog,
        )

    first, second = session(), session()
    lobby.open(first)
    lobby.open(second)
    for _ in range(20):
        first.deliver(junk)
    assert first.dropped == 20 - 5 and backlog.queued_bytes == 5 * len(junk)  # bytes: 5 fit
    for _ in range(20):
        second.deliver(b"\x08")  # tiny: the count caps it
    assert second.dropped == 20 - 8
    first.close("the bot closed its stream")
    assert backlog.queued_bytes == 8  # the first session's bytes are freed at once
    assert isinstance(first.receive_nowait(), tuple)  # one kept, for its seat to fault on
    assert isinstance(first.receive_nowait(), Closed)
    gone = weakref.ref(first)
    del first
    second.close("the bot closed its stream")
    third = session()
    lobby.open(third)
    assert lobby.by_identity["t"] == [third]
    assert lobby.take_nowait("t") is third  # the closed ones waiting in the pool are let go
    gc.collect()
    assert gone() is None


def test_a_stream_that_never_says_hello_is_let_go(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stream held open with nothing sent (5 s) holds the referee for `hello_timeout` only:
    then it is ended with DEADLINE_EXCEEDED, and logged with its account."""
    tokens = accounts(tmp_path, "eve")
    results: list[subprocess.CompletedProcess[bytes]] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        results.append(await contest.bot(HOSTILE, tokens["eve"], "silent", HOSTILE_SECONDS="5"))

    settings = ServerSettings(hello_timeout_seconds=0.5)
    with caplog.at_level(logging.INFO, logger="croupier.referee"):
        run_contest(tmp_path, scenario, settings=settings)
    assert b"DEADLINE_EXCEEDED: no first message within 0.5 s" in results[0].stderr
    lines = [r for r in caplog.records if r.getMessage() == "no hello"]
    assert [(vars(r)["bot"], vars(r)["why"]) for r in lines] == [
        ("eve", "no first message within 0.5 s")
    ]
