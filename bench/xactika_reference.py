"""The Xactika reference bot against the Xactika heuristic, in-process: a quick A/B (issue 48.1).

Each deal (seeds from the ladder's own `derive_seed`) is played in both seat orders through the
real match runner with in-process bots and no clock (2 players, 2 rounds, as in
bench/ladders/xactika-reference.toml). Prints the reference's mean margin a match (points, the
two seat orders of a deal paired: a deal is one observation) with its 95% interval, its match
score, the deals won and lost in both seat orders, and its CPU seconds a decision. `--set
NAME=VALUE` sets a module constant of croupier.bots.reference first (an experiment's knob).
Run: .venv/bin/python bench/xactika_reference.py [--deals 10] [--budget 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import statistics
import time

import trio

from croupier.bots import XactikaHeuristicBot
from croupier.bots import reference as reference_module
from croupier.bots.reference import XactikaReferenceBot
from croupier.v1 import referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.schedule import derive_seed
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat


class _Timed(XactikaReferenceBot):
    """The reference bot, counting its decisions and their CPU time."""

    decisions = 0
    seconds = 0.0

    def act(self, request: referee_pb2.ActionRequest) -> int:
        started = time.process_time()
        index = super().act(request)
        type(self).decisions += 1
        type(self).seconds += time.process_time() - started
        return index


def _setup(knobs: list[str]) -> None:
    for knob in knobs:
        name, _, value = knob.partition("=")
        where, _, name = name.rpartition(".")
        module = importlib.import_module(where) if where else reference_module
        current = getattr(module, name)
        setattr(module, name, type(current)(float(value)))


def _deal(job: tuple[int, int, str, list[str]]) -> tuple[float, float, int, float, int]:
    """(margin a match, score a match, fallbacks, CPU seconds, decisions) over the deal's two
    seat orders."""
    deal, budget, salt, knobs = job
    _setup(knobs)
    game = get_game("xactika")
    options = parse_options(game, {"players": "2", "rounds": "2"})
    margins, scores, fallbacks = [], [], 0
    _Timed.decisions, _Timed.seconds = 0, 0.0
    for seat in (0, 1):
        reference = _Timed(budget, seed=deal)
        bots = [reference, XactikaHeuristicBot()]
        if seat:
            bots.reverse()
        config = MatchConfig(
            game,
            options,
            seed=derive_seed(salt, deal),
            match_id=f"xr-{deal}-{seat}",
            time_control=TimeControl(move_ms=0),
        )
        outcome = trio.run(run_match, config, [InProcessSeat(bot) for bot in bots])
        mine, theirs = outcome.result.seats[seat], outcome.result.seats[1 - seat]
        margins.append(float(mine.score - theirs.score))
        scores.append(1.0 if mine.rank < theirs.rank else 0.5 if mine.rank == theirs.rank else 0)
        fallbacks += reference.fallbacks
    return (
        statistics.fmean(margins),
        statistics.fmean(scores),
        fallbacks,
        _Timed.seconds,
        _Timed.decisions,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--first", type=int, default=0, help="the first deal's number")
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--salt", default="xactika-reference")
    parser.add_argument("--set", action="append", default=[], dest="knobs")
    args = parser.parse_args()
    jobs = [
        (d, args.budget, args.salt, args.knobs) for d in range(args.first, args.first + args.deals)
    ]
    started = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        played = pool.map(_deal, jobs, chunksize=1)
    margins = [p[0] for p in played]
    mean = statistics.fmean(margins)
    half = 1.96 * statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else 0.0
    score = statistics.fmean(p[1] for p in played)
    won = sum(p[1] == 1.0 for p in played)
    lost = sum(p[1] == 0.0 for p in played)
    seconds = sum(p[3] for p in played) / max(1, sum(p[4] for p in played))
    print(
        f"budget {args.budget} {' '.join(args.knobs)}: margin {mean:+.2f} ±{half:.2f} a match, "
        f"score {100 * score:.1f}%, deals won {won} lost {lost} of {len(played)} (both orders), "
        f"{seconds:.3f} CPU s a decision, {sum(p[2] for p in played)} fallbacks, "
        f"{time.perf_counter() - started:.0f} s wall"
    )


if __name__ == "__main__":
    main()
