"""The site's public JSON API, version 1 (`/api/v1/...`): what the pages already show, for bot
authors' scripts, so that they fetch their games without reading pages. Within v1 fields are
only ever added, never renamed or removed; docs/contest.md ("The public API") is its manual.

Only committed matches are listed or summarised (a live match's record holds every hand), never
a token, a build log or anything else the pages do not show. Every answer carries an ETag and
`no-cache` (a client that sends If-None-Match gets 304 while it is unchanged); a refusal is
`{"error": "..."}` with 400 (a bad parameter) or 404 (no such bot or match).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from referee.hosted.current import to_dict
from referee.hosted.store import plays_as
from referee.ladder.view import RefereeView, Terms
from referee.results.database import Played
from referee.web.caching import cached
from referee.web.challenges import Refused, challenges_data
from referee.web.live import json_text
from referee.web.snapshot import Contest, Snapshots

#: Where version 1 of the API lives.
API = "/api/v1"
#: Matches listed per request unless `limit` says otherwise, and the most one may ask for.
PAGE_SIZE = 100
MAX_LIMIT = 1000


class PublicApi:
    """The v1 routes over the site's reading of the database (`Snapshots`)."""

    def __init__(
        self, view: RefereeView, snapshots: Snapshots, knows: Callable[[str], Awaitable[bool]]
    ) -> None:
        self.view = view
        self.snapshots = snapshots
        #: Whether a bot has a page on the site (Site.knows).
        self.knows = knows

    def routes(self) -> list[Route]:
        return [
            Route(f"{API}/contest", self.contest),
            Route(f"{API}/standings", self.standings),
            Route(f"{API}/matches", self.matches),
            Route(f"{API}/matches/{{match}}", self.match),
            Route(f"{API}/challenges", self.challenges),
        ]

    async def contest(self, request: Request) -> Response:
        """The contest (or ladder) and what every bot of it gets."""
        view = self.view
        return answer(
            request,
            {
                "kind": str(view.kind),
                "name": view.name,
                "game": view.game.id,
                "title": view.game.title,
                "options": view.options.as_text(),
                "matches_planned": view.planned,
                # Every venue's matches are watched live here now (a Dask cluster's relayed):
                # kept for the readers of v1, where a cluster's once said false.
                "watchable": True,
                "every_bot_gets": terms_json(view.terms),
            },
        )

    async def standings(self, request: Request) -> Response:
        """The standings as `croupier ladder standings --format json` prints them: each
        account's active version and the bots that connect by themselves, or with `?all=1`
        the whole field, retired hosted versions too (referee.hosted.current)."""
        try:
            everything = _switch(request, "all")
        except ValueError as error:
            return refusal(400, str(error))
        contest = await self.snapshots.reading()
        if contest is None:
            return refusal(404, f"no {self.view.kind} database")
        data = to_dict(
            contest.standings, contest.listing, everything=everything, teams=contest.teams
        )
        return answer(request, {"kind": str(self.view.kind)} | data)

    async def matches(self, request: Request) -> Response:
        """Committed matches, newest first (by match number), one bot's with `?bot=`."""
        try:
            offset, limit = window(request)
            before = _optional_whole(request, "before")
            bot = _bot(request)
        except ValueError as error:
            return refusal(400, str(error))
        contest = await self.snapshots.reading()
        if contest is None:
            return refusal(404, f"no {self.view.kind} database")
        if bot is not None and not await self.knows(bot):
            return refusal(404, f"no bot {bot!r} in this {self.view.kind}")
        listed = newest_first(contest, bot)
        passed = 0 if before is None else sum(1 for p in listed if p.number >= before)
        rest = listed[passed:]
        shown = rest[offset : offset + limit]
        following = None
        if shown and offset + limit < len(rest):
            # A cursor, not an offset: matches committed meanwhile shift no page of a walk.
            query: dict[str, str | int] = {"bot": bot} if bot is not None else {}
            query |= {"before": shown[-1].number, "limit": limit}
            following = f"{API}/matches?{urlencode(query)}"
        return answer(
            request,
            {
                "total": len(listed),
                "offset": passed + offset,
                "limit": limit,
                "next": following,
                "matches": [summary(self.snapshots, p) for p in shown],
            },
        )

    async def match(self, request: Request) -> Response:
        """One committed match (404 for a live or unknown one)."""
        name = request.path_params["match"]
        played = await self.snapshots.committed(name)
        if played is None:
            return refusal(404, f"no finished match {name!r} in this {self.view.kind}")
        return answer(request, summary(self.snapshots, played))

    async def challenges(self, request: Request) -> Response:
        """The decided ranked challenges; with an account's token, its own too."""
        try:
            data = await challenges_data(request, self.view.database)
        except Refused as refused:
            return refusal(refused.status, str(refused))
        return answer(request, data)


