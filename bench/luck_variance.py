"""How many fewer matches duplicate deals, luck corrections and both need for the same interval.

For each configuration (a game and its seat count) a pool of deals (seeds from the ladder's own
`derive_seed`) is played through the real match runner with in-process bots, each deal in all n
cyclic rotations of the seats: the hero (the SDK's heuristic for the game) sits at seat r in
rotation r, and the other n - 1 seats hold the heuristic with 10% random moves (duplicate
variance's NoisyBot), a weaker bot that still leaves most matches in doubt (RandomBot loses
nearly every match: there is little luck left to remove). In Xeri with four seats the hero's
partner is a noisy bot too. Every match writes its record to a temporary folder; each record is
replayed (scripts/fit_values.py's `chance_states`) and the referee's own LuckMeter, with the
game's value function (referee.games.values), credits every seat at every chance node. Where the
record's result line carries the referee's own `luck` (schema 2), corrections and value function
must agree with these (the count of records that disagree is printed).

The statistic is the hero's margin per match (its side's points less the mean of the others'),
and for each method its per-match variance, the matches a fixed interval width needs:

- plain: every match its own deal: the variance over all matches;
- duplicate: n times the variance over deals of the mean of a deal's n rotations;
- correction: margin + correction, every match its own deal;
- both: n times the variance over deals of the mean corrected margin of a deal's rotations.

Printed per method: plain variance / the method's, "x fewer matches", with a 95% percentile
bootstrap interval over deals (deals resampled whole), so what is noise shows. A game without a
value module prints "no value function" in the correction columns; the value function's name
says which weights ran (a placeholder with zero weights gives exactly 1x).

Where "both" equals "duplicate" to the last digit, that is no accident: every rotation of a deal
sees the same chance outcomes (the runner draws them from the seed), so where V's change at a
chance node does not depend on the play before it, a seat's correction is the same in every
rotation; seats' V sum to zero, as margins do, so the hero's corrections over a deal's rotations
sum to zero and duplicate deals had already removed all the luck V sees.

Run: .venv/bin/python bench/luck_variance.py [--deals N] [--jobs 2] [--seed S] [CONFIG ...]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trio
from duplicate_variance import NoisyBot  # (bench/ leads sys.path when this file is run)

from croupier.bot import Bot
from referee.games import get_game
from referee.games.base import parse_options
from referee.games.values import value_function
from referee.ladder.schedule import derive_seed
from referee.match.clock import TimeControl
from referee.match.luck import DECIMALS, LuckMeter
from referee.match.records import read_all
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

sys.path.append(str(Path(__file__).resolve().parent.parent / "scripts"))
from fit_values import HEURISTICS, chance_states  # (scripts/ is no package)

#: The weaker bots' share of random moves.
NOISE = 0.1
#: Bootstrap resamples of the deals for each ratio's interval.
RESAMPLES = 2000
METHODS = ("duplicate", "correction", "both")


@dataclass(frozen=True)
class Config:
    game: str
    options: dict[str, str]
    #: Deals by default: about 9 CPU-minutes for the whole table with every value function (the
    #: referee computes each correction once, this bench again from the record), 5 on 2 idle cores.
    deals: int


CONFIGS: dict[str, Config] = {
    "xix": Config("xix", {}, 500),
    "xeri-2": Config("xeri", {"players": "2"}, 400),
    "xeri-4": Config("xeri", {"players": "4"}, 160),
    "xactika-2": Config("xactika", {"players": "2"}, 160),
    "xactika-4": Config("xactika", {"players": "4"}, 80),
    "textactoe-2": Config("textactoe", {"players": "2"}, 500),
    "textactoe-4": Config("textactoe", {"players": "4"}, 120),
    # Tex-Tac-Toe's V sees only the jokers (TTT-R4): without them it is zero.
    "textactoe-2-jokers": Config("textactoe", {"players": "2", "jokers": "true"}, 300),
    "textactoe-4-jokers": Config("textactoe", {"players": "4", "jokers": "true"}, 80),
}


@dataclass(frozen=True)
class Deal:
    """The hero's margin and correction in each rotation of one deal (rotation r: hero at seat
    r); corrections None without a value function. `checked`/`mismatched`: records whose result
    line carried the referee's luck, and those that disagreed with the meter here."""

    margins: tuple[float, ...]
    corrections: tuple[float, ...] | None
    checked: int
    mismatched: int


def recorded_luck(path: Path) -> tuple[tuple[float, ...], str] | None:
    """The per-seat corrections the referee wrote on the record's result line, and the value
    function it names; None where it wrote none (schema 1, or a game without a value function)."""
    records, _ = read_all(path, strict=True)
    line = records[-1]
    if line.WhichOneof("line") != "result" or not line.result.luck:
        return None
    return tuple(line.result.luck), line.result.luck_value


async def play_rotations(config: Config, deal: int, master: str, folder: Path) -> list[Path]:
    game = get_game(config.game)
    options = parse_options(game, config.options)
    seats = game.seat_count(options)
    heuristic = HEURISTICS[config.game]
    paths = []
    for rotation in range(seats):
        bots: list[Bot] = [
            heuristic()
            if seat == rotation
            else NoisyBot(heuristic(), NOISE, (deal * seats + rotation) * seats + seat)
            for seat in range(seats)
        ]
        match = MatchConfig(
            game,
            options,
            seed=derive_seed(master, deal),
            match_id=f"lv-{deal}-{rotation}",
            time_control=TimeControl(move_ms=0),
        )
        path = folder / f"lv-{deal}-{rotation}.jsonl"
        await run_match(match, [InProcessSeat(bot) for bot in bots], path)
        paths.append(path)
    return paths


