"""The ladder report's index page: the ladder, its standings, the rating plot, every match.

Plain HTML with inline CSS and SVG, written by `referee.ladder.report.write_report`; the pure
rendering lives here, apart from the page building and caching that decide what to render.
"""

from __future__ import annotations

import contextlib
import html
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import parse_options
from referee.ratings.head_to_head import LEGEND, cells
from referee.ratings.methods import ELO
from referee.ratings.standings import (
    PROVISIONAL_LEGEND,
    Plan,
    Standings,
    fault_text,
    footer,
    has_corrected,
    marks_provisional,
    row_text,
)
from referee.ratings.standings import (
    notes as standing_notes,
)
from referee.results.database import Played
from referee.results.matches import MatchResult, ScheduledMatch
from referee.version import VERSION

#: The folder (inside OUT_DIR) that holds one viewer page per match.
PAGES = "matches"
#: Matches listed per index page (index.html, then index-2.html, ...).
PAGE_SIZE = 100
#: At most about this many points in the ratings plot (see report.plotted).
PLOT_POINTS = 1000
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
#: A point of the ratings over time: per rated bot, (value, low, high, mu, sigma), rounded as
#: the standings round them (mu and sigma None for Elo).
Point = dict[str, tuple[float, float, float, float | None, float | None]]


@dataclass(frozen=True, slots=True)
class LadderData:
    """One consistent reading of a ladder database (taken while a ladder may be committing)."""

    standings: Standings
    schedule: dict[int, ScheduledMatch]
    results: dict[int, MatchResult]
    played: list[Played]
    #: The ladder file's conditions of play, as stored (game rules, time control, ...).
    fingerprint: dict[str, Any]

    def commit_order(self) -> list[tuple[MatchResult, str]]:
        """Committed matches in the order they were committed (finish time to the second,
        then schedule order), each with its record's SHA-256."""
        ordered = sorted(self.played, key=lambda p: (p.finished_at, p.number))
        return [(self.results[p.number], p.record_sha256) for p in ordered]


def page_name(match_id: str, number: int) -> str:
    """The page's file name in `matches/`: the match id, unless it is no safe file name."""
    if _SAFE_ID.fullmatch(match_id):
        return f"{match_id}.html"
    return f"match-{number:05d}.html"


@dataclass(frozen=True, slots=True)
class History:
    """Every bot's rating after committed matches, in commit order: after each one, or after
    every 2nd, 4th, ... once there are more than PLOT_POINTS."""

    #: The schedule number of the match after which each point stands.
    numbers: list[int]
    points: list[Point]
    #: How many matches were committed at each point (1, 2, 3, ... when every one is shown).
    ks: list[int]


PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
_DASHES = ("", "7 4", "2 3", "9 3 2 3")
#: The plot's drawing area in SVG units (it scales with the page).
_W, _H = 960, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 14, 44
#: Up to this many points, each gets a dot; past it, lines only.
_DOTS_UP_TO = 120


def _game_title(game_id: str) -> str:
    try:
        return get_game(game_id).title
    except CroupierError:  # a game this croupier does not know: its id will do
        return game_id


def _asset(name: str) -> str:
    return resources.files("referee.ladder").joinpath("assets", name).read_text("utf-8")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def index_name(page: int) -> str:
    """The file of the index's page `page` (from 1): index.html, index-2.html, ..."""
    return "index.html" if page == 1 else f"index-{page}.html"