def terms_json(terms: Terms | None) -> dict[str, Any] | None:
    """What every bot gets, named as `croupier serve`'s options and a bot.toml's limits are."""
    if terms is None:
        return None
    limits = terms.hosted_limits
    return {
        "time_control": asdict(terms.time_control),
        "max_faults": terms.max_faults,
        "reconnect_grace": terms.reconnect_grace,
        "max_matches_per_session": terms.max_matches_per_session,
        "hosted_limits": asdict(limits) if limits is not None else None,
    }


def newest_first(contest: Contest, bot: str | None = None) -> list[Played]:
    """The committed matches (those `bot` played, if given), highest match number first."""
    results = contest.results
    return [
        p
        for p in reversed(contest.played)
        if p.number in results
        and (bot is None or any(plays_as(name, bot) for name in results[p.number].match.bots))
    ]


def summary(snapshots: Snapshots, played: Played) -> dict[str, Any]:
    """A committed match as every list of the site gives it, with where to find the rest."""
    quoted = quote(played.match_id, safe="")
    return snapshots.played(played) | {
        "links": {
            "self": f"{API}/matches/{quoted}",
            "record": f"/records/{quoted}.jsonl",
            "replay": f"/matches/{quoted}.html",
        }
    }


def answer(request: Request, data: Any) -> Response:
    return cached(request, json_text(data).encode(), "application/json")


def refusal(status: int, error: str) -> JSONResponse:
    return JSONResponse({"error": error}, status_code=status)


def window(request: Request) -> tuple[int, int]:
    """`?offset=` and `?limit=` of a list (defaults 0 and PAGE_SIZE; a limit above MAX_LIMIT
    is MAX_LIMIT); ValueError naming the offending value."""
    offset = _whole(request, "offset", 0, least=0)
    return offset, min(_whole(request, "limit", PAGE_SIZE, least=1), MAX_LIMIT)


def _bot(request: Request) -> str | None:
    bot = request.query_params.get("bot")
    if bot == "":
        raise ValueError("bot must name a bot, got ''")
    return bot


def _switch(request: Request, name: str) -> bool:
    """`?name=1` (or `true`) on, `?name=0` (or `false`, or none) off; ValueError otherwise."""
    text = request.query_params.get(name, "0")
    if text not in {"0", "1", "false", "true"}:
        raise ValueError(f"{name} must be 1 or 0, got {text!r}")
    return text in {"1", "true"}


def _optional_whole(request: Request, name: str) -> int | None:
    return _whole(request, name, 0, least=1) if name in request.query_params else None


def _whole(request: Request, name: str, default: int, *, least: int) -> int:
    text = request.query_params.get(name, str(default))
    # 18 digits: any count of matches, and never Python's own refusal of a huge number.
    if not text.isascii() or not text.isdigit() or len(text) > 18 or int(text) < least:
        raise ValueError(f"{name} must be a whole number from {least}, got {text!r}")
    return int(text)
