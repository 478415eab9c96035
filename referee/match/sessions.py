"""Bot sessions on the trio side, and the remote seat that plays through one.

The transport (the only code that knows gRPC) opens a `Session` per authenticated Play stream and
feeds it what the bot sends; the session sends with a plain callback. Everything here is trio and
protobuf messages, so the runner's view of a remote bot is the same `Seat` as an in-process one.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

import trio
from google.protobuf.message import DecodeError

from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import Stopwatch
from referee.match.processes import BotProcessGroup
from referee.match.seats import SeatFault

#: How long a seat whose stream closed waits to learn whether its process died (a crash) rather
#: than only its connection (a disconnect).
CRASH_GRACE_SECONDS = 0.5

#: How often a seat whose bot's time is up looks whether the transport's loop has polled.
POLL_WAIT_SECONDS = 0.001

_session_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Closed:
    """Sentinel in a session's inbox: the bot's stream ended. A `final` end (a revoked token)
    is not waited out for a reconnect."""

    detail: str
    final: bool = False


@dataclass(frozen=True, slots=True)
class Ending:
    """How the referee ends a stream: after a Goodbye with status OK, or with an error status
    named as gRPC names it (the transport maps it), e.g. PERMISSION_DENIED."""

    reason: str
    status: str = "OK"


#: A message as the bot sent it, with the time (perf_counter) it arrived at the transport.
Inbound: TypeAlias = tuple[bytes, float] | Closed


@dataclass(eq=False)
class Session:
    """One bot's Play stream: matches one after another, one request at a time.

    `deliver` and `close` are called by the transport; `send` goes back through it. Raw bytes
    arrive undecoded so that a malformed message is the bot's fault, not a broken stream.
    """

    #: The bot this session belongs to (see referee.match.lobby): the identity its token maps to.
    token: str
    hello: referee_pb2.Hello
    send: Callable[[referee_pb2.RefereeMessage], None]
    finish: Callable[[Ending], None]
    id: str = field(default_factory=lambda: f"s{next(_session_ids)}")
    closed: trio.Event = field(default_factory=trio.Event)
    #: Set by whoever launched the bot's process when it exits (see CRASH_GRACE_SECONDS).
    process_exited: trio.Event = field(default_factory=trio.Event)
    exit_detail: str = ""
    #: Requests that timed out: a late reply to one of them is dropped, not a second fault.
    expired: set[int] = field(default_factory=set)
    #: The pending decision's stopwatch: the transport stamps when its request leaves.
    watch: Stopwatch | None = None
    #: Messages the transport received from the bot (counted at once, before they reach the
    #: inbox) and messages a seat took from the inbox: while more came than were taken, one
    #: is on its way, and a seat waits for it rather than time the bot out.
    arrivals: int = 0
    taken: int = 0
    #: The bot's launched process, if the referee launched it (see referee.match.processes).
    process: BotProcessGroup | None = None
    #: How many times the transport's loop has polled for I/O (None: unknown): a seat whose
    #: bot's time is up lets it poll twice more, so that a reply already in is seen.
    polls: Callable[[], int | None] = lambda: None

    def __post_init__(self) -> None:
        self._inbox_send, self.inbox = trio.open_memory_channel[Inbound](math.inf)

    @property
    def name(self) -> str:
        return self.hello.name or "bot"

    def leaving(self, message: referee_pb2.RefereeMessage) -> None:
        """Called by the transport as it hands `message` to gRPC: a request's clock starts."""
        watch = self.watch
        if watch is not None and watch.sent is None and message.HasField("action_request"):
            watch.sent = time.perf_counter()

    def arriving(self, stamp: float | None = None) -> float:
        """Called by the transport as a message from the bot arrives, with the earliest time
        it can have arrived (perf_counter; default now); returns the stamp."""
        stamp = time.perf_counter() if stamp is None else stamp
        if self.watch is not None and self.watch.sent is not None:
            stamp = max(stamp, self.watch.sent)  # nothing answers a request before it left
        self.arrivals += 1
        return stamp

    def deliver(self, raw: bytes, arrived: float | None = None) -> None:
        self._inbox_send.send_nowait((raw, time.perf_counter() if arrived is None else arrived))

    def close(self, detail: str, *, final: bool = False) -> None:
        if not self.closed.is_set():
            self.closed.set()
            self._inbox_send.send_nowait(Closed(detail, final))

    def end(self, reason: str, status: str = "OK") -> None:
        """Say Goodbye and close the stream from the referee's side (with `status`)."""
        if not self.closed.is_set():
            if self.process is not None:
                self.process.release()  # a stopped bot could not read its Goodbye
            self.send(referee_pb2.RefereeMessage(goodbye=referee_pb2.Goodbye(reason=reason)))
            self.finish(Ending(reason, status))

    def abort(self, reason: str, status: str = "PERMISSION_DENIED") -> None:
        """End the stream with an error status now; the session's seats fault at once."""
        if not self.closed.is_set():
            self.finish(Ending(reason, status))
            self.close(reason, final=True)


