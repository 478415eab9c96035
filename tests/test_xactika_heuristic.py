"""XactikaHeuristicBot beats random play (bench/bot_strength.py measures 200 games)."""

from __future__ import annotations

import trio

from croupier.bot import Bot
from croupier.bots import RandomBot, XactikaHeuristicBot
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

GAME = get_game("xactika")


def test_heuristic_beats_random_players() -> None:
    games, players = 16, 4
    options = parse_options(GAME, {"players": str(players)})
    wins = 0
    margin = 0.0
    for number in range(games):
        hero = number % players  # every seat in turn
        bots: list[Bot] = [
            XactikaHeuristicBot() if seat == hero else RandomBot(number * 16 + seat)
            for seat in range(players)
        ]
        config = MatchConfig(
            GAME, options, seed=number, match_id=f"h{number}", time_control=TimeControl(move_ms=0)
        )
        outcome = trio.run(run_match, config, [InProcessSeat(bot) for bot in bots])
        assert not outcome.faults
        scores = {s.seat: s.score for s in outcome.result.seats}
        others = [scores[s] for s in range(players) if s != hero]
        wins += outcome.result.seats[hero].rank == 1
        margin += scores[hero] - sum(others) / len(others)
    # 200 games measured ~98% wins and ~26 points a game ahead; these bounds are conservative.
    assert wins >= games * 0.6
    assert margin / games >= 8
