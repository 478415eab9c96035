"""The site's routes and data: read-only views of a running contest or ladder and its database.

Pages are static HTML whose scripts fetch JSON and listen to server-sent events: one stream of
snapshots (standings, who is connected, live matches, recent results) that changes when a match
is committed or a bot comes or goes, and one stream per live match carrying what a spectator may
see (the public events, the spectator's table as it stands, the result). Each snapshot and
each live message is built once for every viewer, viewers are woken on shared beats that slow
down as more come, and the runner does nothing for them: viewers cost the referee little.
Records are served only once their match is committed: a live match's record holds every hand.
Everything comes through one `RefereeView` (referee.ladder.view), which `croupier serve` and
`croupier ladder run` both fill in; the site only reads (GET and HEAD; any other method is 405).
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

import trio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.games import get_game
from referee.ladder.model import MatchResult
from referee.ladder.ratings import Rating
from referee.ladder.spacing import Spacing
from referee.ladder.standings import (
    PROVISIONAL_LEGEND,
    Standings,
    from_store,
    ratings_over,
    row_text,
)
from referee.ladder.store import Played, Store, now
from referee.ladder.view import RefereeView
from referee.match.glyphs import readable
from referee.match.spectators import LiveMatch
from referee.viewer import load, render_html, spectator_table
from referee.viewer.games import view_for
from referee.viewer.html import ASSETS

log = logging.getLogger("croupier.web")

#: How often the snapshot looks at who is connected; commits and new matches push it sooner,
#: but it is rebuilt at most every SNAPSHOT_SECONDS (each rebuild reads the database and refits
#: the ratings, in a worker thread that still shares the interpreter with the referee).
PRESENCE_SECONDS = 1.0
SNAPSHOT_SECONDS = 2.0
#: The snapshot is built at most this often.
PUBLISH_SECONDS = 0.25
#: A standings viewer gets the snapshot at most this often (the latest one) ...
VIEWER_SECONDS = 1.0
#: ... and all of them together at most this many a second: with more viewers, each gets it
#: less often (100 viewers: every 2 s).
VIEWER_WRITES = 50
#: A live match's clocks, once built, serve every viewer for this long (a beat's viewers).
CLOCK_REUSE_SECONDS = 0.05
#: A live match's viewers get what is new (its public events and its table) at most this often,
#: all on one beat, so viewers at the same point of a match share one chunk of bytes ...
TABLE_SECONDS = 0.5
#: ... and all of them together at most this many writes a second (100 viewers: every 1 s).
TABLE_WRITES = 100
#: A comment line on quiet streams, so proxies and browsers keep them open.
KEEPALIVE_SECONDS = 15.0
#: Finished matches listed on the front page.
RECENT = 20
#: Points in a bot's rating-over-time plot (sampled evenly over the committed matches).
PLOT_POINTS = 60
#: Replay pages kept rendered.
PAGE_CACHE = 32
#: A bot's matches listed per page (the JSON API's default `limit`), and the most one request
#: may ask for.
PAGE_SIZE = 100
MAX_LIMIT = 1000

_SEAT = re.compile(r"\bseat (\d+)\b")
_PAGES = {
    "index.html": "text/html",
    "bot.html": "text/html",
    "live.html": "text/html",
    "site.css": "text/css",
    "site.js": "text/javascript",
    "live.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
    "missing.html": "text/html",
}


@functools.cache
def _asset(package: str, name: str) -> str:
    return resources.files(package).joinpath("assets", name).read_text("utf-8")


def _sse(data: str, event: str = "message") -> str:
    return f"event: {event}\ndata: {data}\n\n"


KEEPALIVE = b": keep-alive\n\n"


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class _Contest:
    """One reading of the contest database (taken in a worker thread)."""

    standings: Standings
    played: list[Played]
    results: dict[int, MatchResult]
    #: When each bot's latest match was committed (UTC, ISO 8601).
    last_played: dict[str, str]


def _read(database: Path) -> _Contest:
    store = Store(database, create=False)
    try:
        with store.snapshot():
            results = store.results()
            standings = from_store(store, results)
            played = store.played()
    finally:
        store.close()
    by_number = {r.match.number: r for r in results}
    last_played: dict[str, str] = {}
    for match in played:
        for bot in by_number[match.number].match.bots if match.number in by_number else ():
            last_played[bot] = max(last_played.get(bot, ""), match.finished_at)
    return _Contest(standings, played, by_number, last_played)


class _Beat:
    """A shared clock for one kind of stream: every viewer wakes on the same tick (one timer
    for all of them), and the ticks slow down as viewers join so that the streams' writes stay
    within `writes` a second, however large the audience: the referee's decisions come first."""

    def __init__(self, seconds: float, writes: float) -> None:
        self.seconds = seconds
        self.writes = writes
        self.viewers = 0
        self._tick = trio.Event()

    @property
    def interval(self) -> float:
        return max(self.seconds, self.viewers / self.writes)

    async def run(self) -> None:
        while True:
            await trio.sleep(self.interval)
            self._tick.set()
            self._tick = trio.Event()

    @contextmanager
    def joined(self) -> Iterator[None]:
        self.viewers += 1
        try:
            yield
        finally:
            self.viewers -= 1

    async def wait(self) -> None:
        await self._tick.wait()


