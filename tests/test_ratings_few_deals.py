"""Rankings an organiser can defend (issue 44): intervals over few deals, designs that cannot be
compared, shared ranks among identical bots, the order of the file, a reference bot, partial
deals, the pentanomial. Ladders are drawn from known strengths by bench/rating_coverage.py's
generators (seeded) and rated by the standings' own code."""

from __future__ import annotations

import importlib.util
import json
import math
import random
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from croupier.v1 import common_pb2
from referee.cli import app
from referee.ratings.fits import elo, elo_games
from referee.ratings.head_to_head import pairs
from referee.ratings.sprt import Sprt, sprt
from referee.ratings.standings import FEW_LEGEND, Plan, Standings, compute, method, row_text
from referee.results.database import Finished, Store
from referee.results.matches import MatchResult, ScheduledMatch

BENCH = Path(__file__).resolve().parent.parent / "bench" / "rating_coverage.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rating_coverage", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rating_coverage"] = module
    spec.loader.exec_module(module)
    return module


coverage = _bench()


def plan(bots: tuple[str, ...], system: str = "plackett-luce", rotations: int = 4) -> Plan:
    return Plan("t", "xactika", {}, bots, system, True, rotations, "round-robin")


def standings_of(the_plan: Plan, results: list[MatchResult]) -> Standings:
    return compute(the_plan, results, [], scheduled=len(results), seed_sha256="")


def test_one_deal_shows_no_interval_and_marks_everyone_provisional() -> None:
    """A four-player ladder of one deal (its four rotations): before, +201..+201 and rank 1-1;
    now a marked dash, no rank interval, everyone provisional, and the footnote says why."""
    results = coverage.pl_ladder(coverage.PL_TRUTH, 1, random.Random(1))
    standings = standings_of(plan(tuple(sorted(coverage.PL_TRUTH))), results)
    for row in standings.rows:
        assert row.rating is not None and row.low is None and row.high is None
        assert row.provisional and row.rank_low is None and row.clusters == 1
        text = row_text(row, True, standings)
        assert text["interval"] == "-°" and text["rating"].endswith("?")
    assert FEW_LEGEND in standings.to_dict()["notes"]


@pytest.mark.parametrize("deals", [2, 3, 5])
def test_plackett_luce_intervals_keep_their_coverage_with_few_deals(deals: int) -> None:
    """120 ladders x 4 bots = 480 intervals: measured coverage (bench/rating_coverage.py, 200
    ladders) is 0.96-0.99 at 2-5 deals; without the small-sample t it was 0.53 at 2, 0.76 at 3
    and 0.84 at 5. 0.90 is past 3 sd (~0.013, doubled for the shared mean) below 0.95."""
    found = coverage.pl_coverage(deals, 120, 100 + deals)
    assert 0.90 <= found <= 1.0, found


@pytest.mark.parametrize("deals", [2, 3, 5])
def test_elo_and_margin_intervals_keep_their_coverage_with_few_deals(deals: int) -> None:
    """Elo (three bots, each pair two rotations a deal) and the margin (the four-seat tables
    with seat luck): 120 ladders each; the margin was 0.80 at 3 deals with z."""
    assert 0.90 <= coverage.elo_coverage(deals, 120, 200 + deals) <= 1.0
    assert 0.90 <= coverage.margin_coverage(deals, 120, 300 + deals) <= 1.0


def test_identical_bots_share_their_rank_but_for_the_familywise_rate() -> None:
    """Four identical bots under different names, 10 deals, 150 ladders: their shared ranks
    differ only where Holm's test rejects, at most 5% familywise (measured 1.5-2.0%); before,
    every ladder ranked them 1, 2, 3, 4. 0.08 leaves 2 sd of binomial noise above 0.05."""
    rate = coverage.identical_differ_rate(10, 150, 7, "plackett-luce")
    assert rate <= 0.08, rate
    elo_rate = coverage.identical_differ_rate(10, 150, 8, "elo")
    assert elo_rate <= 0.08, elo_rate


def test_identical_bots_rarely_star_a_head_to_head_cell() -> None:
    """Holm over the table's pairs: among ladders of four identical bots (40 matches each, each
    its own cluster) the share with a starred cell is the familywise rate (4% here), where the
    raw 95% per cell, the old mark, stars one in 19% of them (27% in the audit)."""
    rng = random.Random(9)
    truth = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}
    starred = raw = 0
    for _ in range(150):
        found = pairs(coverage.pl_ladder(truth, 10, rng), False)
        starred += any(p.significant for p in found)
        raw += any(p.raw_significant for p in found)
    assert starred / 150 <= 0.08, starred / 150
    assert raw / 150 >= 0.12, raw / 150  # the multiplicity Holm controls is there