def render_index(
    data: LadderData,
    history: History,
    pages: dict[str, Any],
    problems: Sequence[str],
    revoked: frozenset[str] = frozenset(),
    page_size: int = PAGE_SIZE,
) -> dict[str, str]:
    """The report's index pages as text, by file name: index.html (the ladder, its standings,
    the plot and the first `page_size` matches), then index-2.html, ... (the next ones each).
    `pages` holds, per match id with a viewer page, its notes (the fault steps); matches
    without one are listed unlinked. Bots in `revoked` (a contest's revoked accounts) are
    marked."""
    standings = data.standings
    plan = standings.plan
    title = f"{plan.name} · {_game_title(plan.game)} ladder"
    colours = {row.bot: i for i, row in enumerate(standings.rows)}
    count = max(1, math.ceil(len(data.played) / page_size))
    out = {}
    for page in range(1, count + 1):
        listed = data.played[(page - 1) * page_size : page * page_size]
        pager = _pager(page, count, page_size, len(data.played))
        matches = [
            '<section id="matches"><h2>Matches</h2>',
            pager,
            _matches_table(data, listed, pages, colours),
            pager if len(listed) > 20 else "",
            "</section>",
        ]
        if page == 1:
            body = [
                f"<header><h1>{_e(title)}</h1>{_summary(data)}</header>",
                _problems(problems),
                '<section id="standings"><h2>Standings</h2>',
                _standings_table(standings, revoked),
                f'<p class="note">{_e(_standings_note(standings))}</p></section>',
                '<section id="ratings"><h2>Ratings over time</h2>',
                _plot(plan, history, standings, colours, data, page_size),
                "</section>",
                _head_to_head(standings),
                *matches,
            ]
        else:
            back = "<a href='index.html'>standings, ratings and problems</a>"
            body = [f"<header><h1>{_e(title)}</h1><p class='note'>{back}</p></header>", *matches]
        out[index_name(page)] = _document(f"{title} · page {page}" if page > 1 else title, body)
    return out


def _document(title: str, body: list[str]) -> str:
    body = [
        *body,
        f"<footer>written {_e(datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC'))} by croupier "
        f"{_e(VERSION)} (<code>croupier ladder report</code>); every page here works offline."
        "</footer>",
    ]
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="croupier ladder report">\n'
        f"<title>{_e(title)}</title>\n<style>{_asset('report.css')}</style>\n</head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + f"\n<script>{_asset('report.js')}</script>\n</body>\n</html>\n"
    )


def _pager(page: int, count: int, size: int, matches: int) -> str:
    """Where this page's matches stand among all, with links to the first, previous, next and
    last pages and to each page by number."""
    if count == 1:
        return ""
    first, last = (page - 1) * size + 1, min(page * size, matches)

    def link(target: int, text: str, rel: str = "") -> str:
        if target == page or not 1 <= target <= count:
            return f"<span class='off'>{_e(text)}</span>"
        relation = f" rel='{rel}'" if rel else ""
        return f"<a href='{index_name(target)}'{relation}>{_e(text)}</a>"

    numbers = " ".join(
        f"<b>{n}</b>" if n == page else link(n, str(n)) for n in _page_numbers(page, count)
    )
    return (
        f"<nav class='pager'>matches {first}–{last} of {matches} · "
        f"{link(1, '« first')} {link(page - 1, '‹ previous', 'prev')} {numbers} "
        f"{link(page + 1, 'next ›', 'next')} {link(count, 'last »')}</nav>"
    )


def _page_numbers(page: int, count: int) -> list[int]:
    """The pages to link by number: the first, the last, and a few around this one."""
    return sorted({1, count, *range(max(1, page - 3), min(count, page + 3) + 1)})


def _summary(data: LadderData) -> str:
    standings = data.standings
    plan = standings.plan
    fingerprint = data.fingerprint
    game = _game_title(plan.game)
    rules = fingerprint.get("rules_version")
    options = _options(plan)
    state = "finished" if standings.finished else "running"
    items: list[tuple[str, str]] = [
        ("game", _e(game) + (f" <span class='quiet'>({_e(rules)})</span>" if rules else "")),
        ("options", _e(options)),
        ("format", _e(plan.format) + (", duplicate deals" if plan.duplicate else "")),
        (
            "rating",
            "Elo (95% intervals)"
            if plan.method is ELO
            else "batch Plackett-Luce fit (cluster-bootstrap 95% intervals)",
        ),
        (
            "matches",
            f"{standings.matches_done} of {standings.matches_scheduled} committed ({state})",
        ),
    ]
    control = fingerprint.get("time_control")
    if isinstance(control, dict):
        move, bank = control.get("move_ms"), control.get("bank_ms")
        move_text = "no limit" if not move else f"{move} ms"
        text = f"{move_text} per decision, bank {bank} ms"
        if control.get("clock") == "cpu":
            text += f", CPU time (wall ceiling {control.get('ceiling_factor')}x plus 1 s)"
        items.append(("time control", _e(text)))
    items.append(("seed commitment", f"<code>{_e(standings.seed_sha256)}</code>"))
    if standings.luck_value:
        items.append(("luck value function", f"<code>{_e(standings.luck_value)}</code>"))
    if standings.seed is not None:
        items.append(("seed", f"<code id='seed'>{_e(standings.seed)}</code> (revealed)"))
    else:  # as `croupier ladder standings` says it: not yet, or not revealed
        items.append(("seed", _e(footer(standings)[-1].removeprefix("master seed: "))))
    if standings.sprt:
        items.append(("SPRT", _e(standings.sprt)))
    rows = "".join(f"<dt>{key}</dt><dd>{value}</dd>" for key, value in items)
    return f'<dl id="summary">{rows}</dl>'


