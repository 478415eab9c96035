"""The site's event streams, read over HTTP from a real Hypercorn server on loopback, while the
test plays a live match step by step as the runner does: what viewers cost the runner (nothing
per step), what they share (one table and one batch of bytes for all viewers at the same point)
and how the site keeps its writes within its budget however many viewers come (issue 19).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import h11
import trio

from croupier.v1 import common_pb2, game_pb2, referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.view import Kind, RefereeView
from referee.match.spectators import LiveMatch, LiveMatches
from referee.web import WebSettings, serve_site
from referee.web.server import STALL_SECONDS
from referee.web.snapshot import VIEWER_SECONDS, VIEWER_WRITES

GAME = get_game("xix")
#: The viewers' connections, closed when their test ends.
OPEN: list[trio.SocketStream] = []


class Viewer:
    """One page's event stream: each chunk the server wrote, in order."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.http = h11.Connection(h11.CLIENT)
        self.pending = b""
        self.over = False

    @classmethod
    async def open(cls, url: str, path: str) -> Viewer:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        viewer = cls(await trio.open_tcp_stream(host, int(port)))
        OPEN.append(viewer.stream)
        request = h11.Request(method="GET", target=path, headers=[("Host", host)])
        await viewer.stream.send_all(
            viewer.http.send(request) + viewer.http.send(h11.EndOfMessage())
        )
        return viewer

    async def chunk(self) -> bytes:
        """The next chunk the server wrote (b"" once the stream is over)."""
        while True:
            event = self.http.next_event()
            if event is h11.NEED_DATA:
                self.http.receive_data(await self.stream.receive_some(65536))
            elif isinstance(event, h11.Data):
                self.pending += bytes(event.data)
                if event.chunk_end:
                    chunk, self.pending = self.pending, b""
                    return chunk
            elif isinstance(event, h11.EndOfMessage):
                self.over = True
                return b""
            else:
                assert isinstance(event, h11.Response), event
                assert event.status_code == 200


def messages(chunk: bytes) -> list[dict[str, Any]]:
    """The live messages in a chunk of server-sent events."""
    return [
        json.loads(line.removeprefix("data: "))
        for event in chunk.decode().split("\n\n")
        for line in event.splitlines()
        if line.startswith("data: ")
    ]


def view() -> RefereeView:
    return RefereeView(Kind.CONTEST, GAME, parse_options(GAME, {}), LiveMatches())


async def with_site(
    test: Callable[[RefereeView, str], Awaitable[None]],
) -> None:
    seen = view()
    try:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(serve_site, WebSettings(), lambda _: None, seen)
            with trio.fail_after(60):
                await test(seen, url)
            nursery.cancel_scope.cancel()
    finally:
        for stream in OPEN:
            await stream.aclose()
        OPEN.clear()


def play(live: LiveMatch, moves: range, table: Callable[[], game_pb2.Observation]) -> None:
    """Moves as the runner makes them: each step's public event, then the step (no await in
    between, as in the runner)."""
    for n in moves:
        live.publish(game_pb2.Event(text=f"seat {n % 2} plays {n}"))
        live.step(table)


async def test_viewers_cost_the_runner_no_table_and_share_each_batch() -> None:
    built: list[int] = []

    def table() -> game_pb2.Observation:
        built.append(1)
        observation = game_pb2.Observation()
        observation.xix.SetInParent()
        return observation

    async def test(seen: RefereeView, url: str) -> None:
        start = referee_pb2.MatchStart(match_id="m1", game="xix", seat_names=["ann", "bo"])
        live = seen.live.open(start)
        play(live, range(30), table)
        viewers = [await Viewer.open(url, "/events/live/m1") for _ in range(3)]
        first = [await viewer.chunk() for viewer in viewers]
        assert first[0] == first[1] == first[2]
        kinds = [m["kind"] for m in messages(first[0])]
        assert kinds == ["start", *["event"] * 30, "table"]
        assert messages(first[0])[1]["text"] == "seat 0 (ann) plays 0"
        assert len(built) == 1  # one table for three viewers, built for them, not by a step

        play(live, range(30, 40), table)
        assert len(built) == 1  # the runner's steps build none
        second = [await viewer.chunk() for viewer in viewers]
        assert second[0] == second[1] == second[2]
        assert [m["kind"] for m in messages(second[0])] == [*["event"] * 10, "table"]
        assert len(built) == 2

        result = common_pb2.Result(text="seat 1 wins")
        live.finish(referee_pb2.MatchEnd(match_id="m1", result=result))
        seen.live.close("m1")
        last = [await viewer.chunk() for viewer in viewers]
        assert last[0] == last[1] == last[2]
        assert [m["kind"] for m in messages(last[0])] == ["end"]  # no step since the last table
        assert messages(last[0])[0]["result"] == "seat 1 (bo) wins"
        assert [await viewer.chunk() for viewer in viewers] == [b"", b"", b""]
        assert all(viewer.over for viewer in viewers)
        gone = await Viewer.open(url, "/events/live/m1")
        assert [m["kind"] for m in messages(await gone.chunk())] == ["gone"]

    await with_site(test)


