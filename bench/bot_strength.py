"""Each game's heuristic bot against RandomBot: wins, draws, losses and points per game.

Plays GAMES matches per case through the real match runner with in-process seats (no clock).
One heuristic seat against random ones, the heuristic's seat rotating match by match; in team
games (Xeri with 4 players) the heuristic is a whole team, partners both heuristic. A win is a
first place the randoms do not share; a shared first place is a draw.
Run: `.venv/bin/python bench/bot_strength.py [GAMES] [GAME ...]` (200 games, every game).
"""

from __future__ import annotations

import sys
import time

import trio

from croupier.bot import Bot
from croupier.bots import (
    RandomBot,
    TexTacToeHeuristicBot,
    XactikaHeuristicBot,
    XeriHeuristicBot,
    XixHeuristicBot,
)
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

CASES: list[tuple[str, dict[str, str], type[Bot]]] = [
    ("xix", {}, XixHeuristicBot),
    ("xactika", {"players": "4"}, XactikaHeuristicBot),
    ("xactika", {"players": "10"}, XactikaHeuristicBot),
    ("xeri", {"players": "2"}, XeriHeuristicBot),
    ("xeri", {"players": "4"}, XeriHeuristicBot),
    ("xeri", {"players": "2", "var_cumulative_151": "true"}, XeriHeuristicBot),
    ("textactoe", {"players": "2"}, TexTacToeHeuristicBot),
    ("textactoe", {"players": "2", "jokers": "true"}, TexTacToeHeuristicBot),
    ("textactoe", {"players": "3"}, TexTacToeHeuristicBot),
]


async def play(
    game_id: str, options_text: dict[str, str], heuristic: type[Bot], games: int
) -> tuple[int, int, int, float, float]:
    """(wins, draws, losses, heuristic points per game, random points per seat per game)."""
    game = get_game(game_id)
    options = parse_options(game, options_text)
    seats = game.seat_count(options)
    teams = game_id == "xeri" and seats == 4
    wins = draws = losses = 0
    ours = theirs = 0.0
    for number in range(games):
        hero = {s for s in range(seats) if s % 2 == number % 2} if teams else {number % seats}
        bots = [heuristic() if s in hero else RandomBot(seed=number * 16 + s) for s in range(seats)]
        config = MatchConfig(
            game, options, seed=number, match_id=f"b{number}", time_control=TimeControl(move_ms=0)
        )
        outcome = await run_match(config, [InProcessSeat(bot) for bot in bots])
        if outcome.faults:
            raise SystemExit(f"{game_id} match {number}: faults {list(outcome.faults)}")
        results = outcome.result.seats
        hero_first = all(results[s].rank == 1 for s in hero)
        others_first = any(results[s].rank == 1 for s in range(seats) if s not in hero)
        wins += hero_first and not others_first
        draws += hero_first and others_first
        losses += not hero_first
        ours += sum(results[s].score for s in hero) / len(hero)
        theirs += sum(results[s].score for s in range(seats) if s not in hero) / (seats - len(hero))
    return wins, draws, losses, ours / games, theirs / games


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    chosen = set(sys.argv[2:])
    print(
        f"{'game':<10} {'options':<28} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} "
        f"{'win %':>6} {'heur pts':>9} {'rand pts':>9} {'s':>5}"
    )
    for game_id, options_text, heuristic in CASES:
        if chosen and game_id not in chosen:
            continue
        started = time.perf_counter()
        wins, draws, losses, ours, theirs = trio.run(play, game_id, options_text, heuristic, games)
        label = ",".join(f"{k}={v}" for k, v in options_text.items()) or "default"
        print(
            f"{game_id:<10} {label:<28} {games:>5} {wins:>5} {draws:>5} {losses:>6} "
            f"{100 * wins / games:>6.1f} {ours:>9.1f} {theirs:>9.1f} "
            f"{time.perf_counter() - started:>5.1f}"
        )


if __name__ == "__main__":
    main()
