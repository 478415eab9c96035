"""`--workers N`: a ladder's matches split over N referee processes on this machine.

Real processes, SQLite and gRPC: the same seeded ladder of deterministic bots (the XIX
heuristic and a random bot seeded per match) played by 2 workers and by 1 commits the very
same matches, seats, records and standings; a worker killed with SIGKILL mid-ladder loses
nothing (its unfinished match is played again, the worker restarted) and counts nothing twice;
the CLI refuses --workers 0 and --workers with --cluster in one line.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from referee.cli import app
from referee.ladder import verify_ladder
from referee.local.workers import Link, Worker, WorkerError, run_workers, shares
from referee.machine import cpu_budget
from referee.match.bounds import default_workers
from referee.match.live_relay import LOST
from tests.cluster_helpers import (
    CLI,
    ROOT,
    alive,
    children,
    command_line,
    committed,
    ladder_file,
    outcomes,
    wait_for,
)
from tests.site_helpers import check_only_public, new_live_match, stream

runner = CliRunner()


def _standings(database: Path) -> list[dict[str, object]]:
    result = runner.invoke(app, ["ladder", "standings", str(database), "--format", "json"])
    assert result.exit_code == 0, result.output
    rows: list[dict[str, object]] = json.loads(result.output)["standings"]
    return rows


def _run(path: Path, database: Path, workers: str, *options: str) -> Result:
    """`croupier ladder run` of the ladder at `path` into `database` with `--workers`."""
    return runner.invoke(
        app,
        [
            *("ladder", "run", str(path), "--no-live", *options),
            *("--database", str(database), "--workers", workers),
        ],
    )


def test_two_workers_commit_what_one_would(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, 12)
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    for database, workers in ((one, "1"), (two, "2")):
        result = _run(path, database, workers)
        assert result.exit_code == 0, result.output
        assert ("2 referee processes for 2 matches at once" in result.output) == (workers == "2")
        check = verify_ladder(database)
        assert check.ok and check.records_verified == 12, check.problems
    assert outcomes(one) == outcomes(two)  # ids, seeds, seats, results, every record line
    assert _standings(one) == _standings(two)
    logs = tmp_path / "two-records" / "logs"
    # Two referees of one slot each: the slots of one referee with two, logs and all.
    assert sorted(p.name for p in logs.iterdir()) == [
        "heuristic-0.log",
        "heuristic-1.log",
        "referee-0.log",
        "referee-1.log",
        "seeded-0.log",
        "seeded-1.log",
    ]


def _notes(logs: Path) -> list[str]:
    """What the coordinator noted in its workers' logs (deaths and restarts)."""
    return [
        line
        for log in logs.glob("referee-*.log")
        for line in log.read_text().splitlines()
        if line.startswith("== croupier:")
    ]


def _workers(coordinator: int) -> list[int]:
    return [p for p in children(coordinator) if "referee.local.workers" in command_line(p)]


