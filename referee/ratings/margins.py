"""The margin rating: each bot's mean point margin per match, raw and luck-corrected, with 95%
intervals clustered as the ratings' are (a duplicate deal one observation, its rotations paired),
t with G - 1 degrees of freedom over G clusters (referee.ratings.intervals).

A side's margin is its points less the mean points of the other sides; a bot's margin in a match
is the mean over the sides it holds. The luck-corrected margin adds the seats' corrections
(referee.match.luck: zero in expectation, so still unbiased; a side's is its seats' mean, since
partners' corrections estimate the same team margin). Points carry more than win or loss: on
Xeri a margin needs several times fewer matches to separate two bots (docs/ladders.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.ratings.head_to_head import mean_interval
from referee.ratings.intervals import Estimates, cluster_means
from referee.results.matches import MatchResult


@dataclass(frozen=True, slots=True)
class Margin:
    """A bot's mean margin per match and its 95% interval (None with fewer than two clusters)."""

    mean: float
    low: float | None
    high: float | None


def bot_margins(
    results: Iterable[MatchResult], duplicate: bool, *, corrected: bool = False
) -> dict[str, Margin]:
    """Every bot's margin over `results`. With `corrected`, none at all (an empty mapping) unless
    every match carries its luck corrections (a ladder begun before them, or a game without a value
    function, has none): an average over some matches only would not be the same quantity."""
    cells = _cells(results, duplicate, corrected)
    grouped: defaultdict[str, list[list[float]]] = defaultdict(list)
    for (bot, _), cell in cells.items():
        grouped[bot].append(cell)
    return {bot: _margin([c[0] for c in cs], [c[1] for c in cs]) for bot, cs in grouped.items()}


def margin_estimates(
    results: Iterable[MatchResult], duplicate: bool, corrected: bool = False
) -> Estimates | None:
    """Every bot's margin with the margins' joint cluster-robust covariance (bots at one table
    move together), for the shared ranks of a table ordered by margin; None without margins."""
    cells = _cells(results, duplicate, corrected)
    if not cells:
        return None
    bots = sorted({bot for bot, _ in cells})
    return cluster_means({key: (c[0], c[1]) for key, c in cells.items()}, bots)


def _cells(
    results: Iterable[MatchResult], duplicate: bool, corrected: bool
) -> dict[tuple[str, int], list[float]]:
    """Per (bot, cluster): [matches, margin total]."""
    ordered = sorted(results, key=lambda r: r.match.number)  # the same sums in any order given
    if corrected and (not ordered or any(r.luck is None for r in ordered)):
        return {}
    cells: dict[tuple[str, int], list[float]] = {}
    for result in ordered:
        cluster = result.match.deal if duplicate else -result.match.number
        margins = result.side_margins(corrected=corrected)
        sides_of: defaultdict[str, set[int]] = defaultdict(set)
        for seat, bot in enumerate(result.match.bots):
            sides_of[bot].add(result.match.sides[seat])
        for bot, sides in sides_of.items():
            cell = cells.setdefault((bot, cluster), [0.0, 0.0])
            cell[0] += 1
            cell[1] += sum(margins[side] for side in sorted(sides)) / len(sides)
    return cells


def _margin(counts: Sequence[float], totals: Sequence[float]) -> Margin:
    mean, low, high = mean_interval(counts, totals)
    return Margin(mean, low, high)
