"""Live matches played in another process, watched in this one: a referee worker's or a Dask
batch's runner publishes into `RelayedLiveMatches`, which batches what a spectator may see, and
the coordinator's `Mirror` replays each batch into the LiveMatches its web site reads (carried
by referee.ladder.process_venue' pipe, or referee.cluster.live's Dask events).

Only what a spectator may see crosses: the runner hands a LiveMatch public events only, and a
table is the public one (the spectator's). A match's table is built at most once a batch
(`RELAY_SECONDS`), never at each step, since the site shows a table at most twice a second
and most matches have no viewer; a match's last table goes just before its end.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import trio

from croupier.v1 import common_pb2, game_pb2, referee_pb2
from referee.match.spectators import LiveMatch, LiveMatches, TableMaker

#: How often a worker sends what its live matches published meanwhile.
RELAY_SECONDS = 0.1

#: One thing a live match did, as it crosses between processes (plain values and bytes).
Relayed = tuple[object, ...]


@dataclass(eq=False)
class _RelayedMatch(LiveMatch):
    """A live match whose every change goes into its relay's outbox (nobody watches it here)."""

    relay: RelayedLiveMatches | None = None

    def _send(self, message: referee_pb2.WatchMessage) -> None:
        assert self.relay is not None
        self.relay.outbox.append(("message", self.start.match_id, message.SerializeToString()))

    def step(self, table: TableMaker) -> None:
        assert self.relay is not None
        self.table = table
        self.steps += 1
        self.relay.stepped[self.start.match_id] = self

    def asked(
        self, seat: int, bank_ms: float, at: float | None = None, decision: int | None = None
    ) -> None:
        # The decision stays on the worker: a cluster's versions' output comes back per batch,
        # not by decision (docs/contest.md, "On a Dask cluster").
        assert self.relay is not None
        moment = time.monotonic() if at is None else at  # one clock for every process here
        self.relay.outbox.append(("asked", self.start.match_id, seat, bank_ms, moment))

    def answered(self, seat: int, bank_ms: float) -> None:
        assert self.relay is not None
        self.relay.outbox.append(("answered", self.start.match_id, seat, bank_ms))

    def finish(self, end: referee_pb2.MatchEnd) -> None:
        assert self.relay is not None
        self.relay.table_of(self)  # the final table, before the result
        super().finish(end)


@dataclass(eq=False)
class RelayedLiveMatches(LiveMatches):
    """A worker's live matches, kept only as what to send next (`take`)."""

    outbox: list[Relayed] = field(default_factory=list)
    #: The matches with a step since their table was last sent.
    stepped: dict[str, LiveMatch] = field(default_factory=dict)

    def open(self, start: referee_pb2.MatchStart, banks_ms: Sequence[float] = ()) -> LiveMatch:
        live = _RelayedMatch(start, relay=self)
        self.matches[start.match_id] = live
        self.outbox.append(("open", start.SerializeToString(), list(banks_ms)))
        return live

    def close(self, match_id: str) -> None:
        super().close(match_id)
        self.stepped.pop(match_id, None)
        self.outbox.append(("close", match_id))

    def table_of(self, live: LiveMatch) -> None:
        """The match's latest table into the outbox, if a step came since the last one."""
        if self.stepped.pop(live.start.match_id, None) is not None and live.table is not None:
            table = live.table().SerializeToString()
            self.outbox.append(("table", live.start.match_id, table))

    def take(self) -> list[Relayed]:
        """Everything since the last call, each stepped match's latest table last."""
        for live in list(self.stepped.values()):
            self.table_of(live)
        taken, self.outbox = self.outbox, []
        return taken


async def relayed(
    play: Callable[[LiveMatches], Awaitable[None]],
    send: Callable[[list[Relayed]], Awaitable[None]],
) -> None:
    """`play(live)`, what its matches publish in `live` sent in batches every RELAY_SECONDS
    while there is something to send, and the last batch once it is over."""
    live = RelayedLiveMatches()

    async def relay() -> None:
        while True:
            await trio.sleep(RELAY_SECONDS)
            batch = live.take()
            if batch:
                await send(batch)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(relay)
        await play(live)
        nursery.cancel_scope.cancel()
    if last := live.take():  # the last matches' ends
        await send(last)


#: What a viewer of a match its worker lost sees as the result.
LOST = "its referee worker died: the match is played again from the start"


class Mirror:
    """The coordinator's copy of its workers' live matches, in the LiveMatches its site reads.
    A source is what plays them: a referee worker's number, a Dask batch's."""

    def __init__(self, live: LiveMatches) -> None:
        self.live = live
        #: The live matches each source (a worker's number) has open.
        self.opened: dict[int, set[str]] = {}

    def apply(self, source: int, batch: Sequence[Relayed]) -> None:
        """Replay a batch from `source`."""
        for relayed in batch:
            match relayed:
                case ("open", bytes() as data, list() | tuple() as banks):  # tuples: msgpack
                    start = referee_pb2.MatchStart.FromString(data)
                    # Open already: its source died and Dask runs it again (its viewers end).
                    self._close(source, start.match_id)
                    self.live.open(start, banks)
                    self.opened.setdefault(source, set()).add(start.match_id)
                case ("close", str() as match_id):
                    self._close(source, match_id)
                case (str() as kind, str() as match_id, *rest):
                    live = self.live.get(match_id)
                    if live is not None:
                        _replay(live, kind, rest)

    def lost(self, source: int) -> None:
        """`source` died: its live matches end for their viewers (they are played again)."""
        for match_id in sorted(self.opened.get(source, set())):
            self._close(source, match_id)
        self.opened.pop(source, None)

    def _close(self, source: int, match_id: str) -> None:
        self.opened.get(source, set()).discard(match_id)
        live = self.live.get(match_id)
        if live is not None and not live.over:
            aborted = common_pb2.Result(
                termination=common_pb2.TERMINATION_ABORTED,
                text=LOST,
                seats=[
                    common_pb2.SeatResult(seat=seat, name=name)
                    for seat, name in enumerate(live.start.seat_names)
                ],
            )
            live.finish(referee_pb2.MatchEnd(match_id=match_id, result=aborted))
        self.live.close(match_id)


def _replay(live: LiveMatch, kind: str, rest: list[object]) -> None:
    """One relayed change of a live match into its copy here."""
    match kind, rest:
        case "message", [bytes() as data]:
            message = referee_pb2.WatchMessage.FromString(data)
            if message.HasField("match_end"):
                live.finish(message.match_end)
            else:
                live.publish(message.event.event)
        case "table", [bytes() as data]:
            live.step(lambda: game_pb2.Observation.FromString(data))
        case "asked", [int() as seat, float() | int() as bank, float() as at]:
            live.asked(seat, bank, at)
        case "answered", [int() as seat, float() | int() as bank]:
            live.answered(seat, bank)
