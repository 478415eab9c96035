"""Spectators: the live matches a referee lists (ListMatches) and streams (Watch), one match
by id or, following a bot, one whole match after another."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc

from croupier.v1 import referee_pb2
from referee.match.spectators import LiveMatch, LiveMatches


async def _story(live: LiveMatch) -> AsyncIterator[referee_pb2.WatchMessage]:
    """A live match's public messages from its start, until it ends."""
    queue: asyncio.Queue[referee_pb2.WatchMessage | None] = asyncio.Queue()
    live.watch(queue.put_nowait)
    try:
        while (message := await queue.get()) is not None:
            yield message
    finally:
        live.unwatch(queue.put_nowait)


class WatchService:
    """ListMatches and Watch over one registry of live matches (public events only)."""

    def __init__(self, live: LiveMatches) -> None:
        self.live = live

    async def list_matches(
        self,
        request: referee_pb2.ListMatchesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> referee_pb2.ListMatchesResponse:
        return self.live.listing()

    async def watch(
        self, request: referee_pb2.WatchRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> AsyncIterator[referee_pb2.WatchMessage]:
        if request.follow:
            await context.send_initial_metadata(())  # the spectator knows it is following
            async for message in self._follow(request.bot):
                yield message
            return
        live = self.live.get(request.match_id)
        if live is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no live match {request.match_id!r} (see ListMatches)"
            )
            return
        async for message in _story(live):
            yield message

    async def _follow(self, bot: str) -> AsyncIterator[referee_pb2.WatchMessage]:
        """One match after another, each whole: the oldest not yet shown, or the next to open."""
        seen: set[str] = set()
        opened = asyncio.Event()

        def opener(live: LiveMatch) -> None:
            opened.set()

        while True:
            live = self.live.next_unseen(seen, bot)
            if live is None:
                opened.clear()
                self.live.openers.append(opener)
                try:
                    await opened.wait()
                finally:
                    self.live.openers.remove(opener)
                continue
            seen.add(live.start.match_id)
            async for message in _story(live):
                yield message
