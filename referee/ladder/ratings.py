"""Ratings: Elo with 95% intervals and SPRT for two-player games, openskill for the rest.

Elo is the logistic (Bradley-Terry) model fitted by maximum likelihood over all matches, with one
virtual draw per pairing as a prior so that a clean sweep still has a finite rating. Its 95%
intervals come from the cluster-robust ("sandwich") covariance, where a cluster is a duplicate
deal: the matches of one deal are not independent (the luck of the deal cancels between them),
and the sandwich counts them as the one observation they are, as fishtest counts game pairs.

openskill (Weng-Lin, Plackett-Luce) rates multiplayer and team games. With duplicate deals a
deal's rotations are one competition, ranked by each side's mean rank over them (then total
points), so the luck of the deal cancels before the update.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist, median

from openskill.models import PlackettLuce, PlackettLuceRating

from referee.ladder.model import MatchResult, competition_ranks

#: z for a two-sided 95% interval.
Z95 = NormalDist().inv_cdf(0.975)
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
    low: float
    high: float
    own_width: float
    mu: float | None = None
    sigma: float | None = None


@dataclass(frozen=True, slots=True)
class Game:
    """One two-player result for the Elo fit: `score` is a's (1 win, 0.5 draw, 0 loss)."""

    a: str
    b: str
    score: float
    cluster: int


def elo_games(results: Iterable[MatchResult], duplicate: bool) -> list[Game]:
    """Two-sided results as Elo games; a duplicate deal is a cluster, else each match is."""
    games = []
    for result in results:
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
    rated = sorted({g.a for g in games} | {g.b for g in games}, key=list(names).index)
    if len(rated) < 2:
        return {}
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

    ridge = 1 / (_RIDGE_ELO * _RIDGE_ELO)
    ratings = [0.0] * n  # Elo; bot 0 is the anchor during the fit

    def expected(i: int, j: int) -> float:
        return 1 / (1 + math.exp(-_K * (ratings[i] - ratings[j])))

    for _ in range(100):
        gradient = [0.0] * n
        hessian = [[0.0] * n for _ in range(n)]
        for (i, j), games_ij in count.items():
            p = expected(i, j)
            g = _K * (score[i, j] - games_ij * p)
            gradient[i] += g
            gradient[j] -= g
            w = _K * _K * games_ij * p * (1 - p)
            hessian[i][i] -= w
            hessian[j][j] -= w
            hessian[i][j] += w
            hessian[j][i] += w
        for i in range(n):
            gradient[i] -= ridge * ratings[i]
            hessian[i][i] -= ridge
        step = _solve([row[1:] for row in hessian[1:]], gradient[1:])
        for i in range(1, n):
            ratings[i] -= step[i - 1]
        if max(abs(s) for s in step) < 1e-6:
            break
    # Sandwich: H^-1 M H^-1 in the anchored coordinates, then centred on the mean.
    bread = [[0.0] * n for _ in range(n)]
    meat = [[0.0] * n for _ in range(n)]
    for (i, j), games_ij in count.items():
        p = expected(i, j)
        w = _K * _K * games_ij * p * (1 - p)
        t2, tm, m2 = moments[i, j]
        v = _K * _K * (t2 - 2 * p * tm + p * p * m2)  # sum over clusters of (T - m p)^2
        for matrix, amount in ((bread, w), (meat, v)):
            matrix[i][i] += amount
            matrix[j][j] += amount
            matrix[i][j] -= amount
            matrix[j][i] -= amount
    for i in range(n):
        bread[i][i] += ridge
    inverse = _inverse([row[1:] for row in bread[1:]])
    reduced_meat = [row[1:] for row in meat[1:]]
    inner = _matmul(_matmul(inverse, reduced_meat), inverse)
    covariance = [[0.0] * n for _ in range(n)]
    for i in range(1, n):
        for j in range(1, n):
            covariance[i][j] = inner[i - 1][j - 1]
    mean = sum(ratings) / n
    row_means = [sum(row) / n for row in covariance]
    grand = sum(row_means) / n
    out: dict[str, Rating] = {}
    for name, i in index.items():
        variance = covariance[i][i] - 2 * row_means[i] + grand  # of r_i - mean(r)
        half = Z95 * math.sqrt(max(variance, 0.0))
        value = ratings[i] - mean
        own = 2 * Z95 / math.sqrt(bread[i][i])  # its Fisher information alone, with the prior
        out[name] = Rating(value, value - half, value + half, own)
    return out