def _two_groups(reverse: bool) -> tuple[Plan, list[MatchResult]]:
    """a, b meet; c, d meet; no one crosses: two components."""
    rng = random.Random(4)
    results: list[MatchResult] = []
    for deal in range(1, 7):
        for x, y in (("a", "b"), ("c", "d")):
            for rotation, bots in enumerate(((x, y), (y, x))):
                won = rng.random() < (0.8 if "a" in bots or "c" in bots else 0.5)
                first = won if bots[0] in "ac" else not won
                match = ScheduledMatch(
                    len(results) + 1, 1, 1, deal * 10 + (x == "c"), rotation, 0, bots, (0, 1), bots
                )
                ranks = (1, 2) if first else (2, 1)
                results.append(MatchResult(match, (int(first), int(not first)), ranks))
    names = ("a", "b", "c", "d")
    return plan(names[::-1] if reverse else names, "elo", 2), results


def test_groups_that_never_met_are_ranked_apart_and_said_so() -> None:
    the_plan, results = _two_groups(False)
    standings = standings_of(the_plan, results)
    assert standings.groups == (("a", "b"), ("c", "d"))
    by_bot = {row.bot: row for row in standings.rows}
    assert by_bot["a"].group == 1 and by_bot["c"].group == 2
    assert all(row.rank_top is not None and row.rank_top <= 2 for row in standings.rows)
    texts = [row_text(row, True, standings)["rank"] for row in standings.rows]
    assert all(text[0] in "AB" for text in texts), texts
    assert any("never met" in line for line in standings.to_dict()["notes"])
    # Reversing the bot list in the file changes nothing of the table (issue 44.2).
    flipped = standings_of(*_two_groups(True))
    assert [(r.bot, r.rating, r.low, r.rank_top) for r in flipped.rows] == [
        (r.bot, r.rating, r.low, r.rank_top) for r in standings.rows
    ]


def test_a_link_of_one_deal_is_flagged() -> None:
    """A Swiss-like design: a-b and c-d each meet over several deals, b-c over one deal."""
    the_plan, results = _two_groups(False)
    bridge = ("b", "c")
    for rotation, bots in enumerate((bridge, bridge[::-1])):
        match = ScheduledMatch(len(results) + 1, 2, 1, 999, rotation, 0, bots, (0, 1), bots)
        results.append(MatchResult(match, (1, 0) if rotation == 0 else (0, 1), (1, 2)))
    standings = standings_of(the_plan, results)
    assert len(standings.groups) == 1 and standings.fragile == (("b", "c"),)
    assert any("one deal only: b and c" in line for line in standings.to_dict()["notes"])


def test_the_first_listed_bot_does_not_move_elo() -> None:
    """The ridge pulls towards the mean, not towards the anchor: listing the bots in another
    order gives the same ratings (it moved them by up to 0.26 Elo)."""
    rng = random.Random(5)
    results = coverage.elo_ladder({"a": 300.0, "b": 0.0, "c": -300.0, "d": 50.0}, 4, rng)
    games = elo_games(results, True, 2)
    one = elo(games, ["a", "b", "c", "d"])
    other = elo(games, ["d", "c", "b", "a"])
    for bot in one:
        assert math.isclose(one[bot].value, other[bot].value, abs_tol=1e-7)
        low_one, low_other = one[bot].low, other[bot].low
        assert low_one is not None and low_other is not None
        assert math.isclose(low_one, low_other, abs_tol=1e-6)


def test_a_partial_deal_counts_in_no_rating() -> None:
    """Elo keeps a deal only once both its rotations are in, as the batch fit does."""
    rng = random.Random(6)
    results = coverage.elo_ladder({"a": 100.0, "b": 0.0}, 5, rng)
    half = results[-1]
    assert elo_games(results[:-1], True, 2) == elo_games(results[:-2], True, 2)
    assert len(elo_games(results, True, 2)) == len(elo_games(results[:-2], True, 2)) + 2
    the_plan = plan(("a", "b"), "elo", 2)
    assert standings_of(the_plan, results[:-1]).rows[0].rating == (
        standings_of(the_plan, results[:-2]).rows[0].rating
    )
    assert half.match.rotation == 1


