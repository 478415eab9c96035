"""Ladders on a real local Dask cluster (`croupier cluster local`, two worker processes).

The same ladder gives the same matches, deals and outcomes on the cluster as on one machine
(its bots are deterministic), with the bots run from files shipped to the workers; and
interrupting the coordinator, then killing a worker process in the middle of a batch, still ends
with every scheduled match committed exactly once and every record verifying.
"""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee import transport
from referee.cli import app
from referee.ladder import load, run_ladder, verify_ladder
from tests.cluster_helpers import (
    CLI,
    SEEDED,
    alive,
    committed,
    kill_a_busy_worker,
    ladder_file,
    local_cluster,
    outcomes,
    wait_for,
    wait_until,
)
from tests.site_helpers import check_only_public, listen

pytest.importorskip("distributed")
runner = CliRunner()


def test_a_ladder_on_the_cluster_plays_what_it_plays_locally(tmp_path: Path) -> None:
    local_dir, cluster_dir = tmp_path / "local", tmp_path / "cluster"
    local_dir.mkdir()
    cluster_dir.mkdir()
    # Shipped to the workers: the bots run from the unpacked copy there, not from ROOT.
    body = 'ship = ["examples/python", "tests/bots"]'
    config = load(ladder_file(cluster_dir, 16, body))
    placed = replace(
        config.placement, database=local_dir / "ladder.sqlite", records=local_dir / "records"
    )
    local = replace(config, placement=placed)
    transport.run(run_ladder, local)
    with local_cluster() as (address, _):
        result = runner.invoke(
            app, ["ladder", "run", str(cluster_dir / "ladder.toml"), "--cluster", address]
        )
    assert result.exit_code == 0, result.output
    assert f"on the Dask cluster at {address}" in result.output
    assert "16 of 16 matches" in result.output
    here, there = outcomes(local_dir / "ladder.sqlite"), outcomes(cluster_dir / "ladder.sqlite")
    assert sorted(there) == list(range(1, 17))
    assert there == here
    check = verify_ladder(cluster_dir / "ladder.sqlite")
    assert check.ok and check.records_verified == 16, check.problems
    logs = list((cluster_dir / "records" / "logs").glob("seeded-127.0.0.1-*.log"))
    assert logs and all("croupier-ship-" in log.read_text() for log in logs)


def test_a_failing_bots_log_comes_back_from_its_worker(tmp_path: Path) -> None:
    broken = ("broken", "tests/bots/no_luck.py")
    path = ladder_file(tmp_path, 2, bots=(broken, SEEDED))
    path.write_text(
        path.read_text().replace("concurrency = 2", "concurrency = 2\nmax_restarts = 0")
    )
    with local_cluster(workers=1) as (address, _):
        result = runner.invoke(app, ["ladder", "run", str(path), "--no-live", "--cluster", address])
    assert result.exit_code == 2, result.output
    logs = tmp_path / "records" / "logs"
    assert f"the bots' logs are kept in {logs}" in " ".join(result.output.split())
    kept = list(logs.glob("broken-127.0.0.1-*.log"))
    assert kept and "no luck today" in kept[0].read_text()


def coordinate(path: Path, address: str, log: Path) -> subprocess.Popen[str]:
    with log.open("a") as out:
        return subprocess.Popen(
            [*CLI, "ladder", "run", str(path), "--no-live", "--cluster", address],
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )


