"""In-process random-play games per second through the checked path, per game and option set.

Each game is played to its end by choosing uniformly random legal indices with
`referee.games.checked.apply_index` and resolving chance with a seeded RNG, exactly the calls the
match runner makes, without bots or transport. Run: `.venv/bin/python bench/game_speed.py [GAME]`.
"""

from __future__ import annotations

import random
import sys
import time

from referee.games import GAMES, checked, get_game
from referee.games.base import Game, parse_options
from referee.match.runner import draw_chance

# Option sets to measure per game (text form); a game not listed runs with its defaults.
CASES: dict[str, list[dict[str, str]]] = {
    "xactika": [{"players": "4"}, {"players": "10"}],
    "xeri": [{"players": "2"}, {"players": "4"}],
    "textactoe": [{"players": "2"}, {"players": "2", "jokers": "true"}],
}
SECONDS = 3.0


def play_one(game: Game, options_text: dict[str, str], rng: random.Random) -> int:
    """One full random game; returns the number of decisions."""
    state = game.new_game(parse_options(game, options_text))
    decisions = 0
    while not state.is_terminal():
        seat = state.to_move
        if seat is None:
            node = state.chance()
            assert node is not None
            state = checked.apply_chance(state, draw_chance(node, rng))
            continue
        count = len(state.legal_actions())
        state, _ = checked.apply_index(state, seat, rng.randrange(count))
        decisions += 1
    return decisions


def measure(game: Game, options_text: dict[str, str]) -> tuple[float, float]:
    """(games per second, decisions per second) over about SECONDS of play on one core."""
    rng = random.Random(1)
    games = decisions = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < SECONDS:
        decisions += play_one(game, options_text, rng)
        games += 1
    return games / elapsed, decisions / elapsed


def main() -> None:
    names = sys.argv[1:] or list(GAMES)
    print(f"{'game':<10} {'options':<30} {'games/s':>9} {'decisions/s':>12}")
    for name in names:
        game = get_game(name)
        for options_text in CASES.get(name, [{}]):
            games_per_s, decisions_per_s = measure(game, options_text)
            label = ",".join(f"{k}={v}" for k, v in options_text.items()) or "default"
            print(f"{name:<10} {label:<30} {games_per_s:>9.1f} {decisions_per_s:>12.0f}")


if __name__ == "__main__":
    main()
