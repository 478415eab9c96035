"""Ratings: Elo with intervals that narrow as games grow and that count duplicate deals as the
paired observations they are; SPRT verdicts; openskill for tables and teams."""

from __future__ import annotations

import math
import random

import pytest

from referee.ratings.fits import Game, Rating, elo, elo_games, openskill, provisional
from referee.ratings.sprt import Sprt, elo_difference, sprt, sprt_units
from referee.results.matches import MatchResult, ScheduledMatch, competition_ranks, match_scores


def games_between(p: float, n: int, seed: int) -> list[Game]:
    rng = random.Random(seed)
    return [Game("a", "b", 1.0 if rng.random() < p else 0.0, i) for i in range(n)]


def test_match_scores_and_ranks() -> None:
    assert match_scores([1, 2]) == [1.0, 0.0]
    assert match_scores([1, 1]) == [0.5, 0.5]
    assert match_scores([2, 1, 2, 4]) == [pytest.approx(0.5), 1.0, pytest.approx(0.5), 0.0]
    assert competition_ranks([(3.0,), (1.0,), (3.0,)]) == [2, 1, 2]


def bounds(rating: Rating) -> tuple[float, float]:
    """A rating's interval, which it has (two clusters or more)."""
    assert rating.low is not None and rating.high is not None
    return rating.low, rating.high


def test_elo_intervals_narrow_as_games_grow() -> None:
    widths = []
    for n in (20, 80, 320, 1280):
        rating = elo(games_between(0.7, n, seed=n), ["a", "b"])["a"]
        low, high = bounds(rating)
        assert low < rating.value < high
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 5  # about 1/sqrt(n): 8x the width at 64x the games
    true = elo_difference(0.7) / 2  # each bot sits half the difference from the mean
    final = elo(games_between(0.7, 1280, seed=1280), ["a", "b"])["a"]
    assert bounds(final)[0] < true < bounds(final)[1]


def test_elo_recovers_three_strengths_with_mean_zero() -> None:
    rng = random.Random(3)
    truth = {"x": 200.0, "y": 0.0, "z": -200.0}
    games = []
    for i in range(1500):
        a, b = rng.sample(sorted(truth), 2)
        p = 1 / (1 + 10 ** (-(truth[a] - truth[b]) / 400))
        games.append(Game(a, b, 1.0 if rng.random() < p else 0.0, i))
    rated = elo(games, ["x", "y", "z"])
    assert sum(r.value for r in rated.values()) == pytest.approx(0, abs=1e-6)
    for name, value in truth.items():
        assert bounds(rated[name])[0] < value < bounds(rated[name])[1]


def test_a_clean_sweep_has_a_finite_rating() -> None:
    rating = elo([Game("a", "b", 1.0, i) for i in range(10)], ["a", "b"])["a"]
    assert 100 < rating.value < 600
    assert bounds(rating)[0] > 0


def test_pairs_that_cancel_luck_narrow_the_interval() -> None:
    """When the deal decides (each deal: whoever holds hand X wins), the pair is a draw: the
    cluster-robust interval sees the pairing, independent games would not."""
    rng = random.Random(5)
    games = []
    for deal in range(200):
        first = 1.0 if rng.random() < 0.5 else 0.0
        skill = 1.0 if rng.random() < 0.1 else None  # now and then a pair is won outright
        games.append(Game("a", "b", skill if skill is not None else first, deal))
        games.append(Game("a", "b", skill if skill is not None else 1 - first, deal))
    paired = elo(games, ["a", "b"])["a"]
    unpaired = elo([Game(g.a, g.b, g.score, i) for i, g in enumerate(games)], ["a", "b"])["a"]
    (p_low, p_high), (u_low, u_high) = bounds(paired), bounds(unpaired)
    assert p_high - p_low < (u_high - u_low) / 2


def scheduled(number: int, deal: int, bots: tuple[str, ...], rotation: int = 0) -> ScheduledMatch:
    return ScheduledMatch(
        number=number,
        round=1,
        table=1,
        deal=deal,
        rotation=rotation,
        seed=0,
        bots=bots,
        sides=tuple(range(len(bots))),
        entrants=bots,
    )


def two_player_results(p: float, deals: int, seed: int) -> list[MatchResult]:
    rng = random.Random(seed)
    out = []
    for deal in range(deals):
        for rotation, bots in enumerate((("strong", "weak"), ("weak", "strong"))):
            win = rng.random() < p
            strong_rank = 1 if win else 2
            ranks = tuple(strong_rank if b == "strong" else 3 - strong_rank for b in bots)
            match = scheduled(2 * deal + rotation + 1, deal + 1, bots, rotation)
            out.append(MatchResult(match, scores=(0, 0), ranks=ranks))
    return out


