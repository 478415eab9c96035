"""Smoke runs of bench/runner_cost.py, bench/decision_rate.py and bench/env_speed.py, so that
none can rot: each plays real matches (decision_rate over real gRPC, against real bot processes)
and reports every figure. No figure is judged here: speed belongs to the benches' own runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run_bench(*argv: str) -> str:
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_runner_cost_plays_every_game_without_a_fault() -> None:
    games = ("xix", "xeri", "xactika", "textactoe")
    argv = [str(BENCH / "runner_cost.py"), "--matches", "3", "--concurrency", "2"]
    out = run_bench(*argv, *(arg for game in games for arg in ("--game", game)))
    for game in games:
        row = re.search(rf"^\s+{game}\s+3\s+2\s+(\d+)\s+([\d.]+)$", out, re.M)
        assert row is not None, out
        assert int(row.group(1)) >= 3 * 2  # every match asks each seat at least once
        assert float(row.group(2)) > 0


def test_decision_rate_reports_rates_and_cpu_for_both_sides() -> None:
    out = run_bench(str(BENCH / "decision_rate.py"), "--seconds", "0.5")
    for matches in (1, 100):
        row = re.search(rf"^\s+{matches}\s+(\d+)\s+(\d+)\s+[\d.]+\s+\d+\s+\d+\s+[\d.]+$", out, re.M)
        assert row is not None, out
        assert int(row.group(1)) > 0 and int(row.group(2)) > 0
        for side in ("raw", "referee"):
            cpu = re.search(
                rf"^\s+{matches}\s+{side}\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+$", out, re.M
            )
            assert cpu is not None, out
            server, main, bots, total = map(int, cpu.groups())
            assert server >= main > 0, out
            assert bots > 0, out
            assert abs(total - server - bots) <= 1, out  # each figure rounded on its own


def test_env_speed_reports_every_game_three_ways() -> None:
    out = run_bench(str(BENCH / "env_speed.py"), "--seconds", "0.1")
    assert re.search(r"^load average: [\d.]+$", out, re.M), out
    for label in ("xix", "xeri2p", "xeri4p", "xactika4p", "textactoe2p"):
        row = re.search(rf"^{label}\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+$", out, re.M)
        assert row is not None, out
        engine, env, encoded = map(int, row.groups())
        assert engine > 0 and env > 0 and encoded > 0
