"""The batch Plackett-Luce fit (referee.ratings.batch_fit): order-independent standings, intervals
that cover the truth about 95% of the time, and finite answers on the awkward ladders."""

from __future__ import annotations

import functools
import math
import random
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from referee.games import get_game
from referee.games.base import parse_options
from referee.match.runner import draw_chance
from referee.ratings import fits
from referee.ratings.batch_fit import ELO_PER_LOGIT, Table, fit, tables
from referee.ratings.standings import Plan, compute, footer, table, to_csv
from referee.results.matches import MatchResult, ScheduledMatch, competition_ranks

XACTIKA = get_game("xactika")
BOTS = ("ann", "bob", "cat", "dan", "eve", "fay")


def result(
    number: int,
    bots: tuple[str, ...],
    ranks: tuple[int, ...],
    *,
    deal: int | None = None,
    sides: tuple[int, ...] | None = None,
    scores: tuple[int, ...] | None = None,
) -> MatchResult:
    """A finished match; each seat its own side unless `sides` says otherwise."""
    sides = sides if sides is not None else tuple(range(len(bots)))
    entrants = tuple(
        "+".join(b for b, s in zip(bots, sides, strict=True) if s == side)
        for side in range(max(sides) + 1)
    )
    match = ScheduledMatch(
        number=number,
        round=1,
        table=number,
        deal=number if deal is None else deal,
        rotation=0,
        seed=number,
        bots=bots,
        sides=sides,
        entrants=entrants,
    )
    return MatchResult(match, scores or tuple(-r for r in ranks), ranks)


def plan(duplicate: bool = False, bots: tuple[str, ...] = BOTS) -> Plan:
    return Plan(
        "t", "xactika", {"players": "4"}, bots, "plackett-luce", duplicate, 4, "round-robin"
    )


@functools.cache
def xactika_ladder(matches: int = 500) -> tuple[MatchResult, ...]:
    """`matches` games of 4-player Xactika (one round each) played by the engine itself, four
    of the six bots at each table. Each bot plays its own fixed policy with its own luck: `ann`
    always the first legal action, `fay` the last, the others uniformly at random, so the
    results carry real (and not hand-written) differences between the bots."""
    rng = random.Random(28)
    options = parse_options(XACTIKA, {"players": "4", "rounds": "1"})
    out = []
    for number in range(1, matches + 1):
        seated = tuple(rng.sample(BOTS, 4))
        state = XACTIKA.new_game(options)
        while not state.is_terminal():
            node = state.chance()
            if node is not None:
                state = state.apply_chance(draw_chance(node, rng))
                continue
            seat = state.to_move
            assert seat is not None
            legal = state.legal_actions()
            bot = seated[seat]
            pick = (
                0 if bot == "ann" else len(legal) - 1 if bot == "fay" else rng.randrange(len(legal))
            )
            state = state.apply(legal[pick])
        done = state.result()
        out.append(result(number, seated, done.ranks, scores=done.scores))
    return tuple(out)


def test_xactika_ladder_reversed_gives_identical_standings() -> None:
    results = list(xactika_ladder())
    forward = compute(plan(), results, (), scheduled=len(results), seed_sha256="")
    backward = compute(plan(), results[::-1], (), scheduled=len(results), seed_sha256="")
    assert forward == backward
    assert all(row.rating is not None and math.isfinite(row.rating) for row in forward.rows)
    assert abs(sum(row.rating or 0.0 for row in forward.rows)) < 0.1  # mean 0 (rounded)
    assert all(row.rank_low is not None and row.rank_high is not None for row in forward.rows)
    # The margins too, raw and corrected for luck, ordering the table (issue 28.3, 28.4).
    rng = random.Random(5)
    lucky = [replace(r, luck=tuple(rng.gauss(0, 3) for _ in r.scores)) for r in results]
    by_luck = replace(plan(), order="corrected")
    forward = compute(by_luck, lucky, (), scheduled=len(results), seed_sha256="")
    assert forward == compute(by_luck, lucky[::-1], (), scheduled=len(results), seed_sha256="")
    assert all(row.corrected is not None for row in forward.rows)
    # openskill, updated in schedule order, does depend on it: what the batch fit is for.
    renumbered = [
        MatchResult(replace(r.match, number=len(results) + 1 - r.match.number), r.scores, r.ranks)
        for r in results
    ]
    assert fits.openskill(results, False, 4) != fits.openskill(renumbered, False, 4)


