"""Fit a game's luck value function (referee/games/<game>_value.py) and print its weights.

Plays the SDK's heuristic bot in every seat on `--matches` seeded deals, in process, with records;
replays each record and, after every chance outcome, takes `features(state, seat)` with the
seat's final margin (referee.games.values.margins) as the target. Least squares (numpy) on the
first half of the matches gives the weights; the second half reports how much of the margin's
variance the correction removes with them (the referee's own LuckMeter, as a match would run it).
Paste the printed WEIGHTS into the value module, bump its NAME, and run again to check.

Run: .venv/bin/python scripts/fit_values.py GAME [--option players=4] [--matches 2000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import types
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import trio

from croupier.bot import Bot
from croupier.bots import (
    TexTacToeHeuristicBot,
    XactikaHeuristicBot,
    XeriHeuristicBot,
    XixHeuristicBot,
)
from referee.games import get_game
from referee.games.base import State, parse_options
from referee.games.values import LinearValue, ValueModule, margins, value_function
from referee.ladder.schedule import derive_seed
from referee.match.clock import TimeControl
from referee.match.luck import LuckMeter
from referee.match.records import read_all
from referee.match.replay import Replayer
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

HEURISTICS: dict[str, type[Bot]] = {
    "xix": XixHeuristicBot,
    "xeri": XeriHeuristicBot,
    "xactika": XactikaHeuristicBot,
    "textactoe": TexTacToeHeuristicBot,
}


async def play(game_id: str, raw: dict[str, str], matches: int, folder: Path) -> list[Path]:
    game = get_game(game_id)
    options = parse_options(game, raw)
    seats = game.seat_count(options)
    paths = []
    for number in range(matches):
        config = MatchConfig(
            game,
            options,
            seed=derive_seed("fit-values", number),
            match_id=f"fit-{number}",
            time_control=TimeControl(move_ms=0),
        )
        path = folder / f"fit-{number}.jsonl"
        bots = [InProcessSeat(HEURISTICS[game_id]()) for _ in range(seats)]
        await run_match(config, bots, path)
        paths.append(path)
    return paths


def chance_states(path: Path) -> tuple[list[tuple[State, State]], tuple[float, ...], int]:
    """Each chance node's state before and after, the seats' final margins, and the seed."""
    records, _ = read_all(path, strict=True)
    replayer = Replayer(records[0].header)
    nodes = []
    for record in records[1:]:
        before = replayer.state
        replayer.line(record)
        if record.WhichOneof("line") == "chance":
            nodes.append((before, replayer.state))
    result = replayer.state.result()
    return nodes, margins(result.scores, result.teams), int(records[0].header.seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(HEURISTICS))
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--matches", type=int, default=2000)
    args = parser.parse_args()
    raw = dict(item.split("=", 1) for item in args.option)
    current = value_function(args.game)
    if current is None:
        raise SystemExit(f"referee/games/{args.game}_value.py does not exist yet")
    module = cast(ValueModule, current.module)
    with tempfile.TemporaryDirectory() as folder:
        paths = trio.run(play, args.game, raw, args.matches, Path(folder))
        played = [chance_states(path) for path in paths]
    half = len(played) // 2
    rows, targets = [], []
    for nodes, margin, _ in played[:half]:
        for _, after in nodes:
            for seat, target in enumerate(margin):
                rows.append(list(module.features(after, seat)))
                targets.append(target)
    x, y = np.array(rows, dtype=float), np.array(targets, dtype=float)
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    fitted = tuple(round(float(w), 4) for w in weights)
    residual = y - x @ np.array(fitted)
    print(
        f"{args.game} {raw or ''}: {len(rows)} rows from {half} matches, "
        f"R^2 {1 - residual.var() / y.var():.3f}"
    )
    print(f"WEIGHTS: Final = {fitted!r}")
    trial = types.SimpleNamespace(NAME=module.NAME, WEIGHTS=fitted, features=module.features)
    for label, value in (
        ("module's", current),
        ("fitted", LinearValue(cast(types.ModuleType, trial))),
    ):
        raw_m, corrected = [], []
        for nodes, margin, seed in played[half:]:
            meter = LuckMeter(value, seed, len(margin))
            for before, after in nodes:
                meter.chance(before, after)
            for seat, (m, c) in enumerate(zip(margin, meter.corrections(), strict=True)):
                if seat == 0:
                    raw_m.append(m)
                    corrected.append(m + c)
        print(
            f"{label} weights on {len(played) - half} held-out matches, seat 0: margin variance "
            f"{_var(raw_m):.2f} raw, {_var(corrected):.2f} corrected "
            f"({_var(raw_m) / max(_var(corrected), 1e-12):.2f}x fewer matches)"
        )


def _var(values: Sequence[float]) -> float:
    return statistics.pvariance(values) if len(values) > 1 else 0.0


if __name__ == "__main__":
    main()
