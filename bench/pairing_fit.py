"""Whether the batch fit's point estimate is cheap enough for a contest's pairing (issue 43.1).

A contest of three seats or more refits the ratings its pairing uses every
RATING_REFRESH_SECONDS (referee.contest.book), within a `Spacing` share of the time, with
openskill's running estimate; the standings use the batch Plackett-Luce fit with its bootstrap.
Were the batch fit's point estimate (its Newton solve, one bootstrap replicate) cheap at contest
sizes, pairing could use it and openskill could go. Prints seconds per fit of each, for matches
of `--seats` seats among 50 and 200 bots (accounts' versions), and the load average.

Run: .venv/bin/python bench/pairing_fit.py [--matches 10000] [--seats 4] [--runs 3]
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


def seconds(run: Callable[[], object], runs: int) -> float:
    """The median wall time of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


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
            print(
                f"{bots} bots, {args.matches} matches of {args.seats} seats: {name}: "
                f"{seconds(run, args.runs):.2f} s per fit"
            )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"pairing refits every {RATING_REFRESH_SECONDS:g} s; load average {load}")


if __name__ == "__main__":
    main()
