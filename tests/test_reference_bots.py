"""The reference bots that search (issue 48.1): the XIX one plays over gRPC in the sandbox
like any bot, with records that verify and no fault, and a seeded one makes the same choices
in the same match; the Xactika and Tex-Tac-Toe ones, against their heuristics, search every
decision (their own samplers find a history each time: none is left to the heuristic)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.bot import Bot
from croupier.bots import RandomBot, TexTacToeHeuristicBot, XactikaHeuristicBot
from croupier.bots.reference import (
    ReferenceBot,
    TexTacToeReferenceBot,
    XactikaReferenceBot,
    XixReferenceBot,
)
from croupier.env.table import Table
from referee.cli import app
from referee.match.replay import verify
from referee.review.rollout import budget_for, heuristic_prior, settled_for
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


@pytest.mark.parametrize(
    ("game_id", "options", "reference", "heuristic"),
    [
        ("xactika", {"players": 3, "rounds": 1}, XactikaReferenceBot, XactikaHeuristicBot),
        ("textactoe", {"players": 2}, TexTacToeReferenceBot, TexTacToeHeuristicBot),
    ],
)
def test_the_xactika_and_textactoe_reference_bots_search_every_decision(
    game_id: str, options: dict[str, object], reference: type[ReferenceBot], heuristic: type[Bot]
) -> None:
    bot = reference(8, seed=1)
    others = int(str(options["players"])) - 2
    bots: list[Bot] = [heuristic(), bot, *(heuristic() for _ in range(others))]
    match = Table.of(game_id, options).match(5, [b.name for b in bots])
    for seat, start in enumerate(match.starts):
        bots[seat].on_match_start(start)
    searched = 0
    while match.request is not None:
        searched += match.seat == 1 and len(match.request.legal_actions) > 1
        match.answer(bots[match.seat].act(match.request))
    assert searched > 5 and bot.fallbacks == 0


def test_xactika_bids_on_more_playouts_and_plays_against_the_heuristic() -> None:
    """Issue 48.1: Xactika's bid, the decision that scores, gets eight times the budget and is
    the search's alone; a card is the heuristic's unless the search confirms a better one, as
    every Xeri decision; XIX's and Tex-Tac-Toe's budgets and searches are as they were."""
    bids, cards = ("bid 0", "bid 1"), ("play 1111", "play 2222")
    assert budget_for("xactika", bids, 100) == 800 and budget_for("xactika", cards, 100) == 100
    assert not heuristic_prior("xactika", bids) and heuristic_prior("xactika", cards)
    assert heuristic_prior("xeri", ("play 2C",)) and not heuristic_prior("xix", ("pass",))
    assert budget_for("xix", ("pass",), 100) == budget_for("textactoe", ("reveal 0",), 100) == 100
    assert settled_for("xix") is None and settled_for("xactika") is not None
