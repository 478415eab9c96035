"""The Play stream: a bot's session from its first message (Hello, checked against the lobby and
its token's session limit) to its end, and the rate limit on what it sends unasked.

Handlers run on the asyncio loop, which trio steps on its own thread (referee.transport.host): they
hand what comes to the trio side with plain calls, and the trio side sends back by putting on the
stream's outbound queue. Play's requests arrive as raw bytes: a message that does not parse
is the bot's fault (recorded by its seat), not a broken stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import grpc
from google.protobuf.message import DecodeError

from croupier.v1 import referee_pb2
from referee.match.lobby import Lobby
from referee.match.logrates import LogLimiter, host_of
from referee.match.session import Backlog, Ending, Session
from referee.match.wire import WireRequest
from referee.transport.host import arrival_bound, polls, sender
from referee.transport.settings import ServerSettings
from referee.version import VERSION

log = logging.getLogger("croupier.referee")

#: After Goodbye, how long a stream waits for the bot to close its side before it ends (the
#: server's stop allows 1 s in all: ServerSettings.grace_seconds).
GOODBYE_SECONDS = 0.5

#: What a Play stream sends: a RefereeMessage, or an action request already encoded.
Outgoing = referee_pb2.RefereeMessage | WireRequest
#: A Play stream's context: raw bytes in (see `_parse`), what `serialize` writes out.
Context = grpc.aio.ServicerContext[bytes, Outgoing]


def serialize(message: Outgoing) -> bytes:
    """The Play stream's serializer: an action request is encoded already (referee.match.wire)."""
    if isinstance(message, WireRequest):
        return message.data
    return message.SerializeToString()


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | grpc.aio.Metadata | None) -> str:
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            if text.startswith("Bearer "):
                return text.removeprefix("Bearer ").strip()
    return ""


