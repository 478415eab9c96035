"""Standings from a ladder's results: rank, bot, rating and interval, matches, score, faults.

Everything here is computed from the database alone (its plan, schedule and results), so
`croupier ladder standings DB` needs no ladder file, and the live standings of a running ladder
are the same computation on the results so far.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from referee.ratings import fits, methods
from referee.ratings.comparison import (
    components,
    fragile,
    links,
    shared_ranks,
    significantly_above,
)
from referee.ratings.head_to_head import CSV_COLUMNS as H2H_COLUMNS
from referee.ratings.head_to_head import Pair, among, cell_text, matrix, pairs, to_dicts
from referee.ratings.intervals import MIN_CLUSTERS, Estimates
from referee.ratings.margins import Margin, bot_margins, margin_estimates
from referee.ratings.methods import RatingMethod
from referee.results.database import Exit, Store, StoreError
from referee.results.matches import MatchResult, complete_deals
from referee.text import plural

#: Beside a provisional rating in every table of standings (CLI, report, web site).
PROVISIONAL_MARK = "?"
#: Beside the dash of an interval not shown because its rating rests on fewer than two deals.
FEW_MARK = "°"
FEW_LEGEND = (
    f"-{FEW_MARK} no interval: the rating rests on fewer than {MIN_CLUSTERS} deals (or matches), "
    "and one says nothing about its own spread; every rating is provisional until there are more"
)
PROVISIONAL_LEGEND = (
    f"{PROVISIONAL_MARK} provisional: its own 95% interval (the other ratings taken as exact) is "
    f"more than {fits.PROVISIONAL_WIDTH:g} times as wide as the field's median: too few "
    "matches, or too one-sided, to place it yet"
)


@dataclass(frozen=True, slots=True)
class Plan:
    """What the standings need to know about the ladder (kept in the database's meta)."""

    name: str
    game: str
    options: dict[str, str]
    bots: tuple[str, ...]
    #: The name of its rating method (`methods.named`): "elo" or "plackett-luce" ("openskill"
    #: in databases from before the batch fit, rated the same way now).
    system: str
    duplicate: bool
    rotations: int
    format: str
    #: What orders the table (the ladder file's `order`): "rating" (win/loss), "margin" (mean
    #: point margin) or "corrected" (the luck-corrected margin); all are shown.
    order: str = "rating"

    @property
    def method(self) -> RatingMethod:
        return methods.named(self.system)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Plan:
        data = json.loads(text)
        data["bots"] = tuple(data["bots"])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    bot: str
    #: Elo, or the batch Plackett-Luce fit on the Elo scale; None before the bot has a rated
    #: match. [low, high] is its 95% interval.
    rating: float | None
    low: float | None
    high: float | None
    mu: float | None
    sigma: float | None
    matches: int
    #: Mean match score in [0, 1]: 1 win, 0.5 draw, 0 loss (sides beaten, over the others).
    score: float | None
    #: Mean game points per match.
    points: float | None
    faults: dict[str, int]
    restarts: int
    #: Not yet rated, or its own interval too wide next to the field's (`fits.provisional`).
    provisional: bool
    #: The 95% interval of its rank among the rated bots (1 best): "rank 2, 95%: 1-4".
    rank_low: int | None = None
    rank_high: int | None = None
    #: Mean point margin per match (its side's points less the other sides' mean) and its 95%
    #: interval (referee.ratings.margins); then the same corrected for luck, None unless every
    #: match carries its luck corrections.
    margin: float | None = None
    margin_low: float | None = None
    margin_high: float | None = None
    corrected: float | None = None
    corrected_low: float | None = None
    corrected_high: float | None = None
    #: Its shared rank within its group (referee.ratings.comparison): one plus the bots
    #: significantly above it, to one plus the bots not significantly below it (Holm).
    rank_top: int | None = None
    rank_bottom: int | None = None
    #: Its component of the comparison graph, 1 the largest (None before it has met anyone):
    #: ranks and ratings compare only within one.
    group: int | None = None
    #: The clusters (deals, else matches) its rating rests on: fewer than two, no interval.
    clusters: int = 0


@dataclass(frozen=True, slots=True)
class Standings:
    plan: Plan
    rows: tuple[Row, ...]
    matches_done: int
    matches_scheduled: int
    seed_sha256: str
    #: The master seed, once the ladder has ended and revealed it.
    seed: str | None
    finished: bool
    sprt: str | None = None
    #: Every ordered pair of bots that met (`head_to_head.pairs`); tables show those among
    #: their rows (`head_to_head.among`).
    head_to_head: tuple[Pair, ...] = ()
    #: The luck value function committed to at the start, "name:sha256" ("": none recorded).
    luck_value: str = ""
    #: The groups of bots that never met each other's, directly or through others (the
    #: comparison graph's components, largest first); one group when all are connected.
    groups: tuple[tuple[str, ...], ...] = ()
    #: Pairs whose one deal (or match) alone joins two parts of a group.
    fragile: tuple[tuple[str, str], ...] = ()
    #: The bot the ratings are differences from (`--reference`), or None: mean 0.
    reference: str | None = None
    #: Every counted match a tie: ratings 0 and zero-width intervals that say only that.
    all_tied: bool = False
    #: The pairs (a, b) with a significantly above b (Holm): what the shared ranks count.
    above: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "ladder": self.plan.name,
            "game": self.plan.game,
            "options": self.plan.options,
            "format": self.plan.format,
            "rating": self.plan.system,
            "duplicate_deals": self.plan.duplicate,
            "matches_done": self.matches_done,
            "matches_scheduled": self.matches_scheduled,
            "finished": self.finished,
            "seed_sha256": self.seed_sha256,
            "luck_value": self.luck_value,
            "seed": self.seed,
            "sprt": self.sprt,
            "standings": [asdict(row) for row in self.rows],
            "head_to_head": to_dicts(self.pairs_shown()),
            "groups": [list(g) for g in self.groups],
            "fragile": [list(p) for p in self.fragile],
            "reference": self.reference,
            "notes": notes(self),
        }

    def pairs_shown(self) -> list[Pair]:
        """The head-to-head pairs between the bots of these rows (a contest's shown rows
        leave out its retired versions, and so their pairs)."""
        return among(self.head_to_head, (row.bot for row in self.rows))


