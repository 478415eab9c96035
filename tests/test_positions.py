"""Positions from real matches as tests (issue 48.3): extracted from a seeded XIX record, run
through the referee's protocol on the Python, C++ and Go example bots (each position a
one-decision match), a bot's crash a fault of that position only, and a position the engine
could not have produced refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.bots import RandomBot, XixHeuristicBot
from referee.cli import app
from referee.review.search import VALUATION
from tests.test_other_languages import CPP_BOT, GO_BOT, make
from tests.test_review import played

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("positions")
    record = played(folder / "m.jsonl", 11, [XixHeuristicBot(), RandomBot(3)])
    out = folder / "positions.jsonl"
    args = ["positions", "extract", str(record), "--seat", "1", "--costly", "-o", str(out)]
    result = runner.invoke(app, [*args, "--budget", "24", "--workers", "2"])
    assert result.exit_code == 0, result.output
    return out


def run_bot(file: Path, *command: str) -> dict[str, object]:
    result = runner.invoke(app, ["positions", "test", str(file), "--json", "--", *command])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_costly_positions_are_extracted_with_the_seat_view(positions: Path) -> None:
    lines = [json.loads(line) for line in positions.read_text().splitlines()]
    assert lines and all(line["grade"] for line in lines)
    for line in lines:
        last = line["view"][-1]
        assert line["seat"] == 1 and last["chosen"] in last["legal"]
        assert [v["text"] for v in line["values"]] == last["legal"]
        assert line["valuation"] == VALUATION  # the reference bots' way (issue 48.2)


def test_the_python_bot_is_run_on_every_position(positions: Path) -> None:
    report = run_bot(positions, sys.executable, str(ROOT / "examples/python/xix_heuristic.py"))
    rows = report["positions"]
    assert isinstance(rows, list) and len(rows) == len(positions.read_text().splitlines())
    assert report["faults"] == 0 and all(row["chosen"] and row["lost"] >= 0 for row in rows)


def test_a_crash_is_a_fault_of_its_position_and_the_rest_go_on(positions: Path) -> None:
    report = run_bot(positions, sys.executable, str(ROOT / "tests/bots/crash_on_draft.py"))
    rows = report["positions"]
    assert isinstance(rows, list)
    lines = [json.loads(line) for line in positions.read_text().splitlines()]
    for row, line in zip(rows, lines, strict=True):
        drafting = line["view"][-1]["legal"][0].startswith("draft")
        assert (row["fault"] == "crashed") == drafting, row
        assert bool(row["chosen"]) != drafting


def test_a_position_the_engine_could_not_produce_is_refused(
    positions: Path, tmp_path: Path
) -> None:
    line = json.loads(positions.read_text().splitlines()[0])
    hand = line["view"][-1]["observation"]["hand"]
    line["view"][-1]["observation"]["hand"] = [hand[0]] * len(hand)  # one card, many times
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    result = runner.invoke(app, ["positions", "test", str(bad), "--", sys.executable, "-c", ""])
    assert result.exit_code == 2
    assert "line 1" in result.output and "not a position of the engine" in result.output


@pytest.mark.parametrize("bot", [CPP_BOT, GO_BOT], ids=["c++", "go"])
def test_the_compiled_example_bots_are_run_on_the_positions(positions: Path, bot: Path) -> None:
    make("-C", "examples/cpp") if bot == CPP_BOT else make("-C", "examples/go")
    report = run_bot(positions, str(bot))
    assert report["faults"] == 0
