"""Timeouts of honest bots on a busy host, under the wall clock and under the CPU clock.

Two launched bots (tests/bots/ponderer.py, each spinning `--burn-ms` of CPU per decision, half
their move time by default: honest) play `--matches` matches of one round of two-player Xactika
(9 decisions a seat) under each clock in turn, as `croupier match` plays them (one process per
bot, in the sandbox and cgroups as root), while `--spinners` processes spin on the CPU beside
them at normal priority. No seat is retired, so every decision is asked and counted. Prints, per
clock, the decisions, the timeout faults (an honest bot's: target 0 under the CPU clock), and
percentiles of the time charged (CPU time under the CPU clock) and of the bots' CPU time, with
the machine's load average.

Run: .venv/bin/python bench/cpu_clock.py [--spinners 4] [--matches 2] [--move-ms 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee import transport
from referee.clock_kind import ClockKind
from referee.games import get_game
from referee.games.base import parse_options
from referee.local.series import SeriesConfig, play_series
from referee.match.clock import TimeControl

ROOT = Path(__file__).resolve().parent.parent
PONDERER = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'ponderer.py'}"
GAME = get_game("xactika")


def percentiles(values: list[int]) -> str:
    if len(values) < 2:
        return "n/a"
    cuts = statistics.quantiles(sorted(values), n=100, method="inclusive")
    return f"p50 {cuts[49]:.0f}  p99 {cuts[98]:.0f}  max {max(values)} ms"


def series(clock: ClockKind, args: argparse.Namespace, records: Path) -> None:
    config = SeriesConfig(
        game=GAME,
        options=parse_options(GAME, {"players": "2", "rounds": "1"}),
        commands=(f"{PONDERER} --burn-ms {args.burn_ms}",),
        matches=args.matches,
        seed=1,
        records=records,
        time_control=TimeControl(move_ms=args.move_ms, bank_ms=0, clock=clock),
        max_faults=10**6,  # no seat retires: every decision is asked and counted
    )
    transport.run(play_series, config)


def report(clock: ClockKind, records: Path, seconds: float) -> None:
    decisions, timeouts = 0, 0
    charged: list[int] = []
    cpu: list[int] = []
    for path in records.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "action" in record:
                decisions += 1
                charged.append(int(record["action"].get("elapsedMs", 0)))
                if "cpuMs" in record["action"]:
                    cpu.append(int(record["action"]["cpuMs"]))
            elif "fault" in record and record["fault"]["fault"]["reason"] == "FAULT_REASON_TIMEOUT":
                timeouts += 1
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"{clock} clock: {decisions} decisions, {timeouts} timeouts, {seconds:.0f} s, "
        f"load average {load}"
    )
    print(f"  charged (elapsed_ms): {percentiles(charged)}")
    print(f"  bot cpu (cpu_ms):     {percentiles(cpu)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spinners", type=int, default=4)
    parser.add_argument("--matches", type=int, default=2, help="matches under each clock")
    parser.add_argument("--move-ms", type=int, default=100)
    parser.add_argument("--burn-ms", type=int, default=50, help="CPU per decision")
    args = parser.parse_args()
    spin = [sys.executable, "-c", "while True: pass"]
    # Each in a session of its own, as other programs are (autogroups would pool them).
    spinners = [subprocess.Popen(spin, start_new_session=True) for _ in range(args.spinners)]
    print(
        f"{args.spinners} spinners beside, {os.cpu_count()} cores, move {args.move_ms} ms, "
        f"no bank, bots burn {args.burn_ms} ms of CPU per decision"
    )
    try:
        for clock in (ClockKind.WALL, ClockKind.CPU):
            records = Path(tempfile.mkdtemp(prefix=f"croupier-{clock}-clock-"))
            started = time.monotonic()
            series(clock, args, records)
            report(clock, records, time.monotonic() - started)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


if __name__ == "__main__":
    main()
