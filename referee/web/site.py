"""The site's routes: read-only views of a running contest or ladder and its database.

Pages are static HTML whose scripts fetch JSON and listen to server-sent events: one stream of
snapshots (standings, who is connected, live matches, recent results; referee.web.snapshot) that
changes when a match is committed or a bot comes or goes, and one stream per live match carrying
what a spectator may see (the public events, the spectator's table as it stands, the result;
referee.web.live). Each snapshot and each live message is built once for every viewer, viewers
are woken on shared beats that slow down as more come, and the runner does nothing for them:
viewers cost the referee little. Records are served only once their match is committed: a live
match's record holds every hand. Everything comes through one `RefereeView`
(referee.ladder.view), which `croupier serve` and `croupier ladder run` both fill in; the site
only reads (GET and HEAD; any other method is 405), but for a contest's desk (referee.web.desk,
under /desk, served with the hosted wing): an author's page of their own, signed in, whose forms
post. Scripts read the same through the public JSON API (referee.web.api, /api/v1);
/api/contest and /api/bots/NAME are the pages' own.
"""

from __future__ import annotations

import functools
import html
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import trio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.challenges.book import read_challenges
from referee.errors import CroupierError
from referee.hosted.current import entrants
from referee.hosted.store import Listing, Version, entrant, read_listing
from referee.ladder.view import RefereeView
from referee.ratings.fits import Rating
from referee.ratings.standings import Row, row_text
from referee.review.budgets import DEFAULT_BUDGET
from referee.viewer import load, render_html
from referee.viewer.html import ASSETS
from referee.web.api import PublicApi, newest_first, summary, window
from referee.web.caching import cached, tagged
from referee.web.challenges import asked_by
from referee.web.desk import DESK, DeskSite
from referee.web.live import LiveStreams, seat_names
from referee.web.snapshot import ALTERED, Snapshots, intact

if TYPE_CHECKING:
    from referee.contest.hosted_wing import HostedWing

#: Replay pages kept rendered.
PAGE_CACHE = 32

_PAGES = {
    "index.html": "text/html",
    "bot.html": "text/html",
    "live.html": "text/html",
    "site.css": "text/css",
    "site.js": "text/javascript",
    "live.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
    "missing.html": "text/html",
    "challenges.html": "text/html",
    "desk.html": "text/html",
    "desk.js": "text/javascript",
}


@functools.cache
def _asset(package: str, name: str) -> str:
    return resources.files(package).joinpath("assets", name).read_text("utf-8")


#: Every response: no type sniffing, no referrer, scripts and styles from the site only.
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (
        b"content-security-policy",
        b"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        b"frame-ancestors 'none'",
    ),
]
#: The desk's responses: the same, but a referrer within the site, since a no-referrer page
#: makes chromium send `Origin: null` on its forms' posts, which the desk refuses.
DESK_HEADERS = [
    (name, b"same-origin" if name == b"referrer-policy" else value) for name, value in HEADERS
]


#: Responses are gzipped for clients that accept it (HTML, JSON, scripts, styles, records; never
#: an event stream, whose every beat must reach the page at once), at the level most servers
#: use: most of level 9's saving for a fraction of its CPU, which is the referee's.
GZIP_LEVEL = 6
GZIP_FROM = 500
_STATIC_LINK = re.compile(r'"/static/([a-z]+\.(?:css|js|svg))"')


@functools.cache
def _static(package: str, name: str) -> tuple[bytes, str]:
    """A static file's bytes and ETag (its fingerprint is the tag's hex)."""
    body = _asset(package, name).encode()
    return body, tagged(body)


def _package(name: str) -> str | None:
    """The package holding the static file `name` (the site's own, or the replay viewer's)."""
    return "referee.web" if name in _PAGES else "referee.viewer" if name in ASSETS else None


def _fingerprint(package: str, name: str) -> str:
    return _static(package, name)[1][3:11]


@functools.cache
def _page(name: str) -> bytes:
    """A page of the site, its static files named with their fingerprints (`?v=`), so that a
    new croupier's page never runs with an old script from the browser's cache."""

    def fingerprinted(found: re.Match[str]) -> str:
        static = found.group(1)
        package = _package(static)
        if package is None:
            return found.group(0)
        return f'"/static/{static}?v={_fingerprint(package, static)}"'

    return _STATIC_LINK.sub(fingerprinted, _asset("referee.web", name)).encode()


