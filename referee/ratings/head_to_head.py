"""Head-to-head: every pair of bots that met, with the row bot's score against the column bot
and its 95% interval, as the poker competition (ACPC) publishes its cross table.

A pair's score in one match is a pairwise rank comparison between the two bots' sides: 1 if
the row bot's side ranked better, 0.5 if tied, 0 if worse (in two-sided games: win, draw,
loss). A bot at several seats or sides of one table is one unit: its comparisons with the
other bot's sides are averaged, so the match counts once for the pair. Partners on one side
never compare with each other there.

The interval clusters as the Elo fit does (`fits.elo_games`): a duplicate deal (all the
rotations of one deal) is one cluster, else each match is. The standard error is the
cluster-robust one of a ratio of cluster totals, sum over clusters (T_c - p m_c)^2 / M^2 with
the small-sample factor G / (G - 1) (G clusters, M matches): with equal clusters that is the
sample variance of the cluster means over G; the interval takes Student's t with G - 1
degrees of freedom (referee.ratings.intervals), so a few deals give an honest width. Like the
SPRT (`sprt.sprt`) it adds one pseudo-cluster (of the mean cluster size) split between 0
and 1, so a clean sweep or a run of draws in a few deals still has an interval of honest width;
its weight vanishes as clusters accumulate. With fewer than two clusters there is no interval
(one cluster tells nothing about its spread). The mark of
a cell is Holm's test over all the table's pairs, so a table of identical bots shows a mark no
more often than 5% of the time, however many bots it has.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from referee.ratings.intervals import holm, t95
from referee.ratings.student import two_sided_p
from referee.results.matches import MatchResult

#: Beside a cell whose 95% interval excludes an even result (0.5), in every table of it.
SIGNIFICANT_MARK = "*"
LEGEND = (
    "head-to-head: the row bot's score against the column bot (1 win, 0.5 draw or tie, 0 loss; "
    f"rank against rank at larger tables); {SIGNIFICANT_MARK} differs from 0.5 by Holm's test "
    "over all the table's pairs (familywise 5%; the raw 95% interval is in each cell's detail; "
    "a duplicate deal's rotations counted as one observation)"
)


@dataclass(frozen=True, slots=True)
class Pair:
    """Bot `a`'s results against bot `b` (the same pair the other way round is its mirror:
    score 1 - score, the interval mirrored, the margin negated)."""

    a: str
    b: str
    #: Matches in which a and b sat at one table on different sides.
    matches: int
    #: a's mean score against b in [0, 1].
    score: float
    #: The score's 95% interval (clipped to [0, 1]); None with fewer than two clusters.
    low: float | None
    high: float | None
    #: a's mean game points minus b's per match, and its 95% interval (None as above).
    margin: float
    margin_low: float | None
    margin_high: float | None
    #: The score differs from 0.5 by Holm's test over every pair of the table (familywise
    #: 5%): what the table's mark shows.
    significant: bool
    #: The raw 95% interval alone excludes 0.5 (no multiplicity control).
    raw_significant: bool = False
    #: The two-sided p-value of an even result (t with G - 1 degrees of freedom).
    p_value: float = 1.0
    #: Two-player duplicate deals of two rotations: per deal a's total score over the pair
    #: (0, 0.5, 1, 1.5, 2: fishtest's pentanomial), counted; None otherwise.
    pentanomial: tuple[int, int, int, int, int] | None = None


def pairs(results: Iterable[MatchResult], duplicate: bool) -> list[Pair]:
    """Every ordered pair of bots that met in `results` (both (a, b) and (b, a)), sorted by
    name; bots that never met have no pair. No results give no pairs.

    Totals are kept for each unordered pair once (a before b by name) and the mirror is made
    from them: half the work, and the symmetry exact. Live standings refit this on every
    reading of the database, so the loop over a match's pairs is kept lean. The matches are read
    in number order, so the order they are given in changes nothing, to the last bit (issue
    28: the standings must not depend on it)."""
    # Per pair (a < b) and cluster: [matches, a's score total, a's margin total].
    cells: dict[tuple[str, str, int], list[float]] = {}
    for result in sorted(results, key=lambda r: r.match.number):
        cluster = result.match.deal if duplicate else -result.match.number
        for a, b, score, margin in _meetings(result):
            totals = cells.get((a, b, cluster))
            if totals is None:
                cells[a, b, cluster] = [1.0, score, margin]
            else:
                totals[0] += 1
                totals[1] += score
                totals[2] += margin
    grouped: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for (a, b, _), totals in cells.items():
        grouped[a, b].append(totals)
    found = []
    for (a, b), clusters in sorted(grouped.items()):
        counts = [c[0] for c in clusters]
        scores = [c[1] for c in clusters]
        margins = [c[2] for c in clusters]
        pair = _pair(a, b, counts, scores, margins)
        penta = _pentanomial(counts, scores) if duplicate else None
        mirrored = [m - t for m, t in zip(counts, scores, strict=True)]
        mirror = _pair(b, a, counts, mirrored, [-t for t in margins])
        found.append((replace(pair, pentanomial=penta), mirror, penta))
    held = holm([pair.p_value for pair, _, _ in found])
    out = []
    for (pair, mirror, penta), significant in zip(found, held, strict=True):
        out.append(replace(pair, significant=significant))
        flipped = None if penta is None else (penta[4], penta[3], penta[2], penta[1], penta[0])
        out.append(replace(mirror, significant=significant, pentanomial=flipped))
    return sorted(out, key=lambda p: (p.a, p.b))


def _pentanomial(
    counts: Sequence[float], scores: Sequence[float]
) -> tuple[int, int, int, int, int] | None:
    """Deals of two matches by a's total score over them, 0 to 2 in halves; None unless every
    deal is a pair (two rotations: the two-player duplicate case)."""
    if any(c != 2 for c in counts):
        return None
    tally = [0] * 5
    for total in scores:
        tally[round(total * 2)] += 1
    return (tally[0], tally[1], tally[2], tally[3], tally[4])


def _pair(a: str, b: str, counts: list[float], scores: list[float], margins: list[float]) -> Pair:
    """a's pair against b from its per-cluster totals."""
    score, low, high = mean_interval(counts, scores, prior=True)
    margin, m_low, m_high = mean_interval(counts, margins)
    if low is not None and high is not None:
        low, high = max(low, 0.0), min(high, 1.0)
    raw = low is not None and high is not None and (low > 0.5 or high < 0.5)
    p_value = _p_even(counts, scores)
    return Pair(a, b, int(sum(counts)), score, low, high, margin, m_low, m_high, raw, raw, p_value)