def test_an_interrupted_coordinator_and_a_killed_worker_lose_nothing(tmp_path: Path) -> None:
    path = ladder_file(tmp_path, 40, "batch = 4")
    database, log = tmp_path / "ladder.sqlite", tmp_path / "coordinator.log"
    with local_cluster() as (address, cluster):
        # Ctrl-C on the coordinator once a batch is in: it stops cleanly and resumes.
        coordinator = coordinate(path, address, log)
        try:
            assert wait_until(lambda: committed(database) >= 4, 60), log.read_text()
            coordinator.send_signal(signal.SIGINT)
            assert coordinator.wait(timeout=30) == 130, log.read_text()
            assert "interrupted: every finished match is in the database" in log.read_text()
            assert "Traceback" not in log.read_text()
            resumed_at = committed(database)
            coordinator = coordinate(path, address, log)
            # Then kill a worker that is playing a batch (its bots are running).
            assert wait_until(lambda: committed(database) >= resumed_at + 4, 60)
            at_kill = committed(database)
            orphans = kill_a_busy_worker(cluster.pid)
            assert coordinator.wait(timeout=120) == 0, log.read_text()
        finally:
            if coordinator.poll() is None:
                coordinator.kill()
                coordinator.wait()
        # Its bots lost their referee and quit by themselves.
        assert wait_until(lambda: not any(alive(pid) for pid in orphans), 20)
    assert at_kill < 40  # the kill came mid-ladder
    output = log.read_text()
    assert "40 matches (resuming" in output and "master seed: cluster" in output
    check = verify_ladder(database)
    assert check.ok, check.problems
    assert check.records_verified == check.matches == 40 and check.seed_checked
    with sqlite3.connect(database) as db:
        numbers = [row[0] for row in db.execute("SELECT number FROM matches ORDER BY number")]
        seats = db.execute("SELECT count(*) FROM seats").fetchone()[0]
    assert numbers == list(range(1, 41)) and seats == 80
    records = sorted(p.name for p in (tmp_path / "records").glob("*.jsonl*"))
    assert records == [f"ladder-{n:05d}.jsonl" for n in range(1, 41)]


@dataclass
class _Site:
    web: str


def test_a_ladder_on_the_cluster_has_its_web_site_and_its_matches_live(tmp_path: Path) -> None:
    """`--web` with `--cluster`: the standings, replays and seed as on one machine (the
    database and records stay here), and the matches played on the workers watched live,
    relayed through Dask's events, with only what a spectator may see."""
    slow = "tests/bots/misbehaving.py slow_good"  # 20 ms a decision: matches of seconds
    path = ladder_file(tmp_path, 2, bots=(("steady", slow), ("patient", slow)))
    log = tmp_path / "coordinator.log"
    with local_cluster(workers=1) as (address, _), log.open("w") as errors:
        command = [*CLI, "ladder", "run", str(path), "--no-live", "--cluster", address]
        process = subprocess.Popen(
            [*command, "--web", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
        assert process.stdout is not None
        try:
            assert process.stdout.readline() == f"on the Dask cluster at {address}\n"
            web = process.stdout.readline().split("ladder web site on ")[1].strip()
            match_id, received, raw = listen(_Site(web))
            while "ladder over" not in (line := process.stdout.readline()):
                assert line, log.read_text()
            site = wait_for(lambda: _revealed(web), 30)
            assert site is not None
            assert site["live"] == []
            assert site["contest"]["matches_done"] == 2 and site["contest"]["seed"] == "cluster"
            with urllib.request.urlopen(f"{web}/matches/{match_id}.html", timeout=10) as page:
                assert b"croupier replay" in page.read()
        finally:
            process.send_signal(signal.SIGTERM)
            code = process.wait(timeout=60)
            process.stdout.close()
    assert code == 0, log.read_text()
    check_only_public(received, raw, tmp_path / "records" / f"{match_id}.jsonl")
    assert sorted(received[0]["names"]) == ["patient", "steady"]


def _revealed(web: str) -> dict[str, Any] | None:
    """The site's snapshot once it shows the revealed seed."""
    with urllib.request.urlopen(f"{web}/api/contest", timeout=10) as response:
        snapshot: dict[str, Any] = json.loads(response.read())
    return snapshot if snapshot["contest"].get("seed") else None


def test_cluster_local_puts_dasks_dashboard_where_it_is_told() -> None:
    """Dask's own default, 8787, is one port for every cluster on the machine (issue 24.10)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        local_cluster(workers=1, dashboard=port),
        urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer,
    ):
        assert answer.read() == b"ok"
