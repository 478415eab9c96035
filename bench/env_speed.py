"""Decisions per second on one core: the bare engine, the training environment, and the
environment with its numeric encoding, per game (issue 47.6).

Each game is played to its end with uniformly random legal action indices from a seeded RNG:
- engine: `referee.games.checked.apply_index` and the runner's chance draw (`draw_chance`),
  the engine's checked path with no protocol messages;
- env: `referee.match.requests.SeatQueues`, the referee's own match loop as croupier.env steps
  it (each decision's ActionRequest, events and record lines in protocol form, no record file);
- env+encoding: the same, with the acting seat's observation encoded and masked as
  croupier.env's observe does at every decision.
Time is CPU time of this process. Run: `.venv/bin/python bench/env_speed.py [--seconds S]`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from croupier.env.table import Table
from referee.games import checked
from referee.match.runner import draw_chance

CASES: list[tuple[str, dict[str, object]]] = [
    ("xix", {}),
    ("xeri", {"players": 2}),
    ("xeri", {"players": 4}),
    ("xactika", {"players": 4}),
    ("textactoe", {"players": 2}),
]


def engine(table: Table, rng: random.Random) -> int:
    state = table.game.new_game(table.options)
    steps = 0
    while not state.is_terminal():
        seat = state.to_move
        if seat is None:
            node = state.chance()
            assert node is not None
            state = checked.apply_chance(state, draw_chance(node, rng))
            continue
        legal = state.legal_actions()
        state, _ = checked.apply_index(state, seat, rng.randrange(len(legal)), legal)
        steps += 1
    return steps


def env(table: Table, rng: random.Random, *, encode: bool) -> int:
    match = table.match(rng.randrange(1 << 63), [f"seat {s}" for s in range(table.seats)])
    encoder = table.encoder
    steps = 0
    while match.request is not None:
        if encode:
            encoder.encode(match.request)
            encoder.mask(match.request)
        match.answer(rng.randrange(len(match.request.legal_actions)))
        steps += 1
    return steps


def rate(play: Callable[[random.Random], int], seconds: float) -> float:
    rng = random.Random(1)
    steps = 0
    start = time.process_time()
    while (spent := time.process_time() - start) < seconds:
        steps += play(rng)
    return steps / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per figure")
    args = parser.parse_args()
    with open("/proc/loadavg") as file:
        print(f"load average: {file.read().split()[0]}")
    print(f"{'game':<14}{'engine/s':>10}{'env/s':>10}{'env+enc/s':>11}{'enc/engine':>12}")
    for game, options in CASES:
        table = Table.of(game, options)
        bare = rate(lambda rng, t=table: engine(t, rng), args.seconds)
        plain = rate(lambda rng, t=table: env(t, rng, encode=False), args.seconds)
        encoded = rate(lambda rng, t=table: env(t, rng, encode=True), args.seconds)
        label = f"{game}{options.get('players', '')}p" if options else game
        print(f"{label:<14}{bare:>10.0f}{plain:>10.0f}{encoded:>11.0f}{encoded / bare:>12.2f}")


if __name__ == "__main__":
    main()
