"""Rating fits: Elo with 95% intervals for two-player games (their SPRT is `sprt`'s), a batch
Plackett-Luce fit for the rest (referee.ratings.batch_fit), openskill for a contest's pairing;
`methods` says which a competition uses.

Elo is the logistic (Bradley-Terry) model fitted by maximum likelihood over all matches, with one
virtual draw per pairing as a prior so that a clean sweep still has a finite rating. Its 95%
intervals come from the cluster-robust ("sandwich") covariance, where a cluster is a duplicate
deal: the matches of one deal are not independent (the luck of the deal cancels between them),
and the sandwich counts them as the one observation they are, as fishtest counts game pairs.

The standings of multiplayer and team games come from `batch`, a Plackett-Luce fit over all
matches at once with cluster-bootstrap intervals, so they do not depend on the matches' order.
openskill (Weng-Lin, Plackett-Luce, updated in schedule order) is the contest's cheap running
estimate for pairing. With duplicate deals a deal's rotations are one competition for it,
ranked by each side's mean rank over them (then total points), so the luck of the deal cancels
before the update.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import median

import numpy as np
import numpy.typing as npt
from openskill.models import PlackettLuce, PlackettLuceRating

from referee.ratings.batch_fit import (
    BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
    fit,
    rank_interval,
    tables,
)
from referee.ratings.intervals import MIN_CLUSTERS, Z95, Estimates, small_sample, t95
from referee.results.matches import MatchResult, competition_ranks, complete_deals

_K = math.log(10) / 400  # Elo points to logits
#: Virtual draws per pairing (the prior): enough to keep a 10-0 sweep finite.
PRIOR_DRAWS = 1.0
#: A ridge (in Elo) that keeps ratings of disconnected groups of bots finite.
_RIDGE_ELO = 2000.0
#: A rating is provisional while its own 95% interval (`Rating.own_width`) is more than this many
#: times as wide as the field's median: for the same opponents, while it has played fewer than
#: a quarter of the median bot's matches. Not 1, or half of any field, however even, would be
#: provisional; and a bot that beats nearly everyone tells less with each match (400 Elo above a
#: field of four, its interval is 1.3 to 1.6 times the median's; 700 above, 2 to 2.5 times: so
#: provisional, its rating then resting on its few losses).
PROVISIONAL_WIDTH = 2.0


@dataclass(frozen=True, slots=True)
class Rating:
    """One bot's rating: `value` with a 95% interval [low, high]. For openskill `value` is the
    ordinal (mu - 3 sigma), the interval mu +- 1.96 sigma, and `mu`/`sigma` are set.

    `own_width` is the width of the 95% interval the bot's rating would have if every other
    rating were exact: what its own results alone pin down, which `provisional` compares. Elo's
    [low, high] also carries the others' uncertainty through their mean (in a field of three,
    a bot with one match has an interval only 1.3 times the median's); openskill's sigma is
    the bot's own already."""

    value: float
    #: None with fewer than `intervals.MIN_CLUSTERS` deals (or matches): no interval to show.
    low: float | None
    high: float | None
    own_width: float
    mu: float | None = None
    sigma: float | None = None
    #: The 2.5% and 97.5% quantiles of its rank (1 best) among the rated bots.
    rank_low: int | None = None
    rank_high: int | None = None
    #: The clusters (deals, else matches) the fit rests on: its intervals' degrees of freedom.
    clusters: int = 0


@dataclass(frozen=True, slots=True)
class Game:
    """One two-player result for the Elo fit: `score` is a's (1 win, 0.5 draw, 0 loss)."""

    a: str
    b: str
    score: float
    cluster: int


