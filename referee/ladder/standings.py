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

from referee.ladder import ratings
from referee.ladder.head_to_head import CSV_COLUMNS as H2H_COLUMNS
from referee.ladder.head_to_head import Pair, among, cell_text, matrix, pairs, to_dicts
from referee.ladder.margins import Margin, bot_margins
from referee.ladder.model import MatchResult
from referee.ladder.store import Exit, Store, StoreError
from referee.text import plural

#: Beside a provisional rating in every table of standings (CLI, report, web site).
PROVISIONAL_MARK = "?"
PROVISIONAL_LEGEND = (
    f"{PROVISIONAL_MARK} provisional: its own 95% interval (the other ratings taken as exact) is "
    f"more than {ratings.PROVISIONAL_WIDTH:g} times as wide as the field's median: too few "
    "matches, or too one-sided, to place it yet"
)


@dataclass(frozen=True, slots=True)
class Plan:
    """What the standings need to know about the ladder (kept in the database's meta)."""

    name: str
    game: str
    options: dict[str, str]
    bots: tuple[str, ...]
    #: "elo" (two-player games) or "plackett-luce" (multiplayer and team games: the batch fit,
    #: `ratings.batch`; "openskill" in databases from before it, rated the same way now).
    system: str
    duplicate: bool
    rotations: int
    format: str
    #: What orders the table (the ladder file's `order`): "rating" (win/loss), "margin" (mean
    #: point margin) or "corrected" (the luck-corrected margin); all are shown.
    order: str = "rating"

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
    #: Not yet rated, or its own interval too wide next to the field's (`ratings.provisional`).
    provisional: bool
    #: The 95% interval of its rank among the rated bots (1 best): "rank 2, 95%: 1-4".
    rank_low: int | None = None
    rank_high: int | None = None
    #: Mean point margin per match (its side's points less the other sides' mean) and its 95%
    #: interval (referee.ladder.margins); then the same corrected for luck, None unless every
    #: match carries its luck corrections.
    margin: float | None = None
    margin_low: float | None = None
    margin_high: float | None = None
    corrected: float | None = None
    corrected_low: float | None = None
    corrected_high: float | None = None


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
) -> Standings:
    rated = ratings_of(plan, results)
    unsettled = ratings.provisional(rated)
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
    margin = bot_margins(results, plan.duplicate)
    corrected = bot_margins(results, plan.duplicate, corrected=True)
    chosen = {"margin": margin, "corrected": corrected}.get(plan.order, {})

    def order(bot: str) -> tuple[float, float, float, int]:
        rating = rated.get(bot)
        value = rating.value if rating is not None else -math.inf
        first = chosen[bot].mean if bot in chosen else -math.inf
        score = score_sum[bot] / score_n[bot] if score_n[bot] else -math.inf
        return (-first, -value, -score, plan.bots.index(bot))

    rows = []
    for rank, bot in enumerate(sorted(plan.bots, key=order), start=1):
        rating = rated.get(bot)
        rows.append(
            Row(
                rank=rank,
                bot=bot,
                rating=_round(rating.value if rating else None),
                low=_round(rating.low if rating else None),
                high=_round(rating.high if rating else None),
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
            )
        )
    return Standings(
        plan=plan,
        rows=tuple(rows),
        matches_done=len(results),
        matches_scheduled=scheduled,
        seed_sha256=seed_sha256,
        seed=seed,
        finished=finished,
        sprt=sprt,
        head_to_head=tuple(pairs(results, plan.duplicate)),
    )


def ratings_of(plan: Plan, results: Sequence[MatchResult]) -> dict[str, ratings.Rating]:
    """The ladder's ratings over `results`, by its own system (unrounded); bots not yet rated
    are absent. The standings and the report's ratings over time both come from here."""
    if plan.system == "elo":
        return ratings.elo(ratings.elo_games(results, plan.duplicate), plan.bots)
    return ratings.batch(results, plan.duplicate, plan.bots, plan.rotations)


