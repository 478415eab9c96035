"""What the cluster tests share: a ladder file, a local Dask cluster as `croupier cluster local`
starts it, the processes under it, and a ladder database reduced to what must not depend on
where its matches were played."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from referee.match.records import read_all

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from referee.cli import main; main()"]

HEURISTIC = ("heuristic", "examples/python/xix_heuristic.py")
SEEDED = ("seeded", "tests/bots/seeded_random.py")

T = TypeVar("T")


def ladder_file(
    tmp_path: Path, matches: int, cluster: str = "", bots: tuple[tuple[str, str], ...] = ()
) -> Path:
    """A XIX ladder of deterministic bots (the heuristic, and a random bot seeded per match)
    with its database and records in tmp_path; `cluster` is the body of a [cluster] table."""
    lines = [
        'game = "xix"',
        f"root = {json.dumps(str(ROOT))}",
        f"database = {json.dumps(str(tmp_path / 'ladder.sqlite'))}",
        f"records = {json.dumps(str(tmp_path / 'records'))}",
        f"matches_per_pairing = {matches}",
        'seed = "cluster"',
        "concurrency = 2",
        "[time_control]",
        "move_ms = 20000",
        "bank_ms = 60000",
    ]
    if cluster:
        lines += ["[cluster]", *cluster.splitlines()]
    for name, script in bots or (HEURISTIC, SEEDED):
        lines += ["[[bot]]", f'name = "{name}"', f"command = {json.dumps('{python} ' + script)}"]
    path = tmp_path / "ladder.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


@contextlib.contextmanager
def local_cluster(
    workers: int = 2, dashboard: int = 0
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`croupier cluster local` on a free port (its dashboard on `dashboard`, 0: a free one, so
    that clusters of tests run at once never meet on Dask's 8787): (scheduler address, its
    process)."""
    process = subprocess.Popen(
        [
            *(*CLI, "cluster", "local", "--workers", str(workers)),
            *("--port", "0", "--dashboard-port", str(dashboard)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        address = process.stdout.readline().strip()
        if not address.startswith("tcp://127.0.0.1:"):  # it exited: its error is complete
            assert process.stderr is not None
            raise AssertionError(f"croupier cluster local: {address!r} {process.stderr.read()}")
        yield address, process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever a killed worker left behind
        if process.stdout is not None:
            process.stdout.close()
        if process.stderr is not None:
            process.stderr.close()


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc: no extra dependency)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces; the parent follows it.
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid:
            found.append(int(entry.name))
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def dask_workers(cluster_pid: int) -> list[int]:
    """The worker processes of a local cluster (its nannies spawn them)."""
    return [pid for pid in children(cluster_pid) if "spawn_main" in command_line(pid)]


def alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(find: Callable[[], T | None], seconds: float) -> T | None:
    """The first thing `find` finds within `seconds` (None if it never does)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (found := find()) is not None:
            return found
        time.sleep(0.05)
    return None


def wait_until(check: Callable[[], bool], seconds: float) -> bool:
    return wait_for(lambda: True if check() else None, seconds) is not None


def committed(database: Path) -> int:
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0


def outcomes(database: Path) -> dict[int, tuple[object, ...]]:
    """Per match number: the seating, the seed, every seat's score, rank and faults, the result,
    and the record's lines with their timings removed (what the bots chose, what chance dealt,
    what each seat saw)."""
    found: dict[int, tuple[object, ...]] = {}
    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT m.number, m.match_id, m.record, m.result, s.bots, s.seed "
            "FROM matches m JOIN schedule s USING (number) ORDER BY m.number"
        ).fetchall()
        seats = db.execute(
            "SELECT number, seat, bot, score, rank, faults, retired FROM seats ORDER BY 1, 2"
        ).fetchall()
    for number, match_id, record, result, bots, seed in rows:
        lines, errors = read_all(database.parent / record, strict=True)
        assert not errors
        canonical = []
        for line in lines:
            kind = line.WhichOneof("line")
            if kind == "header":
                line.header.ClearField("started_at")
            if kind == "action":  # every measured time (they differ between any two runs)
                for timing in ("elapsed_ms", "lag_ms", "cpu_ms", "starved_ms"):
                    line.action.ClearField(timing)
            canonical.append(line.SerializeToString(deterministic=True))
        found[number] = (
            match_id,
            bots,
            seed,
            result,
            [row[1:] for row in seats if row[0] == number],
            canonical,
        )
    return found


def kill_a_busy_worker(cluster_pid: int) -> list[int]:
    """SIGKILL a worker process of the cluster that is playing (its bots are running): the pids
    of the bots it leaves behind."""
    victim = wait_for(lambda: next((w for w in dask_workers(cluster_pid) if children(w)), None), 30)
    assert victim is not None, "no worker was playing"
    orphans = children(victim)
    os.kill(victim, signal.SIGKILL)
    return orphans
