"""Real matches of in-process bots, recorded to real files, for the record and CLI tests."""

from __future__ import annotations

from pathlib import Path

import trio

from croupier.bots import RandomBot, XixHeuristicBot
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, MatchOutcome, run_match
from referee.match.seats import InProcessSeat


def record_xix_match(path: Path, seed: int = 7) -> MatchOutcome:
    game = get_game("xix")
    config = MatchConfig(
        game,
        parse_options(game, {}),
        seed=seed,
        match_id=f"test-{seed}",
        time_control=TimeControl(),
    )
    seats = [InProcessSeat(RandomBot(seed)), InProcessSeat(XixHeuristicBot())]
    return trio.run(run_match, config, seats, path)


def record_match(path: Path, game_id: str, options: dict[str, str], seed: int = 7) -> MatchOutcome:
    """A match of random in-process bots in any game."""
    game = get_game(game_id)
    parsed = parse_options(game, options)
    config = MatchConfig(
        game, parsed, seed=seed, match_id=f"test-{seed}", time_control=TimeControl()
    )
    seats = [InProcessSeat(RandomBot(seed + seat)) for seat in range(game.seat_count(parsed))]
    return trio.run(run_match, config, seats, path)
