"""The CLI through typer's runner: output, exit codes, and clear errors for a user's mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from tests.records_helpers import record_xix_match

runner = CliRunner()


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "match.jsonl"
    record_xix_match(path, seed=3)
    return path


def test_games_lists_xix() -> None:
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0
    assert "xix" in result.output
    assert "xix-2.0" in result.output


def test_replay_omniscient_shows_both_hands_and_the_deal(record: Path) -> None:
    result = runner.invoke(app, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert "chance deal:" in result.output
    assert "seat 0 is dealt" in result.output
    assert "seat 1 is dealt" in result.output
    assert "result: seat" in result.output


def test_replay_as_one_seat_hides_the_other_hand(record: Path) -> None:
    result = runner.invoke(app, ["replay", str(record), "--seat", "1"])
    assert result.exit_code == 0, result.output
    assert "seat 1 is dealt" in result.output
    assert "seat 0 is dealt" not in result.output
    assert "chance deal" not in result.output
    assert "seat 0 peeks" not in result.output


def test_replay_verify_passes_and_fails(record: Path) -> None:
    result = runner.invoke(app, ["replay", str(record), "--verify"])
    assert result.exit_code == 0
    assert "1 of 1 records verified" in result.output
    text = record.read_text().replace('"text":"play ', '"text":"play 1', 1)
    record.write_text(text)
    result = runner.invoke(app, ["replay", str(record), "--verify"])
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "missing.jsonl"], "cannot read record 'missing.jsonl'"),
        (["replay", "RECORD", "--seat", "5"], "seat 5 does not exist"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(record: Path, args: list[str], message: str) -> None:
    args = [str(record) if a == "RECORD" else a for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_help_documents_exit_codes() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Exit codes" in result.output
