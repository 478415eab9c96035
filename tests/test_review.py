"""The review of a match (issue 48): the random bot's choices are graded worse than the
heuristic's in a seeded XIX match, every value comes from the seat's view alone (changing the
cards it never saw leaves its review as it was, in XIX and in Tex-Tac-Toe, whose playouts are
its own policy's), its values are the reference bots' (the same function, the game's policy),
and bad input is refused with a clear error."""

from __future__ import annotations

import json
import random
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from croupier.bot import Bot
from croupier.bots import RandomBot, TexTacToeHeuristicBot, XixHeuristicBot
from croupier.bots.reference import ReferenceBot, TexTacToeReferenceBot, XactikaReferenceBot
from croupier.env.sampling import resample
from croupier.env.table import Table
from referee.cli.app import app
from referee.review.review import DecisionReview, review, reviews
from referee.review.rollout import budget_for
from referee.review.view import view_of_record

BUDGET = 24
Options = dict[str, object]
runner = CliRunner()


def played(
    path: Path, seed: int, bots: list[Bot], game: str = "xix", options: Options | None = None
) -> Path:
    """A match of `game` (XIX unless told) between `bots` through the referee's match loop, its
    record at `path`."""
    table = Table.of(game, options or {})
    match = table.match(seed, [bot.name for bot in bots], record=path)
    for seat, start in enumerate(match.starts):
        bots[seat].on_match_start(start)
    while match.request is not None:
        match.answer(bots[match.seat].act(match.request))
    return path


def test_the_random_bot_is_graded_worse_than_the_heuristic(tmp_path: Path) -> None:
    record = played(tmp_path / "m.jsonl", 11, [XixHeuristicBot(), RandomBot(3)])
    heuristic = review(record, 0, BUDGET, workers=2)
    randomly = review(record, 1, BUDGET, workers=2)
    assert heuristic and randomly and not any(d.unsampled for d in heuristic + randomly)
    mean_loss = [sum(d.loss for d in side) / len(side) for side in (heuristic, randomly)]
    graded = [sum(d.grade is not None for d in side) / len(side) for side in (heuristic, randomly)]
    assert mean_loss[1] > mean_loss[0], mean_loss
    assert graded[1] > graded[0], graded
    for d in heuristic:  # a choice is never worse than the best by a negative amount
        assert d.loss >= 0 and d.best in {v.text for v in d.values}


def _alternative(record: Path, seat: int, seed: int, path: Path, table: Table) -> Path:
    """The record's match with the cards `seat` never saw up to its last decision dealt again
    (the environment's sampler), played on from there by first legal actions."""
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    actions = [line["action"] for line in lines if "action" in line]
    last = max(i for i, action in enumerate(actions) if action.get("seat", 0) == seat)
    sample = resample(table, record, last, seat, random.Random(seed))
    sample.match.close()
    header = lines[0]["header"]
    match = table.match(int(header["seed"]), ["a", "b"], deck=sample.deck, record=path)
    for text in sample.actions:
        assert match.request is not None
        match.answer([a.text for a in match.request.legal_actions].index(text))
    match.answer(actions[last].get("index", 0))
    while match.request is not None:
        match.answer(0)
    return path


REFERENCE: dict[str, list[DecisionReview]] = {}

#: A game whose playouts are uniform (XIX) and one with a policy of its own and its own sampler
#: (Tex-Tac-Toe, issue 48.2: the review plays out as the reference bots do); each is one deal,
#: so every decision's unseen cards can be dealt again.
UNSEEN_CASES: list[tuple[str, Options, type[Bot]]] = [
    ("xix", {}, XixHeuristicBot),
    ("textactoe", {"players": 2}, TexTacToeHeuristicBot),
]


@pytest.mark.parametrize(
    ("game", "options", "heuristic"), UNSEEN_CASES, ids=[case[0] for case in UNSEEN_CASES]
)
@settings(
    max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(0, 2**32))
def test_the_review_is_unchanged_by_what_the_seat_cannot_see(
    tmp_path: Path, game: str, options: Options, heuristic: type[Bot], seed: int
) -> None:
    record = tmp_path / f"{game}.jsonl"
    if not record.exists():
        played(record, 5, [heuristic(), RandomBot(7)], game, options)
    count = 8  # the first decisions: each is reviewed on its own, so these stand for all
    if game not in REFERENCE:
        REFERENCE[game] = list(islice(reviews(record, 0, BUDGET, seed=1), count))
        assert not any(d.unsampled for d in REFERENCE[game])  # values to compare, not none
    table = Table.of(game, options)
    other = _alternative(record, 0, seed, tmp_path / f"{game}-other-{seed}.jsonl", table)
    assert record.read_text() != other.read_text()
    assert list(islice(reviews(other, 0, BUDGET, seed=1), count)) == REFERENCE[game]


