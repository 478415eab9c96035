"""How long the standings' batch Plackett-Luce fit takes: 10,000 matches of 10 seats, refitted.

The matches are drawn from a Plackett-Luce model with known strengths (seeded), ten of the
bots at each table, and rated the way `croupier ladder standings` rates a multiplayer ladder
(`referee.ratings.fits.batch`: the fit, its cluster bootstrap and the rank intervals). The
target is under 2 s, so live standings can refit after every batch of matches. Prints the
best and median of a few runs, and the load average (the machine may be shared).

Run: .venv/bin/python bench/rating_fit.py [--matches 10000] [--seats 10] [--bots 20]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time

from referee.ratings.fits import batch
from referee.results.matches import MatchResult, ScheduledMatch, competition_ranks


def ladder(matches: int, seats: int, bots: int, seed: int) -> list[MatchResult]:
    """Matches of `seats` sides drawn from Plackett-Luce (Gumbel noise on known utilities)."""
    rng = random.Random(seed)
    names = [f"bot{i:02d}" for i in range(bots)]
    strength = {name: rng.gauss(0, 0.5) for name in names}
    out = []
    for number in range(1, matches + 1):
        seated = tuple(rng.sample(names, seats))
        noisy = [strength[b] - math.log(-math.log(rng.random())) for b in seated]
        ranks = tuple(competition_ranks([(-u,) for u in noisy]))
        match = ScheduledMatch(
            number, 1, number, number, 0, number, seated, tuple(range(seats)), seated
        )
        out.append(MatchResult(match, tuple(-r for r in ranks), ranks))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = ladder(args.matches, args.seats, args.bots, seed=28)
    times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        rated = batch(results, False, ())
        times.append(time.perf_counter() - started)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"batch Plackett-Luce fit with bootstrap: {args.matches} matches of {args.seats} seats, "
        f"{len(rated)} bots: best {min(times):.2f} s, median {statistics.median(times):.2f} s "
        f"over {args.runs} runs (target < 2 s); load average {load}"
    )


if __name__ == "__main__":
    main()
