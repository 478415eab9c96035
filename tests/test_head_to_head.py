"""Head-to-head (referee.ratings.head_to_head): each pair's score, interval and margin computed by
hand from small inputs; symmetry; a duplicate deal's rotations counted as one observation; the
edge cases (no results, never met, one match, all ties, a bot at several seats, partners);
hypothesis properties over random tables of 2-4 sides.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from referee.cli import app
from referee.cli import ladder as cli_ladder
from referee.ratings.head_to_head import (
    CSV_COLUMNS,
    LEGEND,
    Pair,
    among,
    cells,
    matrix,
    pairs,
    to_dicts,
)
from referee.ratings.intervals import t95
from referee.ratings.standings import Plan, compute, head_to_head_csv
from referee.results.database import Store
from referee.results.matches import MatchResult, ScheduledMatch, competition_ranks
from tests.test_ladder_run import HEURISTIC, RANDOM, xix_ladder

runner = CliRunner()
BOTS = ("heuristic", "random", "random2")


def played(
    number: int,
    bots: Sequence[str],
    scores: Sequence[int],
    *,
    deal: int | None = None,
    sides: Sequence[int] | None = None,
) -> MatchResult:
    """A finished match: one side per seat unless `sides` says otherwise; ranks from the
    scores (more is better, ties share)."""
    sides = tuple(range(len(bots))) if sides is None else tuple(sides)
    entrants = tuple(
        "+".join(b for b, s in zip(bots, sides, strict=True) if s == k)
        for k in range(max(sides) + 1)
    )
    match = ScheduledMatch(
        number=number,
        round=1,
        table=1,
        deal=number if deal is None else deal,
        rotation=0,
        seed=0,
        bots=tuple(bots),
        sides=sides,
        entrants=entrants,
    )
    ranks = competition_ranks([(-s,) for s in scores])
    return MatchResult(match, tuple(scores), tuple(ranks))


def pair(found: Sequence[Pair], a: str, b: str) -> Pair:
    return next(p for p in found if (p.a, p.b) == (a, b))


def interval(units: Sequence[tuple[float, float]], prior: bool) -> tuple[float, float]:
    """The mean and half-width by the formula of the module's docstring, from (matches,
    total) per cluster, written out again here."""
    matches = sum(m for m, _ in units)
    mean = sum(t for _, t in units) / matches
    residuals = sum((t - mean * m) ** 2 for m, t in units)
    g = len(units)
    if prior:  # one more cluster of the mean size, split between all lost and all won
        size = matches / g
        residuals += 0.5 * (0 - mean * size) ** 2 + 0.5 * (size - mean * size) ** 2
    return mean, t95(g) * math.sqrt(residuals * g / (g - 1)) / matches  # t, G - 1 (issue 44)


def test_a_two_player_pair_by_hand() -> None:
    games = [(7, 3), (2, 5), (6, 1), (4, 4)]  # a's points, b's: win, loss, win, draw
    results = [played(n, ("a", "b"), s) for n, s in enumerate(games, start=1)]
    found = pairs(results, duplicate=False)
    ab = pair(found, "a", "b")
    outcome = [1.0 if x > y else 0.5 if x == y else 0.0 for x, y in games]
    mean, half = interval([(1, s) for s in outcome], prior=True)
    assert ab.matches == 4 and math.isclose(ab.score, mean) and math.isclose(ab.score, 0.625)
    assert ab.low is not None and ab.high is not None
    assert math.isclose(ab.low, max(mean - half, 0)) and math.isclose(ab.high, min(mean + half, 1))
    margin, margin_half = interval([(1, x - y) for x, y in games], prior=False)
    assert math.isclose(ab.margin, margin) and ab.margin_low is not None
    assert math.isclose(ab.margin_low, margin - margin_half)
    assert not ab.significant  # 4 matches, 2.5 points: far from proof
    assert [(p.a, p.b) for p in found] == [("a", "b"), ("b", "a")]


def test_a_clean_sweep_is_significant_once_there_are_enough_matches() -> None:
    def sweep(n: int) -> Pair:
        return pair(pairs([played(k, ("a", "b"), (1, 0)) for k in range(n)], False), "a", "b")

    few, many = sweep(2), sweep(20)
    assert few.score == many.score == 1.0
    # The pseudo-cluster keeps a sweep of two from proving anything; twenty do.
    assert not few.significant and many.significant
    assert few.low is not None and many.low is not None and few.low < many.low < 1


def test_symmetry_and_the_mirror_interval() -> None:
    results = [played(n, ("a", "b"), (n % 3, 1)) for n in range(9)]
    found = pairs(results, duplicate=False)
    ab, ba = pair(found, "a", "b"), pair(found, "b", "a")
    assert math.isclose(ab.score + ba.score, 1.0) and math.isclose(ab.margin, -ba.margin)
    assert ab.low is not None and ba.high is not None
    assert math.isclose(ab.low, 1 - ba.high) and ab.significant == ba.significant


def test_a_duplicate_deal_whose_rotations_cancel_is_one_observation() -> None:
    """Each deal's first seat always wins (the luck of the deal), except the one deal a wins
    from both seats: as duplicate deals the luck cancels within each deal and the interval is
    narrower than the same matches counted as independent."""
    results = []
    for deal in range(8):
        for rotation in range(2):
            bots = ("a", "b") if rotation == 0 else ("b", "a")
            a_wins_at_seat_1 = deal == 0 and rotation == 1
            scores = (0, 1) if a_wins_at_seat_1 else (1, 0)  # else seat 0 wins
            results.append(played(2 * deal + rotation, bots, scores, deal=deal))
    together = pair(pairs(results, duplicate=True), "a", "b")
    apart = pair(pairs(results, duplicate=False), "a", "b")
    assert together.score == apart.score == 9 / 16
    mean, half = interval([(2, 2.0)] + [(2, 1.0)] * 7, prior=True)
    assert together.high is not None and math.isclose(together.high, mean + half)
    assert apart.low is not None and apart.high is not None and together.low is not None
    assert together.high - together.low < apart.high - apart.low


def test_no_results_a_pair_that_never_met_one_match_and_all_ties() -> None:
    assert pairs([], duplicate=True) == []
    one = pairs([played(1, ("a", "b"), (3, 1))], duplicate=False)
    ab = pair(one, "a", "b")
    assert ab.matches == 1 and ab.score == 1.0 and ab.margin == 2.0
    assert (ab.low, ab.high, ab.margin_low, ab.significant) == (None, None, None, False)
    table = matrix(one, ["a", "b", "c"])  # c never met anyone
    assert table[0][1] == ab and table[0][2] is None and table[2] == [None, None, None]
    assert cells(one, ["a", "c"]) == [[None, None], [None, None]]
    ties = pair(pairs([played(n, ("a", "b"), (2, 2)) for n in range(5)], False), "a", "b")
    assert ties.score == 0.5 and ties.margin == 0.0 and not ties.significant
    assert ties.low is not None and ties.high is not None and ties.low < 0.5 < ties.high
    assert ties.margin_low == ties.margin_high == 0.0  # every margin was 0


def test_larger_tables_compare_rank_against_rank() -> None:
    found = pairs([played(1, ("a", "b", "c"), (5, 2, 2))], duplicate=False)
    assert pair(found, "a", "b").score == 1.0 and pair(found, "b", "c").score == 0.5
    assert pair(found, "c", "a").margin == -3.0


def test_a_bot_at_several_seats_is_one_unit_and_partners_do_not_meet() -> None:
    # a holds seats 0 and 1 (first and last), b seat 2 (second): a against b is one match,
    # won at one seat and lost at the other.
    several = pairs([played(1, ("a", "a", "b"), (9, 1, 5))], duplicate=False)
    ab = pair(several, "a", "b")
    assert ab.matches == 1 and ab.score == 0.5 and ab.margin == 0.0
    teams = pairs([played(1, ("a", "b", "c", "d"), (3, 1, 3, 1), sides=(0, 1, 0, 1))], False)
    assert {(p.a, p.b) for p in teams} == {(x, y) for x in "ac" for y in "bd"} | {
        (y, x) for x in "ac" for y in "bd"
    }
    assert pair(teams, "a", "d").score == 1.0


tables = st.lists(
    st.tuples(
        st.lists(st.sampled_from("abcd"), min_size=2, max_size=4),
        st.lists(st.integers(0, 3), min_size=4, max_size=4),
        st.lists(st.integers(0, 3), min_size=4, max_size=4),  # side labels: teams when shared
        st.integers(0, 3),
    ),
    max_size=30,
)


def sides_of(labels: Sequence[int]) -> tuple[int, ...]:
    """Side labels numbered 0, 1, ... in order of first seat; at least two sides."""
    order = {label: k for k, label in enumerate(dict.fromkeys(labels))}
    sides = tuple(order[label] for label in labels)
    return sides if max(sides) else tuple(range(len(labels)))


@given(tables, st.booleans())
def test_symmetry_and_bounds_hold_for_any_results(
    drawn: list[tuple[list[str], list[int], list[int], int]], duplicate: bool
) -> None:
    results = [
        played(n, bots, scores[: len(bots)], deal=deal, sides=sides_of(labels[: len(bots)]))
        for n, (bots, scores, labels, deal) in enumerate(drawn)
    ]
    found = pairs(results, duplicate)
    by_pair = {(p.a, p.b): p for p in found}

    def met(result: MatchResult, a: str, b: str) -> bool:
        seats = list(zip(result.match.bots, result.match.sides, strict=True))
        return any(x == a and y == b and s != t for x, s in seats for y, t in seats)

    for p in found:
        mirror = by_pair[p.b, p.a]
        assert math.isclose(p.score + mirror.score, 1.0)
        assert math.isclose(p.margin, -mirror.margin, abs_tol=1e-9)
        assert p.matches == mirror.matches == sum(1 for r in results if met(r, p.a, p.b))
        assert 0.0 <= p.score <= 1.0 and math.isfinite(p.margin)
        if p.low is None or p.high is None:
            assert p.high is None and not p.significant
            continue
        assert 0.0 <= p.low <= p.score + 1e-12 and p.score - 1e-12 <= p.high <= 1.0
        assert p.raw_significant == (p.low > 0.5 or p.high < 0.5) == mirror.raw_significant
        # Holm's mark is the raw test's, stricter (issue 44), and the same both ways round.
        assert p.significant <= p.raw_significant and p.significant == mirror.significant
    bots = {bot for r in results for bot in r.match.bots}
    every = {(a, b) for a in bots for b in bots if a != b and any(met(r, a, b) for r in results)}
    assert set(by_pair) == every  # and no pair for bots that never met, nor a bot with itself


# --- a real ladder: `croupier ladder standings` shows it -----------------------------------


def test_standings_show_the_head_to_head_in_table_json_and_csv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = xix_ladder(
        tmp_path,
        [HEURISTIC, RANDOM, ("random2", "examples/python/random_bot.py")],
        'matches_per_pairing = 2\nseed = "h2h"\nconcurrency = 2\nlaunch = "shared"',
    )
    ran = runner.invoke(app, ["ladder", "run", str(path)])
    assert ran.exit_code == 0, ran.output
    database = str(tmp_path / "ladder.sqlite")
    store = Store(Path(database), create=False)
    try:
        plan = Plan.from_json(store.meta("plan") or "")
        expected = to_dicts(pairs(store.results(), plan.duplicate))
    finally:
        store.close()
    assert {(p["a"], p["b"]) for p in expected} == {
        (a, b) for a in BOTS for b in BOTS if a != b
    }  # a round-robin: every pair met

    exported = json.loads(
        runner.invoke(app, ["ladder", "standings", database, "--format", "json"]).output
    )
    assert exported["head_to_head"] == expected

    plain = runner.invoke(app, ["ladder", "standings", database, "--format", "csv"]).output
    assert plain.splitlines()[0].startswith("rank,bot,rating")  # unchanged for its readers
    both = runner.invoke(
        app, ["ladder", "standings", database, "--format", "csv", "--head-to-head"]
    ).output
    header, *lines = list(csv.reader(io.StringIO(both)))
    assert tuple(header) == CSV_COLUMNS and len(lines) == len(expected)
    for line, want in zip(lines, expected, strict=True):
        assert line[:3] == [want["a"], want["b"], str(want["matches"])]
        assert float(line[3]) == want["score"]

    shown = runner.invoke(app, ["ladder", "standings", database], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert "head-to-head" in shown.output and " ".join(LEGEND.split()[:6]) in shown.output
    order = [row["bot"] for row in exported["standings"]]
    by_pair = {(p["a"], p["b"]): p for p in expected}
    printed = shown.output.splitlines()
    for rank, bot in enumerate(order, start=1):
        found = next(x for x in printed if x.strip().startswith(f"#{rank} {bot} "))
        texts = ["-" if other == bot else f"{by_pair[bot, other]['score']:.2f}" for other in order]
        assert [t.rstrip("*") for t in found.split()[2:]] == texts

    # More bots than a terminal shows: the table says how to see it, and the flag shows it.
    monkeypatch.setattr(cli_ladder, "MATRIX_BOTS", 2)
    hidden = runner.invoke(app, ["ladder", "standings", database], env={"COLUMNS": "200"})
    assert "head-to-head of 3 bots: --head-to-head shows it" in hidden.output
    assert "#1 " not in hidden.output
    forced = runner.invoke(app, ["ladder", "standings", database, "--head-to-head"])
    assert f"#1 {order[0]}" in forced.output


def test_the_standings_hold_the_pairs_of_the_rows_they_show() -> None:
    """A contest's shown standings leave out retired versions' rows (referee.hosted.current):
    their pairs go with them, from the JSON and the CSV."""
    results = [played(n, pairing, (n % 4, 1)) for n, pairing in enumerate(["ab", "bc", "ca"] * 3)]
    plan = Plan("h2h", "xix", {}, ("a", "b", "c"), "elo", False, 2, "round-robin")
    whole = compute(plan, results, [], scheduled=len(results), seed_sha256="")
    assert list(whole.head_to_head) == pairs(results, duplicate=False)
    shown = replace(whole, rows=tuple(row for row in whole.rows if row.bot != "c"))
    assert {(p["a"], p["b"]) for p in shown.to_dict()["head_to_head"]} == {("a", "b"), ("b", "a")}
    assert len(head_to_head_csv(shown).splitlines()) == 3  # the header and the two pairs
    assert among(whole.head_to_head, ["a"]) == []