def ratings_over(
    plan: Plan, results: Sequence[MatchResult], ks: Iterable[int]
) -> list[tuple[int, dict[str, ratings.Rating]]]:
    """`ratings_of` the first k of `results`, for each k (a plot of ratings over time). Elo's
    games are made once for the longest prefix, not again for each k (most of a point's cost):
    the first k results' games are the first upto[k] games."""
    ks = list(ks)
    if plan.system != "elo" or not ks:
        return [(k, ratings_of(plan, results[:k])) for k in ks]
    games: list[ratings.Game] = []
    upto = [0]
    for result in results[: max(ks)]:
        games += ratings.elo_games((result,), plan.duplicate)
        upto.append(len(games))
    return [(k, ratings.elo(games[: upto[k]], plan.bots)) for k in ks]


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


def from_store(store: Store, results: Sequence[MatchResult] | None = None) -> Standings:
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
    )
    return replace(standings, luck_value=store.meta("luck_value") or "")


#: The narrowest each number column may be, so that a narrow terminal folds the bot's name and
#: the faults rather than cut a rating.
_NUMBER_WIDTHS = {"Elo": 5, "rating": 5, "95% interval": 9, "margin": 9, "corrected": 9}
#: Long headings on two lines, for the same reason.
_HEADS = {"95% interval": "95%\ninterval", "rank 95%": "rank\n95%", "corrected": "luck-\ncorrected"}


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
    elo = plan.system == "elo"
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
    # Narrow padding, and numbers never cut: on an 80-column terminal the bot and faults
    # columns wrap instead (the mean game points per seat are in the JSON, CSV and report).
    out = Table(
        title=heading, box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True, pad_edge=False
    )
    columns = ["rank", "bot", "Elo" if elo else "rating", "95% interval", "rank 95%"]
    columns += ["matches", "score", "margin"]
    lucky = has_corrected(standings)
    columns += ["corrected"] if lucky else []
    columns += ["faults"]
    for column in columns:
        words = column in {"bot", "faults"}
        out.add_column(
            _HEADS.get(column, column),
            justify="left" if words else "right",
            no_wrap=not words,
            overflow="fold",
            min_width=None if words else _NUMBER_WIDTHS.get(column, 0),
        )
    for row in standings.rows:
        text = row_text(row, elo)
        marks = [m for m, bots in (("revoked", revoked), ("retired", retired)) if row.bot in bots]
        bot = f"{row.bot} ({', '.join(marks)})" if marks else row.bot
        cells = [str(row.rank), bot, text["rating"], text["interval"], text["rank_interval"]]
        cells += [str(row.matches), text["score"], text["margin"]]
        cells += [text["corrected"]] if lucky else []
        cells += [fault_text(row)]
        out.add_row(*cells)
    return out


def row_text(row: Row, elo: bool) -> dict[str, str]:
    """A row's rating, interval, rank interval, score and points as people read them, the same
    in the CLI's table, the site and the report ("-" for what is not known yet; a provisional
    rating marked). Ratings without mu and sigma (Elo, the batch fit) read as Elo; `elo` is
    False only for openskill's, which older callers may still hold."""
    if row.rating is None or row.low is None or row.high is None:
        rating, interval = "-", "-"
    elif elo or row.sigma is None:
        rating = f"{row.rating:+.0f}"
        interval = f"{row.low:+.0f}..{row.high:+.0f}"
    else:
        rating = f"{row.rating:.1f}"
        interval = f"{row.mu:.1f} ± {row.sigma:.2f}"
    if rating != "-" and row.provisional:
        rating += PROVISIONAL_MARK
    ranked = row.rank_low is not None and row.rank_high is not None
    return {
        "rating": rating,
        "interval": interval,
        "rank_interval": f"{row.rank_low}-{row.rank_high}" if ranked else "-",
        "score": f"{row.score:.1%}" if row.score is not None else "-",
        "points": f"{row.points:.1f}" if row.points is not None else "-",
        "margin": _margin_text(row.margin, row.margin_low, row.margin_high),
        "corrected": _margin_text(row.corrected, row.corrected_low, row.corrected_high),
    }


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
    lines = [method(standings.plan), margin_method(standings)]
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


def method(plan: Plan) -> str:
    """How the ratings and their intervals were computed, in a line."""
    unit = "deal" if plan.duplicate else "match"
    if plan.system == "elo":
        return (
            "ratings: Elo fitted over all matches at once; 95% intervals cluster-robust (one "
            f"{unit} one observation); rank 95%: the rank's interval over draws from them"
        )
    return (
        "ratings: a batch Plackett-Luce fit over all matches at once, on the Elo scale; 95% "
        f"intervals and rank 95% from a cluster bootstrap resampling whole {unit}s"
    )


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
