"""Batch ratings for tables of 2-10 sides and teams: a Plackett-Luce fit over all matches at once.

Each match is one observation: the order of its sides by rank. A side's strength (in logits) is
the sum of its members' strengths, one member per seat (a team of two bots is their sum; a bot at
two seats of one team counts twice, as openskill counted it). Under Plackett-Luce the best side
is picked from the sides left with probability exp(u) / sum exp(u), then the next, and so on.

Ties share a rank and are handled as Efron (1977) handles tied failure times: the k sides of a
tied block are k picks from the same remaining set, and the j-th of them (j = 0..k-1) sees the
remaining strength less j/k of the block's own, the mean over the orders in which the tie could
have been broken. A block of ties so counts as its members beating everyone below them and
neither beating the other; a whole table tied pulls its sides together; a single side left last
contributes nothing. The fit is a maximum of a concave function, found by Newton's method.

The prior is the one `fits.elo` uses: one virtual draw (half a win each way) per pair of bots
that met at a table, so a clean sweep still has a finite rating; and a weak ridge (2000 Elo)
that keeps groups of bots that never met finite. Ratings are reported in Elo (400 / ln 10 per
logit: two sides are exactly the logistic Elo model), mean 0 over the rated bots.

95% intervals come from a cluster bootstrap: whole clusters (a deal's rotations with duplicate
deals, else each match) are resampled with replacement, BOOTSTRAP_REPLICATES times from a fixed
seed, so the standings are the same every time. Refitting every replicate with Newton is too
slow for live standings (10,000 matches of 10 seats: 2 s for the lot), so each replicate takes
the one Newton step from the full fit with the full fit's information matrix: the linearised
(influence-function) bootstrap, which agrees with refitting to first order and is exact in the
cluster structure (a deal's matches move together). The interval is the replicates' 2.5% and
97.5% quantiles, and a bot's rank interval the quantiles of its rank over the replicates.

Everything is computed from the matches sorted by number, so the order they are given in
changes nothing, to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.ratings.intervals import MIN_CLUSTERS, t95, widening
from referee.results.matches import MatchResult, complete_deals

#: Elo points per logit.
ELO_PER_LOGIT = 400 / math.log(10)
#: Virtual draws per pair of bots that met (as `fits.PRIOR_DRAWS`).
PRIOR_DRAWS = 1.0
#: The ridge, in Elo: a group of bots that never met the others has a finite rating.
RIDGE_ELO = 2000.0
#: Bootstrap replicates and their seed (fixed: the standings are deterministic).
BOOTSTRAP_REPLICATES = 1000
BOOTSTRAP_SEED = 20261127
#: z for a two-sided 95% interval (for `own_width`, as Elo's).
Z95 = 1.959963984540054

Array = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Fit:
    """A fit: per rated bot its rating (Elo, mean 0), 95% interval, rank interval (1 best) and
    `own_width` (the width of its interval if every other rating were exact, from its own
    Fisher information with the prior: what `fits.provisional` compares)."""

    bots: tuple[str, ...]
    value: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    rank_low: tuple[int, ...]
    rank_high: tuple[int, ...]
    own_width: tuple[float, ...]
    #: The clusters resampled (G), and the ratings' covariance over the replicates (Elo^2).
    clusters: int = 0
    covariance: tuple[tuple[float, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Table:
    """One match as the fit sees it: the members of each side (a bot per seat) and each side's
    rank (1 best, ties share), and the cluster the bootstrap resamples it with."""

    sides: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]
    cluster: int


def tables(results: Sequence[MatchResult], duplicate: bool, rotations: int = 1) -> list[Table]:
    """Every match with at least two sides, in the order of their numbers (then seats). With
    duplicate deals a deal's rotations share a cluster and a deal counts only once all its
    `rotations` are in (a partial deal would favour whoever held its good hands); else each
    match is its own cluster."""
    out = []
    complete = complete_deals(results, duplicate, rotations)
    for result in sorted(complete, key=lambda r: (r.match.number, r.match.bots, r.ranks)):
        if result.side_count < 2:
            continue
        members: list[list[str]] = [[] for _ in result.match.entrants]
        for bot, side in zip(result.match.bots, result.match.sides, strict=True):
            members[side].append(bot)
        cluster = result.match.deal if duplicate else -result.match.number
        ranks = tuple(result.side_ranks())
        out.append(Table(tuple(tuple(m) for m in members), ranks, cluster))
    return out


def fit(
    games: Sequence[Table],
    names: Sequence[str] = (),
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
    seed: int = BOOTSTRAP_SEED,
) -> Fit:
    """The maximum-likelihood Plackett-Luce ratings of the bots in `games`, with bootstrap
    intervals. Bots are listed in the order of `names` (then by name); a bot in no match with
    another bot is not rated. Fewer than two rated bots: an empty fit."""
    order = {name: i for i, name in enumerate(names)}
    seen = {bot for g in games for side in g.sides for bot in side}
    bots = tuple(sorted(seen, key=lambda b: (order.get(b, len(order)), b)))
    usable = [g for g in games if len({b for side in g.sides for b in side}) >= 2]
    bots = tuple(b for b in bots if any(b in side for g in usable for side in g.sides))
    if len(bots) < 2:
        return Fit((), (), (), (), (), (), ())
    return _Problem(usable, bots).solve(replicates, seed)


class _Problem:
    """The matches as arrays: M matches of up to S sides over n bots.

    x[m, s, b]: seats of bot b in side s of match m; c[m, e, s]: the share of side s in the
    remaining strength at pick e of match m (0 once s is picked, 1 - j/k within a tied block of
    k at its j-th pick, 0 for a pick that does not exist); cluster[m]: its cluster's index."""

    def __init__(self, games: Sequence[Table], bots: tuple[str, ...]) -> None:
        index = {b: i for i, b in enumerate(bots)}
        n, m_count = len(bots), len(games)
        s_count = max(len(g.sides) for g in games)
        self.bots = bots
        self.x = np.zeros((m_count, s_count, n))
        ranks = np.full((m_count, s_count), np.inf)
        for m, game in enumerate(games):
            ranks[m, : len(game.ranks)] = game.ranks
            for s, side in enumerate(game.sides):
                for bot in side:
                    self.x[m, s, index[bot]] += 1.0
        self.present = np.isfinite(ranks).astype(np.float64)
        # Pick e takes the e-th side in rank order; a tied block of k starting at pick `start`
        # is picked as k picks, the j-th (j = e - start) seeing 1 - j/k of each block member.
        at = np.sort(ranks, axis=1)[:, :, None]  # (M, E, 1): the rank picked at e
        before = (ranks[:, None, :] < at).sum(axis=2)  # picks already made
        tied = ranks[:, None, :] == at
        k = np.maximum(tied.sum(axis=2), 1)
        j = np.arange(s_count)[None, :] - before
        share = np.where(tied, 1.0 - (j / k)[:, :, None], 1.0)
        picks = np.isfinite(at)
        self.c = np.where((ranks[:, None, :] >= at) & picks, share, 0.0) * self.present[:, None, :]
        keys = sorted({g.cluster for g in games})
        where = {key: i for i, key in enumerate(keys)}
        self.cluster = np.array([where[g.cluster] for g in games], dtype=np.intp)
        self.clusters = len(keys)
        # The pairs of bots that met at a table on different sides: one virtual draw each.
        seated = (self.x > 0).astype(np.float64)
        per_match = seated.sum(axis=1)
        met = per_match.T @ per_match - np.einsum("msa,msb->ab", seated, seated)
        a, b = np.nonzero(np.triu(met > 0, k=1))
        self.pair_a, self.pair_b = a.astype(np.intp), b.astype(np.intp)
        self.ridge = (ELO_PER_LOGIT / RIDGE_ELO) ** 2

    def _sides(self, strength: Array) -> tuple[Array, Array]:
        """Per match: the gradient of its log-likelihood and its information, over sides."""
        u = self.x @ strength  # (M, S)
        u = np.where(self.present > 0, u, -np.inf)
        u = u - u.max(axis=1, keepdims=True)
        w = np.where(self.present > 0, np.exp(u), 0.0)
        q = self.c * w[:, None, :]  # (M, E, S)
        total = q.sum(axis=2)
        p = q / np.where(total > 0, total, 1.0)[:, :, None]
        gradient = self.present - p.sum(axis=1)
        sides = p.shape[2]
        information = -(p.transpose(0, 2, 1) @ p)
        information[:, np.arange(sides), np.arange(sides)] += p.sum(axis=1)
        return gradient, information

    def _prior(self, strength: Array) -> tuple[Array, Array]:
        n = strength.shape[0]
        gradient = -self.ridge * strength
        information = self.ridge * np.eye(n)
        if self.pair_a.size:
            d = strength[self.pair_a] - strength[self.pair_b]
            p = 1 / (1 + np.exp(-d))
            g = PRIOR_DRAWS * (0.5 - p)
            np.add.at(gradient, self.pair_a, g)
            np.add.at(gradient, self.pair_b, -g)
            v = PRIOR_DRAWS * p * (1 - p)
            np.add.at(information, (self.pair_a, self.pair_a), v)
            np.add.at(information, (self.pair_b, self.pair_b), v)
            np.add.at(information, (self.pair_a, self.pair_b), -v)
            np.add.at(information, (self.pair_b, self.pair_a), -v)
        return gradient, information

    def solve(self, replicates: int, seed: int) -> Fit:
        n = len(self.bots)
        strength = np.zeros(n)
        for _ in range(100):
            side_gradient, side_information = self._sides(strength)
            gradient, information = self._prior(strength)
            flat = self.x.reshape(-1, n)
            gradient += flat.T @ side_gradient.reshape(-1)
            information += flat.T @ (side_information @ self.x).reshape(-1, n)
            step = np.linalg.solve(information, gradient)
            # Newton on a concave function, its step capped (2 logits, 350 Elo) so that a
            # lopsided start cannot overshoot; near the optimum the cap never binds.
            step *= min(1.0, 2.0 / max(float(np.max(np.abs(step))), 1e-300))
            strength += step
            if float(np.max(np.abs(step))) < 1e-9:
                break
        side_gradient, _ = self._sides(strength)
        per_match = np.einsum("msb,ms->mb", self.x, side_gradient)
        per_cluster = np.zeros((self.clusters, n))
        np.add.at(per_cluster, self.cluster, per_match)
        # Linearised cluster bootstrap: replicate r moves the fit by H^-1 sum (w_rc - 1) g_c.
        # Each replicate draws as many clusters as there are, with replacement; its weights are
        # how often each was drawn (as numpy's multinomial, 4 times as fast).
        rng = np.random.default_rng(seed)
        c = self.clusters
        moves = np.zeros((replicates, n))
        for first in range(0, replicates, 100):  # 100 at a time: 8 MB for 10,000 clusters
            count = min(100, replicates - first)
            drawn = rng.integers(0, c, size=(count, c)) + c * np.arange(count)[:, None]
            weights = np.bincount(drawn.ravel(), minlength=count * c).reshape(count, c)
            moves[first : first + count] = (weights - 1.0) @ per_cluster
        # Few clusters: the bootstrap's spread is the uncorrected sandwich's, too narrow; its
        # deviations are widened by sqrt(G / (G - 1)) t95 / z (referee.ratings.intervals).
        scale = widening(c) if c >= MIN_CLUSTERS else 0.0
        shifts = np.linalg.solve(information, moves.T).T * scale
        draws = (strength + shifts) * ELO_PER_LOGIT
        draws -= draws.mean(axis=1, keepdims=True)
        value = strength * ELO_PER_LOGIT
        value -= value.mean()
        low, high = np.quantile(draws, [0.025, 0.975], axis=0)
        rank_low, rank_high = rank_interval(draws)
        own = 2 * Z95 * ELO_PER_LOGIT / np.sqrt(np.diag(information))
        return Fit(
            self.bots,
            tuple(float(v) for v in value),
            tuple(float(v) for v in np.minimum(low, value)),
            tuple(float(v) for v in np.maximum(high, value)),
            rank_low,
            rank_high,
            tuple(float(v) for v in own),
            c,
            tuple(tuple(float(x) for x in line) for line in _covariance(draws, c)),
        )


def _covariance(draws: Array, clusters: int) -> Array:
    """The replicates' covariance, the t quantile's share of the widening taken back out (it
    belongs to the test, not the variance): what a t test on a difference divides by."""
    n = draws.shape[1]
    if clusters < MIN_CLUSTERS or draws.shape[0] < 2:
        return np.zeros((n, n))
    share = (t95(clusters) / Z95) ** 2
    return np.atleast_2d(np.cov(draws, rowvar=False)) / share


def rank_interval(draws: Array) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per bot (column), the 2.5% and 97.5% quantiles of its rank (1 best; a tie shares the
    better rank) over the replicates (rows)."""
    ranks = 1 + (draws[:, None, :] > draws[:, :, None]).sum(axis=2)  # (R, n)
    low = np.quantile(ranks, 0.025, axis=0, method="lower")
    high = np.quantile(ranks, 0.975, axis=0, method="higher")
    return tuple(int(v) for v in low), tuple(int(v) for v in high)
