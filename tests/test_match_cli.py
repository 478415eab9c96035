"""`croupier match` for real: a loopback server, bot processes, records that verify."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.match.replay import verify
from tests.node_support import node_or_skip

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
RANDOM = f"{PYTHON} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
HEURISTIC = f"{PYTHON} {ROOT / 'examples' / 'python' / 'xix_heuristic.py'}"
runner = CliRunner()


def test_match_plays_rotates_seats_and_records(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            *("match", "xix", "--bot", RANDOM, "--bot", HEURISTIC, "--games", "6"),
            *("--seed", "5", "--records", str(tmp_path), "--concurrency", "2"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "xix: 6 matches over gRPC" in result.output
    assert "xix-heuristic" in result.output
    records = sorted(tmp_path.glob("*.jsonl"))
    assert len(records) == 6
    for record in records:
        assert verify(record).ok
    # Seats rotate: each bot sat in seat 0 three times.
    first_seats = [record.read_text().split('"seats":[{"name":"')[1][:6] for record in records]
    assert first_seats.count("random") == 3
    # Each bot's log is named by its program, not only by its launch order (issue 42).
    named = [path.name.split("-", 1)[1] for path in (tmp_path / "logs").glob("*-bot*.log")]
    logs = {re.sub(r"^w\d+-", "", name) for name in named}  # each referee worker's own
    assert logs == {"random_bot-bot0.log", "xix_heuristic-bot1.log"}, named


def test_a_bot_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["match", "xix", "--bot", "/nonexistent/bot", "--bot", RANDOM, "--records", str(tmp_path)],
    )
    assert result.exit_code == 2
    assert "cannot start bot '/nonexistent/bot'" in result.output


def test_a_bot_that_keeps_exiting_is_a_clear_error(tmp_path: Path) -> None:
    quits = f"{PYTHON} -c pass"
    result = runner.invoke(app, ["match", "xix", "--bot", quits, "--bot", RANDOM])
    assert result.exit_code == 2
    assert f"bot '{quits}' exited 4 times" in result.output


def test_bad_options_are_clear_errors() -> None:
    result = runner.invoke(app, ["match", "xix", "--bot", RANDOM, "--players", "3"])
    assert result.exit_code == 2
    assert "unknown option 'players' for game 'xix'" in result.output
    result = runner.invoke(app, ["match", "chess", "--bot", RANDOM])
    assert result.exit_code == 2
    assert "unknown game 'chess'" in result.output
    result = runner.invoke(app, ["match", "xix", "--bot", RANDOM, "--deck", "1 2 3"])
    assert result.exit_code == 2
    assert "bad deck" in result.output


def test_a_bot_for_another_game_is_refused_at_hello(tmp_path: Path) -> None:
    """The XIX bot declares only xix in its Hello: `croupier match xeri` never seats it."""
    result = runner.invoke(
        app, ["match", "xeri", "--bot", HEURISTIC, "--bot", RANDOM, "--records", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "the bot plays only ['xix']; this referee runs ['xeri']" in result.output
    assert not list(tmp_path.glob("*.jsonl"))


def _lines(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def _first_deal(lines: list[dict[str, Any]]) -> list[Any]:
    """The chance outcomes and (seat, index) of every action up to the second shuffle."""
    played: list[Any] = []
    shuffles = 0
    for line in lines[1:]:
        if "chance" in line:
            shuffles += "deck" in line["chance"]
            if shuffles == 2:
                break
            played.append(line["chance"])
        elif "action" in line:
            played.append((line["action"].get("seat", 0), line["action"].get("index", 0)))
    return played


@pytest.mark.parametrize("game", ["xix", "xactika", "xeri", "textactoe"])
def test_a_records_deck_replays_its_deal(tmp_path: Path, game: str) -> None:
    # Issue 17: --deck sets the first shuffle, past a dealer pick (Xeri, Xactika).
    bot = f"{PYTHON} {ROOT / 'examples' / 'python' / f'{game}_heuristic.py'}"
    common = ["match", game, "--bot", bot, "--seed", "3", "--move-ms", "0"]
    first = runner.invoke(app, [*common, "--records", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    (original,) = (tmp_path / "a").glob("*.jsonl")
    deck = next(line["chance"]["deck"]["cards"] for line in _lines(original) if "chance" in line
                and "deck" in line["chance"])  # fmt: skip
    again = runner.invoke(
        app, [*common, "--deck", " ".join(deck), "--records", str(tmp_path / "b")]
    )
    assert again.exit_code == 0, again.output
    (replayed,) = (tmp_path / "b").glob("*.jsonl")
    assert verify(replayed).ok
    assert _lines(replayed)[0]["header"]["deck"] == deck
    assert _first_deal(_lines(replayed)) == _first_deal(_lines(original))
    # Another order under the same seed: dealt as given, not as the seed would have dealt it.
    other = deck[::-1]
    given = runner.invoke(
        app, [*common, "--deck", " ".join(other), "--records", str(tmp_path / "c")]
    )
    assert given.exit_code == 0, given.output
    (dealt,) = (tmp_path / "c").glob("*.jsonl")
    assert verify(dealt).ok
    first_deck = next(line["chance"]["deck"]["cards"] for line in _lines(dealt)
                      if "chance" in line and "deck" in line["chance"])  # fmt: skip
    assert first_deck == other != deck


def bot_file(tmp_path: Path, name: str, text: str) -> Path:
    """A bot's program in a folder of its own, which the sandboxed bot's own user reads."""
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    program = folder / name
    program.write_text(text)
    return program


def test_a_dying_bot_says_why_once_without_records(tmp_path: Path) -> None:
    # Issue 17: without --records the bot's output is kept (a temporary log) and quoted once.
    dies = bot_file(
        tmp_path,
        "dies.py",
        "import sys\n"
        "print('ModuleNotFoundError: no module named grpc', file=sys.stderr)\n"
        "sys.exit(1)\n",
    )
    command = f"{PYTHON} {dies}"
    result = runner.invoke(app, ["match", "xix", "--bot", command, "--bot", command])
    assert result.exit_code == 2
    assert "its last output:" in result.output
    assert "ModuleNotFoundError: no module named grpc" in result.output
    assert result.output.count(f"error: bot '{command}' exited") == 1  # two seats, one error
    assert "croupier-logs-" not in result.output  # no path to a log that is gone


def test_one_match_of_one_bot_names_its_copies_and_says_why(tmp_path: Path) -> None:
    """One --bot fills both seats: the table tells the two apart with #N and says what N is,
    and counts "1 match" (issue 24.10)."""
    result = runner.invoke(app, ["match", "xix", "--bot", RANDOM, "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "xix: 1 match over gRPC" in result.output
    assert "random#0" in result.output and "random#1" in result.output
    legend = " ".join(result.output.split())
    assert "name#N: the bot launched N-th, from 0" in legend


def test_a_dying_bot_shows_the_line_naming_its_first_error_above_its_last_lines(
    tmp_path: Path,
) -> None:
    # Issue 24.9: only the last 10 lines were shown, which cut off the first of two errors.
    dies = bot_file(
        tmp_path,
        "dies.py",
        "def deep(depth, error):\n"
        "    if depth == 0:\n"
        "        raise error\n"
        "    deep(depth - 1, error)\n"
        "try:\n"
        "    deep(12, KeyError('the first cause'))\n"
        "except KeyError:\n"
        "    deep(6, RuntimeError('raised while handling it'))\n",
    )
    command = f"{PYTHON} {dies}"
    result = runner.invoke(app, ["match", "xix", "--bot", command, "--bot", RANDOM])
    assert result.exit_code == 2
    quoted = [line for line in result.output.splitlines() if line.startswith("  | ")]
    assert "  | KeyError: 'the first cause'" in quoted
    assert "  | Traceback (most recent call last):" in quoted
    assert "  | ..." in quoted  # the frames between are left out
    assert quoted[-1] == "  | RuntimeError: raised while handling it"


def test_a_node_bot_missing_a_package_is_told_to_run_npm_ci(tmp_path: Path) -> None:
    node = node_or_skip()
    bot = bot_file(tmp_path, "bot.mjs", 'import "croupier-no-such-package";\n')
    result = runner.invoke(app, ["match", "xix", "--bot", f"{node} {bot}", "--bot", RANDOM])
    assert result.exit_code == 2
    assert "Cannot find package 'croupier-no-such-package'" in result.output
    assert "advice: Node cannot find 'croupier-no-such-package': run `npm ci`" in result.output


def test_more_matches_at_once_than_the_cap_only_when_asked(tmp_path: Path) -> None:
    """Issue 42.6: the per-core cap refused bots that mostly wait on I/O, with no way past it.
    It still refuses, naming the way past; `--oversubscribe` plays."""
    from referee.machine import cores
    from referee.match.bounds import MATCHES_PER_CORE

    many = str(MATCHES_PER_CORE * cores() + 1)
    command = ["match", "xix", "--games", "2", "--concurrency", many, "--bot", RANDOM]
    refused = runner.invoke(app, command)
    assert refused.exit_code == 2 and "--oversubscribe plays more anyway" in refused.output
    played = runner.invoke(app, [*command, "--oversubscribe", "--records", str(tmp_path)])
    assert played.exit_code == 0, played.output
    assert len(list(tmp_path.glob("*.jsonl"))) == 2