async def test_a_live_match_s_clocks_reach_its_viewers_when_one_starts_or_stops() -> None:
    async def test(seen: RefereeView, url: str) -> None:
        control = common_pb2.TimeControl(move_ms=500, bank_ms=9000)
        start = referee_pb2.MatchStart(
            match_id="m1", game="xix", seat_names=["ann", "bo"], time_control=control
        )
        live = seen.live.open(start)
        live.banks_ms = [9000.0, 9000.0]
        viewer = await Viewer.open(url, "/events/live/m1")
        assert [m["kind"] for m in messages(await viewer.chunk())] == ["start"]  # none started
        live.asked(1, 9000.0)
        await trio.sleep(0.1)
        clocks = [m for m in messages(await viewer.chunk()) if m["kind"] == "clocks"]
        assert len(clocks) == 1 and clocks[0]["move_ms"] == 500
        ann, bo = clocks[0]["seats"]
        assert ann == {"bank_ms": 9000, "thinking_ms": None} and bo["thinking_ms"] >= 100
        assert [m["kind"] for m in messages(await viewer.chunk())] == []  # nothing moved
        live.answered(1, 8400.0)
        (stopped,) = [m for m in messages(await viewer.chunk()) if m["kind"] == "clocks"]
        assert stopped["seats"][1] == {"bank_ms": 8400, "thinking_ms": None}

    await with_site(test)


async def test_many_standings_viewers_share_the_site_s_write_budget() -> None:
    """150 viewers while the snapshot changes all the time: together they get about
    VIEWER_WRITES snapshots a second (each one every 3 s), not one each a second; each still
    gets news, and the latest."""
    count, seconds = 150, 6.0
    assert count / VIEWER_WRITES > VIEWER_SECONDS  # so the budget paces them, not the floor

    async def test(seen: RefereeView, url: str) -> None:
        async def matches_keep_opening() -> None:
            for n in range(1000):
                start = referee_pb2.MatchStart(match_id=f"m{n}", game="xix", seat_names=["a", "b"])
                seen.live.open(start)
                await trio.sleep(0.1)

        writes: list[int] = []
        latest: list[int] = [0] * count

        async def viewer(index: int, ready: trio.Event) -> None:
            page = await Viewer.open(url, "/events/contest")
            await page.chunk()  # the snapshot on arrival
            ready.set()
            while chunk := await page.chunk():
                writes.append(index)
                latest[index] = len(json.loads(chunk.decode().split("data: ", 1)[1])["live"])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(matches_keep_opening)
            for index in range(count):
                ready = trio.Event()
                nursery.start_soon(viewer, index, ready)
                await ready.wait()
            writes.clear()
            await trio.sleep(seconds)
            window = len(writes)
            opened = len(seen.live.matches)
            nursery.cancel_scope.cancel()
        # One snapshot a viewer per beat, a beat every count / VIEWER_WRITES = 3 s: at most 3
        # in the window (unpaced, a beat a second: 6 or 7).
        assert window <= count * (seconds * VIEWER_WRITES / count + 1)
        assert window >= count  # and every viewer had news in the window
        assert min(latest) >= opened - 3 / 0.1 - 5  # at most a beat (3 s) behind

    await with_site(test)


async def test_a_viewer_that_never_reads_holds_up_neither_the_match_nor_other_viewers() -> None:
    """A hostile page that opens a live match's stream and never reads: its socket fills (more
    bytes than loopback buffers hold), the match and an honest viewer go on to the end, and the
    site still shuts down: the kernel drops the stalled connection after STALL_SECONDS (the
    server's writes cannot be cancelled, so without that the shutdown would wait forever)."""

    def table() -> game_pb2.Observation:
        observation = game_pb2.Observation()
        observation.xix.SetInParent()
        return observation

    ended: list[float] = []

    async def test(seen: RefereeView, url: str) -> None:
        start = referee_pb2.MatchStart(match_id="m1", game="xix", seat_names=["ann", "bo"])
        live = seen.live.open(start)
        stuck = await Viewer.open(url, "/events/live/m1")
        await stuck.chunk()  # the start; then it reads no more
        honest = await Viewer.open(url, "/events/live/m1")
        received = len(await honest.chunk())
        long = "x" * 1000
        for burst in range(8):  # 40,000 events of 1 kB: 40 MB for each viewer
            for n in range(5000):
                live.publish(game_pb2.Event(text=f"seat {n % 2} says {burst} {long}"))
            live.step(table)
            while (chunk := await honest.chunk()) and b'"kind":"table"' not in chunk:
                received += len(chunk)
            received += len(chunk)
        live.finish(referee_pb2.MatchEnd(match_id="m1", result=common_pb2.Result(text="a draw")))
        seen.live.close("m1")
        while chunk := await honest.chunk():
            received += len(chunk)
            assert b'"kind":"end"' in chunk
        assert honest.over and received > 40_000_000
        ended.append(trio.current_time())

    await with_site(test)
    assert trio.current_time() - ended[0] < STALL_SECONDS + 10
