"""`make demo`: 100 XIX matches between the random and the heuristic bot, in-process, each
recorded and verified, then a results table."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import trio
from croupier.bots import RandomBot, XixHeuristicBot
from rich.console import Console
from rich.table import Table

from referee.clock import TimeControl
from referee.games import get_game
from referee.games.base import parse_options
from referee.match import MatchConfig, run_match
from referee.replay import verify
from referee.seats import InProcessSeat

OUT = Path("demo-out")
MATCHES = 100


async def play(records: Path) -> tuple[Counter[str], Counter[str]]:
    game = get_game("xix")
    options = parse_options(game, {})
    wins: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for number in range(MATCHES):
        seats = [InProcessSeat(RandomBot(seed=number)), InProcessSeat(XixHeuristicBot())]
        if number % 2:
            seats.reverse()  # alternate seats so neither bot always gets seat 0
        config = MatchConfig(
            game, options, seed=number, match_id=f"xix-{number:03d}", time_control=TimeControl()
        )
        outcome = await run_match(config, seats, records / f"{config.match_id}.jsonl")
        for seat in outcome.result.seats:
            points[seat.name] += seat.score
            wins[seat.name] += seat.rank == 1
    return wins, points


def main() -> None:
    records = OUT / "records"
    shutil.rmtree(records, ignore_errors=True)
    wins, points = trio.run(play, records)
    verified = sum(verify(path).ok for path in records.glob("*.jsonl"))
    table = Table(title=f"XIX: {MATCHES} matches, in-process")
    for column in ("bot", "wins", "win rate", "points"):
        table.add_column(column, justify="right")
    for name in sorted(wins, key=wins.__getitem__, reverse=True):
        table.add_row(name, str(wins[name]), f"{wins[name] / MATCHES:.0%}", str(points[name]))
    console = Console()
    console.print(table)
    console.print(f"records: {records}/ ({verified} of {MATCHES} verify)")
    if verified != MATCHES:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