@st.composite
def ladders(draw: st.DrawFn) -> list[MatchResult]:
    """Up to 30 matches of 2-6 sides among five bots, ties allowed."""
    count = draw(st.integers(1, 30))
    out = []
    for number in range(1, count + 1):
        size = draw(st.integers(2, 6))
        bots = tuple(draw(st.lists(st.sampled_from(BOTS[:5]), min_size=size, max_size=size)))
        ranks = tuple(draw(st.lists(st.integers(1, size), min_size=size, max_size=size)))
        out.append(result(number, bots, tuple(competition_ranks([(r,) for r in ranks]))))
    return out


@settings(max_examples=40, deadline=None)
@given(ladders(), st.randoms(use_true_random=False))
def test_match_order_never_changes_the_fit(results: list[MatchResult], rng: random.Random) -> None:
    shuffled = list(results)
    rng.shuffle(shuffled)
    first = fits.batch(results, False, BOTS)
    assert first == fits.batch(shuffled, False, BOTS)
    for rating in first.values():
        assert math.isfinite(rating.value) and math.isfinite(rating.own_width)
        if rating.clusters < 2:  # one match: no interval, never a zero-width one (issue 44)
            assert rating.low is None and rating.high is None
            continue
        assert rating.low is not None and rating.high is not None
        assert rating.low <= rating.value <= rating.high


def pl_ladder(
    truth: dict[str, float], matches: int, seats: int, rng: random.Random
) -> list[MatchResult]:
    """Matches drawn from Plackett-Luce with utilities `truth` (in Elo): a table's order is its
    sides sorted by utility plus Gumbel noise, which is exactly Plackett-Luce."""
    out = []
    names = sorted(truth)
    for number in range(1, matches + 1):
        bots = tuple(rng.sample(names, seats))
        noisy = [truth[b] / ELO_PER_LOGIT - math.log(-math.log(rng.random())) for b in bots]
        ranks = tuple(competition_ranks([(-u,) for u in noisy]))
        out.append(result(number, bots, ranks))
    return out


def test_intervals_cover_the_truth_about_95_percent() -> None:
    """R = 60 ladders of 120 four-seat matches among five bots with known strengths (seeded):
    the 300 intervals should hold the truth (centred on its mean, as the ratings are) 95% of
    the time. The five intervals of a ladder are not independent (they share its mean), which
    about doubles the binomial variance (sd ~ 0.018 instead of 0.0126 on 300 trials); over 20
    other seeds the coverage was 0.936 on average (sd 0.017, 0.90 to 0.96: the percentile
    bootstrap is a little short on 120 matches). [0.89, 0.995] is about 3 sd below that and
    past 3 sd above, so a false failure is rare, while intervals half as wide (coverage ~ 0.70)
    or twice as wide (~ 1.0) fail it."""
    truth = {"a": 300.0, "b": 120.0, "c": 0.0, "d": -150.0, "e": -270.0}
    mean = sum(truth.values()) / len(truth)
    rng = random.Random(95)
    covered = total = 0
    for _ in range(60):
        rated = fits.batch(pl_ladder(truth, 120, 4, rng), False, sorted(truth))
        for bot, value in truth.items():
            total += 1
            low, high = rated[bot].low, rated[bot].high
            assert low is not None and high is not None
            covered += low <= value - mean <= high
    assert 0.89 <= covered / total <= 0.995, covered / total


def test_two_sides_without_ties_is_elo() -> None:
    """Two sides are the logistic Elo model with the same prior: the same ratings."""
    rng = random.Random(2)
    truth = {"x": 200.0, "y": 0.0, "z": -200.0}
    results = pl_ladder(truth, 400, 2, rng)
    batch = fits.batch(results, False, sorted(truth))
    elo = fits.elo(fits.elo_games(results, False), sorted(truth))
    for bot in truth:
        assert abs(batch[bot].value - elo[bot].value) < 0.5
        assert abs(batch[bot].own_width - elo[bot].own_width) < 0.5


def test_the_better_bot_ranks_first_with_a_rank_interval() -> None:
    rng = random.Random(7)
    truth = {"a": 400.0, "b": 0.0, "c": 0.0, "d": -400.0}
    rated = fits.batch(pl_ladder(truth, 300, 4, rng), False, sorted(truth))
    assert rated["a"].rank_low == rated["a"].rank_high == 1
    assert rated["d"].rank_low == rated["d"].rank_high == 4
    assert rated["b"].rank_low == 2 and rated["b"].rank_high == 3


