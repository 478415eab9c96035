"""Regenerate the example record in docs/records.md: one short, real XIX match.

It plays XIX in-process (the referee's own match runner) between the SDK's random bot and its
XIX heuristic bot, writes the record, and puts its lines between the markers in docs/records.md.
The seed is fixed, so the cards and moves are the same on every run; the start time and the
thinking times are real. The header's computer is a stand-in (COMPUTER): the doc names no
machine of ours. tests/test_records_doc.py checks that the example still verifies.

    .venv/bin/python scripts/record_example.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import trio

from croupier.bots import RandomBot, XixHeuristicBot
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

DOC = Path(__file__).resolve().parent.parent / "docs" / "records.md"
BEGIN = "<!-- example record: begin (scripts/record_example.py writes what follows) -->"
END = "<!-- example record: end -->"
#: Of seeds 0..299, one of those giving the shortest match (152 lines) with these two bots.
SEED = 145
#: The computer the example says it was played on (a record names the referee's own).
COMPUTER = {"host": "referee-1", "cpuModel": "AMD EPYC 7B13", "cpus": 8}


def example_record(folder: Path) -> str:
    """The record of the example match, as the referee writes it."""
    game = get_game("xix")
    config = MatchConfig(
        game,
        parse_options(game, {}),
        seed=SEED,
        match_id=f"example-xix-{SEED}",
        time_control=TimeControl(move_ms=1000, bank_ms=10_000),
    )
    seats = [InProcessSeat(RandomBot(0)), InProcessSeat(XixHeuristicBot())]
    path = folder / "example.jsonl"
    trio.run(run_match, config, seats, path)
    first, rest = path.read_text(encoding="utf-8").split("\n", 1)
    header = json.loads(first)
    header["header"]["computer"] = COMPUTER
    return json.dumps(header, separators=(",", ":")) + "\n" + rest


def main() -> int:
    doc = DOC.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        print(f"{DOC}: the example markers are missing", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        record = example_record(Path(folder))
    before, rest = doc.split(BEGIN, 1)
    after = rest.split(END, 1)[1]
    block = f"{BEGIN}\n\n```jsonl\n{record}```\n\n{END}"
    DOC.write_text(before + block + after, encoding="utf-8")
    print(f"{DOC}: example record of {len(record.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
