"""Bot sessions on the trio side, and the remote seat that plays through one.

The transport (the only code that knows gRPC) opens a `Session` per authenticated Play stream and
feeds it what the bot sends; the session sends with a plain callback. Everything here is trio and
protobuf messages, so the runner's view of a remote bot is the same `Seat` as an in-process one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

import trio
from google.protobuf.message import DecodeError

from croupier.v1 import common_pb2, referee_pb2
from referee.seats import SeatFault

#: How long a seat whose stream closed waits to learn whether its process died (a crash) rather
#: than only its connection (a disconnect).
CRASH_GRACE_SECONDS = 0.5

_session_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Closed:
    """Sentinel in a session's inbox: the bot's stream ended."""

    detail: str


Inbound: TypeAlias = bytes | Closed


@dataclass(eq=False)
class Session:
    """One bot's Play stream: matches one after another, one request at a time.

    `deliver` and `close` are called by the transport; `send` goes back through it. Raw bytes
    arrive undecoded so that a malformed message is the bot's fault, not a broken stream.
    """

    token: str
    hello: referee_pb2.Hello
    send: Callable[[referee_pb2.RefereeMessage], None]
    finish: Callable[[str], None]
    id: str = field(default_factory=lambda: f"s{next(_session_ids)}")
    closed: trio.Event = field(default_factory=trio.Event)
    #: Set by whoever launched the bot's process when it exits (see CRASH_GRACE_SECONDS).
    process_exited: trio.Event = field(default_factory=trio.Event)
    exit_detail: str = ""
    #: Requests that timed out: a late reply to one of them is dropped, not a second fault.
    expired: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._inbox_send, self.inbox = trio.open_memory_channel[Inbound](math.inf)

    @property
    def name(self) -> str:
        return self.hello.name or "bot"

    def deliver(self, raw: bytes) -> None:
        self._inbox_send.send_nowait(raw)

    def close(self, detail: str) -> None:
        if not self.closed.is_set():
            self.closed.set()
            self._inbox_send.send_nowait(Closed(detail))

    def end(self, reason: str) -> None:
        """Say Goodbye and close the stream from the referee's side."""
        if not self.closed.is_set():
            self.send(referee_pb2.RefereeMessage(goodbye=referee_pb2.Goodbye(reason=reason)))
            self.finish(reason)


class RemoteSeat:
    """A seat played by a bot over its session. Implements `referee.seats.Seat`."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.name = session.name
        self.version = session.hello.version
        self._lost: SeatFault | None = None

    async def start(self, start: referee_pb2.MatchStart) -> None:
        self.session.send(referee_pb2.RefereeMessage(match_start=start))

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        self.session.send(referee_pb2.RefereeMessage(match_end=end))

    async def act(self, request: referee_pb2.ActionRequest) -> int:
        if self._lost is not None:
            raise self._lost
        closed = self._check_out_of_turn()
        if closed is not None:
            raise await self._lose(closed.detail)
        self.session.send(referee_pb2.RefereeMessage(action_request=request))
        answered = False
        try:
            while True:
                raw = await self.session.inbox.receive()
                if isinstance(raw, Closed):
                    answered = True
                    raise await self._lose(raw.detail)
                reply = self._parse_reply(raw, request)
                if reply is None:
                    continue  # a late reply to a request that already timed out
                answered = True
                return reply.action_index
        finally:
            if not answered:  # cancelled by the seat's clock
                self.session.expired.add(request.request_id)

    def _check_out_of_turn(self) -> Closed | None:
        """Replies that arrived while nothing was asked are faults (unless late for a timeout)."""
        while True:
            try:
                raw = self.session.inbox.receive_nowait()
            except trio.WouldBlock:
                return None
            if isinstance(raw, Closed):
                return raw
            message = _decode(raw)
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