def finite(rated: dict[str, fits.Rating]) -> None:
    for rating in rated.values():
        assert math.isfinite(rating.value) and math.isfinite(rating.own_width)
        if rating.clusters < 2:  # too few to say anything of the spread (issue 44)
            assert rating.low is None and rating.rank_low is None
            continue
        assert rating.low is not None and rating.high is not None
        assert math.isfinite(rating.low) and math.isfinite(rating.high)
        assert rating.rank_low is not None and rating.rank_high is not None
        assert 1 <= rating.rank_low <= rating.rank_high <= len(rated)


def test_a_single_match() -> None:
    rated = fits.batch([result(1, ("a", "b", "c"), (1, 2, 3))], False, ())
    finite(rated)
    assert rated["a"].value > rated["b"].value > rated["c"].value


def test_ties_everywhere_rate_everyone_alike() -> None:
    results = [result(n, ("a", "b", "c", "d"), (1, 1, 1, 1)) for n in range(1, 20)]
    rated = fits.batch(results, False, ())
    finite(rated)
    assert all(abs(r.value) < 1e-6 for r in rated.values())


def test_a_sweep_and_a_disconnected_graph_stay_finite() -> None:
    # a, b, c only ever meet each other and a always wins; x, y, z likewise, apart.
    results = [result(n, ("a", "b", "c"), (1, 2, 3)) for n in range(1, 30)]
    results += [result(n, ("x", "y", "z"), (3, 2, 1)) for n in range(30, 60)]
    rated = fits.batch(results, False, ())
    finite(rated)
    assert rated["a"].value > rated["b"].value > rated["c"].value
    assert rated["z"].value > rated["y"].value > rated["x"].value


def test_one_bot_in_several_seats_of_a_ten_seat_table() -> None:
    rng = random.Random(10)
    results = []
    for n in range(1, 40):
        bots = tuple(rng.choice(("a", "a", "a", "b", "c", "d")) for _ in range(10))
        order = list(range(1, 11))
        rng.shuffle(order)
        results.append(result(n, bots, tuple(order)))
    rated = fits.batch(results, False, ())
    finite(rated)
    # a table of one bot alone tells nothing and rates nobody
    assert fits.batch([result(1, ("a",) * 10, tuple(range(1, 11)))], False, ()) == {}


def test_a_bot_that_never_finishes_is_listed_unrated() -> None:
    results = [result(n, ("a", "b", "c"), (1, 2, 3)) for n in range(1, 5)]
    standings = compute(
        plan(bots=("a", "b", "c", "never")), results, (), scheduled=8, seed_sha256=""
    )
    never = standings.rows[-1]
    assert never.bot == "never" and never.rating is None and never.rank_low is None
    assert never.provisional
    assert "rank_low" in to_csv(standings).splitlines()[0]


def test_teams_add_their_members() -> None:
    """Xeri-like 2v2: the team with the strong bot wins; partners share the credit."""
    rng = random.Random(4)
    strength = {"s": 1.5, "p": 0.0, "q": 0.0, "r": 0.0}
    results = []
    for n in range(1, 200):
        four = rng.sample(sorted(strength), 4)
        team = [strength[four[0]] + strength[four[2]], strength[four[1]] + strength[four[3]]]
        first = 0 if rng.random() < 1 / (1 + math.exp(team[1] - team[0])) else 1
        ranks = (1, 2, 1, 2) if first == 0 else (2, 1, 2, 1)
        results.append(result(n, tuple(four), ranks, sides=(0, 1, 0, 1)))
    rated = fits.batch(results, False, ())
    finite(rated)
    assert max(rated, key=lambda b: rated[b].value) == "s"


def test_duplicate_deals_are_one_cluster() -> None:
    games = tables(
        [result(n, ("a", "b", "c"), (1, 2, 3), deal=(n + 1) // 2) for n in range(1, 9)], True
    )
    assert [g.cluster for g in games] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert isinstance(games[0], Table)
    assert fit(games).bots == ("a", "b", "c")
    assert np.isfinite(fit(games).value).all()


def test_the_table_shows_the_rank_interval_and_says_how_it_was_fitted() -> None:
    results = list(xactika_ladder())
    standings = compute(plan(), results, (), scheduled=len(results), seed_sha256="")
    console = Console(width=200, record=True)
    console.print(table(standings))
    text = console.export_text()
    assert "rank 95%" in text and "95% interval" in text
    for row in standings.rows:
        assert f"{row.rank_low}-{row.rank_high}" in text
    assert footer(standings)[0].startswith("ratings: a batch Plackett-Luce fit over all matches")