def test_pentanomial_counts_deals_by_their_score() -> None:
    rng = random.Random(7)
    results = coverage.elo_ladder({"a": 100.0, "b": 0.0}, 12, rng)
    ab = next(p for p in pairs(results, True) if (p.a, p.b) == ("a", "b"))
    ba = next(p for p in pairs(results, True) if (p.a, p.b) == ("b", "a"))
    assert ab.pentanomial is not None and sum(ab.pentanomial) == 12
    assert ba.pentanomial == tuple(reversed(ab.pentanomial))
    # index k: a deal's total score k / 2 over its two matches
    assert math.isclose(sum(k * n for k, n in enumerate(ab.pentanomial)) / 2 / 24, ab.score)
    standings = standings_of(plan(("a", "b"), "elo", 2), results)
    assert any(line.startswith("deals by a's score") for line in standings.to_dict()["notes"])


def test_reference_bot_from_the_cli(tmp_path: Path) -> None:
    """`ladder standings --reference b`: b's row 0 and no interval; the others' intervals are
    those of their difference from b's."""
    rng = random.Random(8)
    results = coverage.elo_ladder({"a": 200.0, "b": 0.0, "c": -100.0}, 8, rng)
    the_plan = plan(("a", "b", "c"), "elo", 2)
    database = tmp_path / "ladder.sqlite"
    store = Store(database, create=True)
    store.initialise(
        {"plan": the_plan.to_json(), "seed_sha256": "ab" * 32}, [r.match for r in results]
    )
    for r in results:
        result = common_pb2.Result(text="")
        for seat in range(2):
            result.seats.add(seat=seat, score=r.scores[seat], rank=r.ranks[seat])
        path = tmp_path / f"t-{r.match.number}.jsonl"
        store.commit(Finished(r.match, f"t-{r.match.number}", path, "0" * 64, result, (), 1.0))
    store.close()
    out = CliRunner().invoke(
        app, ["ladder", "standings", str(database), "--format", "json", "--reference", "b"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    rows = {row["bot"]: row for row in data["standings"]}
    assert rows["b"]["rating"] == 0 and rows["b"]["low"] is None
    assert rows["a"]["low"] < rows["a"]["rating"] < rows["a"]["high"]
    assert data["reference"] == "b"
    plain = standings_of(the_plan, results)
    by_bot = {row.bot: row for row in plain.rows}
    assert by_bot["a"].rating is not None and by_bot["b"].rating is not None
    assert rows["a"]["rating"] == pytest.approx(by_bot["a"].rating - by_bot["b"].rating, abs=0.02)
    wrong = CliRunner().invoke(app, ["ladder", "standings", str(database), "--reference", "zed"])
    assert wrong.exit_code != 0 and "zed" in wrong.output


def test_an_sprt_stop_reports_an_interval_that_survives_the_stop() -> None:
    """30 SPRT(0, 40) ladders whose true Elo is 20 (the test's middle: the stop is most often a
    lucky run), seeded: the fixed-sample interval at the stop covers the true mean score less
    often than the interval under the stopping rule (bench, 200 ladders: 0.905 against 0.950;
    over 40 seeded ones 0.80 against 0.925). The line marks the corrected estimate with †."""
    found = coverage.sprt_coverage(30, 11, 20.0)
    assert found["stopped"] == 30
    assert found["corrected"] >= 0.85 and found["corrected"] > found["fixed"], found


def test_the_sprt_line_gives_both_estimates() -> None:
    rng = random.Random(3)
    units: list[float] = []
    state = sprt(Sprt(0.0, 40.0), units)
    while state.verdict is None:
        units.append(rng.choice([0.0, 0.5, 0.5, 1.0, 1.0, 1.0]))
        state = sprt(Sprt(0.0, 40.0), units)
    line = state.describe("a", "b")
    assert "estimate under the stopping rule" in line and "†" in line
    assert "fixed-sample estimate" in line and "biased by the stop" in line
    assert state.stopped is not None and state.stopped.low < state.stopped.high


def test_the_footer_says_matches_not_matchs() -> None:
    """Issue 44.6: a ladder without duplicate deals resamples whole matches."""
    for system in ("elo", "plackett-luce"):
        line = method(Plan("t", "x", {}, ("a", "b"), system, False, 1, "round-robin"))
        assert "matchs" not in line and "matches" in line