class _Headers:
    """Adds HEADERS to every response (a plain ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        added = DESK_HEADERS if path == DESK or path.startswith(DESK + "/") else HEADERS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *added]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Site:
    """The site of one running contest or ladder; `run` keeps its snapshot fresh while it is
    served. With a contest's hosted `wing`, its authors' desk too (referee.web.desk)."""

    def __init__(
        self, view: RefereeView, wing: HostedWing | None = None, review_budget: int = DEFAULT_BUDGET
    ) -> None:
        self.view = view
        self.snapshots = Snapshots(view)
        self.live = LiveStreams(view)
        self._pages: OrderedDict[str, str] = OrderedDict()
        self.api = PublicApi(view, self.snapshots, self.knows)
        self.desk = DeskSite(wing, self.snapshots, review_budget) if wing else None
        desk = self.desk.routes(self.page("desk.html")) if self.desk is not None else []
        self.app = Starlette(
            routes=[
                Route("/", self.page("index.html")),
                Route("/live/{match}", self.page("live.html")),
                Route("/follow", self.page("live.html")),
                Route("/challenges", self.page("challenges.html")),
                Route("/bots/{bot}", self.bot_page),
                Route("/favicon.ico", self.favicon),
                Route("/static/{name}", self.static),
                Route("/api/contest", self.contest_json),
                Route("/api/bots/{bot}", self.bot_json),
                Route("/events/contest", self.snapshots.events),
                Route("/events/live/{match}", self.live.live_events),
                Route("/events/follow", self.live.follow_events),
                Route("/matches/{name}", self.replay),
                Route("/records/{name}", self.record),
                *self.api.routes(),
                *desk,
            ],
            middleware=[
                Middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=GZIP_LEVEL),
                Middleware(_Headers),
            ],
        )

    async def run(self) -> None:
        """Keep the snapshot fresh and the live matches' beat going while the site is served."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.live.run)
            nursery.start_soon(self.snapshots.run)
            if self.desk is not None:
                nursery.start_soon(self.desk.run)

    # --- pages and JSON ------------------------------------------------------------------------

    def page(self, name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            return cached(request, _page(name), _PAGES[name])

        return serve

    async def bot_page(self, request: Request) -> Response:
        """A bot's page, or a 404 page that says so for a name the site does not know."""
        bot = request.path_params["bot"]
        await self.snapshots.reading()
        if await self.knows(bot):
            return cached(request, _page("bot.html"), "text/html")
        page = (
            _page("missing.html")
            .decode()
            .replace("__WHAT__", html.escape(f"no bot {bot!r} in this {self.view.kind}"))
        )
        return Response(page, status_code=404, media_type="text/html")

    async def favicon(self, request: Request) -> Response:
        body, tag = _static("referee.web", "favicon.svg")
        return cached(request, body, "image/svg+xml", tag)

    async def static(self, request: Request) -> Response:
        """A static file; for ever, when asked for by its current fingerprint."""
        name = request.path_params["name"]
        package = _package(name)
        if package is None:
            return Response("not found", status_code=404)
        body, tag = _static(package, name)
        forever = request.query_params.get("v") == _fingerprint(package, name)
        kind = _PAGES.get(name) or ("text/css" if name.endswith(".css") else "text/javascript")
        return cached(request, body, kind, tag, forever)

    async def contest_json(self, request: Request) -> Response:
        return Response(await self.snapshots.first_published(), media_type="application/json")

    async def bot_json(self, request: Request) -> Response:
        bot = request.path_params["bot"]
        snapshots = self.snapshots
        contest = await snapshots.reading()
        if contest is None:
            return JSONResponse({"error": f"no {self.view.kind} database"}, status_code=404)
        try:
            offset, limit = window(request)
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        played = newest_first(contest, bot)
        matches = [summary(snapshots, p) for p in played[offset : offset + limit]]
        intervals = contest.standings.plan.method.has_intervals
        rows = {row.bot: row for row in contest.standings.rows}
        here = self.view.presence().get(bot)
        listing = await self.listing()
        who = entrants([bot], listing)[bot]
        history = await snapshots.history(contest)
        # An account's page lists its versions; a version's page names its account.
        versions = [
            self.version_json(v, listing, rows, history, intervals)
            for v in listing.versions
            if v.account == bot and who.version is None
        ]
        if not snapshots.knows(bot) and not versions:
            return JSONResponse(
                {"error": f"no bot {bot!r} in this {self.view.kind}"}, status_code=404
            )
        plan = contest.standings.plan
        return JSONResponse(
            {
                "bot": bot,
                "kind": str(self.view.kind),
                "row": _row_json(rows.get(bot), intervals),
                "state": here.state if here else "offline",
                "sessions": here.sessions if here else 0,
                "last_seen": None if here and here.sessions else snapshots.last_seen(bot),
                "revoked": who.account in self.view.revoked,
                # The team's members, leader first (an account of one: its own name).
                "members": list(snapshots.members(who.account)),
                "rating": plan.system,
                "rating_label": plan.method.label,
                "history": _points(history, bot),
                # Newest first, `limit` from `offset`, of `total`.
                "total": len(played),
                "offset": offset,
                "limit": limit,
                "matches": matches,
                "live": [
                    m.start.match_id
                    for m in self.view.live.matches.values()
                    if bot in seat_names(self.view, m)
                ],
                # A hosted version's account and id (its own name and None for other bots).
                "account": who.account,
                "version": who.version,
                "versions": versions,
                # Selection honesty (issue 45): every version its account submitted and every
                # challenge it ran, so that a reader can judge a best-of-N.
                "versions_tried": sum(v.account == who.account for v in listing.versions),
                "challenges": await self.challenges_run(who.account),
            }
        )

    async def challenges_run(self, account: str) -> int:
        database = self.view.database
        if database is None:
            return 0
        return asked_by(await trio.to_thread.run_sync(read_challenges, database), account)

    async def knows(self, bot: str) -> bool:
        """Whether `bot` has a page: it played, is connected or revoked, or is a hosted account
        that submitted a version (which has a page before it plays)."""
        if self.snapshots.knows(bot):
            return True
        store = self.view.versions
        return store is not None and bool(
            (await trio.to_thread.run_sync(read_listing, store, bot)).versions
        )

    async def listing(self) -> Listing:
        """The hosted versions as the store has them now (empty without hosted bots)."""
        store = self.view.versions
        if store is None:
            return Listing((), frozenset())
        return await trio.to_thread.run_sync(read_listing, store)

    def version_json(
        self,
        version: Version,
        listing: Listing,
        rows: dict[str, Row],
        history: list[tuple[int, dict[str, Rating]]],
        intervals: bool,
    ) -> dict[str, Any]:
        """One of an account's versions on its page: its status and one-line reason (never its
        build log or files), and as the entrant it plays as, its row, rating over time and
        whether it has a page of its own (it played, or is connected)."""
        name = entrant(version)
        return {
            "id": version.id,
            "status": str(version.status),
            "reason": version.public_reason,  # never the bot's words (issue 41.0)
            "submitted_at": version.submitted_at,
            "updated_at": version.updated_at,
            "active": version.id in listing.active,
            "entrant": name,
            "page": self.snapshots.knows(name),
            "row": _row_json(rows.get(name), intervals),
            "history": _points(history, name),
        }

    # --- replays and records -------------------------------------------------------------------

    async def replay(self, request: Request) -> Response:
        """A finished match in the replay viewer (its code and style beside it, as a report's)."""
        name = request.path_params["name"]
        if name in ASSETS:
            kind = "text/css" if name.endswith(".css") else "text/javascript"
            body, tag = _static("referee.viewer", name)
            return cached(request, body, kind, tag)
        played = await self.snapshots.committed(name.removesuffix(".html"))
        if played is None or not name.endswith(".html"):
            return Response("no such finished match", status_code=404)
        if await intact(played) is None:
            return Response(ALTERED, status_code=404)
        page = self._pages.get(played.match_id)
        if page is None:
            record = played.record

            links = [("/", "standings")]
            if (
                result := contest.results.get(played.number)
                if (contest := self.snapshots.contest)
                else None
            ):
                links += [
                    (f"/bots/{quote(bot, safe='@')}", bot)
                    for bot in dict.fromkeys(result.match.bots)
                ]

            def render() -> str:
                return render_html(load(record), shared=True, links=links)

            try:
                page = await trio.to_thread.run_sync(render)
            except CroupierError:  # its reason names the site's files: not for a visitor
                return Response("cannot show this match", status_code=500)
            self._pages[played.match_id] = page
            while len(self._pages) > PAGE_CACHE:
                self._pages.popitem(last=False)
        # The page of a committed record changes only with croupier's viewer.
        return cached(request, page.encode(), "text/html")

    async def record(self, request: Request) -> Response:
        name = request.path_params["name"]
        played = await self.snapshots.committed(name.removesuffix(".jsonl"))
        if played is None or not name.endswith(".jsonl"):
            return Response("no such finished match", status_code=404)
        data = await intact(played)
        if data is None:
            return Response(ALTERED, status_code=404)
        attachment = {"content-disposition": f'attachment; filename="{played.match_id}.jsonl"'}
        return Response(data, media_type="application/x-ndjson", headers=attachment)


def _row_json(row: Row | None, intervals: bool) -> dict[str, Any] | None:
    """A row of the standings as the pages show it (its rating and interval as text too)."""
    return asdict(row) | {"text": row_text(row, intervals)} if row is not None else None


def _points(history: list[tuple[int, dict[str, Rating]]], bot: str) -> list[list[float]]:
    """`bot`'s rating over time: [after k matches, rating, low, high], for its plot."""
    return [
        [k, round(r.value, 2), round(r.low, 2), round(r.high, 2)]
        for k, rated in history
        if (r := rated.get(bot)) is not None and r.low is not None and r.high is not None
    ]
