"""How often the standings' nominal 95% intervals hold the truth, by number of deals (issue 44).

Ladders are drawn with known strengths (seeded) and rated by the standings' own code:
- Plackett-Luce: four bots at one table of four, each deal its four rotations (duplicate), ranks
  from utilities plus Gumbel noise (exactly Plackett-Luce); the batch fit's intervals.
- Elo: three bots, each pair two rotations a deal, wins from the logistic model; Elo's.
- margin: the Plackett-Luce tables' points (strength plus the deal's luck of the seat plus
  noise; the luck cancels over a deal's rotations); the margin intervals.
Coverage is over every bot's interval of every ladder, against the truth centred as the
ratings are. Then: how often two of four identical bots get different shared ranks (the
familywise rate, 5% at most), and the coverage of an SPRT's interval at its stop, fixed-sample
against corrected for the stopping rule (referee.ratings.stopping). Prints the load average.

Run: .venv/bin/python bench/rating_coverage.py [--ladders 200] [--sprt 200]
"""

from __future__ import annotations

import argparse
import math
import os
import random
from collections.abc import Sequence

import numpy as np

from referee.ratings.fits import batch, elo, elo_games
from referee.ratings.margins import bot_margins
from referee.ratings.sprt import Sprt, expected_score, sprt
from referee.ratings.standings import Plan, compute
from referee.results.matches import MatchResult, ScheduledMatch, competition_ranks

DEALS = (2, 3, 5, 10, 30)
PL_TRUTH = {"a": 150.0, "b": 50.0, "c": 0.0, "d": -200.0}
ELO_TRUTH = {"a": 100.0, "b": 0.0, "c": -100.0}
ELO_PER_LOGIT = 400 / math.log(10)


def _result(
    number: int, deal: int, rotation: int, bots: tuple[str, ...], scores: Sequence[float]
) -> MatchResult:
    match = ScheduledMatch(number, 1, 1, deal, rotation, deal, bots, tuple(range(len(bots))), bots)
    ranks = tuple(competition_ranks([(-s,) for s in scores]))
    return MatchResult(match, tuple(round(s) for s in scores), ranks)


def pl_ladder(
    truth: dict[str, float], deals: int, rng: random.Random, luck: float = 0.0
) -> list[MatchResult]:
    """Duplicate deals of one four-seat table, its four rotations each: points are the bot's
    strength (x 0.1 per Elo) plus the seat's luck of the deal plus Gumbel noise, ranked by them
    (with no luck exactly Plackett-Luce)."""
    names = sorted(truth)
    out: list[MatchResult] = []
    for deal in range(1, deals + 1):
        seat_luck = [rng.gauss(0, luck) for _ in names]
        noise = [[-math.log(-math.log(rng.random())) for _ in names] for _ in names]
        for rotation in range(len(names)):
            bots = tuple(names[(s - rotation) % len(names)] for s in range(len(names)))
            utility = [
                truth[bot] / ELO_PER_LOGIT + seat_luck[s] + noise[rotation][s]
                for s, bot in enumerate(bots)
            ]
            out.append(_result(len(out) + 1, deal, rotation, bots, [10 * u for u in utility]))
    return out


def elo_ladder(truth: dict[str, float], deals: int, rng: random.Random) -> list[MatchResult]:
    """Duplicate deals of every pair, two rotations each (a deal per pair and round), wins from
    the logistic model."""
    names = sorted(truth)
    out: list[MatchResult] = []
    for _ in range(deals):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                deal = len(out) // 2 + 1
                for rotation, bots in enumerate(((a, b), (b, a))):
                    first = rng.random() < expected_score(truth[bots[0]] - truth[bots[1]])
                    scores = (1.0, 0.0) if first else (0.0, 1.0)
                    out.append(_result(len(out) + 1, deal, rotation, bots, scores))
    return out


def _centred(truth: dict[str, float]) -> dict[str, float]:
    mean = sum(truth.values()) / len(truth)
    return {bot: value - mean for bot, value in truth.items()}


def pl_coverage(deals: int, ladders: int, seed: int) -> float:
    rng = random.Random(seed)
    truth = _centred(PL_TRUTH)
    hits = total = 0
    for _ in range(ladders):
        rated = batch(pl_ladder(PL_TRUTH, deals, rng), True, sorted(truth), 4)
        for bot, value in truth.items():
            low, high = rated[bot].low, rated[bot].high
            total += 1
            hits += low is not None and high is not None and low <= value <= high
    return hits / total


def elo_coverage(deals: int, ladders: int, seed: int) -> float:
    rng = random.Random(seed)
    truth = _centred(ELO_TRUTH)
    hits = total = 0
    for _ in range(ladders):
        rated = elo(elo_games(elo_ladder(ELO_TRUTH, deals, rng), True, 2), sorted(truth))
        for bot, value in truth.items():
            low, high = rated[bot].low, rated[bot].high
            total += 1
            hits += low is not None and high is not None and low <= value <= high
    return hits / total


