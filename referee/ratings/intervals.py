"""Intervals that keep their coverage with few clusters (issue 44): a cluster-robust variance
over G clusters (duplicate deals, else matches) is scaled by G / (G - 1) and its interval takes
Student's t with G - 1 degrees of freedom instead of the normal's 1.96, as cluster-robust
inference does with few clusters. Below MIN_CLUSTERS there is no interval at all: one deal says
nothing about its own spread, and a zero-width interval would claim certainty (the tables show
"-" and say why).

`Estimates` is one statistic per bot (a rating or a mean margin) with its covariance: per-bot
intervals, intervals against a reference bot, and the pairwise tests that shared ranks rest on
(referee.ratings.comparison)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from referee.ratings.student import t_quantile, two_sided_p

#: Fewer clusters than this: no interval (a dash and a footnote), never a fake +-0.
MIN_CLUSTERS = 2
#: z for a two-sided 95% interval.
Z95 = 1.959963984540054


def small_sample(clusters: int) -> float:
    """The G / (G - 1) factor of a cluster-robust variance over G clusters."""
    return clusters / (clusters - 1) if clusters >= MIN_CLUSTERS else math.inf


def t95(clusters: int) -> float:
    """The two-sided 95% quantile for G clusters: Student's t with G - 1 degrees of freedom."""
    return t_quantile(0.975, float(clusters - 1)) if clusters >= MIN_CLUSTERS else math.inf


def widening(clusters: int) -> float:
    """How much wider than a normal (z) interval from the uncorrected variance the corrected
    one is: sqrt(G / (G - 1)) t95 / z. Scales a bootstrap's deviations the same way."""
    return math.sqrt(small_sample(clusters)) * t95(clusters) / Z95


@dataclass(frozen=True, slots=True)
class Estimates:
    """Per bot a value and the covariance of the values (already scaled by G / (G - 1)),
    estimated over `clusters` clusters."""

    bots: tuple[str, ...]
    values: NDArray[np.float64]
    covariance: NDArray[np.float64]
    clusters: int

    @property
    def has_intervals(self) -> bool:
        return self.clusters >= MIN_CLUSTERS

    def index(self, bot: str) -> int:
        return self.bots.index(bot)

    def interval(self, bot: str, reference: str | None = None) -> tuple[float, float] | None:
        """The 95% interval of a bot's value, or of its difference from `reference`'s."""
        if not self.has_intervals:
            return None
        i = self.index(bot)
        value, variance = float(self.values[i]), float(self.covariance[i, i])
        if reference is not None:
            j = self.index(reference)
            value -= float(self.values[j])
            variance += float(self.covariance[j, j]) - 2 * float(self.covariance[i, j])
        half = t95(self.clusters) * math.sqrt(max(variance, 0.0))
        return value - half, value + half

    def p_value(self, a: str, b: str) -> float:
        """The two-sided p-value of "a and b are equal" (a t test on their difference)."""
        if not self.has_intervals:
            return 1.0
        i, j = self.index(a), self.index(b)
        difference = float(self.values[i] - self.values[j])
        c = self.covariance
        variance = float(c[i, i] + c[j, j] - 2 * c[i, j])
        if variance <= 1e-18:
            return 1.0 if abs(difference) < 1e-9 else 0.0
        return two_sided_p(difference / math.sqrt(variance), float(self.clusters - 1))


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down rejections at familywise level `alpha`, in the order given."""
    order = sorted(range(len(p_values)), key=lambda k: p_values[k])
    rejected = [False] * len(p_values)
    m = len(p_values)
    for step, k in enumerate(order):
        if p_values[k] > alpha / (m - step):
            break
        rejected[k] = True
    return rejected


def cluster_means(
    cells: dict[tuple[str, int], tuple[float, float]], bots: Sequence[str]
) -> Estimates:
    """Per bot the mean per match of its cluster totals (cells: (bot, cluster) -> (matches,
    total)) with their joint cluster-robust covariance: two bots at one table move together,
    which a test of their difference must count."""
    keys = sorted({cluster for _, cluster in cells})
    where = {key: k for k, key in enumerate(keys)}
    n, g = len(bots), len(keys)
    index = {bot: i for i, bot in enumerate(bots)}
    counts, totals = np.zeros((g, n)), np.zeros((g, n))
    for (bot, cluster), (count, total) in sorted(cells.items()):
        counts[where[cluster], index[bot]] += count
        totals[where[cluster], index[bot]] += total
    matches = counts.sum(axis=0)
    means = totals.sum(axis=0) / np.where(matches > 0, matches, 1.0)
    influence = (totals - counts * means) / np.where(matches > 0, matches, 1.0)
    covariance = influence.T @ influence * (small_sample(g) if g >= MIN_CLUSTERS else 0.0)
    return Estimates(tuple(bots), means, covariance, g)