def play_deal(key: str, deal: int, master: str) -> Deal:
    """Play one deal in every rotation and measure the hero's margins and luck from the records."""
    config = CONFIGS[key]
    margins, corrections = [], []
    checked = mismatched = 0
    with tempfile.TemporaryDirectory(prefix="luck-variance-") as folder:
        paths = trio.run(play_rotations, config, deal, master, Path(folder))
        for hero, path in enumerate(paths):
            nodes, margin, seed = chance_states(path)
            margins.append(margin[hero])
            meter = LuckMeter.for_game(config.game, seed, len(margin))
            if meter is None:
                continue
            for before, after in nodes:
                meter.chance(before, after)
            mine = meter.corrections()
            corrections.append(mine[hero])
            recorded = recorded_luck(path)
            if recorded is not None:
                theirs, maker = recorded
                checked += 1
                close = len(theirs) == len(mine) and all(
                    abs(a - b) <= 10**-DECIMALS for a, b in zip(theirs, mine, strict=True)
                )
                mismatched += not close or maker != meter.digest
    return Deal(tuple(margins), tuple(corrections) or None, checked, mismatched)


def _play(task: tuple[str, int, str]) -> Deal:
    return play_deal(*task)


def play_pool(key: str, deals: int, master: str, jobs: int) -> list[Deal]:
    """Every deal of a configuration's pool, on `jobs` processes (1: in this one)."""
    tasks = [(key, deal, master) for deal in range(deals)]
    if jobs <= 1:
        return [_play(task) for task in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_play, tasks, chunksize=max(1, deals // (8 * jobs))))


@dataclass(frozen=True)
class Ratio:
    """plain variance / a method's: the point estimate and its 95% bootstrap interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Row:
    deals: int
    seats: int
    mean: float  # the hero's mean margin per match
    corrected_mean: float | None
    plain: float  # per-match variance of the margin
    ratios: dict[str, Ratio | None]  # None: no value function


def _variances(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-match variance plain and duplicate, over the last two axes (deals, rotations)."""
    seats = m.shape[-1]
    flat = m.reshape(*m.shape[:-2], -1)
    return flat.var(axis=-1, ddof=1), seats * m.mean(axis=-1).var(axis=-1, ddof=1)


def summarise(pool: Sequence[Deal], seed: int = 0) -> Row:
    """The table's row for a pool of deals (at least two)."""
    m = np.array([deal.margins for deal in pool], dtype=float)
    has_c = all(deal.corrections is not None for deal in pool)
    c = np.array([deal.corrections for deal in pool], dtype=float) if has_c else None
    picks = np.random.default_rng(seed).integers(0, len(pool), (RESAMPLES, len(pool)))

    def per_method(m: np.ndarray, c: np.ndarray | None) -> dict[str, np.ndarray]:
        plain, duplicate = _variances(m)
        out = {"plain": plain, "duplicate": duplicate}
        if c is not None:
            out["correction"], out["both"] = _variances(m + c)
        return out

    point = per_method(m, c)
    boot = per_method(m[picks], None if c is None else c[picks])
    ratios: dict[str, Ratio | None] = dict.fromkeys(METHODS)
    with np.errstate(divide="ignore", invalid="ignore"):
        for method in METHODS:
            if method in point:
                spread = boot["plain"] / boot[method]
                low, high = np.nanpercentile(spread, [2.5, 97.5], method="nearest")
                value = float(point["plain"] / point[method]) if point[method] else math.inf
                ratios[method] = Ratio(value, float(low), float(high))
    return Row(
        deals=len(pool),
        seats=m.shape[1],
        mean=float(m.mean()),
        corrected_mean=None if c is None else float((m + c).mean()),
        plain=float(point["plain"]),
        ratios=ratios,
    )


def _cell(ratio: Ratio | None) -> str:
    if ratio is None:
        return f"{'no value function':^20}"
    return f"{ratio.value:5.2f}x [{ratio.low:4.2f}, {ratio.high:4.2f}]".rjust(20)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, help="deals per configuration (default: its own)")
    parser.add_argument("--seed", default="luck-variance", help="master seed of the deals")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("configs", nargs="*", choices=[*CONFIGS, []], help="default: all")
    args = parser.parse_args()
    began = time.perf_counter()
    print(f"load average at start: {_load()} ({os.cpu_count()} CPUs, {args.jobs} processes)")
    print(
        f"{'config':<18} {'deals':>5} {'margin':>7} {'corr.':>7} {'plain var':>9} "
        f"{'duplicate':^20} {'correction':^20} {'both':^20} {'s':>5}  value function"
    )
    for key in args.configs or list(CONFIGS):
        config = CONFIGS[key]
        start = time.perf_counter()
        pool = play_pool(key, args.deals or config.deals, args.seed, args.jobs)
        row = summarise(pool)
        value = value_function(config.game)
        corrected = "" if row.corrected_mean is None else f"{row.corrected_mean:.2f}"
        print(
            f"{key:<18} {row.deals:>5} {row.mean:>7.2f} {corrected:>7} {row.plain:>9.1f} "
            + " ".join(_cell(row.ratios[method]) for method in METHODS)
            + f" {time.perf_counter() - start:>5.0f}  {value.name if value else '-'}"
        )
        checked = sum(deal.checked for deal in pool)
        mismatched = sum(deal.mismatched for deal in pool)
        if checked:
            print(f"  the referee's own luck on {checked} records: {mismatched} disagree")
    print(
        f"{time.perf_counter() - began:.0f} s in all; load average at end: {_load()}\n"
        "margin: the hero's mean margin per match (corr.: corrected); plain var: its per-match "
        "variance; each method: plain variance / the method's (x fewer matches for the same "
        "interval width) [95% bootstrap interval over deals]"
    )


if __name__ == "__main__":
    main()