def run_sprt(test: Sprt, results: list[MatchResult], a: str) -> tuple[str | None, int]:
    """Feed results one by one; the verdict and the matches it took."""
    for played in range(1, len(results) + 1):
        state = sprt(test, sprt_units(results[:played], a, duplicate=True))
        if state.verdict is not None:
            return state.verdict, played
    return None, len(results)


@pytest.mark.parametrize(("played", "expected"), [(19, {"a"}), (20, set())])
def test_a_rating_is_provisional_under_a_quarter_of_the_median_s_information(
    played: int, expected: set[str]
) -> None:
    """Worked by hand: every game a draw, so every rating is 0 and each game (and each
    pairing's prior draw) tells p(1 - p) = 1/4 alike. b, c and d play 40 games a pair; a plays b
    `played` times. A bot's own width goes as one over the square root of its games and priors:
    c and d (80 + 2) are the median, a has played + 1, and is provisional while its width is
    more than twice theirs: 82 / (played + 1) > 4, so with 19 games and not with 20."""
    games = [Game("a", "b", 0.5, n) for n in range(played)]
    for x, y in (("b", "c"), ("b", "d"), ("c", "d")):
        games += [Game(x, y, 0.5, len(games) + n) for n in range(40)]
    rated = elo(games, ["a", "b", "c", "d"])
    assert rated["c"].own_width == pytest.approx(rated["d"].own_width)
    assert rated["a"].own_width / rated["c"].own_width == pytest.approx(
        math.sqrt(82 / (played + 1)), rel=1e-3
    )
    assert provisional(rated) == expected


def test_sprt_accepts_h1_for_the_stronger_bot_and_h0_for_the_weaker() -> None:
    test = Sprt(0, 50, 0.05, 0.05)
    results = two_player_results(0.8, 400, seed=1)
    verdict, used = run_sprt(test, results, "strong")
    assert verdict == "H1"
    assert used < 100
    verdict, _ = run_sprt(test, results, "weak")
    assert verdict == "H0"


def test_sprt_on_equal_bots_accepts_h0_against_a_real_gain() -> None:
    verdict, _ = run_sprt(Sprt(0, 100, 0.05, 0.05), two_player_results(0.5, 2000, 2), "strong")
    assert verdict == "H0"


def test_sprt_waits_for_complete_pairs() -> None:
    results = two_player_results(0.8, 3, seed=1)
    assert len(sprt_units(results[:5], "strong", duplicate=True)) == 2
    assert len(sprt_units(results[:5], "strong", duplicate=False)) == 5
    assert Sprt(0, 5).lower == pytest.approx(math.log(0.05 / 0.95))


def test_elo_games_use_deals_as_clusters() -> None:
    results = two_player_results(0.8, 3, seed=1)
    assert [g.cluster for g in elo_games(results, duplicate=True)] == [1, 1, 2, 2, 3, 3]
    assert len({g.cluster for g in elo_games(results, duplicate=False)}) == 6


def test_openskill_ranks_the_winner_of_tables_and_teams_first() -> None:
    results = []
    number = 0
    for deal in range(1, 16):
        for rotation in range(4):
            number += 1
            sides = tuple((seat - rotation) % 4 for seat in range(4))
            bots = tuple("h" if side == 0 else "r" for side in sides)
            ranks = tuple(1 if b == "h" else 2 for b in bots)
            match = ScheduledMatch(
                number, 1, 1, deal, rotation, 0, bots, sides, ("h", "r", "r", "r")
            )
            results.append(MatchResult(match, scores=(0, 0, 0, 0), ranks=ranks))
    for duplicate in (True, False):
        rated = openskill(results, duplicate=duplicate, rotations=4)
        assert rated["h"].value > rated["r"].value
        assert rated["h"].sigma is not None and rated["h"].mu is not None
        assert bounds(rated["h"])[0] < rated["h"].mu < bounds(rated["h"])[1]
    # A team of one bot twice against another: the pair's winner rises.
    team = ScheduledMatch(99, 1, 1, 99, 0, 0, ("h", "r", "h", "r"), (0, 1, 0, 1), ("h+h", "r+r"))
    rated = openskill([MatchResult(team, (10, 0, 10, 0), (1, 2, 1, 2))], False, 4)
    assert rated["h"].mu is not None and rated["h"].mu > 25 > (rated["r"].mu or 0)