def compute(
    plan: Plan,
    results: Sequence[MatchResult],
    exits: Sequence[Exit],
    *,
    scheduled: int,
    seed_sha256: str,
    seed: str | None = None,
    finished: bool = False,
    sprt: str | None = None,
    reference: str | None = None,
) -> Standings:
    """The standings over `results`; with `reference`, ratings as differences from that bot's
    (its own row 0, every interval that of the difference)."""
    counted = complete_deals(results, plan.duplicate, plan.rotations)
    rated, estimates = fitted_of(plan, counted)
    unsettled = fits.provisional(rated)
    matches: Counter[str] = Counter()
    score_sum: defaultdict[str, float] = defaultdict(float)
    score_n: Counter[str] = Counter()
    points_sum: defaultdict[str, float] = defaultdict(float)
    points_n: Counter[str] = Counter()
    faults: dict[str, Counter[str]] = defaultdict(Counter)
    for result in results:
        side_results = result.side_results()
        for bot in set(result.match.bots):
            matches[bot] += 1
        for seat, bot in enumerate(result.match.bots):
            score_sum[bot] += side_results[result.match.sides[seat]]
            score_n[bot] += 1
            points_sum[bot] += result.scores[seat]
            points_n[bot] += 1
        for seat, reason in result.faults:
            faults[result.match.bots[seat]][reason] += 1
    restarts = Counter(exit_.bot for exit_ in exits)
    margin = bot_margins(counted, plan.duplicate)
    corrected = bot_margins(counted, plan.duplicate, corrected=True)
    chosen = {"margin": margin, "corrected": corrected}.get(plan.order, {})
    if plan.order in {"margin", "corrected"} and chosen:
        estimates = margin_estimates(counted, plan.duplicate, plan.order == "corrected")
    met = links(counted, plan.duplicate)
    groups = [g for g in components(plan.bots, met) if len(g) > 1]
    group_of = {bot: k for k, group in enumerate(groups, start=1) for bot in group}
    if reference is not None and reference not in rated:
        raise StoreError(f"no rated bot named {reference!r} to take as the reference")

    def order(bot: str) -> tuple[float, float, float, float, str]:
        rating = rated.get(bot)
        value = rating.value if rating is not None else -math.inf
        first = chosen[bot].mean if bot in chosen else -math.inf
        score = score_sum[bot] / score_n[bot] if score_n[bot] else -math.inf
        return (group_of.get(bot, len(groups) + 1), -first, -value, -score, bot)

    ordered = sorted(plan.bots, key=order)
    above = significantly_above(estimates, groups) if estimates is not None else set()
    shared = shared_ranks([b for b in ordered if b in group_of], above, group_of)
    rows = []
    for rank, bot in enumerate(ordered, start=1):
        rating = rated.get(bot)
        value, low, high = _relative(bot, rating, estimates, reference, rated)
        top, bottom = shared.get(bot, (None, None))
        rows.append(
            Row(
                rank=rank,
                bot=bot,
                rating=_round(value),
                low=_round(low),
                high=_round(high),
                mu=_round(rating.mu if rating else None),
                sigma=_round(rating.sigma if rating else None),
                matches=matches[bot],
                score=round(score_sum[bot] / score_n[bot], 4) if score_n[bot] else None,
                points=round(points_sum[bot] / points_n[bot], 2) if points_n[bot] else None,
                faults=dict(sorted(faults[bot].items())),
                restarts=restarts[bot],
                provisional=rating is None or bot in unsettled,
                rank_low=rating.rank_low if rating else None,
                rank_high=rating.rank_high if rating else None,
                **_margin_fields("margin", margin.get(bot)),
                **_margin_fields("corrected", corrected.get(bot)),
                rank_top=top,
                rank_bottom=bottom,
                group=group_of.get(bot),
                clusters=rating.clusters if rating else 0,
            )
        )
    tied = bool(counted) and all(len(set(r.side_ranks())) == 1 for r in counted)
    return Standings(
        plan=plan,
        rows=tuple(rows),
        matches_done=len(results),
        matches_scheduled=scheduled,
        seed_sha256=seed_sha256,
        seed=seed,
        finished=finished,
        sprt=sprt,
        head_to_head=tuple(pairs(counted, plan.duplicate)),
        groups=tuple(groups),
        fragile=tuple(fragile(met)),
        reference=reference,
        all_tied=tied,
        above=tuple(sorted(above)),
    )