def _p_even(counts: Sequence[float], scores: Sequence[float]) -> float:
    """The p-value of a's score being 0.5, the interval's t test (with its pseudo-cluster)."""
    score, low, high = mean_interval(counts, scores, prior=True)
    if low is None or high is None:
        return 1.0
    half = (high - low) / 2
    clusters = len(counts)
    if half <= 0:
        return 1.0 if score == 0.5 else 0.0
    return two_sided_p((score - 0.5) / (half / t95(clusters)), float(clusters - 1))


def _meetings(result: MatchResult) -> Iterator[tuple[str, str, float, float]]:
    """(a, b, a's score, a's point margin) per pair of distinct bots on different sides of
    this match, a before b by name; averaged over their sides when a bot holds several (a bot
    is one unit)."""
    ranks = result.side_ranks()
    points = result.side_scores()
    sides: dict[str, list[int]] = {}
    for bot, side in zip(result.match.bots, result.match.sides, strict=True):
        held = sides.setdefault(bot, [])
        if side not in held:
            held.append(side)
    names = sorted(sides)
    for i, a in enumerate(names):
        mine = sides[a]
        for b in names[i + 1 :]:
            theirs = sides[b]
            if len(mine) == 1 and len(theirs) == 1:  # nearly always: one side each
                x, y = mine[0], theirs[0]
                if x != y:
                    yield a, b, _compare(ranks[x], ranks[y]), points[x] - points[y]
                continue
            opposed = [(x, y) for x in mine for y in theirs if x != y]
            if opposed:
                score = sum(_compare(ranks[x], ranks[y]) for x, y in opposed) / len(opposed)
                margin = sum(points[x] - points[y] for x, y in opposed) / len(opposed)
                yield a, b, score, margin