def provisional(rated: Mapping[str, Rating]) -> frozenset[str]:
    """The bots whose ratings are provisional: their own 95% interval (`Rating.own_width`) is
    more than PROVISIONAL_WIDTH times the median of the rated bots', so their place is known
    much less well than most of the field's. The standings (and so the CLI, the report and the
    web site) mark them from this alone."""
    if not rated:
        return frozenset()
    middle = median(r.own_width for r in rated.values())
    return frozenset(bot for bot, r in rated.items() if r.own_width > PROVISIONAL_WIDTH * middle)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix @ x = vector by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if a[col][col] == 0:
            continue
        for row in range(col + 1, n):
            factor = a[row][col] / a[col][col]
            if factor:
                for k in range(col, n + 1):
                    a[row][k] -= factor * a[col][k]
    x = [0.0] * n
    for row in range(n - 1, -1, -1):
        total = a[row][n] - sum(a[row][k] * x[k] for k in range(row + 1, n))
        x[row] = total / a[row][row] if a[row][row] else 0.0
    return x


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]


def _matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    columns = [[row[k] for row in b] for k in range(len(b[0]))] if b else []
    return [[sum(x * y for x, y in zip(row, col, strict=True)) for col in columns] for row in a]


def elo_difference(score: float) -> float:
    """The Elo difference that an expected score implies (logistic model)."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def expected_score(elo_diff: float) -> float:
    return 1 / (1 + 10 ** (-elo_diff / 400))


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1 (logistic
    Elo of the first bot over the second), with error rates alpha and beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def check(self) -> str | None:
        """A problem with the parameters, or None."""
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            return f"alpha and beta must lie between 0 and 0.5, got {self.alpha!r}, {self.beta!r}"
        if self.elo1 <= self.elo0:
            return f"elo1 must exceed elo0, got elo0 {self.elo0!r}, elo1 {self.elo1!r}"
        return None


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after some matches: the log-likelihood ratio against its bounds."""

    test: Sprt
    llr: float
    units: int
    verdict: str | None  # "H1" (elo >= elo1 accepted), "H0" (elo <= elo0 accepted), or None

    def describe(self, a: str, b: str) -> str:
        t = self.test
        if self.verdict == "H1":
            where = f">= the upper bound {t.upper:.2f}"
        elif self.verdict == "H0":
            where = f"<= the lower bound {t.lower:.2f}"
        else:
            where = f"between the bounds {t.lower:.2f} and {t.upper:.2f}"
        head = (
            f"SPRT {a} vs {b}: elo0 {t.elo0:g}, elo1 {t.elo1:g}, alpha {t.alpha:g}, "
            f"beta {t.beta:g}: LLR {self.llr:.2f} {where}"
        )
        if self.verdict == "H1":
            return f"{head}: H1 accepted ({a} is at least {t.elo1:g} Elo stronger)"
        if self.verdict == "H0":
            return f"{head}: H0 accepted ({a} is at most {t.elo0:g} Elo stronger)"
        return f"{head}: no verdict yet"


def sprt_units(results: Iterable[MatchResult], a: str, duplicate: bool) -> list[float]:
    """`a`'s scores for the SPRT: per match, or with duplicate deals per complete deal (the
    mean over its rotations: pentanomial for two rotations), the unit whose variance is
    right when a deal's matches are not independent."""
    deals: dict[int, list[float]] = defaultdict(list)
    sizes: dict[int, int] = {}
    for result in results:
        if result.side_count != 2:
            continue
        side = result.match.entrants.index(a) if a in result.match.entrants else None
        if side is None:
            continue
        key = result.match.deal if duplicate else -result.match.number
        deals[key].append(result.side_results()[side])
        sizes[key] = len(result.match.bots) if duplicate else 1
    return [sum(s) / len(s) for key, s in sorted(deals.items()) if len(s) == sizes[key]]


def sprt(test: Sprt, units: Sequence[float]) -> SprtState:
    """The GSPRT log-likelihood ratio (Van den Bergh's normal approximation, as fishtest uses):
    n (s1 - s0)(2 mean - s0 - s1) / (2 var), over units of mean score in [0, 1].

    The mean and variance include one pseudo-unit split between 0 and 1 (weight 1/2 each): it
    keeps the variance of a clean sweep above zero, so a few wins in a row are not yet proof,
    and its weight vanishes as units accumulate."""
    n = len(units)
    if n < 2:
        return SprtState(test, 0.0, n, None)
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    weight = n + 1.0
    mean = (sum(units) + 0.5) / weight
    variance = (
        sum((u - mean) ** 2 for u in units) + 0.5 * mean**2 + 0.5 * (1 - mean) ** 2
    ) / weight
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    verdict = "H1" if llr >= test.upper else "H0" if llr <= test.lower else None
    return SprtState(test, llr, n, verdict)


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