def among_shown(standings: Standings, bots: Sequence[str]) -> dict[str, tuple[int, int]]:
    """The shared ranks among `bots` only (a contest's current versions, its retired ones
    left out): the same tests, counted among the bots shown."""
    group_of = {row.bot: row.group for row in standings.rows if row.group is not None}
    shown = [bot for bot in bots if bot in group_of]
    return shared_ranks(shown, set(standings.above), {b: group_of[b] for b in shown})


def _relative(
    bot: str,
    rating: fits.Rating | None,
    estimates: Estimates | None,
    reference: str | None,
    rated: dict[str, fits.Rating],
) -> tuple[float | None, float | None, float | None]:
    """A bot's rating and interval as shown: as fitted, or as a difference from `reference`'s
    (the reference's own row 0 and no interval: it is the zero)."""
    if rating is None:
        return None, None, None
    if reference is None:
        return rating.value, rating.low, rating.high
    value = rating.value - rated[reference].value
    if bot == reference or estimates is None or bot not in estimates.bots:
        return value, None, None
    found = estimates.interval(bot, reference)
    return (value, *found) if found else (value, None, None)


def ratings_of(plan: Plan, results: Sequence[MatchResult]) -> dict[str, fits.Rating]:
    """The ladder's ratings over `results`, by its own system (unrounded); bots not yet rated
    are absent. The standings and the report's ratings over time both come from here."""
    return fitted_of(plan, results)[0]


