"""A hostile token holder against `croupier serve` run as a process (issue 20): a flood costs the
referee no memory, the account names every seat, a lost bot's fault names what happened first,
no token reaches a log, record or page, and streams without Hello are logged, rate-limited."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from croupier.v1 import common_pb2
from referee.contest.tokens import TokenStore
from referee.match.records import read_all
from referee.match.replay import verify

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
    port = int(process.stdout.readline().split(b"127.0.0.1:")[1].split()[0])
    serving = Referee(folder, process, port)
    try:
        yield serving
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=60) == 0
        finally:
            process.kill()
            process.stdout.close()
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
    a few MB of where it started (it grew by 170 MB in 8 s when they were all queued)."""
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
    assert peak - start < 8 * 1024, (start, peak)
    assert after - start < 8 * 1024, (start, after)
    faults = seat_faults(done)
    honest = {name: f for name, f in faults.items() if not name.startswith("mallory")}
    assert honest and not any(honest.values()), honest
    for path in done:
        assert verify(path).ok, path
    dropped = [line for line in serving.logs() if line["event"] == "messages dropped"]
    assert dropped and {line["bot"] for line in dropped} == {"mallory"}