def test_a_worker_killed_mid_ladder_loses_nothing(tmp_path: Path) -> None:
    matches = 40
    path = ladder_file(tmp_path, matches)
    database = tmp_path / "ladder.sqlite"
    process = subprocess.Popen(
        [*CLI, "ladder", "run", str(path), "--no-live", "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        # A worker that is playing (its bots are up) once a few matches are in.
        assert wait_for(lambda: True if committed(database) >= 4 else None, 60)
        busy = wait_for(lambda: next((w for w in _workers(process.pid) if children(w)), None), 30)
        assert busy is not None, "no worker was playing"
        os.kill(busy, signal.SIGKILL)
        at_kill = committed(database)
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
    assert at_kill < matches  # the kill came mid-ladder
    assert process.returncode == 0, out
    assert "Traceback" not in out
    notes = _notes(tmp_path / "records" / "logs")
    assert len(notes) == 1 and "was killed by SIGKILL; restart 1 of 3" in notes[0], notes
    found = outcomes(database)  # every match once, each record whole
    assert sorted(found) == list(range(1, matches + 1))
    records = sorted(p.name for p in (tmp_path / "records").glob("*.jsonl*"))
    assert records == [f"ladder-{n:05d}.jsonl" for n in range(1, matches + 1)]
    check = verify_ladder(database)
    assert check.ok and check.records_verified == matches, check.problems


def test_workers_0_and_workers_on_a_cluster_are_refused(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, 2)
    zero = runner.invoke(app, ["ladder", "run", str(path), "--workers", "0"])
    assert zero.exit_code == 2
    assert "error: --workers 0: expected at least 1" in zero.output
    clustered = ["--workers", "2", "--cluster", "tcp://127.0.0.1:1"]
    both = runner.invoke(app, ["ladder", "run", str(path), *clustered])
    assert both.exit_code == 2
    assert "error: --workers is for this machine's cores" in both.output
    assert not (tmp_path / "ladder.sqlite").exists()
    series = runner.invoke(app, ["match", "xix", "--bot", "true", "--workers", "0"])
    assert series.exit_code == 2
    assert "error: --workers 0: expected at least 1" in series.output


@pytest.mark.skipif(cpu_budget() < 2, reason="the default is one referee on one core")
def test_the_ladder_files_workers_key_and_the_flag_over_it(tmp_path: Path) -> None:
    """`workers` in the ladder file sets the referee processes where the flag is not given
    (the default here would be 2, one per core); --workers wins over it; 0 is refused."""
    path = ladder_file(tmp_path, 2)
    text = path.read_text()
    path.write_text(text.replace("concurrency = 2\n", "concurrency = 2\nworkers = 1\n"))
    database = ("--database", str(tmp_path / "one.sqlite"))
    one = runner.invoke(app, ["ladder", "run", str(path), "--no-live", *database])
    assert one.exit_code == 0, one.output
    assert "referee processes" not in one.output
    two = _run(path, tmp_path / "two.sqlite", "2")
    assert two.exit_code == 0, two.output
    assert "2 referee processes for 2 matches at once" in two.output
    assert outcomes(tmp_path / "one.sqlite") == outcomes(tmp_path / "two.sqlite")
    path.write_text(text.replace("concurrency = 2\n", "concurrency = 2\nworkers = 0\n"))
    zero = runner.invoke(app, ["ladder", "run", str(path)])
    assert zero.exit_code == 2
    assert "ladder.toml:8: key 'workers': expected at least 1" in zero.output, zero.output


@pytest.mark.parametrize(
    ("concurrency", "workers", "expected"),
    [(1, 4, [1]), (2, 2, [1, 1]), (5, 2, [3, 2]), (16, 3, [6, 5, 5]), (3, 8, [1, 1, 1])],
)
def test_the_matches_at_once_are_split_evenly(
    concurrency: int, workers: int, expected: list[int]
) -> None:
    assert shares(concurrency, workers) == expected


def test_the_default_is_a_referee_per_core_at_most_one_per_match() -> None:
    assert 1 <= cpu_budget() <= len(os.sched_getaffinity(0))
    assert default_workers(1) == 1
    assert default_workers(1000) == cpu_budget()


def test_croupier_match_on_two_workers_plays_what_one_would(tmp_path: Path) -> None:
    heuristic = f"{sys.executable} {ROOT / 'examples' / 'python' / 'xix_heuristic.py'}"
    tables = []
    for workers in ("1", "2"):
        records = tmp_path / f"records-{workers}"
        result = runner.invoke(
            app,
            [
                *("match", "xix", "--bot", heuristic, "--bot", heuristic, "--games", "6"),
                *("--concurrency", "2", "--workers", workers, "--seed", "7"),
                *("--records", str(records)),
            ],
        )
        assert result.exit_code == 0, result.output
        # The standings' rows (log lines may come out too, where another test set logging up).
        rows = [line for line in result.output.splitlines() if line.startswith("│")]
        tables.append([row for row in rows if "heuristic" in row])
        assert len(list(records.glob("*.jsonl"))) == 6
        logs = sorted(p.name.split("-", 1)[1] for p in (records / "logs").glob("*-bot*.log"))
        assert logs == (
            ["xix_heuristic-bot0.log", "xix_heuristic-bot1.log"]
            if workers == "1"
            else [
                *("w0-xix_heuristic-bot0.log", "w0-xix_heuristic-bot1.log"),
                *("w1-xix_heuristic-bot0.log", "w1-xix_heuristic-bot1.log"),
            ]
        )
    assert tables[0] == tables[1] and len(tables[0]) == 2


def test_a_bot_that_cannot_play_stops_two_workers_as_it_stops_one(tmp_path: Path) -> None:
    # A script that starts and exits at once: a missing one is refused before any worker starts
    # (issue 42.10), which is not what this test is about.
    script = tmp_path / "broken.py"
    script.write_text("raise SystemExit(3)\n")
    broken = (("heuristic", "examples/python/xix_heuristic.py"), ("broken", str(script)))
    path = ladder_file(tmp_path, 4, bots=broken)
    path.write_text("max_restarts = 1\n" + path.read_text())
    said = []
    for workers in ("1", "2"):
        result = _run(path, tmp_path / f"{workers}.sqlite", workers, "--no-sandbox")
        assert result.exit_code == 2, result.output
        # Whichever slot's bot gave up first (or both) is timing: name it alike.
        output = re.sub(r"broken-\d\.log", "broken-N.log", result.output)
        lines = output.replace(f"{workers}-records", "RECORDS").splitlines()
        said.append({line for line in lines if line.startswith("error:")})
    assert said[0] == said[1] and len(said[0]) == 1, said
    assert "broken.py' exited 2 times" in next(iter(said[0]))


def test_a_killed_worker_s_live_match_ends_for_its_viewer_and_the_site_goes_on(
    tmp_path: Path,
) -> None:
    """Both workers are killed while a viewer watches one of their matches (relayed to the
    site's process): the viewer sees the match end as played again, the match is played again
    from the start and committed once, and the restarted workers' matches can be watched."""
    slow = "tests/bots/misbehaving.py slow_good"  # 20 ms a decision: matches of seconds
    path = ladder_file(tmp_path, 4, bots=(("steady", slow), ("patient", slow)))
    database = tmp_path / "ladder.sqlite"
    process = subprocess.Popen(
        [*CLI, "ladder", "run", str(path), "--no-live", "--workers", "2", "--web", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        assert lines[0] == "2 referee processes for 2 matches at once\n", lines
        web = lines[1].removeprefix("ladder web site on ").strip()
        watched = new_live_match(web, set())
        received: list[dict[str, Any]] = []
        with ThreadPoolExecutor(1) as pool:
            viewer = pool.submit(stream, web, watched, received)
            assert wait_for(lambda: True if _kinds(received) & {"table", "end"} else None, 30)
            for worker in _workers(process.pid):
                os.kill(worker, signal.SIGKILL)
            viewer.result(timeout=60)
        assert received[0]["kind"] == "start" and received[-1]["kind"] == "end", received
        assert received[-1]["result"] == LOST, received[-1]
        # The restarted workers play on, live: a match watched whole, only public information.
        again, seen = "", {watched}
        raw: list[str] = []
        while not again:
            again = new_live_match(web, seen)
            seen.add(again)
            received, raw = stream(web, again)
            if received[0]["kind"] == "gone":
                again = ""
        while "ladder over" not in lines[-1]:
            assert lines[-1], "".join(lines)
            lines.append(process.stdout.readline())
        check_only_public(received, raw, tmp_path / "records" / f"{again}.jsonl")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
    assert sorted(outcomes(database)) == [1, 2, 3, 4]  # each match committed once
    notes = _notes(tmp_path / "records" / "logs")
    assert len(notes) == 2 and all("restart 1 of 3" in note for note in notes), notes
    check = verify_ladder(database)
    assert check.ok and check.records_verified == 4, check.problems


def _kinds(received: list[dict[str, Any]]) -> set[str]:
    return {message["kind"] for message in list(received)}


async def _die(link: Link) -> None:
    """A worker's entry that is killed at once, as the OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


class _Nothing:
    """A host of no calls, counting the workers it lost."""

    def __init__(self) -> None:
        self.lost_count = 0

    def call(self, worker: Worker, method: str, payload: object) -> Callable[[], Awaitable[Any]]:
        raise AssertionError(f"unexpected call {method!r}")

    def lost(self, worker: Worker) -> None:
        self.lost_count += 1


async def test_a_worker_that_keeps_dying_stops_the_run_with_one_line(tmp_path: Path) -> None:
    host = _Nothing()
    with pytest.raises(WorkerError) as raised:
        await run_workers(1, lambda number: (_die, ()), host, tmp_path, restarts=2)
    assert str(raised.value) == (
        "referee worker 0 was killed by SIGKILL, and died 3 times in all: stopped (its log: "
        f"{tmp_path / 'referee-0.log'}); what was committed is kept, run the same command to "
        "resume"
    )
    assert host.lost_count == 3
    notes = (tmp_path / "referee-0.log").read_text().splitlines()
    assert notes[-1] == "== croupier: referee worker 0 was killed by SIGKILL; stopping"


def test_workers_leave_with_a_killed_coordinator(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, 40)
    database = tmp_path / "ladder.sqlite"
    process = subprocess.Popen(
        [*CLI, "ladder", "run", str(path), "--no-live", "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: True if committed(database) >= 2 else None, 60)
        workers = _workers(process.pid)
        assert len(workers) == 2
    finally:
        process.kill()
        process.wait()
    # Their input closed: each ends its bots and exits (no kill of their process group).
    assert wait_for(lambda: True if not any(map(alive, workers)) else None, 20), workers
    resumed = runner.invoke(app, ["ladder", "run", str(path), "--no-live", "--workers", "2"])
    assert resumed.exit_code == 0, resumed.output
    check = verify_ladder(database)
    assert check.ok and check.records_verified == 40, check.problems


def test_workers_launching_a_process_per_match_log_apart(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, 4)
    path.write_text('launch = "per-match"\n' + path.read_text())
    result = _run(path, tmp_path / "ladder.sqlite", "2")
    assert result.exit_code == 0, result.output
    logs = sorted(p.name for p in (tmp_path / "ladder-records" / "logs").iterdir())
    assert logs == [
        "heuristic-per-match-1.log",
        "heuristic-per-match.log",
        "referee-0.log",
        "referee-1.log",
        "seeded-per-match-1.log",
        "seeded-per-match.log",
    ]
    assert verify_ladder(tmp_path / "ladder.sqlite").ok


def test_a_worker_killed_mid_series_loses_no_match(tmp_path: Path) -> None:
    records = tmp_path / "records"
    random_bot = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
    process = subprocess.Popen(
        [
            *(*CLI, "match", "xix", "--bot", random_bot, "--games", "60"),
            *("--concurrency", "2", "--workers", "2", "--records", str(records)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert wait_for(lambda: True if len(list(records.glob("*.jsonl"))) >= 4 else None, 60)
        busy = wait_for(lambda: next((w for w in _workers(process.pid) if children(w)), None), 30)
        assert busy is not None, "no worker was playing"
        os.kill(busy, signal.SIGKILL)
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
    assert process.returncode == 0, out
    assert "60 matches over gRPC" in out
    notes = _notes(records / "logs")
    assert len(notes) == 1 and "was killed by SIGKILL; restart 1 of 3" in notes[0], notes
    played = sorted(records.glob("*.jsonl"))
    assert len(played) == 60
    check = runner.invoke(app, ["replay", "--verify", *map(str, played)])
    assert check.exit_code == 0, check.output
