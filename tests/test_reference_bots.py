"""The reference bots that search (issue 48.1): the XIX one plays over gRPC in the sandbox
like any bot, with records that verify and no fault, and a seeded one makes the same choices
in the same match."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from croupier.bots import RandomBot
from croupier.bots.reference import XixReferenceBot
from referee.cli import app
from referee.match.replay import verify
from referee.review.search import ActionValue, Values
from tests.test_review import played

ROOT = Path(__file__).resolve().parent.parent


def test_the_xix_reference_bot_plays_over_grpc(tmp_path: Path) -> None:
    reference = f"{sys.executable} {ROOT / 'examples/python/xix_reference.py'} --budget 30"
    random_bot = f"{sys.executable} {ROOT / 'examples/python/random_bot.py'}"
    result = CliRunner().invoke(
        app,
        ["match", "xix", "--games", "2", "--seed", "4", "--records", str(tmp_path),
         "--bot", reference, "--bot", random_bot],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "xix-reference" in result.output
    for path in sorted(tmp_path.glob("*.jsonl")):
        assert verify(path).ok and '"fault"' not in path.read_text()


def test_a_seeded_reference_bot_repeats_its_choices(tmp_path: Path) -> None:
    bots = [XixReferenceBot(12, seed=3) for _ in range(2)]
    records = [
        played(tmp_path / f"{n}.jsonl", 9, [bot, RandomBot(2)]) for n, bot in enumerate(bots)
    ]
    actions = [
        [line for line in path.read_text().splitlines() if line.startswith('{"action"')]
        for path in records
    ]
    assert actions[0] == actions[1]
    assert bots[0].fallbacks == 0  # every decision was searched, none left to the heuristic


def test_the_search_overrules_the_heuristic_only_on_playouts_that_did_not_choose() -> None:
    """Issue 48.1: an action lucky on the rows that chose it (the even ones) but no better on
    the others keeps the heuristic's choice; one better on both is taken; a single row proves
    nothing."""
    actions = tuple(ActionValue(f"play {c}", 0.0, 0.0) for c in "AB")
    lucky = Values(actions, tuple((0.0, 9.0) if k % 2 == 0 else (1.0, 1.0) for k in range(40)))
    assert lucky.confirmed(0) == 0
    better = Values(actions, tuple((0.0, 3.0 + k % 3) for k in range(40)))
    assert better.confirmed(0) == 1 and better.confirmed(1) == 1
    assert Values(actions, ((0.0, 9.0),)).confirmed(0) == 0
