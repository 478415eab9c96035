"""The ladder report's index pages: the site's own standings page (referee/web/assets), its
script and style inlined and the ladder's data embedded, so that it opens from disk.

The data is the site's snapshot (referee.web.snapshot, what /api/contest gives), with a
`report` part the served site has no use for: the problems, the ratings over time and one page
of the committed matches (each as /api/v1/matches lists it). site.js draws it all, served or
not; written by `referee.web.report.write_report`, which decides what to render.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import parse_options
from referee.ratings.standings import Plan, Standings
from referee.results.database import Played
from referee.results.matches import MatchResult, ScheduledMatch
from referee.version import VERSION
from referee.web.snapshot import (
    Contest,
    head_to_head,
    played_json,
    reading,
    standing_rows,
    standings_info,
)

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
    contest = reading(data.standings, data.played, list(data.results.values()))
    first = _first_page(data, contest, revoked)
    rest = {key: first[key] for key in ("contest", "live", "recent")}
    rest |= {"standings": [], "retired": [], "head_to_head": head_to_head(None)}
    count = max(1, -(-len(data.played) // page_size))
    written = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = {}
    for page in range(1, count + 1):
        offset = (page - 1) * page_size
        listed = data.played[offset : offset + page_size]
        report = {
            "page": page,
            "pages": count,
            "bots": [row.bot for row in data.standings.rows],  # their colours, in this order
            "problems": list(problems) if page == 1 else [],
            "ratings": _ratings(data, history, page_size) if page == 1 else None,
            "matches": {  # as /api/v1/matches pages them, oldest first
                "total": len(data.played),
                "offset": offset,
                "limit": page_size,
                "next": index_name(page + 1) if page < count else None,
                "matches": [_match(contest, played, pages) for played in listed],
            },
            "written": f"written {written} by croupier {VERSION} (croupier ladder report)",
        }
        out[index_name(page)] = _document((first if page == 1 else rest) | {"report": report})
    return out


def _first_page(data: LadderData, contest: Contest, revoked: frozenset[str]) -> dict[str, Any]:
    """The snapshot the site would publish of this ladder, with no bot connected."""
    standings = data.standings
    plan = standings.plan
    fingerprint = data.fingerprint
    control = fingerprint.get("time_control")
    info = {
        "kind": "ladder",
        "name": plan.name,
        "game": plan.game,
        "title": _game_title(plan.game),
        "options": _options(plan),
        **standings_info(standings),
        "matches_planned": standings.matches_scheduled,
        # What the report says beside (the ladder file's conditions of play).
        "rules_version": fingerprint.get("rules_version"),
        "time_control": control if isinstance(control, dict) else None,
        "luck_value": standings.luck_value,
        "rating_description": plan.method.description(plan.duplicate),
    }
    rows, retired = standing_rows(contest, {}, revoked, {})
    return {
        "contest": info,
        "standings": rows,
        "retired": retired,
        "head_to_head": head_to_head(contest),
        "live": [],
        "recent": [],
    }


def _game_title(game_id: str) -> str:
    try:
        return get_game(game_id).title
    except CroupierError:  # a game this croupier does not know: its id will do
        return game_id


def _options(plan: Plan) -> dict[str, str]:
    """Every option in force, the game's defaults included."""
    try:
        return parse_options(get_game(plan.game), plan.options).as_text()
    except CroupierError:  # a game or option this croupier does not know: as stored
        return dict(plan.options)


def _ratings(data: LadderData, history: History, page_size: int) -> dict[str, Any]:
    """The ratings over time, per bot in standings order: its value, low and high at each
    point (None before it is rated), and whether its interval is drawn (not openskill's)."""
    ids = {p.number: p.match_id for p in data.played}
    where = {p.number: i // page_size + 1 for i, p in enumerate(data.played)}
    series = []
    for row in data.standings.rows:
        values = [point.get(row.bot) for point in history.points]
        series.append(
            {
                "bot": row.bot,
                "values": [None if v is None else v[0] for v in values],
                "low": [None if v is None else v[1] for v in values],
                "high": [None if v is None else v[2] for v in values],
                "band": bool(values) and all(v is None or v[3] is None for v in values),
            }
        )
    return {
        "system": data.standings.plan.system,
        "ks": history.ks,
        "numbers": history.numbers,
        "matches": [ids.get(number, "") for number in history.numbers],
        # The index page listing each point's match.
        "pages": [where.get(number, 1) for number in history.numbers],
        "series": series,
    }


def _match(contest: Contest, played: Played, pages: dict[str, Any]) -> dict[str, Any]:
    """A committed match as the site lists it, with its round and deal, its viewer page (None
    without one) and, per fault, the first step it happened at, its times and details."""
    notes = pages.get(played.match_id)
    href = f"{PAGES}/{page_name(played.match_id, played.number)}" if notes else None
    steps: dict[tuple[int, str], int] = {}
    times: dict[tuple[int, str], list[list[int]]] = {}
    for entry in notes.get("faults", []) if isinstance(notes, dict) else []:
        with contextlib.suppress(TypeError, ValueError, IndexError):
            seat, reason = int(entry[1]), str(entry[2])
            steps.setdefault((seat, reason), int(entry[0]))
            # absent in notes of older reports
            times.setdefault((seat, reason), []).append([int(entry[3]), int(entry[4])])
    summary = played_json(contest, played)
    groups = played.fault_groups()
    for fault in summary["faults"]:
        key = (fault["seat"], fault["reason"])
        fault |= {
            "details": groups[key][:5],
            "step": steps.get(key),
            "times": times.get(key, [])[:5],  # [wall ms, CPU ms or -1]
        }
    result = contest.results.get(played.number)
    return summary | {
        "round": result.match.round if result else None,
        "deal": result.match.deal if result else None,
        "links": {"self": None, "record": None, "replay": href},
    }


def _asset(name: str) -> str:
    return resources.files("referee.web").joinpath("assets", name).read_text("utf-8")


def _document(data: dict[str, Any]) -> str:
    """The site's standings page, standing alone: its style and script inline, the data
    beside them (as JSON in a script that does not run; `<` escaped, so no text in it can
    close the element), the icon and the server's links gone."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    page = _asset("index.html")
    page = re.sub(r'<link rel="icon"[^>]*>\n', "", page)
    page = page.replace(
        '<link rel="stylesheet" href="/static/site.css">', f"<style>{_asset('site.css')}</style>"
    )
    script = f'<script type="application/json" id="data">{text}</script>\n'
    script += f"<script>{_asset('site.js')}</script>"
    return page.replace('<script src="/static/site.js"></script>', script)
