"""Whether the batch fit's point estimate is cheap enough for a contest's pairing (issue 43.1).

A contest of three seats or more refits the ratings its pairing uses every
RATING_REFRESH_SECONDS (referee.contest.book), within a `Spacing` share of the time, with
openskill's running estimate; the standings use the batch Plackett-Luce fit with its bootstrap.
Were the batch fit's point estimate (its Newton solve, one bootstrap replicate) cheap at contest
sizes, pairing could use it and openskill could go. Prints, for matches of `--seats` seats
among 50 and 200 bots (accounts' versions), each fit's CPU seconds (what a shared machine's
load leaves alone; run with OMP_NUM_THREADS=1, as a contest's refit shares the machine with
its matches), its wall seconds, and how often pairing could then refit (a refit takes at most
a `Spacing` share of the time), with the load average.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/pairing_fit.py [--matches 10000] [--seats 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from rating_fit import ladder

from referee.contest.book import RATING_REFRESH_SECONDS
from referee.ratings import fits
from referee.ratings.batch_fit import fit, tables
from referee.results.matches import MatchResult
from referee.spacing import SHARE


def seconds(run: Callable[[], object], runs: int) -> tuple[float, float]:
    """The median CPU and wall seconds of `runs` calls."""
    cpu, wall = [], []
    for _ in range(runs):
        started, began = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - started)
        wall.append(time.perf_counter() - began)
    return statistics.median(cpu), statistics.median(wall)


def fitters(results: list[MatchResult], seats: int) -> dict[str, Callable[[], object]]:
    """Each fit to time, over `results`."""
    return {
        "openskill (pairing today)": lambda: fits.openskill(results, False, seats),
        "batch fit, point estimate": lambda: fit(tables(results, False), replicates=1),
        "batch fit with bootstrap (standings)": lambda: fits.batch(results, False, ()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for bots in (50, 200):
        results = ladder(args.matches, args.seats, bots, seed=43)
        for name, run in fitters(results, args.seats).items():
            cpu, wall = seconds(run, args.runs)
            every = max(RATING_REFRESH_SECONDS, cpu / SHARE)
            print(
                f"{bots} bots, {args.matches} matches of {args.seats} seats: {name}: "
                f"{cpu:.2f} s CPU ({wall:.2f} s wall) per fit: a refit every {every:.1f} s"
            )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"pairing refits every {RATING_REFRESH_SECONDS:g} s; load average {load}")


if __name__ == "__main__":
    main()
