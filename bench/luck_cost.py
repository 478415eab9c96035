"""What the luck corrections cost the referee: milliseconds per chance node and per match, per game.

Plays seeded random playouts through each engine (the trusted path, as the referee's own work
per decision is not what is measured here), times `LuckMeter.chance` at every chance node, and
prints the mean per node and per match, beside the engine's own time for the match, and the
meter's time spread over the match's decisions (to set beside the referee's ~600 µs of CPU per
decision over gRPC, bench/decision_rate.py).

Run: .venv/bin/python bench/luck_cost.py [--matches 200]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from referee.games import get_game
from referee.games.base import parse_options
from referee.match.luck import LuckMeter
from referee.match.runner import draw_chance

CONFIGS = (
    ("xix", {}),
    ("xeri", {"players": "2"}),
    ("xeri", {"players": "4"}),
    ("xactika", {"players": "4"}),
    ("xactika", {"players": "10"}),
    ("textactoe", {"players": "2", "jokers": "true"}),
)


def measure(game_id: str, raw: dict[str, str], matches: int) -> tuple[float, float, float, float]:
    """(meter seconds, engine seconds, chance nodes per match, decisions per match) over
    `matches` random playouts."""
    game = get_game(game_id)
    options = parse_options(game, raw)
    seats = game.seat_count(options)
    meter_s = engine_s = 0.0
    nodes = decisions = 0
    for number in range(matches):
        rng = random.Random(number)
        meter = LuckMeter.for_game(game_id, number, seats)
        assert meter is not None
        state = game.new_game(options)
        began = time.perf_counter()
        while not state.is_terminal():
            node = state.chance()
            if node is None:
                state = state.apply(rng.choice(state.legal_actions()))
                decisions += 1
                continue
            after = state.apply_chance(draw_chance(node, rng))
            metered = time.perf_counter()
            meter.chance(state, after)
            meter_s += time.perf_counter() - metered
            nodes += 1
            state = after
        engine_s += time.perf_counter() - began
    return meter_s / matches, (engine_s - meter_s) / matches, nodes / matches, decisions / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(
        f"{'game':<32} {'nodes':>6} {'decisions':>9} {'ms/node':>8} {'ms/match':>9} "
        f"{'engine ms':>10} {'µs/decision':>11}"
    )
    for game_id, raw in CONFIGS:
        meter_s, engine_s, nodes, decisions = measure(game_id, raw, args.matches)
        label = game_id + (" " + " ".join(f"{k}={v}" for k, v in raw.items()) if raw else "")
        print(
            f"{label:<32} {nodes:>6.1f} {decisions:>9.1f} {meter_s * 1e3 / nodes:>8.2f} "
            f"{meter_s * 1e3:>9.2f} {engine_s * 1e3:>10.2f} {meter_s * 1e6 / decisions:>11.1f}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
