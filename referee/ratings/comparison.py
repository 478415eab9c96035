"""What a ladder's results can compare (issue 44): the comparison graph's components, the links
that rest on one match, and shared ranks.

Two bots are compared when they sat at one table on different sides; comparisons chain. Bots in
different components never met, directly or through others: their ratings are each pinned to
their own group's mean and say nothing across groups, so the standings rank within a component
and refuse a combined order. A link that rests on one cluster (a deal, or a match) alone and
joins two parts of a component is fragile: the order across it is one result's.

Shared ranks follow Chatbot Arena's rule with a familywise-controlled test: a bot's rank is one
plus the number of bots significantly above it, to one plus the number of bots not significantly
below it ("2-4"), the significance being Holm's over every pair within a component (t tests on
the differences, referee.ratings.intervals), so that identical bots share a rank but for the
familywise 5%.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from referee.ratings.intervals import Estimates, holm
from referee.results.matches import MatchResult


def links(results: Iterable[MatchResult], duplicate: bool) -> dict[tuple[str, str], set[int]]:
    """Per pair of bots that met on different sides (a before b by name), its clusters."""
    out: dict[tuple[str, str], set[int]] = defaultdict(set)
    for result in results:
        cluster = result.match.deal if duplicate else -result.match.number
        seated = sorted(set(zip(result.match.bots, result.match.sides, strict=True)))
        for a, side_a in seated:
            for b, side_b in seated:
                if a < b and side_a != side_b:
                    out[a, b].add(cluster)
    return out


def components(bots: Iterable[str], met: Iterable[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The connected groups of `bots` (each sorted by name), largest first, then by name: an
    order that no listing of the bots in a file can change."""
    parent = {bot: bot for bot in bots}

    def root(bot: str) -> str:
        while parent[bot] != bot:
            parent[bot] = parent[parent[bot]]
            bot = parent[bot]
        return bot

    for a, b in met:
        if a in parent and b in parent:
            parent[root(a)] = root(b)
    groups: dict[str, list[str]] = defaultdict(list)
    for bot in parent:
        groups[root(bot)].append(bot)
    return sorted((tuple(sorted(g)) for g in groups.values()), key=lambda g: (-len(g), g))


def fragile(found: Mapping[tuple[str, str], set[int]]) -> list[tuple[str, str]]:
    """The pairs whose one cluster alone holds their component together: without that deal
    (or match) the component would split in two."""
    out = []
    bots = {b for pair in found for b in pair}
    for pair, clusters in sorted(found.items()):
        if len(clusters) != 1:
            continue
        (cluster,) = clusters
        kept = [p for p, cs in found.items() if cs - {cluster}]
        if len(components(bots, kept)) > len(components(bots, found)):
            out.append(pair)
    return out


def significantly_above(
    estimates: Estimates, groups: Sequence[Sequence[str]], alpha: float = 0.05
) -> set[tuple[str, str]]:
    """The pairs (a, b) of one component with a significantly above b, Holm-corrected over
    every pair tested."""
    tested: list[tuple[str, str]] = []
    for group in groups:
        rated = [bot for bot in group if bot in estimates.bots]
        tested += [(a, b) for i, a in enumerate(rated) for b in rated[i + 1 :]]
    rejected = holm([estimates.p_value(a, b) for a, b in tested], alpha)
    out = set()
    for (a, b), reject in zip(tested, rejected, strict=True):
        if reject:
            i, j = estimates.index(a), estimates.index(b)
            out.add((a, b) if estimates.values[i] > estimates.values[j] else (b, a))
    return out


def shared_ranks(
    ordered: Sequence[str], above: set[tuple[str, str]], group_of: Mapping[str, int]
) -> dict[str, tuple[int, int]]:
    """Per bot its shared rank (top, bottom) among the bots of its component in `ordered`."""
    out = {}
    for bot in ordered:
        peers = [b for b in ordered if group_of.get(b) == group_of.get(bot) and b != bot]
        better = sum((b, bot) in above for b in peers)
        worse = sum((bot, b) in above for b in peers)
        out[bot] = (1 + better, 1 + len(peers) - worse)
    return out
