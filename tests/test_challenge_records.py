"""A challenge's match says so in its record (issue 45.5): the header's `challenge` (its id,
ranked or not) is written from the match's config, reads back, replays, and `croupier replay`
shows it where it names the match; a record without one (every other match, and every record
written before) reads, replays and shows as before. Real matches of in-process bots, real record
files; the contest's challenges and `ladder verify` on them are tests/test_challenges.py's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import trio
from typer.testing import CliRunner

from croupier.bots import RandomBot, XixHeuristicBot
from referee.cli import app
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.records import ChallengeMark, read_all
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.viewer import load, viewer_data
from referee.viewer.stepper import Stepper

ROOT = Path(__file__).resolve().parent.parent
OLD_RECORDS = [
    ROOT / "tests" / "data" / "xix-schema1.jsonl",
    ROOT / "tests" / "golden" / "xix.jsonl",
]
runner = CliRunner()


def played(path: Path, challenge: ChallengeMark | None) -> Path:
    game = get_game("xix")
    config = MatchConfig(
        game,
        parse_options(game, {}),
        seed=11,
        match_id="challenge-00007-0001-0",
        time_control=TimeControl(),
        challenge=challenge,
    )
    seats = [InProcessSeat(RandomBot(11)), InProcessSeat(XixHeuristicBot())]
    trio.run(run_match, config, seats, path)
    return path


def first_line(path: Path) -> str:
    shown = runner.invoke(app, ["replay", str(path), "--plain"])
    assert shown.exit_code == 0, shown.output
    return shown.output.splitlines()[0]


@pytest.mark.parametrize("ranked", [False, True])
def test_a_challenge_s_match_names_it_and_replays_saying_so(tmp_path: Path, ranked: bool) -> None:
    mark = ChallengeMark(7, ranked)
    path = played(tmp_path / "match.jsonl", mark)
    (header, *_), _ = read_all(path, strict=True)
    assert ChallengeMark.of(header.header) == mark
    assert '"challenge":{"id":"7"' in path.read_text().splitlines()[0]  # uint64: JSON text
    assert verify(path).ok
    said = f"challenge 7 ({'ranked' if ranked else 'unranked'})"
    assert f"match challenge-00007-0001-0, {said}, " in first_line(path)
    assert viewer_data(load(path))["challenge"] == said
    assert stepper_title(path) == f"xix · challenge-00007-0001-0 · {said}"


def stepper_title(path: Path) -> str:
    """The title `croupier replay` gives the match in a terminal (the stepper's)."""

    async def run() -> str:
        app = Stepper(load(path))
        async with app.run_test(size=(120, 45)):
            return app.title

    return asyncio.run(run())


def test_a_match_of_no_challenge_says_none(tmp_path: Path) -> None:
    path = played(tmp_path / "match.jsonl", None)
    assert '"challenge"' not in path.read_text().splitlines()[0]
    (header, *_), _ = read_all(path, strict=True)
    assert ChallengeMark.of(header.header) is None
    assert "challenge 7" not in first_line(path)
    assert stepper_title(path) == "xix · challenge-00007-0001-0"


@pytest.mark.parametrize("old", OLD_RECORDS, ids=[p.name for p in OLD_RECORDS])
def test_a_record_from_before_challenges_reads_replays_and_shows_as_before(
    tmp_path: Path, old: Path
) -> None:
    (header, *_), errors = read_all(old, strict=True)
    assert not errors and not header.header.HasField("challenge")
    assert ChallengeMark.of(header.header) is None
    assert verify(old).ok
    assert "(ranked)" not in first_line(old) and "(unranked)" not in first_line(old)
    assert viewer_data(load(old))["challenge"] == ""
    page = tmp_path / "old.html"
    written = runner.invoke(app, ["replay", str(old), "--html", str(page)])
    assert written.exit_code == 0, written.output