def fitted_of(
    plan: Plan, results: Sequence[MatchResult]
) -> tuple[dict[str, fits.Rating], Estimates | None]:
    """`ratings_of` and the ratings' joint covariance (shared ranks, a reference bot)."""
    return plan.method.fit(results, plan.duplicate, plan.rotations, plan.bots)


def ratings_over(
    plan: Plan, results: Sequence[MatchResult], ks: Iterable[int]
) -> list[tuple[int, dict[str, fits.Rating]]]:
    """`ratings_of` the first k of `results`, for each k (a plot of ratings over time)."""
    return plan.method.over_time(results, plan.duplicate, plan.rotations, plan.bots, list(ks))


def _margin_fields(name: str, found: Margin | None) -> dict[str, float | None]:
    if found is None:
        return {}
    return {
        name: _round(found.mean),
        f"{name}_low": _round(found.low),
        f"{name}_high": _round(found.high),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def from_store(
    store: Store, results: Sequence[MatchResult] | None = None, *, reference: str | None = None
) -> Standings:
    """The standings of the ladder in `store` as it is now (`results`: its results, if the
    caller has read them already; a long ladder's reading is most of the cost)."""
    plan_text = store.meta("plan")
    if plan_text is None:
        raise StoreError(f"{str(store.path)!r} holds no ladder plan")
    plan = Plan.from_json(plan_text)
    revealed = store.meta("revealed") == "1"
    standings = compute(
        plan,
        store.results() if results is None else results,
        store.exits(),
        scheduled=store.scheduled(),
        seed_sha256=store.meta("seed_sha256") or "",
        seed=store.meta("master_seed") if revealed else None,
        finished=store.meta("finished_at") is not None,
        sprt=store.meta("sprt_report"),
        reference=reference,
    )
    return replace(standings, luck_value=store.meta("luck_value") or "")


def table(
    standings: Standings,
    *,
    title: str | None = None,
    revoked: frozenset[str] = frozenset(),
    retired: frozenset[str] = frozenset(),
) -> Table:
    """The standings as a rich table: rating (Elo, or the batch Plackett-Luce fit on the Elo
    scale), its 95% interval and the 95% interval of the bot's rank. Bots in
    `revoked` (a contest's revoked accounts) and `retired` (its hosted versions no longer
    played, referee.hosted.current) are marked."""
    plan = standings.plan
    count = f"{standings.matches_done} of {plural(standings.matches_scheduled, 'match', 'matches')}"
    if standings.finished and standings.sprt and " accepted " in standings.sprt:
        # the SPRT decided and dropped the deals it did not need
        count = f"{plural(standings.matches_done, 'match', 'matches')}, ended by the SPRT"
    elif plan.format == "contest":  # tables are scheduled as they sit down: no total to reach
        playing = standings.matches_scheduled - standings.matches_done
        count = plural(standings.matches_done, "match", "matches") + (
            f", {playing} playing" if playing else ""
        )
    heading = title or (
        f"ladder {plan.name} ({plan.game}): {count}"
        + (", duplicate deals" if plan.duplicate else "")
    )
    out = Table(title=heading, box=box.SIMPLE_HEAD)
    columns = ["rank", "bot", plan.method.heading, "95% interval", "rank 95%"]
    columns += ["matches", "score", "points", "faults"]
    for column in columns:
        out.add_column(column, justify="left" if column in {"bot", "faults"} else "right")
    for row in standings.rows:
        text = row_text(row, plan.method.has_intervals, standings)
        cells = [text["rank"], _marked(row.bot, revoked, retired), text["rating"]]
        cells += [text["interval"], text["rank_interval"], str(row.matches), text["score"]]
        cells += [text["points"], fault_text(row)]
        out.add_row(*cells)
    return out


def _marked(bot: str, revoked: frozenset[str], retired: frozenset[str]) -> str:
    marks = [m for m, bots in (("revoked", revoked), ("retired", retired)) if bot in bots]
    return f"{bot} ({', '.join(marks)})" if marks else bot


def margin_table(
    standings: Standings,
    *,
    revoked: frozenset[str] = frozenset(),
    retired: frozenset[str] = frozenset(),
) -> Table | None:
    """The margins as a rich table beside the standings (a second table, so that each fits an
    80-column terminal): each bot's mean point margin and, where every match carries its luck
    corrections, the corrected margin, with their 95% intervals. None before any margin."""
    if all(row.margin is None for row in standings.rows):
        return None
    lucky = has_corrected(standings)
    out = Table(title="margins: points per match over the other sides'", box=box.SIMPLE_HEAD)
    for column in ["rank", "bot", "margin", *(["luck-corrected"] if lucky else [])]:
        out.add_column(column, justify="left" if column == "bot" else "right")
    for row in standings.rows:
        text = row_text(row, standings.plan.method.has_intervals, standings)
        cells = [text["rank"], _marked(row.bot, revoked, retired), text["margin"]]
        out.add_row(*cells, *([text["corrected"]] if lucky else []))
    return out


def row_text(row: Row, intervals: bool, of: Standings | None = None) -> dict[str, str]:
    """A row's rank, rating, interval, rank interval, score and points as people read them, the
    same in the CLI's table, the site and the report ("-" for what is not known yet, or an
    interval over fewer than two deals; a provisional rating marked). `of`, the standings the
    row is from, names its group when there are several and its reference bot. Ratings of a
    method with `intervals` (`RatingMethod.has_intervals`), or without mu and sigma, read on
    the Elo scale with their interval; others as their mu +- sigma."""
    if row.rating is None:
        rating, interval = "-", "-"
    elif intervals or row.sigma is None:
        rating = f"{row.rating:+.0f}"
        interval = "-" if row.low is None or row.high is None else _interval(row.low, row.high)
        if of is not None and of.reference == row.bot:
            interval = "reference"
        elif row.low is None and row.clusters < MIN_CLUSTERS:
            interval = f"-{FEW_MARK}"
    else:
        rating = f"{row.rating:.1f}"
        interval = f"{row.mu:.1f} ± {row.sigma:.2f}"
    if rating != "-" and row.provisional:
        rating += PROVISIONAL_MARK
    ranked = row.rank_low is not None and row.rank_high is not None
    return {
        "rank": rank_text(row, of),
        "rating": rating,
        "interval": interval,
        "rank_interval": f"{row.rank_low}-{row.rank_high}" if ranked else "-",
        "score": f"{row.score:.1%}" if row.score is not None else "-",
        "points": f"{row.points:.1f}" if row.points is not None else "-",
        "margin": _margin_text(row.margin, row.margin_low, row.margin_high),
        "corrected": _margin_text(row.corrected, row.corrected_low, row.corrected_high),
    }


def _interval(low: float, high: float) -> str:
    return f"{low:+.0f}..{high:+.0f}"


def rank_text(row: Row, of: Standings | None = None) -> str:
    """The rank column: the shared rank ("2-4", or "2" when it is known), prefixed by the
    group's letter when the bots fall into several groups that never met ("B1-2"); the row's
    place when it has no shared rank (not yet in a group)."""
    if row.rank_top is None or row.rank_bottom is None:
        return "-"
    shared = (
        str(row.rank_top)
        if row.rank_top == row.rank_bottom
        else f"{row.rank_top}-{row.rank_bottom}"
    )
    if of is not None and len(of.groups) > 1 and row.group is not None:
        return f"{group_letter(row.group)}{shared}"
    return shared


def group_letter(group: int) -> str:
    """A group's name in the tables: A, B, ... Z, then AA, AB, ..."""
    letters = ""
    group -= 1
    while True:
        letters = chr(ord("A") + group % 26) + letters
        group = group // 26 - 1
        if group < 0:
            return letters


def _margin_text(mean: float | None, low: float | None, high: float | None) -> str:
    """ "+2.3 ±1.9": a margin and the half-width of its 95% interval (symmetric: a mean's)."""
    if mean is None:
        return "-"
    if low is None or high is None:
        return f"{mean:+.1f}"
    return f"{mean:+.1f} ±{(high - low) / 2:.1f}"


def has_corrected(standings: Standings) -> bool:
    """Whether these standings have luck-corrected margins to show (every match carries its
    corrections)."""
    return any(row.corrected is not None for row in standings.rows)


def marks_provisional(standings: Standings) -> bool:
    """Whether a table of these standings shows the provisional mark (and so its legend)."""
    return any(row.provisional and row.rating is not None for row in standings.rows)


def fault_text(row: Row) -> str:
    parts = [f"{reason} {count}" for reason, count in row.faults.items()]
    if row.restarts:
        parts.append(f"restarted {row.restarts}")
    return ", ".join(parts) or "-"


def footer(standings: Standings) -> list[str]:
    """The lines under the table: how the ratings were fitted, what the provisional mark means,
    the SPRT, the seed commitment (and the seed), which is last."""
    lines = [method(standings.plan), margin_method(standings), *notes(standings)]
    if marks_provisional(standings):
        lines.append(PROVISIONAL_LEGEND)
    if standings.sprt:
        lines.append(standings.sprt)
    if standings.luck_value:
        lines.append(f"luck value function: {standings.luck_value}")
    lines.append(f"master seed sha256: {standings.seed_sha256}")
    if standings.seed is not None:
        lines.append(f"master seed: {standings.seed}")
    elif standings.finished:
        lines.append("master seed: not revealed")
    else:
        lines.append("master seed: revealed when the ladder ends")
    return lines


SHARED_RANK_LEGEND = (
    "rank: shared where the difference is not significant: one plus the bots significantly "
    "above, to one plus those not significantly below (t tests on the differences, Holm-corrected "
    "over every pair: familywise 5%)"
)


def notes(standings: Standings) -> list[str]:
    """What a reader must know to read these standings, the same lines under the CLI's table,
    in the report and on the site: the shared ranks, the groups that cannot be compared, the
    links resting on one deal, too few deals for intervals, a table of ties, the reference."""
    rows = standings.rows
    out = []
    if any(r.rank_top is not None for r in rows):
        out.append(SHARED_RANK_LEGEND)
    if len(standings.groups) > 1:
        named = "; ".join(
            f"{group_letter(k)}: {', '.join(g)}" for k, g in enumerate(standings.groups, start=1)
        )
        out.append(
            f"groups that never met, directly or through others ({named}): ranks are within a "
            "group, ratings are each pinned to their own group's mean and cannot be compared "
            "across groups; there is no combined order"
        )
    if standings.fragile:
        pairs_text = ", ".join(f"{a} and {b}" for a, b in standings.fragile)
        out.append(
            f"compared through one deal only: {pairs_text} (the order across that link rests "
            "on one result)"
        )
    if any(r.rating is not None and r.low is None and r.clusters < MIN_CLUSTERS for r in rows):
        out.append(FEW_LEGEND)
    if standings.all_tied:
        out.append(
            "every match counted was a tie: ratings 0 and intervals 0..0 say that no result "
            "separated the bots, not that they are known to be equal"
        )
    if standings.reference is not None:
        out.append(
            f"ratings are differences from {standings.reference}'s (0), each interval that of "
            "the difference: a newcomer does not widen them"
        )
    if standings.plan.duplicate and standings.plan.rotations > 1:
        out.append(
            "a deal counts once all its rotations are in: a partial deal (its duplicate half "
            "missing) would favour whoever held its good hands"
        )
    out += _pentanomials(standings)
    return out


def _pentanomials(standings: Standings) -> list[str]:
    """Per pair of a two-player duplicate ladder (a few pairs only: the rest is in the JSON and
    the head-to-head cells), its deals by score: fishtest's pentanomial."""
    found = [p for p in standings.pairs_shown() if p.a < p.b and p.pentanomial is not None]
    if not found or len(found) > 6:
        return []
    return [
        f"deals by {p.a}'s score over the pair, 0/0.5/1/1.5/2 against {p.b}: "
        + "/".join(str(n) for n in p.pentanomial or ())
        for p in found
    ]


def method(plan: Plan) -> str:
    """How the ratings and their intervals were computed, in a line."""
    return plan.method.description(plan.duplicate)


def margin_method(standings: Standings) -> str:
    """How the margins were computed and which column orders the table, in a line."""
    plan = standings.plan
    unit = "a deal's rotations paired" if plan.duplicate else "one match one observation"
    ordered = {"margin": "margin", "corrected": "corrected margin"}.get(plan.order, "rating")
    lucky = (
        "; corrected: the margin plus each seat's luck correction (the chance half of AIVAT, "
        "zero in expectation)"
        if has_corrected(standings)
        else ""
    )
    return (
        f"margin: mean points per match over the other sides', 95% interval ({unit}){lucky}; "
        f"the table is ordered by {ordered}"
    )


CSV_COLUMNS = (
    "rank",
    "bot",
    "rating",
    "low",
    "high",
    "mu",
    "sigma",
    "matches",
    "score",
    "points",
    "faults",
    "restarts",
    "provisional",
    "rank_low",
    "rank_high",
    "margin",
    "margin_low",
    "margin_high",
    "corrected",
    "corrected_low",
    "corrected_high",
    "rank_top",
    "rank_bottom",
    "group",
    "clusters",
)


def to_csv(standings: Standings) -> str:
    """One row per bot; faults as `reason=count` joined by `;`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in standings.rows:
        data = asdict(row)
        data["faults"] = ";".join(f"{k}={v}" for k, v in row.faults.items())
        writer.writerow(["" if data[c] is None else data[c] for c in CSV_COLUMNS])
    return buffer.getvalue()


def head_to_head_table(standings: Standings) -> Table | None:
    """The head-to-head matrix as a rich table, rows and columns the bots in standings order
    (columns by rank, to stay narrow): the row bot's score against the column bot, green or
    red where its interval excludes 0.5. None while no two of the rows' bots have met."""
    shown = standings.pairs_shown()
    if not shown:
        return None
    bots = [row.bot for row in standings.rows]
    out = Table(title="head-to-head", box=box.SIMPLE_HEAD)
    out.add_column("bot", justify="left")
    for row in standings.rows:
        out.add_column(f"#{row.rank}", justify="right")
    for row, cells in zip(standings.rows, matrix(shown, bots), strict=True):
        texts = []
        for column, pair in zip(standings.rows, cells, strict=True):
            text = "-" if column is row else cell_text(pair)  # never met: empty
            if pair is not None and pair.significant:
                text = f"[{'green' if pair.score > 0.5 else 'red'}]{text}[/]"
            texts.append(text)
        out.add_row(f"#{row.rank} {escape(row.bot)}", *texts)
    return out


def head_to_head_csv(standings: Standings) -> str:
    """One row per ordered pair of the rows' bots that met (`head_to_head.CSV_COLUMNS`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(H2H_COLUMNS)
    for data in to_dicts(standings.pairs_shown()):
        writer.writerow(["" if data[c] is None else data[c] for c in H2H_COLUMNS])
    return buffer.getvalue()
