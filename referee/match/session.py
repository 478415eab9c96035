"""A bot's session on the trio side: one Play stream, its inbox and what it sends.

The transport (the only code that knows gRPC) opens a `Session` per authenticated Play stream and
feeds it what the bot sends; the session sends with a plain callback. Everything here is trio and
protobuf messages; the seat that plays through a session is `referee.match.remote_seat`.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

import trio
from google.protobuf.message import DecodeError

from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import DecisionTimer
from referee.match.launched import LaunchedBot
from referee.match.logrates import LogLimiter
from referee.match.wire import WireRequest

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
    identity: str
    hello: referee_pb2.Hello
    #: Every action request goes as a WireRequest (already encoded), everything else as a
    #: RefereeMessage.
    send: Callable[[referee_pb2.RefereeMessage | WireRequest], None]
    finish: Callable[[Ending], None]
    id: str = field(default_factory=lambda: f"s{next(_session_ids)}")
    closed: trio.Event = field(default_factory=trio.Event)
    #: Set by whoever launched the bot's process when it exits (see
    #: referee.match.remote_seat.CRASH_GRACE_SECONDS).
    process_exited: trio.Event = field(default_factory=trio.Event)
    exit_detail: str = ""
    #: The fault the exit is: a crash, or the limit the launcher saw it go over.
    exit_reason: common_pb2.FaultReason = common_pb2.FAULT_REASON_CRASHED
    #: Requests that timed out: a late reply to one of them is dropped, not a second fault.
    expired: set[int] = field(default_factory=set)
    #: Who the bot is, safe to show and log (an account name, never a token): see Lobby.label.
    account: str = ""
    #: The SHA-256 of the token it came with, when a contest's accounts admitted it (one
    #: member's of a team; see Lobby.credential), so that revoking that token ends this
    #: session and not the team's others. Never shown nor logged.
    credential: str = ""
    max_queued: int = MAX_QUEUED_MESSAGES
    backlog: Backlog = field(default_factory=Backlog)
    #: Matches this session has played (for the referee's per-session match limit).
    matches_played: int = 0
    #: Messages dropped over the queue limit since the last fault that reported them.
    dropped: int = 0
    #: The pending decision's timer: the transport stamps when its request leaves.
    timer: DecisionTimer | None = None
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
        #: What the inbox holds (the channel's statistics, without building them every time).
        self._unread = 0

    @property
    def unread(self) -> int:
        """Messages (and the Closed sentinel) in the inbox, not yet taken by a seat."""
        return self._unread

    def _put(self, item: Inbound) -> None:
        self._inbox_send.send_nowait(item)
        self._unread += 1

    @property
    def name(self) -> str:
        """The bot's own name from its Hello, made safe to show: printable, at most 64 chars."""
        shown = "".join(c for c in self.hello.name if c.isprintable())[:MAX_NAME_CHARS]
        return shown or "bot"

    def leaving(self, message: referee_pb2.RefereeMessage | WireRequest) -> None:
        """Called by the transport as it hands `message` to gRPC: a request's clock starts."""
        if self.timer is not None and isinstance(message, WireRequest):
            self.timer.left()

    def arriving(self, stamp: float | None = None) -> float:
        """Called by the transport as a message from the bot arrives, with the earliest time
        it can have arrived (perf_counter; default now); returns the stamp (see
        `DecisionTimer.arrival`)."""
        stamp = time.perf_counter() if stamp is None else stamp
        if self.timer is not None:
            stamp = self.timer.arrival(stamp)
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
        if self._unread >= self.max_queued:
            over = f"{self.max_queued} messages"
        elif self.backlog.queued_bytes + len(raw) > self.backlog.limit_bytes:
            over = f"{self.backlog.limit_bytes} bytes for this bot"
        else:
            self.backlog.queued_bytes += len(raw)
            stamp = time.perf_counter() if arrived is None else arrived
            self._put((raw, stamp))
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
        self._unread -= 1
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
                self._put(kept)
            self._put(Closed(detail, final))

    def expire(self, request_id: int) -> None:
        """The request timed out: a late reply to it is dropped (the newest MAX_EXPIRED kept;
        a very late reply is then out of turn)."""
        self.expired.add(request_id)
        if len(self.expired) > MAX_EXPIRED:
            self.expired.remove(min(self.expired))

    def is_late(self, raw: bytes) -> bool:
        """A reply to a request that already timed out: dropped, not a fault."""
        message = decode(raw)
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


def decode(raw: bytes) -> referee_pb2.BotMessage | None:
    """A message from the bot, or None if it does not parse or holds nothing."""
    message = referee_pb2.BotMessage()
    try:
        message.ParseFromString(raw)
    except DecodeError:
        return None
    return message if message.WhichOneof("kind") is not None else None