@pytest.mark.parametrize(
    ("game", "options", "reference", "seed"),
    [
        ("textactoe", {"players": 2}, TexTacToeReferenceBot, 3),
        ("xactika", {"players": 2, "rounds": 1}, XactikaReferenceBot, 5),
    ],
    ids=["textactoe", "xactika"],
)
def test_the_review_judges_as_the_reference_bot_does(
    tmp_path: Path, game: str, options: Options, reference: type[ReferenceBot], seed: int
) -> None:
    """Issue 48.2: the review values actions as the reference bots do (the game's own policy),
    so at the reference's first searched decision (no histories of its own yet to continue),
    with the same seed and the bot's budget for that decision (Xactika's bid gets more:
    rollout.budget_for), the review's best action is the one the reference chose. (In these
    matches a review by uniform playouts, as it was, judged another action best.)"""
    bot = reference(BUDGET, seed=1)
    record = played(tmp_path / "m.jsonl", seed, [bot, RandomBot(4)], game, options)
    view = view_of_record(record, 0)
    first = next(k for k, d in enumerate(view.decisions) if len(d.legal) > 1)
    budget = budget_for(game, view.decisions[first].legal, BUDGET)
    (reviewed,) = reviews(record, 0, budget, seed=1, only=[first])
    assert not reviewed.unsampled and bot.fallbacks == 0
    assert reviewed.best == reviewed.chosen, reviewed
    assert reviewed.loss == 0.0


def test_bad_input_is_refused(tmp_path: Path) -> None:
    record = played(tmp_path / "m.jsonl", 2, [XixHeuristicBot(), RandomBot(1)])
    for args, code, words in [
        (["--seat", "2"], 2, "seat 2 is out of range 0..1"),
        (["--seat", "0", "--budget", "0"], 2, "budget 0 is out of range"),
        (["--seat", "0", "--budget", str(10**12)], 2, "budget 1000000000000 is out of range"),
    ]:
        result = runner.invoke(app, ["review", str(record), *args])
        assert result.exit_code == code and words in result.output, result.output
    tampered = tmp_path / "tampered.jsonl"
    lines = record.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('{"action"'))
    action = json.loads(lines[first])
    action["action"]["text"] = "play 99"
    lines[first] = json.dumps(action)
    tampered.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["review", str(tampered), "--seat", "0"])
    assert result.exit_code == 1 and "does not verify" in result.output, result.output
    older = tmp_path / "older.jsonl"
    header = json.loads(lines[0])
    header["header"]["rulesVersion"] = "xix-1.0"
    older.write_text("\n".join([json.dumps(header), *record.read_text().splitlines()[1:]]) + "\n")
    result = runner.invoke(app, ["review", str(older), "--seat", "0"])
    assert result.exit_code == 1 and "differs from the engine's" in result.output, result.output
    result = runner.invoke(app, ["review", str(record), "--seat", "0", "--budget", "6", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output, parse_constant=_not_json)  # no NaN, no Infinity
    assert data["seat"] == 0 and data["decisions"][0]["values"]


def _not_json(constant: str) -> None:
    raise AssertionError(f"{constant} is no JSON")


def test_the_html_review_marks_each_decision_and_charts_the_seat_s_margin(
    tmp_path: Path, page: Any
) -> None:
    """`croupier review --html`: the seat's replay (its view alone) with each decision's values
    as bars beside its step, the chosen and the best marked, the grade said as the table says
    it; the chart has a point per sampled decision, and a point opens its decision."""
    record = played(tmp_path / "m.jsonl", 11, [XixHeuristicBot(), RandomBot(3)])
    out = tmp_path / "review.html"
    result = runner.invoke(
        app,
        [
            *("review", str(record), "--seat", "1", "--budget", str(BUDGET)),
            *("--json", "--html", str(out)),
        ],
    )
    assert result.exit_code == 0, result.output
    decisions = json.loads(result.stdout)["decisions"]
    data = json.loads(
        out.read_text().split('type="application/json">', 1)[1].split("</script>", 1)[0]
    )
    assert data["views"] == [f"seat 1 ({data['names'][1]})"] and data["review_seat"] == 1
    marked = [i for i, step in enumerate(data["steps"]) if "review" in step]
    assert marked == [i for i, step in enumerate(data["steps"]) if step["seat"] == 1]
    assert len(marked) == len(decisions)
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-step='0']")
    assert page.locator("#review").is_visible()
    assert page.locator("#review-chart circle").count() == sum(
        not d["unsampled"] for d in decisions
    )
    graded = [k for k, d in enumerate(decisions) if d["grade"]]
    assert graded  # the random bot's seat: some choices lose significantly (the test above)
    for k in {0, graded[0], len(decisions) - 1}:
        d = decisions[k]
        page.evaluate(f"location.hash = 'step={marked[k]}'")
        page.wait_for_selector(f"body[data-step='{marked[k]}']")
        rows = page.locator("#review-values li")
        assert rows.evaluate_all("rows => rows.map((r) => r.dataset.action)") == [
            v["text"] for v in d["values"]
        ]
        assert page.locator("#review-values li.chosen").get_attribute("data-action") == d["chosen"]
        assert page.locator("#review-values li.best").get_attribute("data-action") == d["best"]
        verdict = page.text_content("#review-verdict") or ""
        assert verdict.startswith(f"decision {k + 1}: ")
        assert (d["grade"] or "no grade" if d["chosen"] != d["best"] else "the best") in verdict
        assert page.locator("#review-chart circle.now").get_attribute("data-step") == str(marked[k])
    # A point of the chart opens its decision's step.
    page.locator(f"#review-chart circle[data-step='{marked[graded[0]]}']").dispatch_event("click")
    page.wait_for_selector(f"body[data-step='{marked[graded[0]]}']")
