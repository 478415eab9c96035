"""Every game between bot processes over real gRPC: the largest tables and team games too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.match.replay import verify

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def bot(script: str) -> str:
    return f"{sys.executable} {ROOT / 'examples' / 'python' / script}"


@pytest.mark.parametrize(
    ("game", "options", "bots"),
    [
        ("xactika", ["--players", "10"], ["xactika_heuristic.py", "random_bot.py"]),
        ("xactika", ["--players", "2", "--option", "rounds=2"], ["xactika_heuristic.py"]),
        ("xeri", ["--players", "4"], ["xeri_heuristic.py", "random_bot.py"]),
        ("xeri", ["--option", "var_cumulative_151=true"], ["xeri_heuristic.py", "random_bot.py"]),
        ("textactoe", ["--option", "jokers=true"], ["textactoe_heuristic.py", "random_bot.py"]),
        ("textactoe", ["--players", "3"], ["textactoe_heuristic.py", "random_bot.py"]),
    ],
)
def test_a_match_over_grpc_verifies(
    tmp_path: Path, game: str, options: list[str], bots: list[str]
) -> None:
    commands = [item for script in bots for item in ("--bot", bot(script))]
    result = runner.invoke(
        app, ["match", game, *options, *commands, "--records", str(tmp_path), "--games", "2"]
    )
    assert result.exit_code == 0, result.output
    records = sorted(tmp_path.glob("*.jsonl"))
    assert len(records) == 2
    for record in records:
        report = verify(record)
        assert report.ok, report.problems
        assert "retired" not in record.read_text()


def test_xeri_teams_are_named_in_the_result(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            *("match", "xeri", "--players", "4", "--bot", bot("xeri_heuristic.py")),
            *("--bot", bot("random_bot.py"), "--records", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = tmp_path.glob("*.jsonl")
    last = record.read_text().splitlines()[-1]
    assert '"team":1' in last
