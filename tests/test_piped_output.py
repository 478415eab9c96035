"""What a program reading `croupier`'s output through a pipe gets: no wrapping at 80 columns, no
cut table cells, one line per action, cards in the stepper's glyph form (issue 17)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import trio

from croupier.bots import RandomBot
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.viewer.glyphs import readable
from tests.cluster_helpers import ROOT


def piped(*args: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    result = subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    return result.stdout


def xactika_record(path: Path) -> Path:
    game = get_game("xactika")
    config = MatchConfig(
        game, parse_options(game, {}), seed=5, match_id="piped", time_control=TimeControl(0, 0)
    )
    seats = [InProcessSeat(RandomBot(seat)) for seat in range(4)]
    trio.run(run_match, config, seats, path)
    return path


def test_replay_plain_in_a_pipe_is_one_unwrapped_line_per_event(tmp_path: Path) -> None:
    record = xactika_record(tmp_path / "x.jsonl")
    lines = piped("replay", "--plain", str(record)).splitlines()
    entries = [json.loads(line) for line in record.read_text().splitlines()]
    deal = next(e["chance"]["deck"]["cards"] for e in entries if "deck" in e.get("chance", {}))
    assert f"chance deal: {readable('xactika', ' '.join(deal))}" in lines  # 81 cards, one line
    assert "1●" in "\n".join(lines) or "2●" in "\n".join(lines)
    assert not any(len(card) == 4 and card.isdigit() for line in lines for card in line.split())
    events = sum("event" in entry for entry in entries)
    actions = sum("action" in entry for entry in entries)
    assert actions > 0
    # Each action is told once, by its event; nothing is printed twice. The header: the match,
    # its seats and the computer it was played on ("played on ...").
    assert lines[2].startswith("played on "), lines[:3]
    assert len(lines) == 3 + events + sum("chance" in entry for entry in entries) + 1 + 4


def test_a_table_in_a_pipe_keeps_every_cell_whole() -> None:
    out = piped("games")
    options = get_game("xactika").option_specs
    for spec in options:
        assert f"{spec.name} ({spec.kind}, default {spec.default}): {spec.description}" in out


def test_match_in_a_pipe_says_how_far_it_is(tmp_path: Path) -> None:
    """Issue 42: `croupier match` drew its bar on a terminal only; in a pipe it said nothing
    until its table, for minutes. It prints a line at every tenth of the matches."""
    random_bot = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    bots = ["--bot", random_bot, "--bot", random_bot]
    series = ["--games", "20", "--concurrency", "4", "--seed", "5", "--no-sandbox"]
    result = subprocess.run(
        [sys.executable, "-m", "referee.cli", "match", "xix", *bots, *series],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env=env,
    )
    lines = [line for line in result.stderr.splitlines() if line.startswith("xix matches: ")]
    assert lines[0] == "xix matches: 2 of 20", result.stderr
    assert lines[-1] == "xix matches: 20 of 20"
    assert len(lines) == 10