def margin_coverage(deals: int, ladders: int, seed: int) -> float:
    """The margin intervals on Plackett-Luce tables with seat luck; the truth is the expected
    margin, 10 x (utility less the others' mean), measured on a long ladder (the Gumbel noise
    has a mean the margin cancels)."""
    rng = random.Random(seed)
    truth = {
        bot: 10 * (PL_TRUTH[bot] - (sum(PL_TRUTH.values()) - PL_TRUTH[bot]) / 3) / ELO_PER_LOGIT
        for bot in PL_TRUTH
    }
    hits = total = 0
    for _ in range(ladders):
        found = bot_margins(pl_ladder(PL_TRUTH, deals, rng, luck=1.0), True)
        for bot, value in truth.items():
            m = found[bot]
            total += 1
            hits += m.low is not None and m.high is not None and m.low <= value <= m.high
    return hits / total


def identical_differ_rate(deals: int, ladders: int, seed: int, system: str) -> float:
    """The share of ladders of four identical bots whose shared ranks are not all equal."""
    rng = random.Random(seed)
    truth = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}
    bots = tuple(sorted(truth))
    plan = Plan("same", "x", {}, bots, system, True, 4 if system != "elo" else 2, "round-robin")
    differ = 0
    for _ in range(ladders):
        results = pl_ladder(truth, deals, rng) if system != "elo" else elo_ladder(truth, deals, rng)
        standings = compute(plan, results, [], scheduled=len(results), seed_sha256="")
        shared = {(row.rank_top, row.rank_bottom) for row in standings.rows}
        differ += len(shared) > 1
    return differ / ladders


#: The SPRT the bench stops ladders with.
SPRT_TEST = Sprt(0.0, 40.0)


def sprt_coverage(
    ladders: int, seed: int, elo_true: float = 20.0, test: Sprt = SPRT_TEST
) -> dict[str, float]:
    """SPRT ladders (default SPRT(0, 40)) on deals of two rotations (pentanomial units) whose
    true Elo is `elo_true`: coverage of the true mean score by the fixed-sample and the
    corrected interval, overall and for stops within 100 deals."""
    rng = np.random.default_rng(seed)
    p = expected_score(elo_true)
    truth = p  # a deal's mean of two independent games
    out = {"fixed": 0, "corrected": 0, "early": 0, "early_fixed": 0, "early_corrected": 0}
    stopped = 0
    for _ in range(ladders):
        units = (rng.random((20000, 2)) < p).mean(axis=1)
        n = _first_stop(test, units)
        if n is None:
            continue
        state = sprt(test, list(units[:n]))
        assert state.verdict is not None and state.fixed is not None
        stopped += 1
        fixed = state.fixed[0] <= truth <= state.fixed[1]
        corrected = state.stopped is not None and state.stopped.low <= truth <= state.stopped.high
        out["fixed"] += fixed
        out["corrected"] += corrected
        if n <= 100:
            out["early"] += 1
            out["early_fixed"] += fixed
            out["early_corrected"] += corrected
    return {
        "stopped": stopped,
        "fixed": out["fixed"] / max(stopped, 1),
        "corrected": out["corrected"] / max(stopped, 1),
        "early": out["early"],
        "early_fixed": out["early_fixed"] / max(out["early"], 1),
        "early_corrected": out["early_corrected"] / max(out["early"], 1),
    }


def _first_stop(test: Sprt, units: np.ndarray) -> int | None:
    """The first n at which `sprt.sprt` stops, found with its formula on running sums."""
    n = np.arange(1, len(units) + 1, dtype=float)
    total, squares = np.cumsum(units), np.cumsum(units * units)
    weight = n + 1
    mean = (total + 0.5) / weight
    spread = squares - 2 * mean * total + n * mean**2 + 0.5 * mean**2 + 0.5 * (1 - mean) ** 2
    variance = spread / weight
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    crossed = np.nonzero(((llr >= test.upper) | (llr <= test.lower)) & (n >= 2))[0]
    if not len(crossed):
        return None
    return int(crossed[0]) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladders", type=int, default=200)
    parser.add_argument("--sprt", type=int, default=200)
    parser.add_argument("--seed", type=int, default=44)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print("deals  PL     Elo    margin")
    for deals in DEALS:
        pl = pl_coverage(deals, args.ladders, args.seed + deals)
        el = elo_coverage(deals, args.ladders, args.seed + deals)
        mg = margin_coverage(deals, args.ladders, args.seed + deals)
        print(f"{deals:5d}  {pl:.3f}  {el:.3f}  {mg:.3f}")
    for system in ("plackett-luce", "elo"):
        rate = identical_differ_rate(10, args.ladders, args.seed, system)
        print(f"identical bots, {system}, 10 deals: shared ranks differ in {rate:.3f}")
    test = SPRT_TEST
    for elo_true in (20.0,):  # the middle of the test: its longest runs, the hardest case
        found = sprt_coverage(args.sprt, args.seed, elo_true, test)
        print(
            f"SPRT(0, 40), true {elo_true:+.0f} Elo: {found['stopped']} stopped; coverage fixed "
            f"{found['fixed']:.3f}, corrected {found['corrected']:.3f}; within 100 deals "
            f"({found['early']}): fixed {found['early_fixed']:.3f}, corrected "
            f"{found['early_corrected']:.3f}"
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
