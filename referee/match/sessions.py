"""Bot sessions on the trio side, and the remote seat that plays through one.

The transport (the only code that knows gRPC) opens a `Session` per authenticated Play stream and
feeds it what the bot sends; the session sends with a plain callback. Everything here is trio and
protobuf messages, so the runner's view of a remote bot is the same `Seat` as an in-process one.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

import trio
from google.protobuf.message import DecodeError

from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import Stopwatch
from referee.match.launched import LaunchedBot
from referee.match.logrates import LogLimiter
from referee.match.seats import SeatFault

#: How long a seat whose stream closed waits to learn whether its process died (a crash) rather
#: than only its connection (a disconnect).
CRASH_GRACE_SECONDS = 0.5

#: How often a seat whose bot's time is up looks whether the transport's loop has polled.
POLL_WAIT_SECONDS = 0.001

_session_ids = itertools.count(1)
log = logging.getLogger("croupier.referee")
_warnings = LogLimiter(log, per_second=1)


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

#: Timed-out requests a session remembers, to drop late replies to them (the newest are kept).
MAX_EXPIRED = 64
#: The longest Hello.name shown (in records, MatchStart, logs); the rest is cut.
MAX_NAME_CHARS = 64
#: Messages a session may hold unread: a bot speaks only when asked, so more than a late reply or
#: two waiting is a bot talking out of turn (see `Session.deliver`).
MAX_QUEUED_MESSAGES = 8
#: Bytes all of one bot's sessions may hold unread together.
MAX_QUEUED_BYTES_PER_BOT = 1 << 20


@dataclass(eq=False)
class Backlog:
    """What one bot's sessions hold unread, together: shared by its sessions so that no bot can
    grow the referee by opening more of them."""

    limit_bytes: int = MAX_QUEUED_BYTES_PER_BOT
    queued_bytes: int = 0


def protocol_of(hello: referee_pb2.Hello) -> int:
    """The protocol version a session declared; unset means 1 (bots built before the field)."""
    return hello.protocol_version if hello.HasField("protocol_version") else 1


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
    #: The fault the exit is: a crash, or the limit the launcher saw it go over.
    exit_reason: common_pb2.FaultReason = common_pb2.FAULT_REASON_CRASHED
    #: Requests that timed out: a late reply to one of them is dropped, not a second fault.
    expired: set[int] = field(default_factory=set)
    #: Who the bot is, safe to show and log (an account name, never a token): see Lobby.label.
    account: str = ""
    max_queued: int = MAX_QUEUED_MESSAGES
    backlog: Backlog = field(default_factory=Backlog)
    #: Matches this session has played (for the referee's per-session match limit).
    matches_played: int = 0
    #: Messages dropped over the queue limit since the last fault that reported them.
    dropped: int = 0
    #: The pending decision's stopwatch: the transport stamps when its request leaves.
    watch: Stopwatch | None = None
    #: Messages the transport received from the bot (counted at once, before they reach the
    #: inbox) and messages a seat took from the inbox or the session let go: while more came
    #: than were taken, one is on its way, and a seat waits for it rather than time the bot out.
    arrivals: int = 0
    taken: int = 0
    #: The bot's launched process, if the referee launched it (see referee.match.launched).
    process: LaunchedBot | None = None
    #: How many times the transport's loop has polled for I/O (None: unknown): a seat whose
    #: bot's time is up lets it poll twice more, so that a reply already in is seen.
    polls: Callable[[], int | None] = lambda: None

    @property
    def protocol(self) -> int:
        """The protocol version the bot declared in its Hello (referee.match.lobby)."""
        return protocol_of(self.hello)

    def __post_init__(self) -> None:
        # Unbounded only so that the Closed sentinel always fits: `deliver` bounds the messages.
        self._inbox_send, self._inbox = trio.open_memory_channel[Inbound](math.inf)

    @property
    def name(self) -> str:
        """The bot's own name from its Hello, made safe to show: printable, at most 64 chars."""
        shown = "".join(c for c in self.hello.name if c.isprintable())[:MAX_NAME_CHARS]
        return shown or "bot"

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
        """A message from the bot, with when it arrived. Nobody reads between requests, so what
        a bot sends unasked waits here, to be faulted at its next request; past `max_queued`
        messages, or past its bot's `backlog`, more are dropped and counted (the count goes into
        that fault's detail, and into a warning line, rate-limited): a flood costs no memory."""
        if self.closed.is_set():
            self.taken += 1  # let go: no seat waits for it
            return
        if self._inbox.statistics().current_buffer_used >= self.max_queued:
            over = f"{self.max_queued} messages"
        elif self.backlog.queued_bytes + len(raw) > self.backlog.limit_bytes:
            over = f"{self.backlog.limit_bytes} bytes for this bot"
        else:
            self.backlog.queued_bytes += len(raw)
            stamp = time.perf_counter() if arrived is None else arrived
            self._inbox_send.send_nowait((raw, stamp))
            return
        self.taken += 1
        self.dropped += 1
        _warnings.info(
            self.account or self.id,
            "messages dropped",
            session=self.id,
            bot=self.account,
            why=f"queue limit: more than {over} sent while no request was pending",
            dropped=self.dropped,
        )

    async def receive(self) -> Inbound:
        """The bot's next message, or Closed once its stream ended (read by its seat)."""
        return self._counted(await self._inbox.receive())

    def receive_nowait(self) -> Inbound:
        """As `receive`, without waiting: raises trio.WouldBlock if nothing is there."""
        return self._counted(self._inbox.receive_nowait())

    def _counted(self, item: Inbound) -> Inbound:
        if not isinstance(item, Closed):
            self.taken += 1
            if not self.closed.is_set():
                self.backlog.queued_bytes -= len(item[0])
        return item

    def close(self, detail: str, *, final: bool = False) -> None:
        """The stream ended: unread messages are freed, all but the first one a seat would fault
        on, so that a closed session still held by a seat keeps at most one message."""
        if not self.closed.is_set():
            kept: tuple[bytes, float] | None = None
            while True:
                try:
                    item = self.receive_nowait()
                except trio.WouldBlock:
                    break
                if kept is None and not isinstance(item, Closed) and not self.is_late(item[0]):
                    kept = item
            self.closed.set()
            if kept is not None:
                self.taken -= 1  # still to be taken by a seat
                self._inbox_send.send_nowait(kept)
            self._inbox_send.send_nowait(Closed(detail, final))

    def is_late(self, raw: bytes) -> bool:
        """A reply to a request that already timed out: dropped, not a fault."""
        message = _decode(raw)
        return (
            message is not None
            and message.WhichOneof("kind") == "action_reply"
            and message.action_reply.request_id in self.expired
        )

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
    """A seat played by a bot over its session. Implements `referee.match.seats.Seat`.

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
        #: The lost connection a reconnect may still make up for, and when it was lost.
        self._gone: Closed | None = None
        self._gone_at = 0.0
        #: Whether the loss in `_gone` was charged its one fault already.
        self._charged = False
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

    @property
    def cause(self) -> SeatFault | None:
        """Why the pending request is still unanswered, if the bot was lost before its clock ran
        out: the runner records this rather than a timeout (see seats.cause_of_silence). Read
        once a decision: the first read of a loss charges it."""
        if self._gone is None:
            return None
        return self._cause_of_loss(final=not self._may_come_back() and self._cause_known())

    async def act(self, request: referee_pb2.ActionRequest, watch: Stopwatch) -> int:
        """Send the request and wait for the reply. The clock runs from when the transport
        sends the request to when the reply arrives there (`watch`); this seat ends the wait
        when that time is up, and the runner's deadline bounds the referee's lag around it."""
        if self._lost is not None:
            raise self._lost
        watch.allow_lag()
        sent = trio.current_time()
        if self._gone is None:
            self._lost_connection(self._check_out_of_turn())
        process = self.session.process
        if process is not None:
            watch.cpu_before = process.cpu_seconds()
            watch.starved_before = process.starved_seconds()
            process.to_move()
        try:
            self.session.watch = watch
            if self._gone is not None:
                if not await self._reconnect(request, sent, watch):
                    raise await self._lose()
            else:
                self.session.send(referee_pb2.RefereeMessage(action_request=request))
            return await self._reply(request, sent, watch)
        finally:
            if process is not None:
                process.moved()
                watch.cpu_after = process.cpu_seconds()
                watch.starved_after = process.starved_seconds()
            self.session.watch = None

    async def _reply(
        self, request: referee_pb2.ActionRequest, sent: float, watch: Stopwatch
    ) -> int:
        answered = False
        try:
            while True:
                with trio.move_on_at(self._due(watch)):
                    item = await self.session.receive()
                    if isinstance(item, Closed):
                        self._lost_connection(item)
                        if await self._reconnect(request, sent, watch):
                            continue
                        answered = True
                        raise await self._lose()
                    raw, arrived = item
                    reply = self._parse_reply(raw, request)
                    if reply is None:
                        continue  # a late reply to a request that already timed out
                    answered = True
                    watch.arrived = arrived
                    return reply.action_index
                await self._end_if_due(watch)
        finally:
            if not answered:  # cancelled by the seat's clock
                expired = self.session.expired
                expired.add(request.request_id)
                if len(expired) > MAX_EXPIRED:  # a very late reply is then out of turn
                    expired.remove(min(expired))

    async def _end_if_due(self, watch: Stopwatch) -> None:
        """The bot's time is up and nothing of it is on its way: the runner's scope ends the
        decision (and the runner records the timeout, or the cause that came first)."""
        if time.perf_counter() < watch.due() or self._on_its_way() or self._starved(watch):
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

    def _starved(self, watch: Stopwatch) -> bool:
        """Whether the bot's deadline moved out for the time it waited for a CPU."""
        process = self.session.process
        if process is None or watch.starved_before is None:
            return False
        return watch.starved(process.starved_seconds(), process.cpu_seconds())

    def _on_its_way(self) -> bool:
        """A message of the bot reached the transport and not yet this seat."""
        return self.session.arrivals > self.session.taken

    def _due(self, watch: Stopwatch) -> float:
        """The bot's deadline in trio's time; none while a message of the bot is on its way
        from the transport (the runner's deadline still bounds the wait)."""
        if self._on_its_way():
            return math.inf
        return trio.current_time() + (watch.due() - time.perf_counter())

    def _lost_connection(self, closed: Closed | None) -> None:
        """Remember the loss and when it happened: the grace periods count from then, across
        decisions, since the seat's clock may cut a wait short."""
        if closed is not None:
            self._gone, self._gone_at = closed, trio.current_time()

    async def _reconnect(
        self, request: referee_pb2.ActionRequest, sent: float, watch: Stopwatch
    ) -> bool:
        """Wait for the bot to come back; True once the pending request went to it again."""
        if not self._may_come_back():
            return False
        with trio.move_on_at(min(self._gone_at + self.grace, self._due(watch))):
            await self._replaced.wait()
        if not self._replaced.is_set():
            await self._end_if_due(watch)
        session, self._replacement = self._replacement, None
        self._replaced = trio.Event()
        if session is None:
            return False
        self.session, self._gone, self._charged = session, None, False
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
                raw = self.session.receive_nowait()
            except trio.WouldBlock:
                return None
            if isinstance(raw, Closed):
                return raw
            if self.session.is_late(raw[0]):
                continue
            message = _decode(raw[0])
            dropped, self.session.dropped = self.session.dropped, 0
            more = f" ({dropped} more dropped over the queue limit)" if dropped else ""
            if message is not None and message.WhichOneof("kind") == "action_reply":
                raise SeatFault(
                    common_pb2.FAULT_REASON_OUT_OF_TURN,
                    f"reply to request {message.action_reply.request_id} arrived when no "
                    f"request was pending{more}",
                )
            raise SeatFault(
                common_pb2.FAULT_REASON_MALFORMED_MESSAGE,
                f"unexpected message between requests{more}",
            )

    def _may_come_back(self) -> bool:
        """Whether a new session of the bot may still take this seat back (a reconnect grace)."""
        assert self._gone is not None
        gone_for_good = self._gone.final or self.lobby is None or self.grace <= 0
        return not gone_for_good and self._start is not None

    def _cause_known(self) -> bool:
        """Whether the loss is known to be a crash or a disconnect: a launched bot's process
        has CRASH_GRACE_SECONDS to be seen exiting."""
        if self.session.process is None or self.session.process_exited.is_set():
            return True
        return trio.current_time() >= self._gone_at + CRASH_GRACE_SECONDS

    async def _lose(self) -> SeatFault:
        """The bot is not coming back: a crash if its process exited, else a disconnect."""
        with trio.move_on_at(self._gone_at + CRASH_GRACE_SECONDS):
            await self.session.process_exited.wait()
        self._lost = self._cause_of_loss(final=True)
        return self._lost

    def _cause_of_loss(self, *, final: bool) -> SeatFault:
        """The loss's fault: a `repeat` once the loss was charged, while the bot may still come
        back; the `final` one is charged too, as it retires the seat saying how the bot left."""
        assert self._gone is not None
        repeat, self._charged = self._charged and not final, True
        if self.session.process_exited.is_set():
            detail = f"bot process exited: {self.session.exit_detail}"
            reason = self.session.exit_reason  # crashed, or a sandbox limit
        else:
            reason, detail = common_pb2.FAULT_REASON_DISCONNECTED, self._gone.detail
        return SeatFault(reason, detail, final=final, repeat=repeat)

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
        if not reply.HasField("action_index"):
            if self.session.protocol < 2:  # version 1's stubs leave a chosen 0 off the wire
                reply.action_index = 0
            else:  # unset is not 0: never play a move for it
                raise SeatFault(
                    common_pb2.FAULT_REASON_MALFORMED_MESSAGE,
                    f"reply to request {reply.request_id!r} has no action_index",
                )
        return reply


def _decode(raw: bytes) -> referee_pb2.BotMessage | None:
    message = referee_pb2.BotMessage()
    try:
        message.ParseFromString(raw)
    except DecodeError:
        return None
    return message if message.WhichOneof("kind") is not None else None
