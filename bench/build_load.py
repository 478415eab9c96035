"""Does a build cost a running match its clock? Honest timeouts while builds burn the CPU.

bench/fair_clock.py's matches (XIX over real gRPC between Python SDK random bots that answer at
once, a 100 ms move and no bank), played while `--builds` sandboxed builds
(referee.hosted.build, at once rather than the Builder's two, to be harsher) run a command that
spins on the CPU for the whole run. Builds run at nice 19 under SCHED_IDLE: the target is 0
timeout faults. Plays the same matches alone first, then beside the builds, and prints for
each the decisions, the timeout faults and the load average, the builds' outcomes, and the
ratio of decisions per second (what the builds take from the matches' speed, not their clocks).

Run: .venv/bin/python bench/build_load.py [--seconds 30] [--builds 10] [--matches 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import trio
from fair_clock import play  # (bench/ leads sys.path when this file is run)

from referee import transport
from referee.hosted.build import BuildLimits, BuildOutcome, build

SPIN = f"{sys.executable} -c 'while True: pass'"


async def builds_beside_matches(
    builds: int, matches: int, seconds: float, records: Path, processes: int
) -> list[BuildOutcome]:
    """`builds` spinning builds, started before the matches and stopped at their time limit
    just after them."""
    source = records / "version"
    source.mkdir()
    outcomes: list[BuildOutcome] = []
    limits = BuildLimits(wall_seconds=seconds + 15)

    async def one(number: int) -> None:
        into = records / f"build-{number}"
        log = records / f"build-{number}.log"
        outcomes.append(await build(source, into, SPIN, limits, log))

    async with trio.open_nursery() as nursery:
        for number in range(builds):
            nursery.start_soon(one, number)
        await trio.sleep(1)  # the builds are spinning before the first match
        await play(matches, seconds, records, processes)
    return outcomes


def timeouts_in(records: Path) -> tuple[int, int, int]:
    """Matches, decisions and timeout faults in the records."""
    matches = decisions = timeouts = 0
    for path in records.glob("*.jsonl"):
        matches += 1
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "action" in record:
                decisions += 1
            elif "fault" in record and record["fault"]["fault"]["reason"] == "FAULT_REASON_TIMEOUT":
                timeouts += 1
    return matches, decisions, timeouts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--builds", type=int, default=10)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2, help="processes per bot")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, {args.matches} matches at once for {args.seconds:.0f} s")
    rates = []
    for builds in (0, args.builds):  # the same matches alone, then beside the builds
        records = Path(tempfile.mkdtemp(prefix="croupier-build-load-"))
        outcomes = transport.run(
            builds_beside_matches, builds, args.matches, args.seconds, records, args.processes
        )
        matches, decisions, timeouts = timeouts_in(records)
        rates.append(decisions / args.seconds)
        print(
            f"{builds:>2} spinning builds: matches {matches}  decisions {decisions}  "
            f"timeout faults {timeouts}  load average {os.getloadavg()[0]:.2f}"
        )
        if outcomes:
            print("    builds: " + ", ".join(f"{o.why} after {o.seconds:.0f} s" for o in outcomes))
    print(f"decisions/s beside the builds / alone: {rates[1] / rates[0]:.2f}")


if __name__ == "__main__":
    main()