def _options(plan: Plan) -> str:
    """Every option in force, the game's defaults included."""
    try:
        options = parse_options(get_game(plan.game), plan.options).as_text()
    except CroupierError:  # a game or option this croupier does not know: as stored
        options = dict(plan.options)
    return ", ".join(f"{name} {value}" for name, value in options.items()) or "none"


def _problems(problems: Sequence[str]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{_e(problem)}</li>" for problem in problems)
    return f'<section id="problems"><h2>Problems</h2><ul>{items}</ul></section>'


def _standings_note(standings: Standings) -> str:
    legend = f" {PROVISIONAL_LEGEND}." if marks_provisional(standings) else ""
    legend += "".join(f" {line[0].upper()}{line[1:]}." for line in standing_notes(standings))
    if standings.plan.method is ELO:
        return (
            "Elo: maximum likelihood over all matches, mean 0, 95% cluster-robust interval. "
            "Score: the mean match score (1 win, 0.5 draw, 0 loss). Points: mean game points."
            + legend
        )
    return (
        "Rating: a Plackett-Luce fit over all matches at once (order-independent), on the Elo "
        "scale, mean 0; its 95% interval and the rank's from a cluster bootstrap resampling "
        "whole deals. Score: the mean match score (sides beaten plus half the sides tied, over "
        "the others). Points: mean game points." + legend
    )


def _number(value: float | None) -> str:
    return "" if value is None else repr(value)


def _standings_table(standings: Standings, revoked: frozenset[str]) -> str:
    """The CLI's table (`referee.ratings.standings.table`), cell for cell, revoked accounts
    marked as there; each cell also carries its exact value in `data-value`."""
    elo = standings.plan.method is ELO
    heads = ["rank", "bot", "Elo" if elo else "rating", "95% interval", "rank 95%"]
    lucky = has_corrected(standings)
    heads += ["matches", "score", "points", "faults", "margin"]
    heads += ["luck-corrected"] if lucky else []
    out = ["<table class='standings'><thead><tr>"]
    out += [
        f"<th class='{'text' if h in {'bot', 'faults'} else 'num'}'>{_e(h)}</th>" for h in heads
    ]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(standings.rows):
        text = row_text(row, elo, standings)
        bot = f"{row.bot} (revoked)" if row.bot in revoked else row.bot
        interval_value = json.dumps(
            [row.low, row.high] if row.sigma is None else [row.mu, row.sigma]
        )
        ranks = json.dumps([row.rank_low, row.rank_high])
        cells = [
            ("rank", _e(text["rank"]), json.dumps([row.rank_top, row.rank_bottom]), "num"),
            ("bot", _swatch(i) + _e(bot), row.bot, "text"),
            ("rating", _e(text["rating"]), _number(row.rating), "num"),
            ("interval", _e(text["interval"]), interval_value, "num"),
            ("rank_interval", _e(text["rank_interval"]), ranks, "num"),
            ("matches", str(row.matches), str(row.matches), "num"),
            ("score", _e(text["score"]), _number(row.score), "num"),
            ("points", _e(text["points"]), _number(row.points), "num"),
            (
                "faults",
                _e(fault_text(row)),
                json.dumps({**row.faults, **({"restarted": row.restarts} if row.restarts else {})}),
                "text",
            ),
            ("margin", _e(text["margin"]), _number(row.margin), "num"),
        ]
        if lucky:
            cells.append(("corrected", _e(text["corrected"]), _number(row.corrected), "num"))
        tds = "".join(
            f"<td class='{kind}' data-key='{key}' data-value='{_e(value)}'>{shown}</td>"
            for key, shown, value, kind in cells
        )
        marked = f" data-provisional='{str(row.provisional).lower()}'"
        marked += " class='revoked'" if row.bot in revoked else ""
        out.append(f"<tr data-bot='{_e(row.bot)}'{marked}>{tds}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _head_to_head(standings: Standings) -> str:
    """The head-to-head matrix, shaded by score as the ACPC's cross tables are: rows and
    columns the bots in standings order, each cell the row bot's score against the column
    bot, its interval in the title; significant cells marked (and outlined)."""
    shown = standings.pairs_shown()
    if not shown:
        return ""
    bots = [row.bot for row in standings.rows]
    heads = "".join(
        f"<th class='num' title='{_e(row.bot)}'>#{row.rank}</th>" for row in standings.rows
    )
    out = [
        '<section id="head-to-head"><h2>Head-to-head</h2>',
        "<table class='head-to-head'><thead><tr><th class='text'>bot</th>",
        f"{heads}</tr></thead><tbody>",
    ]
    for row, line in zip(standings.rows, cells(shown, bots), strict=True):
        tds = []
        for column, cell in zip(bots, line, strict=True):
            if cell is None:
                kind = "self" if column == row.bot else "none"
                tds.append(f"<td class='{kind}'>{'–' if kind == 'self' else ''}</td>")
                continue
            kind = "significant" if cell["significant"] else "even"
            tds.append(
                f"<td class='{kind}' data-b='{_e(column)}' data-value='{cell['score']}' "
                f"style='--shade:{cell['shade']}' title='{_e(cell['title'])}'>"
                f"{_e(cell['text'])}</td>"
            )
        out.append(
            f"<tr data-a='{_e(row.bot)}'><th class='text'>#{row.rank} {_e(row.bot)}</th>"
            + "".join(tds)
            + "</tr>"
        )
    out.append(f"</tbody></table><p class='note'>{_e(LEGEND)}.</p></section>")
    return "".join(out)


def _swatch(index: int) -> str:
    return f"<i class='swatch' style='--c:{PALETTE[index % len(PALETTE)]}'></i>"


def _ticks(low: float, high: float, count: int) -> list[float]:
    """Round-numbered ticks covering [low, high], about `count` of them."""
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    return [first + i * step for i in range(round((last - first) / step) + 1)]


def _plot(
    plan: Plan,
    history: History,
    standings: Standings,
    colours: dict[str, int],
    data: LadderData,
    page_size: int,
) -> str:
    """The ratings over time as inline SVG, drawn here (readable with scripts off); the
    script adds the cursor, the tooltip and the legend's toggles from the same JSON."""
    n = len(history.points)
    if n == 0:
        return "<p class='note'>No match is committed yet.</p>"
    total = history.ks[-1]
    elo = plan.method is ELO
    values = [p[0] for point in history.points for p in point.values()]
    if not values:
        return "<p class='note'>No bot has a rating yet.</p>"
    y_ticks = _ticks(min(values), max(values), 6)
    y_low, y_high = y_ticks[0], y_ticks[-1]
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x_at(k: int) -> float:  # after k matches committed -> x
        return _LEFT + (plot_w * (k - 1) / (total - 1) if total > 1 else plot_w / 2)

    def x_of(i: int) -> float:  # point i (0-based) -> x
        return x_at(history.ks[i])

    def y_of(value: float) -> float:
        return _TOP + plot_h * (y_high - value) / (y_high - y_low)

    svg = [
        f"<svg id='plot' viewBox='0 0 {_W} {_H}' role='img' aria-labelledby='plot-title' "
        f"data-n='{n}'><title id='plot-title'>{_e(_plot_caption(plan))}</title>",
        f"<defs><clipPath id='area'><rect x='{_LEFT}' y='{_TOP}' width='{plot_w}' "
        f"height='{plot_h}'/></clipPath></defs>",
        "<g class='grid'>",
    ]
    for tick in y_ticks:
        y = y_of(tick)
        label = f"{tick:+g}" if tick else f"{tick:g}"  # every system rates on the Elo scale
        zero = " zero" if tick == 0 else ""
        svg.append(
            f"<line class='tick{zero}' x1='{_LEFT}' x2='{_W - _RIGHT}' y1='{y:.1f}' "
            f"y2='{y:.1f}'/><text class='ylabel' x='{_LEFT - 6}' y='{y + 4:.1f}'>{label}</text>"
        )
    for tick in _ticks(1, total, min(10, max(total - 1, 1))):
        if 1 <= tick <= total and tick == int(tick):
            x = x_at(int(tick))
            svg.append(
                f"<line class='tick' x1='{x:.1f}' x2='{x:.1f}' y1='{_TOP}' "
                f"y2='{_TOP + plot_h}'/><text class='xlabel' x='{x:.1f}' "
                f"y='{_TOP + plot_h + 16}'>{int(tick)}</text>"
            )
    svg.append(
        f"<text class='axis' x='{_LEFT + plot_w / 2}' y='{_H - 6}'>matches committed</text>"
        f"<text class='axis' transform='translate(14 {_TOP + plot_h / 2}) rotate(-90)'>"
        f"{'Elo' if elo else 'rating'}</text></g><g clip-path='url(#area)'>"
    )
    series = []
    for row in standings.rows:
        bot = row.bot
        index = colours[bot]
        colour = PALETTE[index % len(PALETTE)]
        dash = _DASHES[(index // len(PALETTE)) % len(_DASHES)]
        vals = [point.get(bot) for point in history.points]
        path, band, dots = [], [], []
        pen_up = True
        segment: list[tuple[int, float, float]] = []
        segments = []
        for i, v in enumerate(vals):
            if v is None:
                pen_up = True
                if segment:
                    segments.append(segment)
                    segment = []
                continue
            x, y = x_of(i), y_of(v[0])
            path.append(f"{'M' if pen_up else 'L'}{x:.1f} {y:.1f}")
            pen_up = False
            segment.append((i, v[1], v[2]))
            if n <= _DOTS_UP_TO:
                dots.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='2.6'/>")
        if segment:
            segments.append(segment)
        if vals and all(v is None or v[3] is None for v in vals):  # an interval (not openskill's)
            for seg in segments:
                upper = " ".join(f"{x_of(i):.1f},{y_of(high):.1f}" for i, _, high in seg)
                lower = " ".join(f"{x_of(i):.1f},{y_of(low):.1f}" for i, low, _ in reversed(seg))
                band.append(f"<polygon points='{upper} {lower}'/>")
        dash_attr = f" stroke-dasharray='{dash}'" if dash else ""
        svg.append(
            f"<g class='series' data-bot='{_e(bot)}' style='--c:{colour}'>"
            f"<g class='band'>{''.join(band)}</g>"
            f"<path class='line' d='{' '.join(path)}'{dash_attr}/>"
            f"<g class='dots'>{''.join(dots)}</g></g>"
        )
        series.append(
            {
                "bot": bot,
                "colour": colour,
                "values": [None if v is None else v[0] for v in vals],
                "low": [None if v is None else v[1] for v in vals],
                "high": [None if v is None else v[2] for v in vals],
            }
        )
    svg.append(
        f"</g><line id='cursor' x1='0' x2='0' y1='{_TOP}' y2='{_TOP + plot_h}'/>"
        f"<rect id='hit' x='{_LEFT}' y='{_TOP}' width='{plot_w}' height='{plot_h}'/></svg>"
    )
    ids = {p.number: p.match_id for p in data.played}
    where = {p.number: i // page_size + 1 for i, p in enumerate(data.played)}
    payload = {
        "system": plan.system,
        "frame": {"left": _LEFT, "width": plot_w, "n": total},
        "ks": history.ks,
        "numbers": history.numbers,
        "matches": [ids.get(number, "") for number in history.numbers],
        # The index page listing each point's match.
        "pages": [where.get(number, 1) for number in history.numbers],
        "series": series,
    }
    legend = "".join(
        f"<button type='button' class='key' data-bot='{_e(row.bot)}' aria-pressed='true'>"
        f"{_swatch(colours[row.bot])}{_e(row.bot)}</button>"
        for row in standings.rows
    )
    band_toggle = (
        "<label class='bands'><input type='checkbox' id='bands'"
        + (" checked" if len(standings.rows) <= 2 else "")
        + "> 95% intervals</label>"
    )
    script = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    script = script.replace("</", "<\\/").replace("<!--", "<\\!--")
    return (
        f"<figure id='figure'>{''.join(svg)}<div id='tip' hidden></div>"
        f"<figcaption>{_e(_plot_caption(plan))}. Point k: the ratings over the first k "
        f"matches committed, as the standings showed them then; hover for values, click for "
        f"the match.</figcaption><div class='legend'>{legend}{band_toggle}</div></figure>"
        f"<script type='application/json' id='ratings-data'>{script}</script>"
    )


def _plot_caption(plan: Plan) -> str:
    if plan.method is ELO:
        return "Elo after each committed match, with its 95% interval shaded"
    return "batch Plackett-Luce rating after each committed match, with its 95% interval shaded"


def _matches_table(
    data: LadderData, listed: Sequence[Played], pages: dict[str, Any], colours: dict[str, int]
) -> str:
    """The `listed` committed matches: each one's page, round, deal, seats (each a link to that
    seat's view), result, faults (each a link to the step it happened at) and time."""
    if not listed:
        return "<p class='note'>No match is committed yet.</p>"
    out = [
        "<p class='tools'><label>filter this page <input type='search' id='filter' "
        "placeholder='bot, match, fault…'></label> <span id='shown'></span></p>",
        "<table class='matches'><thead><tr><th class='num'>#</th><th class='text'>match</th>"
        "<th class='num'>round</th><th class='num'>deal</th><th class='text'>seats</th>"
        "<th class='text'>result</th><th class='text'>faults</th><th class='num'>seconds</th>"
        "</tr></thead><tbody>",
    ]
    for played in listed:
        match = data.schedule[played.number]
        result = data.results[played.number]
        notes = pages.get(played.match_id)
        href = f"{PAGES}/{page_name(played.match_id, played.number)}" if notes else None
        link = (
            f"<a class='viewer' href='{_e(href)}'>{_e(played.match_id)}</a>"
            if href
            else f"<span class='missing' title='no viewer page'>{_e(played.match_id)}</span>"
        )
        seats = []
        for seat, bot in enumerate(match.bots):
            name = f"{_swatch(colours.get(bot, 0))}{_e(bot)}"
            if href:
                name = f"<a href='{_e(href)}#seat={seat}' title='seat {seat}’s view'>{name}</a>"
            win = " class='win'" if result.ranks[seat] == 1 else ""
            seats.append(f"<span{win}>{name} {result.scores[seat]}</span>")
        out.append(
            f"<tr id='match-{played.number}'><td class='num'>{played.number}</td>"
            f"<td class='text'>{link}</td><td class='num'>{match.round}</td>"
            f"<td class='num'>{match.deal}</td><td class='text seats'>{' '.join(seats)}</td>"
            f"<td class='text'>{_e(played.result)}"
            + (
                f" <span class='quiet'>({_e(played.termination)})</span>"
                if played.termination != "normal"
                else ""
            )
            + f"</td><td class='text'>{_faults_cell(played, match, notes, href)}</td>"
            f"<td class='num'>{played.seconds:.1f}</td></tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def _faults_cell(played: Played, match: ScheduledMatch, notes: Any, href: str | None) -> str:
    """Faults grouped by seat and reason, linked to the first step each happened at."""
    if not played.faults:
        return ""
    steps: dict[tuple[int, str], int] = {}
    times: dict[tuple[int, str], list[str]] = {}
    if isinstance(notes, dict):
        for entry in notes.get("faults", []):
            with contextlib.suppress(TypeError, ValueError, IndexError):
                step, seat, reason = int(entry[0]), int(entry[1]), str(entry[2])
                steps.setdefault((seat, reason), step)
                wall, cpu = int(entry[3]), int(entry[4])  # absent in notes of older reports
                times.setdefault((seat, reason), []).append(
                    f"wall {wall} ms" + (f", cpu {cpu} ms" if cpu >= 0 else "")
                )
    parts = []
    for (seat, reason), details in played.fault_groups().items():
        bot = match.bots[seat] if 0 <= seat < len(match.bots) else f"seat {seat}"
        text = f"{reason}" + (f" ×{len(details)}" if len(details) > 1 else "")
        measured = times.get((seat, reason), [])
        if measured:  # the first one's: wall far above CPU is a starved bot, not a slow one
            text += f" ({measured[0]})"
        title = "; ".join(d for d in details[:5] if d) or reason
        if measured:
            title += " · " + "; ".join(measured[:5])
        first = steps.get((seat, reason))
        if href is not None and first is not None:
            text = f"<a href='{_e(href)}#step={first}'>{_e(text)}</a>"
        else:
            text = _e(text)
        parts.append(f"<span class='fault' title='{_e(title)}'>{_e(bot)}: {text}</span>")
    return " ".join(parts)