class Roster(Protocol):
    """Where a seat in play is listed, so that its bot's new session finds it (a Lobby)."""

    def enlist(self, seat: RemoteSeat) -> None: ...

    def release(self, seat: RemoteSeat) -> None: ...


class RemoteSeat:
    """A seat played by a bot over its session. Implements `referee.seats.Seat`.

    With a `lobby` and a `grace` period, a bot that loses its connection may come back with the
    same token within `grace` seconds: it gets the MatchStart again and the pending request, with
    what is left of its clock (which kept running). `session` is then the new session.
    """

    def __init__(self, session: Session, lobby: Roster | None = None, grace: float = 0.0) -> None:
        self.session = session
        self.name = session.name
        self.version = session.hello.version
        self.lobby = lobby
        self.grace = grace
        self._start: referee_pb2.MatchStart | None = None
        self._lost: SeatFault | None = None
        self._replacement: Session | None = None
        self._replaced = trio.Event()

    def offer(self, session: Session) -> bool:
        """A new session of this seat's bot: taken if the seat lost its own and may wait."""
        if self.grace <= 0 or not self.session.closed.is_set() or self._replacement is not None:
            return False
        self._replacement = session
        self._replaced.set()
        return True

    async def start(self, start: referee_pb2.MatchStart) -> None:
        self._start = start
        if self.lobby is not None and self.grace > 0:
            self.lobby.enlist(self)
        self.session.send(referee_pb2.RefereeMessage(match_start=start))
        if self.session.process is not None:
            self.session.process.idle()

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        if self.lobby is not None:
            self.lobby.release(self)
        if self.session.process is not None:
            self.session.process.release()  # between matches the bot may do as it likes
        if self._replacement is not None:
            # The bot came back after its last decision: it is simply free for the next match.
            self.session, self._replacement = self._replacement, None
            return
        self.session.send(referee_pb2.RefereeMessage(match_end=end))

    async def act(self, request: referee_pb2.ActionRequest, watch: Stopwatch) -> int:
        """Send the request and wait for the reply. The clock runs from when the transport
        sends the request to when the reply arrives there (`watch`); this seat ends the wait
        when that time is up, and the runner's deadline bounds the referee's lag around it."""
        if self._lost is not None:
            raise self._lost
        watch.allow_lag()
        sent = trio.current_time()
        closed = self._check_out_of_turn()
        process = self.session.process
        if process is not None:
            watch.cpu_before = process.cpu_seconds()
            process.to_move()
        try:
            self.session.watch = watch
            if closed is not None and not await self._reconnect(closed, request, sent, watch):
                raise await self._lose(closed.detail)
            if closed is None:
                self.session.send(referee_pb2.RefereeMessage(action_request=request))
            return await self._reply(request, sent, watch)
        finally:
            if process is not None:
                process.moved()
                watch.cpu_after = process.cpu_seconds()
            self.session.watch = None

    async def _reply(
        self, request: referee_pb2.ActionRequest, sent: float, watch: Stopwatch
    ) -> int:
        answered = False
        try:
            while True:
                with trio.move_on_at(self._due(watch)):
                    item = await self.session.inbox.receive()
                    if isinstance(item, Closed):
                        if await self._reconnect(item, request, sent, watch):
                            continue
                        answered = True
                        raise await self._lose(item.detail)
                    raw, arrived = item
                    self.session.taken += 1
                    reply = self._parse_reply(raw, request)
                    if reply is None:
                        continue  # a late reply to a request that already timed out
                    answered = True
                    watch.arrived = arrived
                    return reply.action_index
                await self._end_if_due(watch)
        finally:
            if not answered:  # cancelled by the seat's clock
                self.session.expired.add(request.request_id)

    async def _end_if_due(self, watch: Stopwatch) -> None:
        """The bot's time is up and nothing of it is on its way: the runner's scope ends the
        decision (and the runner records the timeout)."""
        if time.perf_counter() < watch.due() or self._on_its_way():
            return
        mark = self.session.polls()
        while mark is not None and not self._on_its_way():
            count = self.session.polls()
            if count is None or count >= mark + 2:
                break
            await trio.sleep(POLL_WAIT_SECONDS)
        if not self._on_its_way():
            watch.scope.cancel()
            await trio.lowlevel.checkpoint()

    def _on_its_way(self) -> bool:
        """A message of the bot reached the transport and not yet this seat."""
        return self.session.arrivals > self.session.taken

    def _due(self, watch: Stopwatch) -> float:
        """The bot's deadline in trio's time; none while a message of the bot is on its way
        from the transport (the runner's deadline still bounds the wait)."""
        if self._on_its_way():
            return math.inf
        return trio.current_time() + (watch.due() - time.perf_counter())

    async def _reconnect(
        self, closed: Closed, request: referee_pb2.ActionRequest, sent: float, watch: Stopwatch
    ) -> bool:
        """Wait for the bot to come back; True once the pending request went to it again."""
        if closed.final or self.lobby is None or self.grace <= 0 or self._start is None:
            return False
        with trio.move_on_at(min(trio.current_time() + self.grace, self._due(watch))):
            await self._replaced.wait()
        if not self._replaced.is_set():
            await self._end_if_due(watch)
        session, self._replacement = self._replacement, None
        self._replaced = trio.Event()
        if session is None:
            return False
        self.session = session
        session.watch = watch
        session.send(referee_pb2.RefereeMessage(match_start=self._start))
        again = referee_pb2.ActionRequest()
        again.CopyFrom(request)
        spent = round((trio.current_time() - sent) * 1000)
        again.clock.deadline_ms = max(0, request.clock.deadline_ms - spent)
        session.send(referee_pb2.RefereeMessage(action_request=again))
        return True

    def _check_out_of_turn(self) -> Closed | None:
        """Replies that arrived while nothing was asked are faults (unless late for a timeout)."""
        while True:
            try:
                raw = self.session.inbox.receive_nowait()
            except trio.WouldBlock:
                return None
            if isinstance(raw, Closed):
                return raw
            self.session.taken += 1
            message = _decode(raw[0])
            if message is not None and message.WhichOneof("kind") == "action_reply":
                if message.action_reply.request_id in self.session.expired:
                    continue
                raise SeatFault(
                    common_pb2.FAULT_REASON_OUT_OF_TURN,
                    f"reply to request {message.action_reply.request_id} arrived when no "
                    "request was pending",
                )
            raise SeatFault(
                common_pb2.FAULT_REASON_MALFORMED_MESSAGE, "unexpected message between requests"
            )

    async def _lose(self, detail: str) -> SeatFault:
        with trio.move_on_after(CRASH_GRACE_SECONDS):
            await self.session.process_exited.wait()
        if self.session.process_exited.is_set():
            self._lost = SeatFault(
                common_pb2.FAULT_REASON_CRASHED, f"bot process exited: {self.session.exit_detail}"
            )
        else:
            self._lost = SeatFault(common_pb2.FAULT_REASON_DISCONNECTED, detail)
        return self._lost

    def _parse_reply(
        self, raw: bytes, request: referee_pb2.ActionRequest
    ) -> referee_pb2.ActionReply | None:
        message = _decode(raw)
        if message is None or message.WhichOneof("kind") != "action_reply":
            what = "undecodable bytes" if message is None else "a message that is not ActionReply"
            raise SeatFault(
                common_pb2.FAULT_REASON_MALFORMED_MESSAGE, f"expected ActionReply, got {what}"
            )
        reply = message.action_reply
        if reply.request_id != request.request_id:
            if reply.request_id in self.session.expired:
                return None
            if reply.request_id < request.request_id:  # ids only grow: an earlier request
                raise SeatFault(
                    common_pb2.FAULT_REASON_OUT_OF_TURN,
                    f"a reply to request {reply.request_id}, which is no longer pending",
                )
            raise SeatFault(
                common_pb2.FAULT_REASON_WRONG_REQUEST,
                f"reply names request {reply.request_id}, pending is {request.request_id}",
            )
        if reply.match_id != request.match_id:
            raise SeatFault(
                common_pb2.FAULT_REASON_WRONG_REQUEST,
                f"reply names match {reply.match_id!r}, pending is {request.match_id!r}",
            )
        return reply


def _decode(raw: bytes) -> referee_pb2.BotMessage | None:
    message = referee_pb2.BotMessage()
    try:
        message.ParseFromString(raw)
    except DecodeError:
        return None
    return message if message.WhichOneof("kind") is not None else None