class _Story:
    """One live match as the site sends it. Each public message is turned into its event text
    once, and each batch (what is new since a point) once, for every viewer at that point; the
    runner calls nothing of the site: viewers read the match's history at their own beat."""

    def __init__(self, live: LiveMatch, names: list[str]) -> None:
        self.live = live
        self.names = names
        self.texts: list[str] = []
        self._table: tuple[int, str] = (-1, "")
        self._batches: dict[tuple[int, int], tuple[bytes, int, int]] = {}
        self._batches_at = (-1, -1)
        self._clocks: tuple[int, float, str] = (-1, 0.0, "")

    def since(self, shown: int, steps: int) -> tuple[bytes, int, int]:
        """What a viewer who has had `shown` messages and the table after `steps` steps gets
        now: the new public events, the table if a step was made since, and the result (after
        the final table) once the match is over; with the viewer's new `shown` and `steps`."""
        live = self.live
        now = (len(live.history), live.steps)
        if now != self._batches_at:
            self._batches_at = now
            self._batches.clear()
        batch = self._batches.get((shown, steps))
        if batch is None:
            batch = self._batches[(shown, steps)] = self._batch(shown, steps)
        return batch

    def _batch(self, shown: int, steps: int) -> tuple[bytes, int, int]:
        live = self.live
        total = len(live.history)
        events = total - 1 if live.over else total  # the last message of a match is its end
        while len(self.texts) < total:
            message = live.history[len(self.texts)]
            self.texts.append(_sse(_json(live_message(live.start, self.names, message))))
        parts = self.texts[shown:events]
        if live.steps != steps and live.table is not None:
            parts.append(self.table())
        if live.over and shown < total:
            parts.append(self.texts[-1])
        return "".join(parts).encode(), total, live.steps

    def clocks(self) -> str:
        """The seats' clocks now (banks, and the time taken so far by the seats deciding),
        built once for the viewers of one beat: the page runs a deciding seat's clock on from
        there until the next change."""
        live = self.live
        changes, built, text = self._clocks
        moment = time.monotonic()
        if changes != live.clock_changes or moment - built > CLOCK_REUSE_SECONDS:
            control = live.start.time_control
            limited = control.HasField("move_ms")
            message = {
                "kind": "clocks",
                "move_ms": control.move_ms if limited else None,  # None: no time limit
                "seats": live.clocks(),
            }
            text = _sse(_json(message))
            self._clocks = (live.clock_changes, moment, text)
        return text

    def table(self) -> str:
        """The spectator's table after the latest step, built once per step for every viewer."""
        live = self.live
        if self._table[0] != live.steps:
            assert live.table is not None
            message = referee_pb2.WatchMessage(public_table=live.table())
            text = _sse(_json(live_message(live.start, self.names, message)))
            self._table = (live.steps, text)
        return self._table[1]


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


#: Responses are gzipped for clients that accept it (HTML, JSON, scripts, styles, records; never
#: an event stream, whose every beat must reach the page at once), at the level most servers
#: use: most of level 9's saving for a fraction of its CPU, which is the referee's.
GZIP_LEVEL = 6
GZIP_FROM = 500
#: A static file asked for by its fingerprint (`?v=`, what the pages name) never changes: the
#: browser keeps it a year without asking. Everything else that is cacheable carries an ETag
#: and `no-cache`: the browser asks each time and gets 304, no body, while it is unchanged.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_STATIC_LINK = re.compile(r'"/static/([a-z]+\.(?:css|js|svg))"')