def elo_games(results: Iterable[MatchResult], duplicate: bool, rotations: int = 1) -> list[Game]:
    """Two-sided results as Elo games; a duplicate deal is a cluster, else each match is. A
    partial deal (fewer than `rotations` of it in) is left out, as the batch fit leaves it out
    (`model.complete_deals`: one rule)."""
    games = []
    for result in complete_deals(list(results), duplicate, rotations):
        if result.side_count != 2:
            continue
        bots = [result.match.bots[result.match.sides.index(side)] for side in (0, 1)]
        if bots[0] == bots[1]:
            continue
        cluster = result.match.deal if duplicate else -result.match.number
        games.append(Game(bots[0], bots[1], result.side_results()[0], cluster))
    return games


def elo(games: Sequence[Game], names: Sequence[str]) -> dict[str, Rating]:
    """Maximum-likelihood Elo (mean 0 over the rated bots) with 95% cluster-robust intervals."""
    return elo_fit(games, names)[0]


def elo_fit(
    games: Sequence[Game], names: Sequence[str]
) -> tuple[dict[str, Rating], Estimates | None]:
    """`elo` and the ratings' joint covariance (for shared ranks and a reference bot). The
    sandwich is scaled by G / (G - 1) and its intervals take t with G - 1 degrees of freedom
    (G clusters, `intervals`); with fewer than two clusters there are no intervals."""
    rated = sorted({g.a for g in games} | {g.b for g in games}, key=list(names).index)
    if len(rated) < 2:
        return {}, None
    group_count = len({g.cluster for g in games})
    index = {name: i for i, name in enumerate(rated)}
    n = len(rated)
    # Per unordered pair (i < j): games, i's score, and per-cluster sums for the sandwich.
    count: dict[tuple[int, int], float] = defaultdict(float)
    score: dict[tuple[int, int], float] = defaultdict(float)
    clusters: dict[tuple[tuple[int, int], int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for game in games:
        i, j, s = index[game.a], index[game.b], game.score
        if i > j:
            i, j, s = j, i, 1.0 - s
        count[i, j] += 1
        score[i, j] += s
        cell = clusters[(i, j), game.cluster]
        cell[0] += s  # the cluster's total score for i
        cell[1] += 1  # its games
    prior_cluster = -(10**12)
    for pair in list(count):
        count[pair] += PRIOR_DRAWS
        score[pair] += PRIOR_DRAWS / 2
        clusters[pair, prior_cluster] = [PRIOR_DRAWS / 2, PRIOR_DRAWS]
    # Cluster moments per pair: sum T^2, sum T*m, sum m^2 (T: score total, m: games).
    moments: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for (pair, _), (total, games_in) in clusters.items():
        cell = moments[pair]
        cell[0] += total * total
        cell[1] += total * games_in
        cell[2] += games_in * games_in

    pairs = sorted(count)
    a = np.array([i for i, _ in pairs], dtype=np.intp)
    b = np.array([j for _, j in pairs], dtype=np.intp)
    games_ab = np.array([count[p] for p in pairs])
    score_ab = np.array([score[p] for p in pairs])
    ridge = 1 / (_RIDGE_ELO * _RIDGE_ELO)
    ratings = np.zeros(n)  # Elo; bot 0 is the anchor during the fit
    # The ridge pulls the ratings towards their mean, not towards the anchor's: the objective is
    # then unchanged by a common shift, so which bot is first in the file cannot move anything.
    centre = np.eye(n) - 1 / n

    def laplacian(weights: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Sum over pairs of weight * (e_i - e_j)(e_i - e_j)^T."""
        out = np.zeros((n, n))
        np.add.at(out, (a, a), weights)
        np.add.at(out, (b, b), weights)
        np.add.at(out, (a, b), -weights)
        np.add.at(out, (b, a), -weights)
        return out

    for _ in range(100):
        p = 1 / (1 + np.exp(-_K * (ratings[a] - ratings[b])))
        g = _K * (score_ab - games_ab * p)
        gradient = np.bincount(a, g, n) - np.bincount(b, g, n) - ridge * (centre @ ratings)
        hessian = -laplacian(_K * _K * games_ab * p * (1 - p)) - ridge * centre
        step = np.linalg.solve(hessian[1:, 1:], gradient[1:])
        ratings[1:] -= step
        if float(np.max(np.abs(step))) < 1e-6:
            break
    # Sandwich: H^-1 M H^-1 in the anchored coordinates, then centred on the mean.
    p = 1 / (1 + np.exp(-_K * (ratings[a] - ratings[b])))
    moment = np.array([moments[pair] for pair in pairs])
    t2, tm, m2 = moment[:, 0], moment[:, 1], moment[:, 2]
    bread = laplacian(_K * _K * games_ab * p * (1 - p)) + ridge * centre
    # sum over clusters of (T - m p)^2
    meat = laplacian(_K * _K * (t2 - 2 * p * tm + p * p * m2))
    inverse = np.linalg.inv(bread[1:, 1:])
    covariance = np.zeros((n, n))
    covariance[1:, 1:] = inverse @ meat[1:, 1:] @ inverse
    centred = centre @ covariance @ centre  # of r - mean(r)
    values = ratings - ratings.mean()
    estimates = Estimates(
        tuple(rated),
        values,
        centred * (small_sample(group_count) if group_count >= MIN_CLUSTERS else 0.0),
        group_count,
    )
    ranks_low, ranks_high = _rank_draws(values, estimates.covariance * (t95s(group_count) ** 2))
    out: dict[str, Rating] = {}
    for name, i in index.items():
        value = float(values[i])
        found = estimates.interval(name)
        own = 2 * Z95 / math.sqrt(bread[i, i])  # its Fisher information alone, with the prior
        out[name] = Rating(
            value,
            found[0] if found else None,
            found[1] if found else None,
            own,
            rank_low=ranks_low[i] if found else None,
            rank_high=ranks_high[i] if found else None,
            clusters=group_count,
        )
    return out, estimates


def t95s(clusters: int) -> float:
    """t95 over z (1 below two clusters, where nothing is drawn): the rank draws' scale."""
    return t95(clusters) / Z95 if clusters >= MIN_CLUSTERS else 1.0


def _rank_draws(
    values: npt.NDArray[np.float64], covariance: npt.NDArray[np.float64]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Rank intervals for Elo: its ranks over draws from the normal law its sandwich interval
    describes (seeded: the standings are deterministic). This is the linearised cluster
    bootstrap of the batch fit with the bootstrap's covariance replaced by the sandwich, its
    limit: the same games, clustered the same way, and consistent with the Elo intervals."""
    eigenvalues, vectors = np.linalg.eigh((covariance + covariance.T) / 2)
    root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = values + rng.standard_normal((BOOTSTRAP_REPLICATES, len(values))) @ root.T
    return rank_interval(draws)


def batch(
    results: Sequence[MatchResult], duplicate: bool, names: Sequence[str], rotations: int = 1
) -> dict[str, Rating]:
    """The batch Plackett-Luce fit over every match (`batch_fit`; with duplicate deals, every
    complete deal): Elo-scale ratings, mean 0, with cluster-bootstrap 95% intervals and rank
    intervals; independent of the matches' order."""
    return batch_fitted(results, duplicate, names, rotations)[0]


def batch_fitted(
    results: Sequence[MatchResult], duplicate: bool, names: Sequence[str], rotations: int = 1
) -> tuple[dict[str, Rating], Estimates | None]:
    """`batch` and the ratings' joint covariance (the bootstrap's, small-sample scaled)."""
    fitted = fit(tables(results, duplicate, rotations), names)
    shown = fitted.clusters >= MIN_CLUSTERS
    rated = {
        bot: Rating(
            fitted.value[i],
            fitted.low[i] if shown else None,
            fitted.high[i] if shown else None,
            fitted.own_width[i],
            rank_low=fitted.rank_low[i] if shown else None,
            rank_high=fitted.rank_high[i] if shown else None,
            clusters=fitted.clusters,
        )
        for i, bot in enumerate(fitted.bots)
    }
    if not fitted.bots:
        return rated, None
    values = np.array(fitted.value)
    return rated, Estimates(fitted.bots, values, np.array(fitted.covariance), fitted.clusters)


def provisional(rated: Mapping[str, Rating]) -> frozenset[str]:
    """The bots whose ratings are provisional: their own 95% interval (`Rating.own_width`) is
    more than PROVISIONAL_WIDTH times the median of the rated bots', so their place is known
    much less well than most of the field's. The standings (and so the CLI, the report and the
    web site) mark them from this alone."""
    if not rated:
        return frozenset()
    if any(r.low is None for r in rated.values()):  # too few deals for any interval: all are
        return frozenset(rated)
    middle = median(r.own_width for r in rated.values())
    return frozenset(bot for bot, r in rated.items() if r.own_width > PROVISIONAL_WIDTH * middle)


def openskill(results: Sequence[MatchResult], duplicate: bool, rotations: int) -> dict[str, Rating]:
    """Weng-Lin (Plackett-Luce) ratings in schedule order. A bot at several sides of one table
    (fewer bots than seats) gets the product of its sides' updates; partners that are one bot
    count once, as the team's strength already counts it twice."""
    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    for sides, ranks in _competitions(results, duplicate, rotations):
        teams = [
            [current.setdefault(bot, model.rating(name=bot)) for bot in side] for side in sides
        ]
        updated = model.rate(teams, ranks=list(ranks))
        by_bot: dict[str, list[PlackettLuceRating]] = defaultdict(list)
        for side, new_side in zip(sides, updated, strict=True):
            seen: set[str] = set()
            for bot, rating in zip(side, new_side, strict=True):
                if bot not in seen:
                    seen.add(bot)
                    by_bot[bot].append(rating)
        for bot, news in by_bot.items():
            current[bot] = _fuse(model, current[bot], news)
    out: dict[str, Rating] = {}
    for bot, rating in current.items():
        half = Z95 * rating.sigma
        out[bot] = Rating(
            rating.ordinal(), rating.mu - half, rating.mu + half, 2 * half, rating.mu, rating.sigma
        )
    return out


def _fuse(
    model: PlackettLuce, prior: PlackettLuceRating, updates: list[PlackettLuceRating]
) -> PlackettLuceRating:
    """Combine independent Gaussian updates of one prior: precisions add, less the prior's."""
    if len(updates) == 1:
        return updates[0]
    precision = sum(1 / u.sigma**2 for u in updates) - (len(updates) - 1) / prior.sigma**2
    precision = max(precision, 1 / prior.sigma**2)
    weighted = sum(u.mu / u.sigma**2 for u in updates) - (len(updates) - 1) * prior.mu / (
        prior.sigma**2
    )
    return model.rating(mu=weighted / precision, sigma=math.sqrt(1 / precision), name=prior.name)


def _competitions(
    results: Sequence[MatchResult], duplicate: bool, rotations: int
) -> Iterable[tuple[list[list[str]], list[int]]]:
    """(members per side, rank per side) per competition, in schedule order: a match, or with
    duplicate deals a complete deal (incomplete deals wait until their last rotation)."""
    ordered = sorted(results, key=lambda r: r.match.number)
    if not duplicate:
        for result in ordered:
            yield _members(result), result.side_ranks()
        return
    deals: dict[int, list[MatchResult]] = defaultdict(list)
    for result in ordered:
        deals[result.match.deal].append(result)
    for group in sorted(deals.values(), key=lambda g: g[0].match.number):
        if len(group) < rotations:
            continue
        sides = len(group[0].match.entrants)
        mean_rank = [sum(r.side_ranks()[k] for r in group) / len(group) for k in range(sides)]
        points = [sum(r.side_scores()[k] for r in group) for k in range(sides)]
        keys = [(mean_rank[k], -points[k]) for k in range(sides)]
        yield _members(group[0]), competition_ranks(keys)


def _members(result: MatchResult) -> list[list[str]]:
    sides: list[list[str]] = [[] for _ in result.match.entrants]
    for bot, side in zip(result.match.bots, result.match.sides, strict=True):
        sides[side].append(bot)
    return sides
