"""Seconds per reviewed decision at two budgets per game (issue 48.4), and the XIX match review
that the default budget makes.

For each game a match is played in-process between its heuristic and the random bot (a seeded
referee match, its record written), and seat 0's decisions, spread over the match, are reviewed
one after another in this process (CPU time): the sampling of its unseen cards from its view
and the playouts.
`unsampled` counts decisions where no determinization fitted the view within the sampler's
attempts. The last line times a whole XIX match's review with the default budget on a process
pool of 2 (wall time).
Run: `.venv/bin/python bench/review_speed.py [--decisions N] [--games GAME ...]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from croupier.bot import Bot
from croupier.bots import (
    RandomBot,
    TexTacToeHeuristicBot,
    XactikaHeuristicBot,
    XeriHeuristicBot,
    XixHeuristicBot,
)
from croupier.env.table import Table
from referee.review.budgets import DEFAULT_BUDGET
from referee.review.review import review, reviews
from referee.review.view import view_of_record

CASES: list[tuple[str, dict[str, object], type[Bot]]] = [
    ("xix", {}, XixHeuristicBot),
    ("xeri", {"players": 2}, XeriHeuristicBot),
    ("xactika", {"players": 2}, XactikaHeuristicBot),
    ("textactoe", {"players": 2}, TexTacToeHeuristicBot),
]
BUDGETS = (DEFAULT_BUDGET // 4, DEFAULT_BUDGET)


def record(
    folder: Path, game: str, options: dict[str, object], heuristic: type[Bot], seed: int = 7
) -> Path:
    path = folder / f"{game}-{seed}.jsonl"
    table = Table.of(game, options)
    bots = [heuristic(), RandomBot(1)]
    match = table.match(seed, [bot.name for bot in bots], record=path)
    for seat, start in enumerate(match.starts):
        bots[seat].on_match_start(start)
    while match.request is not None:
        for event in match.request.events:
            bots[match.seat].on_event(event)
        match.answer(bots[match.seat].act(match.request))
    return path


def spread(path: Path, count: int) -> list[int]:
    """`count` of seat 0's decisions, evenly spread over the match (later ones cost more)."""
    total = len(view_of_record(path, 0).decisions)
    return sorted({i * total // count for i in range(count)})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--decisions", type=int, default=10)
    parser.add_argument("--games", nargs="+", default=[case[0] for case in CASES])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'game':<10} {'budget':>6} {'s/decision':>11} {'unsampled':>10}")
        for game, options, heuristic in CASES:
            if game not in args.games:
                continue
            path = record(Path(folder), game, options, heuristic)
            for budget in BUDGETS:
                start = time.process_time()
                done = list(reviews(path, 0, budget, only=spread(path, args.decisions)))
                seconds = (time.process_time() - start) / len(done)
                unsampled = sum(d.unsampled for d in done)
                print(f"{game:<10} {budget:>6} {seconds:>11.3f} {unsampled:>6}/{len(done)}")
        if "xix" not in args.games:
            return
        path = record(Path(folder), "xix", {}, XixHeuristicBot, seed=8)
        start = time.monotonic()
        whole = review(path, 0, DEFAULT_BUDGET, workers=2)
        took = time.monotonic() - start
        print(
            f"xix match, {len(whole)} decisions, budget {DEFAULT_BUDGET}, 2 processes: {took:.1f} s"
        )


if __name__ == "__main__":
    main()