def _tagged(body: bytes) -> str:
    """A weak ETag (the body may travel gzipped, byte for byte another entity)."""
    return f'W/"{hashlib.sha256(body).hexdigest()[:20]}"'


@functools.cache
def _static(package: str, name: str) -> tuple[bytes, str]:
    """A static file's bytes and ETag (its fingerprint is the tag's hex)."""
    body = _asset(package, name).encode()
    return body, _tagged(body)


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


def _cached(
    request: Request, body: bytes, media_type: str, tag: str | None = None, forever: bool = False
) -> Response:
    """`body` with its ETag (`tag`, else one made from the body), or 304 with no body when the
    request holds that tag already (If-None-Match)."""
    tag = tag or _tagged(body)
    headers = {"etag": tag, "cache-control": IMMUTABLE if forever else REVALIDATE}
    held = request.headers.get("if-none-match", "")
    if held.strip() == "*" or tag in (t.strip() for t in held.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


class _Headers:
    """Adds HEADERS to every response (a plain ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Site:
    """The site of one running contest or ladder; `run` keeps its snapshot fresh while it is
    served."""

    def __init__(self, view: RefereeView) -> None:
        self.view = view
        self.game = view.game
        self.contest: _Contest | None = None
        self.snapshot = "{}"
        self.version = 0
        self._stale = True
        #: Readings of the database (each reads every result and refits the ratings).
        self._reads = Spacing(SNAPSHOT_SECONDS)
        self._reading = trio.Lock()
        self._poke = trio.Event()
        self._pages: OrderedDict[str, str] = OrderedDict()
        self._ratings: tuple[_Contest | None, list[tuple[int, dict[str, Rating]]]] = (None, [])
        #: The snapshot as a standings viewer gets it (encoded once per version).
        self.snapshot_event = b""
        #: The live matches being watched here, by id (a viewer keeps its own once it is over).
        self._stories: dict[str, _Story] = {}
        self._live_beat = _Beat(TABLE_SECONDS, TABLE_WRITES)
        #: The bots connected at the last snapshot, and when the site saw each one leave.
        self._online: set[str] = set()
        self._left: dict[str, str] = {}
        self._standings_beat = _Beat(VIEWER_SECONDS, VIEWER_WRITES)
        view.committed.append(self._on_commit)
        view.live.openers.append(self._on_open)
        self.app = Starlette(
            routes=[
                Route("/", self.page("index.html")),
                Route("/live/{match}", self.page("live.html")),
                Route("/follow", self.page("live.html")),
                Route("/bots/{bot}", self.bot_page),
                Route("/favicon.ico", self.favicon),
                Route("/static/{name}", self.static),
                Route("/api/contest", self.contest_json),
                Route("/api/bots/{bot}", self.bot_json),
                Route("/events/contest", self.contest_events),
                Route("/events/live/{match}", self.live_events),
                Route("/events/follow", self.follow_events),
                Route("/matches/{name}", self.replay),
                Route("/records/{name}", self.record),
            ],
            middleware=[
                Middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=GZIP_LEVEL),
                Middleware(_Headers),
            ],
        )

    # --- keeping the snapshot fresh ------------------------------------------------------------

    def _on_commit(self) -> None:
        self._stale = True
        self._poke.set()

    def _on_open(self, live: LiveMatch) -> None:
        self._poke.set()

    async def run(self) -> None:
        """Publish a snapshot on each commit or new match, and each second (who is connected);
        the database is read again at most every SNAPSHOT_SECONDS, and less often once a reading
        is slow (`Spacing`). Runs the viewers' beats too."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._live_beat.run)
            nursery.start_soon(self._standings_beat.run)
            nursery.start_soon(self._prune)
            while True:
                now = trio.current_time()
                if self._stale and self._reads.due(now) and self.view.database is not None:
                    self._stale = False
                    await self._read_database()
                self.publish(self._snapshot())
                wait = PRESENCE_SECONDS
                if self._stale:
                    wait = max(0.0, self._reads.next_at() - trio.current_time())
                with trio.move_on_after(wait):
                    await self._poke.wait()
                self._poke = trio.Event()
                await trio.sleep(PUBLISH_SECONDS)  # pokes come in bursts: one for a burst

    async def _read_database(self, unless_since: float = math.inf) -> None:
        """Read the database, unless a reading began at or after `unless_since` (one reading
        serves every request that waited for it)."""
        assert self.view.database is not None
        async with self._reading:
            if self._reads.began >= unless_since:
                return
            began = trio.current_time()
            self.contest = await trio.to_thread.run_sync(_read, self.view.database)
            self._reads.ran(began, trio.current_time())

    async def _prune(self) -> None:
        """Forget the stories of matches that are over (their viewers keep their own)."""
        while True:
            await self._live_beat.wait()
            for match_id in [m for m, story in self._stories.items() if story.live.over]:
                del self._stories[match_id]

    def publish(self, snapshot: str) -> None:
        if snapshot != self.snapshot:
            self.snapshot = snapshot
            self.snapshot_event = _sse(snapshot, "snapshot").encode()
            self.version += 1

    def _snapshot(self) -> str:
        presence = self.view.presence()
        revoked = self.view.revoked
        rows: list[dict[str, Any]] = []
        info: dict[str, Any] = {
            "kind": str(self.view.kind),
            "name": self.view.name,
            "game": self.game.id,
            "title": self.game.title,
            "options": self.view.options.as_text(),
            "watchable": self.view.watchable,
        }
        recent: list[dict[str, Any]] = []
        now_online = {bot for bot, here in presence.items() if here.sessions}
        for bot in self._online - now_online:
            self._left[bot] = now()
        self._online = now_online
        if self.contest is not None:
            standings = self.contest.standings
            elo = standings.plan.system == "elo"
            rows = [asdict(row) | {"text": row_text(row, elo)} for row in standings.rows]
            info |= {
                "rating": standings.plan.system,
                "matches_done": standings.matches_done,
                "matches_planned": self.view.planned,
                "format": standings.plan.format,
                "duplicate": standings.plan.duplicate,
                "sprt": standings.sprt,
                "seed_sha256": standings.seed_sha256,
                "seed": standings.seed,
                "finished": standings.finished,
                "provisional_legend": PROVISIONAL_LEGEND,
            }
            recent = [self._played(p) for p in reversed(self.contest.played[-RECENT:])]
        listed = {row["bot"] for row in rows}
        rows += [
            {"rank": None, "bot": bot, "matches": 0, "faults": {}}
            for bot in presence
            if bot not in listed
        ]
        for row in rows:
            here = presence.get(row["bot"])
            row["sessions"] = here.sessions if here else 0
            row["playing"] = here.playing if here else 0
            row["state"] = here.state if here else "offline"
            row["revoked"] = row["bot"] in revoked
            row["last_seen"] = None if row["bot"] in now_online else self._last_seen(row["bot"])
        live = [
            {"match": m.start.match_id, "bots": self._names(m)}
            for m in self.view.live.matches.values()
        ]
        return _json({"contest": info, "standings": rows, "live": live, "recent": recent})

    def _played(self, played: Played) -> dict[str, Any]:
        assert self.contest is not None
        result = self.contest.results.get(played.number)
        bots = list(result.match.bots) if result is not None else []
        return {
            "number": played.number,
            "match": played.match_id,
            "bots": bots,
            "result": _named(played.result, bots),
            "ranks": list(result.ranks) if result is not None else [],
            "scores": list(result.scores) if result is not None else [],
            "faults": [  # one entry per seat and reason, counted (not its name N times)
                {
                    "seat": seat,
                    "bot": bots[seat] if seat < len(bots) else "",
                    "reason": reason,
                    "detail": details[0],
                    "count": len(details),
                }
                for (seat, reason), details in played.fault_groups().items()
            ],
            "termination": played.termination,
            "seconds": played.seconds,
            "finished_at": played.finished_at,
        }

    # --- pages and JSON ------------------------------------------------------------------------

    def page(self, name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            return _cached(request, _page(name), _PAGES[name])

        return serve

    async def bot_page(self, request: Request) -> Response:
        """A bot's page, or a 404 page that says so for a name the site does not know."""
        bot = request.path_params["bot"]
        if self.contest is None and self.view.database is not None:
            await self._read_database()  # the site just started: look before saying no
        if self._knows(bot):
            return _cached(request, _page("bot.html"), "text/html")
        page = (
            _page("missing.html")
            .decode()
            .replace("__WHAT__", html.escape(f"no bot {bot!r} in this {self.view.kind}"))
        )
        return Response(page, status_code=404, media_type="text/html")

    def _last_seen(self, bot: str) -> str | None:
        """When a bot that is not connected was last seen: when the site saw it leave, or its
        latest match if the site never saw it (UTC, ISO 8601)."""
        played = self.contest.last_played.get(bot, "") if self.contest is not None else ""
        return max(self._left.get(bot, ""), played) or None

    def _knows(self, bot: str) -> bool:
        """Whether `bot` has a place here: in the standings (a ladder's bots, a contest's
        accounts that played), connected now, or revoked."""
        if bot in self.view.presence() or bot in self.view.revoked:
            return True
        contest = self.contest
        return contest is not None and (
            bot in contest.standings.plan.bots or bot in contest.last_played
        )

    async def favicon(self, request: Request) -> Response:
        body, tag = _static("referee.web", "favicon.svg")
        return _cached(request, body, "image/svg+xml", tag)

    async def static(self, request: Request) -> Response:
        """A static file; for ever, when asked for by its current fingerprint."""
        name = request.path_params["name"]
        package = _package(name)
        if package is None:
            return Response("not found", status_code=404)
        body, tag = _static(package, name)
        forever = request.query_params.get("v") == _fingerprint(package, name)
        kind = _PAGES.get(name) or ("text/css" if name.endswith(".css") else "text/javascript")
        return _cached(request, body, kind, tag, forever)

    async def contest_json(self, request: Request) -> Response:
        return Response(self.snapshot, media_type="application/json")

    async def bot_json(self, request: Request) -> Response:
        bot = request.path_params["bot"]
        contest = self.contest
        if contest is None:
            return JSONResponse({"error": f"no {self.view.kind} database"}, status_code=404)
        try:
            offset, limit = _window(request)
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        played = [
            p
            for p in contest.played
            if p.number in contest.results and bot in contest.results[p.number].match.bots
        ]
        newest_first = played[::-1]
        matches = [self._played(p) for p in newest_first[offset : offset + limit]]
        found = next((r for r in contest.standings.rows if r.bot == bot), None)
        elo = contest.standings.plan.system == "elo"
        row = asdict(found) | {"text": row_text(found, elo)} if found is not None else None
        here = self.view.presence().get(bot)
        if not self._knows(bot):
            return JSONResponse(
                {"error": f"no bot {bot!r} in this {self.view.kind}"}, status_code=404
            )
        history = await self._history(contest)
        points = [
            [k, round(r.value, 2), round(r.low, 2), round(r.high, 2)]
            for k, rated in history
            if (r := rated.get(bot)) is not None
        ]
        plan = contest.standings.plan
        return JSONResponse(
            {
                "bot": bot,
                "kind": str(self.view.kind),
                "row": row,
                "state": here.state if here else "offline",
                "sessions": here.sessions if here else 0,
                "last_seen": None if here and here.sessions else self._last_seen(bot),
                "revoked": bot in self.view.revoked,
                "rating": plan.system,
                "history": points,
                # Newest first, `limit` from `offset`, of `total`.
                "total": len(played),
                "offset": offset,
                "limit": limit,
                "matches": matches,
                "live": [
                    m.start.match_id
                    for m in self.view.live.matches.values()
                    if bot in self._names(m)
                ],
            }
        )

    async def _history(self, contest: _Contest) -> list[tuple[int, dict[str, Rating]]]:
        """Every bot's rating after k committed matches, for up to PLOT_POINTS values of k
        spread over the contest; refitted once per reading of the database, for all bots."""
        if self._ratings[0] is contest:
            return self._ratings[1]
        plan = contest.standings.plan
        ordered = sorted(contest.played, key=lambda p: (p.finished_at, p.number))
        results = [contest.results[p.number] for p in ordered if p.number in contest.results]

        def fit() -> list[tuple[int, dict[str, Rating]]]:
            n = len(results)
            ks = sorted({max(1, round(n * i / PLOT_POINTS)) for i in range(1, PLOT_POINTS + 1)})
            return ratings_over(plan, results, ks if n else [])

        history = await trio.to_thread.run_sync(fit)
        self._ratings = (contest, history)
        return history

    def _names(self, live: LiveMatch) -> list[str]:
        """The accounts at a live match's seats (the names bots chose, outside a contest)."""
        return self.view.tables.get(live.start.match_id) or list(live.start.seat_names)

    async def contest_events(self, request: Request) -> Response:
        async def stream() -> AsyncGenerator[bytes, None]:
            version = -1
            with self._standings_beat.joined():
                while True:
                    # The latest snapshot on each beat: with many matches at once it changes
                    # many times a second.
                    yield self.snapshot_event if version != self.version else b""
                    version = self.version
                    await self._standings_beat.wait()

        return _event_stream(stream())

    # --- live matches --------------------------------------------------------------------------

    async def live_events(self, request: Request) -> Response:
        live = self.view.live.get(request.path_params["match"])

        async def stream() -> AsyncGenerator[bytes, None]:
            if live is None:
                yield _sse(_json({"kind": "gone"})).encode()
                return
            with self._live_beat.joined():
                async with aclosing(self._story(live)) as story:
                    async for chunk in story:
                        yield chunk

        return _event_stream(stream())

    async def follow_events(self, request: Request) -> Response:
        """One match after another, each whole: the newest not yet shown, or the next to open
        (of `?bot=NAME`, if given). Newest, not oldest as gRPC's follow: a person watches the
        match with the most play still to come, rather than a string of endings."""
        bot = request.query_params.get("bot", "")

        async def stream() -> AsyncGenerator[bytes, None]:
            seen: set[str] = set()
            with self._live_beat.joined():
                while True:
                    live = self._next(seen, bot)
                    if live is None:
                        yield b""
                        await self._live_beat.wait()
                        continue
                    seen.add(live.start.match_id)
                    async with aclosing(self._story(live)) as story:
                        async for chunk in story:
                            yield chunk

        return _event_stream(stream())

    def _next(self, seen: set[str], bot: str) -> LiveMatch | None:
        """The newest live match not in `seen` (with `bot` at a seat, if given)."""
        seen &= self.view.live.matches.keys()
        for match_id, live in reversed(self.view.live.matches.items()):
            if match_id not in seen and (not bot or bot in self._names(live)):
                return live
        return None

    async def _story(self, live: LiveMatch) -> AsyncGenerator[bytes, None]:
        """A live match's public messages as events, from its start until its result.

        The viewer gets every public event, and the spectator's table as it stands, on the live
        beat (every TABLE_SECONDS, less often with many viewers): a person follows a few moves a
        second. A table is built only when some viewer is due one (never by the runner's step),
        once for all of them."""
        match_id = live.start.match_id
        story = self._stories.get(match_id)
        if story is None or story.live is not live:
            story = _Story(live, self._names(live))
            if not live.over:
                self._stories[match_id] = story
        shown, steps, clocks = 0, 0, 0  # clocks: sent once one has started
        while True:
            chunk, shown, steps = story.since(shown, steps)
            if not live.over and live.clock_changes != clocks:
                clocks = live.clock_changes
                chunk += story.clocks().encode()
            yield chunk  # b"" when nothing is new
            if live.over and shown == len(live.history):
                return
            await self._live_beat.wait()

    # --- replays and records -------------------------------------------------------------------

    async def _committed(self, match_id: str) -> Played | None:
        """The committed match; if it is not known yet, as a reading of the database begun
        after the request finds it, so a link followed just after its commit never misses it.
        Such readings wait their turn (at most one a second, shared by every request waiting),
        so requests for unknown matches cannot keep the site reading."""
        found = self._find(match_id)
        if found is None and self.view.database is not None:
            asked = trio.current_time()
            while self._reads.began < asked:
                await trio.sleep_until(self._reads.next_at(least=1.0))
                await self._read_database(unless_since=asked)
            found = self._find(match_id)
        return found

    def _find(self, match_id: str) -> Played | None:
        if self.contest is None:
            return None
        return next((p for p in self.contest.played if p.match_id == match_id), None)

    async def replay(self, request: Request) -> Response:
        """A finished match in the replay viewer (its code and style beside it, as a report's)."""
        name = request.path_params["name"]
        if name in ASSETS:
            kind = "text/css" if name.endswith(".css") else "text/javascript"
            body, tag = _static("referee.viewer", name)
            return _cached(request, body, kind, tag)
        played = await self._committed(name.removesuffix(".html"))
        if played is None or not name.endswith(".html"):
            return Response("no such finished match", status_code=404)
        if await _intact(played) is None:
            return Response(ALTERED, status_code=404)
        page = self._pages.get(played.match_id)
        if page is None:
            record = played.record

            links = [("/", "standings")]
            if result := self.contest.results.get(played.number) if self.contest else None:
                links += [
                    (f"/bots/{quote(bot, safe='')}", bot)
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
        return _cached(request, page.encode(), "text/html")

    async def record(self, request: Request) -> Response:
        name = request.path_params["name"]
        played = await self._committed(name.removesuffix(".jsonl"))
        if played is None or not name.endswith(".jsonl"):
            return Response("no such finished match", status_code=404)
        data = await _intact(played)
        if data is None:
            return Response(ALTERED, status_code=404)
        attachment = {"content-disposition": f'attachment; filename="{played.match_id}.jsonl"'}
        return Response(data, media_type="application/x-ndjson", headers=attachment)


#: Why a committed match's record or replay is not served (never the site's file paths).
ALTERED = "this match's record is missing or was changed since it was committed"


async def _intact(played: Played) -> bytes | None:
    """The committed match's record, if it is still what was committed (its SHA-256 as the
    database holds it): a replaced record is not served as the ladder's (issue 24.1)."""

    def read() -> bytes | None:
        try:
            data = played.record.read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == played.record_sha256 else None

    return await trio.to_thread.run_sync(read)


def live_message(
    start: referee_pb2.MatchStart, names: list[str], message: referee_pb2.WatchMessage
) -> Any:
    """A spectator's message as the live page reads it: the match, a public event's text, the
    spectator's table after a step (the model the replay viewer draws), or the result; the seats
    named by `names`."""
    kind = message.WhichOneof("kind")
    if kind == "match_start":
        try:
            title = get_game(start.game).title
        except CroupierError:
            title = start.game
        return {
            "kind": "start",
            "match": start.match_id,
            "game": start.game,
            "title": title,
            "deck": view_for(start.game).deck.value,
            "names": names,
            "options": dict(start.options),
        }
    if kind == "event":
        return {
            "kind": "event",
            "text": _named(readable(start.game, message.event.event.text), names),
        }
    if kind == "public_table":
        public = getattr(message.public_table, message.public_table.WhichOneof("game"))
        return {"kind": "table", **spectator_table(start.game, names, public).to_json()}
    result = message.match_end.result
    ranking = sorted(result.seats, key=lambda s: (s.rank, s.seat))
    return {
        "kind": "end",
        "match": start.match_id,
        "result": _named(result.text, names),
        "ranking": [[s.rank, s.seat, names[s.seat], s.score, s.retired] for s in ranking],
    }


def _window(request: Request) -> tuple[int, int]:
    """`?offset=` and `?limit=` of a list (defaults 0 and PAGE_SIZE; a limit above MAX_LIMIT
    is MAX_LIMIT); ValueError naming the offending value."""
    offset = _whole(request, "offset", 0, least=0)
    return offset, min(_whole(request, "limit", PAGE_SIZE, least=1), MAX_LIMIT)


def _whole(request: Request, name: str, default: int, *, least: int) -> int:
    text = request.query_params.get(name, str(default))
    if not text.isascii() or not text.isdigit() or int(text) < least:
        raise ValueError(f"{name} must be a whole number from {least}, got {text!r}")
    return int(text)


def _named(text: str, names: list[str]) -> str:
    """`seat 1` as `seat 1 (alice)`: a spectator reads bots, not seat numbers."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return f"{match.group(0)} ({names[seat]})" if seat < len(names) else match.group(0)

    return _SEAT.sub(name, text)


class _EventStream(StreamingResponse):
    """A stream of server-sent events. Its generator yields on every beat, b"" when nothing is
    new; a stream quiet for KEEPALIVE_SECONDS gets a comment line instead. The generator is
    closed when the stream ends, however it ends (a page gone, a connection dropped), not left
    for the garbage collector."""

    body_iterator: AsyncGenerator[bytes, None]

    async def stream_response(self, send: Send) -> None:
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        spoke = trio.current_time()
        async with aclosing(self.body_iterator):
            async for chunk in self.body_iterator:
                if not chunk:
                    if trio.current_time() - spoke < KEEPALIVE_SECONDS:
                        continue
                    chunk = KEEPALIVE
                spoke = trio.current_time()
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _event_stream(body: AsyncGenerator[bytes, None]) -> StreamingResponse:
    return _EventStream(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
