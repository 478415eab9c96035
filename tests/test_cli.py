"""The CLI through typer's runner: output, exit codes, and clear errors for a user's mistakes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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


def test_a_truncated_record_is_shown_as_far_as_it_goes_with_a_warning(
    record: Path, tmp_path: Path
) -> None:
    # Issue 17: one behaviour everywhere; exit 0 to show, 1 to verify, 2 for what is no record.
    text = record.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: len(text) - len(text.splitlines()[-1]) // 2 - 1])
    shown = runner.invoke(app, ["replay", str(cut), "--plain"])
    assert shown.exit_code == 0, shown.output
    assert "seat 0 is dealt" in shown.output
    assert f"warning: {cut}: line " in shown.output and "is truncated" in shown.output
    page = tmp_path / "cut.html"
    html = runner.invoke(app, ["replay", str(cut), "--html", str(page)])
    assert html.exit_code == 0 and page.is_file(), html.output
    assert "is truncated" in html.output
    verified = runner.invoke(app, ["replay", str(cut), "--verify"])
    assert verified.exit_code == 1 and "is truncated" in verified.output
    folder = runner.invoke(app, ["replay", str(tmp_path), "--verify"])
    assert folder.exit_code == 2 and "is a folder" in folder.output


def _commands() -> list[list[str]]:
    """Every leaf command's path, e.g. ["ladder", "run"], walking the real click tree."""
    import typer.main

    found: list[list[str]] = []

    def walk(command: Any, path: list[str]) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            found.append(path)
            return
        for name, sub in subcommands.items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.parametrize("path", _commands(), ids=" ".join)
def test_every_command_helps_with_examples_exit_codes_and_described_options(
    path: list[str],
) -> None:
    # Issue 17: an example and the exit codes in each --help, every option described.
    import typer.main

    result = runner.invoke(app, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Examples:\n    croupier " + path[0] in text
    assert "Exit codes:\n    0  " in text
    assert "<bool>" not in text and "…" not in text
    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    for parameter in command.params:
        if parameter.param_type_name == "option" and parameter.name != "help":
            assert parameter.help, f"{' '.join(path)}: --{parameter.name} has no help"


def test_the_top_level_help_is_for_users() -> None:
    result = runner.invoke(app, ["--help"])
    assert "Start here:" in result.output
    assert "one sub-command per noun" not in result.output
    assert "`croupier ladder`:" not in result.output  # a module docstring, not a description
