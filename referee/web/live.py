"""Live pacing: the site's event streams and the live matches they carry.

Viewers are woken on shared beats (`Beat`, one timer for a kind of stream) that slow down as more
come, so the site's writes a second stay capped and an audience costs the referee a bounded share
of its one core. Each live match's `_Story` turns every public message into its event text once,
builds the spectator's table once per step someone is shown, and keeps each batch's bytes for
every viewer at the same point. The runner calls nothing here: viewers read a match's history
(`LiveMatch`, public events only) at their own beat.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from typing import Any

import trio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Send

from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.games import get_game
from referee.hosted.store import plays_as
from referee.ladder.view import RefereeView
from referee.match.spectators import LiveMatch
from referee.text import named
from referee.viewer import spectator_table
from referee.viewer.games import view_for
from referee.viewer.glyphs import readable

#: A live match's clocks, once built, serve every viewer for this long (a beat's viewers).
CLOCK_REUSE_SECONDS = 0.05
#: A live match's viewers get what is new (its public events and its table) at most this often,
#: all on one beat, so viewers at the same point of a match share one chunk of bytes ...
TABLE_SECONDS = 0.5
#: ... and all of them together at most this many writes a second (100 viewers: every 1 s).
TABLE_WRITES = 100
#: A comment line on quiet streams, so proxies and browsers keep them open.
KEEPALIVE_SECONDS = 15.0

KEEPALIVE = b": keep-alive\n\n"


def sse(data: str, event: str = "message") -> str:
    return f"event: {event}\ndata: {data}\n\n"


def json_text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def seat_names(view: RefereeView, live: LiveMatch) -> list[str]:
    """The accounts at a live match's seats (the names bots chose, outside a contest)."""
    return view.tables.get(live.start.match_id) or list(live.start.seat_names)


class Beat:
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
            self.texts.append(sse(json_text(live_message(live.start, self.names, message))))
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
            text = sse(json_text(message))
            self._clocks = (live.clock_changes, moment, text)
        return text

    def table(self) -> str:
        """The spectator's table after the latest step, built once per step for every viewer."""
        live = self.live
        if self._table[0] != live.steps:
            assert live.table is not None
            message = referee_pb2.WatchMessage(public_table=live.table())
            text = sse(json_text(live_message(live.start, self.names, message)))
            self._table = (live.steps, text)
        return self._table[1]


class LiveStreams:
    """The live matches' event streams of one site, on one shared beat."""

    def __init__(self, view: RefereeView) -> None:
        self.view = view
        #: The live matches being watched here, by id (a viewer keeps its own once it is over).
        self._stories: dict[str, _Story] = {}
        self._live_beat = Beat(TABLE_SECONDS, TABLE_WRITES)

    async def run(self) -> None:
        """Run the viewers' beat, and forget the stories of matches that are over."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._live_beat.run)
            nursery.start_soon(self._prune)

    async def _prune(self) -> None:
        """Forget the stories of matches that are over (their viewers keep their own)."""
        while True:
            await self._live_beat.wait()
            for match_id in [m for m, story in self._stories.items() if story.live.over]:
                del self._stories[match_id]

    async def live_events(self, request: Request) -> Response:
        live = self.view.live.get(request.path_params["match"])

        async def stream() -> AsyncGenerator[bytes, None]:
            if live is None:
                yield sse(json_text({"kind": "gone"})).encode()
                return
            with self._live_beat.joined():
                async with aclosing(self._story(live)) as story:
                    async for chunk in story:
                        yield chunk

        return event_stream(stream())

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

        return event_stream(stream())

    def _next(self, seen: set[str], bot: str) -> LiveMatch | None:
        """The newest live match not in `seen` (with `bot` at a seat, if given)."""
        seen &= self.view.live.matches.keys()
        for match_id, live in reversed(self.view.live.matches.items()):
            names = seat_names(self.view, live)
            if match_id not in seen and (not bot or any(plays_as(n, bot) for n in names)):
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
            story = _Story(live, seat_names(self.view, live))
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
            "text": named(readable(start.game, message.event.event.text), names),
        }
    if kind == "public_table":
        public = getattr(message.public_table, message.public_table.WhichOneof("game"))
        return {"kind": "table", **spectator_table(start.game, names, public).to_json()}
    result = message.match_end.result
    ranking = sorted(result.seats, key=lambda s: (s.rank, s.seat))
    return {
        "kind": "end",
        "match": start.match_id,
        "result": named(result.text, names),
        "ranking": [[s.rank, s.seat, names[s.seat], s.score, s.retired] for s in ranking],
    }


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


def event_stream(body: AsyncGenerator[bytes, None]) -> StreamingResponse:
    return _EventStream(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