class _Outbound:
    """A stream's messages waiting to be sent, for its one writer (`_session`). asyncio.Queue
    did the same, but each wait of its writer looked the running loop up, and on Python 3.11
    that is a getpid system call (see `_SteppedLoop.running` in referee.transport.host)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: deque[Outgoing | Ending] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: Outgoing | Ending) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Outgoing | Ending:
        while not self._items:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


@dataclass(slots=True)
class _Asked:
    """ActionRequests sent on one stream and not yet matched by a message from the bot: that
    many messages are replies the referee asked for, exempt from the rate limit. Counting, not
    parsing, keeps the read path cheap; a bot's message sent in place of a reply uses the credit
    and is judged by its seat as usual."""

    unanswered: int = 0


class PlayService:
    """The Play RPC for one lobby: the streams each bot holds open, counted per token."""

    def __init__(
        self,
        lobby: Lobby,
        settings: ServerSettings,
        door: str = "",
    ) -> None:
        self.lobby = lobby
        #: The door this service answers at ("": the referee's main address); the lobby
        #: accepts a token only at its own (see serve_door).
        self.door = door
        self.settings = settings
        self.open_streams: dict[str, int] = {}
        #: Lines a bot can provoke (refusals, streams without Hello), rate-limited per bot.
        self.notes = LogLimiter(log, per_second=settings.log_lines_per_second)
        #: What each bot's open sessions hold unread, together (dropped with its last stream).
        self.backlogs: dict[str, Backlog] = {}

    async def play(self, requests: object, context: Context) -> None:
        """A bot's session: authenticate, count it against its token's limit, then serve it.

        grpc.aio's reader-writer API (`context.read` and `context.write`), not its iterators:
        every message in and out then skips the async generators that bridge the two, which
        cost the referee's thread more than the rest of grpc's Python per message. `requests`,
        the iterator grpc passes all the same, is left unread.

        The token is checked once the first message (Hello) has arrived: a refusal before the
        client's first write completes reaches the client as INTERNAL, not as the reason. A
        stream without a first message is logged (rate-limited) and let go.
        """
        peer = context.peer()
        wait = self.settings.hello_timeout_seconds
        first: bytes | None = None
        silence = "the stream ended before its first message"
        try:
            read = await asyncio.wait_for(context.read(), wait)
            first = read if isinstance(read, bytes) else None  # else grpc.aio.EOF
        except TimeoutError:
            silence = f"no first message within {wait:g} s"
        token = bearer_token(context.invocation_metadata())
        identity = self.lobby.identity(token, self.door)
        if identity is None:
            self.notes.info(host_of(peer), "refused", peer=peer, why="bad token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, self.lobby.refusal(token))
            return
        account = self.lobby.label(identity)
        if first is None:
            self.notes.info(account, "no hello", bot=account, peer=peer, why=silence)
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, silence)
            return
        limit = self.settings.max_sessions_per_token
        if self.open_streams.get(identity, 0) >= limit:
            why = (
                f"session limit: at most {limit} open sessions per token; open fewer "
                "(CROUPIER_SESSIONS) or close one first"
            )
            self.notes.info(account, "refused", bot=account, peer=peer, why=why)
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, why)
        self.open_streams[identity] = self.open_streams.get(identity, 0) + 1
        try:
            await self._session(identity, first, context, self.lobby.credential(token))
        finally:
            self.open_streams[identity] -= 1
            if not self.open_streams[identity]:
                del self.open_streams[identity]
                self.backlogs.pop(identity, None)

    async def _session(
        self, identity: str, first: bytes, context: Context, credential: str
    ) -> None:
        hello = _parse(first)
        if hello is None or hello.WhichOneof("kind") != "hello":
            account = self.lobby.label(identity)
            kind = hello.WhichOneof("kind") if hello is not None else "undecodable bytes"
            why = f"the first message is {kind or 'empty'}, not Hello"
            self.notes.info(account, "no hello", bot=account, peer=context.peer(), why=why)
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a session must be Hello"
            )
            return
        refusal = self.lobby.refuse_hello(identity, hello.hello)
        if refusal is not None:
            account = self.lobby.label(identity)  # never the token itself
            self.notes.info(account, "refused", bot=account, peer=context.peer(), why=refusal)
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, refusal)
            return
        outbound = _Outbound(asyncio.get_running_loop())
        backlog = self.backlogs.setdefault(
            identity, Backlog(limit_bytes=self.settings.max_queued_bytes_per_bot)
        )
        send = sender(outbound.put)
        session = Session(
            identity=identity,
            hello=hello.hello,
            send=send,
            finish=send,
            account=self.lobby.label(identity),
            credential=credential,
            max_queued=self.settings.max_queued_messages,
            backlog=backlog,
            polls=polls,
        )
        log.info(
            "session opened",
            extra={
                "session": session.id,
                "bot": session.account,
                "bot_name": session.name,
                "peer": context.peer(),
            },
        )
        await context.write(
            referee_pb2.RefereeMessage(
                welcome=referee_pb2.Welcome(
                    session_id=session.id,
                    referee_version=VERSION,
                    protocol_version=session.protocol,
                )
            )
        )
        self.lobby.open(session)
        asked = _Asked()
        reader = asyncio.ensure_future(self._read(context, session, outbound, asked))
        ending = Ending("the stream ended")
        said_goodbye = False
        try:
            while not isinstance(message := await outbound.get(), Ending):
                if isinstance(message, WireRequest):
                    asked.unanswered += 1
                else:
                    said_goodbye |= message.WhichOneof("kind") == "goodbye"
                session.leaving(message)  # a request's clock starts as gRPC takes it
                await context.write(message)
            ending = message
        except BaseException:
            reader.cancel()
            raise
        finally:
            session.close(ending.reason)
            log.info(
                "session closed",
                extra={"session": session.id, "bot": session.account, "why": ending.reason},
            )
        if said_goodbye:
            # The bot's side first, for a moment: a call ended now fails a reply the bot is
            # writing, and its gRPC client then drops what it has not read (MatchEnd, Goodbye).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader), GOODBYE_SECONDS)
        try:
            if ending.status != "OK":
                await context.abort(grpc.StatusCode[ending.status], ending.reason)
        finally:
            reader.cancel()  # only now: cancelling a pending read first fails the call (INTERNAL)

    async def _read(
        self,
        context: Context,
        session: Session,
        outbound: _Outbound,
        asked: _Asked,
    ) -> None:
        detail = "the bot closed its stream"
        rate = self.settings.max_messages_per_second
        allowance = float(self.settings.message_burst)
        last = time.perf_counter()
        limited = False
        try:
            while isinstance(raw := await context.read(), bytes):  # until grpc.aio.EOF
                # a reply's clock stops when it came in, not when the loop got round to it
                came = arrival_bound()
                if limited:  # the stream is ending; keep reading so the status gets through
                    continue
                if asked.unanswered > 0:  # the answer to a request (or in its place): free
                    asked.unanswered -= 1
                    session.deliver(raw, session.arriving(came))
                    continue
                now = time.perf_counter()
                allowance = min(self.settings.message_burst, allowance + (now - last) * rate)
                last = now
                if allowance < 1:  # end the stream
                    detail = (
                        f"rate limit: more than {rate:g} unasked messages per second; send a "
                        "message only to answer a request"
                    )
                    goodbye = referee_pb2.Goodbye(reason=detail)
                    outbound.put(referee_pb2.RefereeMessage(goodbye=goodbye))
                    outbound.put(Ending(detail, "RESOURCE_EXHAUSTED"))
                    limited = True
                    continue
                allowance -= 1
                session.deliver(raw, session.arriving(came))
        except Exception as error:
            detail = f"stream error: {error}"
        finally:
            session.close(detail)
            # The bot's side is over: end ours too (the core keeps its own status, if any).
            outbound.put(Ending(detail))


def _parse(raw: bytes) -> referee_pb2.BotMessage | None:
    message = referee_pb2.BotMessage()
    try:
        message.ParseFromString(raw)
    except DecodeError:
        return None
    return message