def _compare(mine: int, theirs: int) -> float:
    """1 if `mine` is the better rank (lower), 0.5 for a tie, else 0."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def mean_interval(
    counts: Sequence[float], totals: Sequence[float], *, prior: bool = False
) -> tuple[float, float | None, float | None]:
    """The mean per match of cluster totals and its 95% cluster-robust interval (see the
    module's docstring); `prior` adds the pseudo-cluster split between 0 and 1 (scores only:
    a margin has no natural scale to split over)."""
    matches = sum(counts)
    mean = sum(totals) / matches
    clusters = len(counts)
    if clusters < 2:
        return mean, None, None
    residuals = sum((t - mean * m) ** 2 for m, t in zip(counts, totals, strict=True))
    if prior:  # a cluster of the mean size, half its matches lost and half won
        residuals += (matches / clusters) ** 2 * (0.5 * mean**2 + 0.5 * (1 - mean) ** 2)
    half = t95(clusters) * math.sqrt(residuals * clusters / (clusters - 1)) / matches
    return mean, mean - half, mean + half


def matrix(found: Sequence[Pair], bots: Sequence[str]) -> list[list[Pair | None]]:
    """The pairs as a square table, rows and columns in the order of `bots` (the standings'):
    None on the diagonal and where two bots never met."""
    by_pair = {(p.a, p.b): p for p in found}
    return [[by_pair.get((a, b)) for b in bots] for a in bots]


def among(found: Sequence[Pair], bots: Iterable[str]) -> list[Pair]:
    """The pairs between `bots` only (the rows a table of standings shows)."""
    shown = set(bots)
    return [p for p in found if p.a in shown and p.b in shown]


def cell_text(pair: Pair | None) -> str:
    """A cell as people read it, the same in the CLI, the report and the site: "0.62*"."""
    if pair is None:
        return ""
    return f"{pair.score:.2f}" + (SIGNIFICANT_MARK if pair.significant else "")


def cell_title(pair: Pair) -> str:
    """What hovering a cell says: the pair, the score with its interval, matches, margin."""
    interval = (
        f"95% {pair.low:.2f}-{pair.high:.2f}"
        if pair.low is not None and pair.high is not None
        else "no interval (one deal or match)"
    )
    holm_text = "significant" if pair.significant else "not significant"
    penta = (
        f", deals by score 0/0.5/1/1.5/2: {'/'.join(str(n) for n in pair.pentanomial)}"
        if pair.pentanomial is not None
        else ""
    )
    return (
        f"{pair.a} vs {pair.b}: score {pair.score:.3f} ({interval}; Holm: {holm_text}), "
        f"{pair.matches} {'match' if pair.matches == 1 else 'matches'}, "
        f"mean margin {pair.margin:+.2f} points{penta}"
    )


def shade(score: float) -> str:
    """A cell's background by score, red (0) through neutral (0.5) to green (1): an HSL colour
    readable at a glance on a light or a dark page."""
    hue = 120 * min(max(score, 0.0), 1.0)  # 0 red, 60 yellow, 120 green
    return f"hsl({hue:.0f} 55% 42%)"


def cells(found: Sequence[Pair], bots: Sequence[str]) -> list[list[dict[str, object] | None]]:
    """The matrix (`matrix`) as the report and the site draw it: per cell its text, title,
    shade, whether significant, and the score (None on the diagonal and where two never met).
    One place decides how a cell looks, so the CLI, the report and the site agree."""
    return [
        [
            None
            if pair is None
            else {
                "text": cell_text(pair),
                "title": cell_title(pair),
                "shade": shade(pair.score),
                "significant": pair.significant,
                "score": round(pair.score, 4),
            }
            for pair in row
        ]
        for row in matrix(found, bots)
    ]


def to_dicts(found: Sequence[Pair]) -> list[dict[str, object]]:
    """The pairs as the JSON exports hold them, numbers rounded as the standings round."""
    return [
        {
            "a": p.a,
            "b": p.b,
            "matches": p.matches,
            "score": round(p.score, 4),
            "low": _round(p.low, 4),
            "high": _round(p.high, 4),
            "margin": round(p.margin, 2),
            "margin_low": _round(p.margin_low, 2),
            "margin_high": _round(p.margin_high, 2),
            "significant": p.significant,
            "raw_significant": p.raw_significant,
            "p_value": round(p.p_value, 6),
            "pentanomial": list(p.pentanomial) if p.pentanomial is not None else None,
        }
        for p in found
    ]


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


CSV_COLUMNS = (
    "a",
    "b",
    "matches",
    "score",
    "low",
    "high",
    "margin",
    "margin_low",
    "margin_high",
    "significant",
    "raw_significant",
    "p_value",
)
