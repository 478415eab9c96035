"""The gRPC service: bot sessions (Play), the game list, health checking and reflection.

Handlers run on the asyncio loop and hand everything to the trio side through the trio token;
the trio side sends back by putting on the stream's asyncio queue, which is safe because trio runs
as a guest on the same thread. Play's requests arrive as raw bytes: a message that does not parse
is the bot's fault (recorded by its seat), not a broken stream.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import trio
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.games import GAMES
from referee.games.options import format_value
from referee.match.lobby import Lobby
from referee.match.logrates import LogLimiter, host_of
from referee.match.session import (
    MAX_QUEUED_BYTES_PER_BOT,
    MAX_QUEUED_MESSAGES,
    Backlog,
    Ending,
    Session,
)
from referee.match.spectators import LiveMatch, LiveMatches
from referee.transport.host import arrival_bound, call_asyncio, polls
from referee.transport.reflection import V1, V1ALPHA, ReflectionServicer
from referee.version import VERSION

SERVICE = "croupier.v1.Referee"
log = logging.getLogger("croupier.referee")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Where to listen and the transport's limits, all set explicitly."""

    host: str = "127.0.0.1"
    port: int = 0
    #: Largest message a bot may send; a bigger one ends its stream with RESOURCE_EXHAUSTED.
    max_receive_bytes: int = 64 * 1024
    max_send_bytes: int = 16 * 1024 * 1024
    #: The server pings idle connections to reap bots that vanished without a reset.
    keepalive_ms: int = 10_000
    keepalive_timeout_ms: int = 5_000
    #: Bots may ping this often without being cut off ("too many pings").
    min_client_ping_ms: int = 1_000
    grace_seconds: float = 1.0
    #: Open sessions one bot (token) may hold at once.
    max_sessions_per_token: int = 1000
    #: Messages per second a stream may send unasked on average, and in a burst. A reply to an
    #: ActionRequest the referee sent never counts, however fast the bot (issue 16).
    max_messages_per_second: float = 1000.0
    message_burst: int = 200
    #: Messages a session may hold unread (sent while no request was pending), and bytes all of
    #: one bot's sessions may hold so together; more are dropped and counted (the seat's next
    #: fault says how many), so talking out of turn costs the referee no memory.
    max_queued_messages: int = MAX_QUEUED_MESSAGES
    max_queued_bytes_per_bot: int = MAX_QUEUED_BYTES_PER_BOT
    #: How long a new stream may take to send its first message (Hello).
    hello_timeout_seconds: float = 10.0
    #: Log lines one bot (or, before its token is known, one address) may provoke a second.
    log_lines_per_second: int = 5
    #: PEM files; with them the server speaks TLS only.
    tls_cert: Path | None = None
    tls_key: Path | None = None

    def options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.max_receive_message_length", self.max_receive_bytes),
            ("grpc.max_send_message_length", self.max_send_bytes),
            ("grpc.keepalive_time_ms", self.keepalive_ms),
            ("grpc.keepalive_timeout_ms", self.keepalive_timeout_ms),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", self.min_client_ping_ms),
            ("grpc.http2.max_ping_strikes", 0),
            ("grpc.keepalive_permit_without_calls", 1),
            # Two referees on one port would share its connections: the second must fail.
            ("grpc.so_reuseport", 0),
        ]


class ListenError(CroupierError):
    """The server cannot listen where it was asked to (a port in use, an unknown host)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        #: The system's own words (e.g. "Address already in use").
        self.reason = reason


def check_free(host: str, port: int) -> None:
    """Raise ListenError when `host:port` cannot be bound, before gRPC tries (its C core would
    print its own error line). SO_REUSEADDR lets a port left in TIME_WAIT be reused, as
    gRPC does; a listening socket still holds it."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(sockaddr)
            except OSError as error:
                reason = error.strerror or str(error)
                raise ListenError(
                    f"cannot listen on {host}:{port}: {reason.lower()} (choose another --port, "
                    "or stop the program that holds it)",
                    reason,
                ) from None


async def _story(live: LiveMatch) -> AsyncIterator[referee_pb2.WatchMessage]:
    """A live match's public messages from its start, until it ends."""
    queue: asyncio.Queue[referee_pb2.WatchMessage | None] = asyncio.Queue()
    live.watch(queue.put_nowait)
    try:
        while (message := await queue.get()) is not None:
            yield message
    finally:
        live.unwatch(queue.put_nowait)


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | grpc.aio.Metadata | None) -> str:
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            if text.startswith("Bearer "):
                return text.removeprefix("Bearer ").strip()
    return ""


class ToTrio:
    """Calls from the transport's asyncio side into the referee's trio run, in order. Each trio
    wake-up is a system call and a trip through trio's entry queue; under load many replies come
    in between two of trio's turns, so calls queued meanwhile share one wake-up. (asyncio and the
    trio guest run on the same thread: `soon` and `_run` never interleave.)"""

    def __init__(self, token: trio.lowlevel.TrioToken) -> None:
        self.token = token
        self.pending: list[tuple[Callable[..., object], tuple[object, ...]]] = []

    def soon(self, function: Callable[..., object], *args: object) -> None:
        self.pending.append((function, args))
        if len(self.pending) == 1:
            self.token.run_sync_soon(self._run)

    def _run(self) -> None:
        batch, self.pending = self.pending, []
        for function, args in batch:
            function(*args)


@dataclass(slots=True)
class _Asked:
    """ActionRequests sent on one stream and not yet matched by a message from the bot: that
    many messages are replies the referee asked for, exempt from the rate limit. Counting, not
    parsing, keeps the read path cheap; a bot's message sent in place of a reply uses the credit
    and is judged by its seat as usual."""

    unanswered: int = 0


class RefereeService:
    """Implements croupier.v1.Referee on grpc.aio for one lobby."""

    def __init__(
        self,
        lobby: Lobby,
        live: LiveMatches,
        settings: ServerSettings,
        trio_token: trio.lowlevel.TrioToken,
        door: str = "",
    ) -> None:
        self.lobby = lobby
        #: The door this service answers at ("": the referee's main address); the lobby
        #: accepts a token only at its own (see serve_door).
        self.door = door
        self.live = live
        self.settings = settings
        self.trio_token = trio_token
        self.to_trio = ToTrio(trio_token)
        self.open_streams: dict[str, int] = {}
        #: Lines a bot can provoke (refusals, streams without Hello), rate-limited per bot.
        self.notes = LogLimiter(log, per_second=settings.log_lines_per_second)
        #: What each bot's open sessions hold unread, together (dropped with its last stream).
        self.backlogs: dict[str, Backlog] = {}

    async def play(
        self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, object]
    ) -> AsyncIterator[referee_pb2.RefereeMessage]:
        """A bot's session: authenticate, count it against its token's limit, then serve it.

        The token is checked once the first message (Hello) has arrived: a refusal before the
        client's first write completes reaches the client as INTERNAL, not as the reason. A
        stream without a first message is logged (rate-limited) and let go.
        """
        peer = context.peer()
        wait = self.settings.hello_timeout_seconds
        first: bytes | None = None
        try:
            first = await asyncio.wait_for(anext(aiter(requests)), wait)
        except StopAsyncIteration:
            silence = "the stream ended before its first message"
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
            why = f"session limit: at most {limit} open sessions per token"
            self.notes.info(account, "refused", bot=account, peer=peer, why=why)
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, why)
        self.open_streams[identity] = self.open_streams.get(identity, 0) + 1
        try:
            async for message in self._session(identity, first, requests, context):
                yield message
        finally:
            self.open_streams[identity] -= 1
            if not self.open_streams[identity]:
                del self.open_streams[identity]
                self.backlogs.pop(identity, None)

    async def _session(
        self,
        identity: str,
        first: bytes,
        requests: AsyncIterator[bytes],
        context: grpc.aio.ServicerContext[bytes, object],
    ) -> AsyncIterator[referee_pb2.RefereeMessage]:
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
        outbound: asyncio.Queue[referee_pb2.RefereeMessage | Ending] = asyncio.Queue()
        backlog = self.backlogs.setdefault(
            identity, Backlog(limit_bytes=self.settings.max_queued_bytes_per_bot)
        )
        session = Session(
            identity=identity,
            hello=hello.hello,
            send=outbound.put_nowait,
            finish=outbound.put_nowait,
            account=self.lobby.label(identity),
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
        yield referee_pb2.RefereeMessage(
            welcome=referee_pb2.Welcome(
                session_id=session.id, referee_version=VERSION, protocol_version=session.protocol
            )
        )
        self.to_trio.soon(self.lobby.open, session)
        asked = _Asked()
        reader = asyncio.ensure_future(self._read(requests, session, outbound, asked))
        ending = Ending("the stream ended")
        try:
            while not isinstance(message := await outbound.get(), Ending):
                if message.WhichOneof("kind") == "action_request":
                    asked.unanswered += 1
                session.leaving(message)  # a request's clock starts as gRPC takes it
                yield message
            ending = message
        except BaseException:
            reader.cancel()
            raise
        finally:
            self.to_trio.soon(session.close, ending.reason)
            log.info(
                "session closed",
                extra={"session": session.id, "bot": session.account, "why": ending.reason},
            )
        try:
            if ending.status != "OK":
                await context.abort(grpc.StatusCode[ending.status], ending.reason)
        finally:
            reader.cancel()  # only now: cancelling a pending read first fails the call (INTERNAL)

    async def _read(
        self,
        requests: AsyncIterator[bytes],
        session: Session,
        outbound: asyncio.Queue[referee_pb2.RefereeMessage | Ending],
        asked: _Asked,
    ) -> None:
        detail = "the bot closed its stream"
        rate = self.settings.max_messages_per_second
        allowance = float(self.settings.message_burst)
        last = time.perf_counter()
        limited = False
        try:
            async for raw in requests:
                # a reply's clock stops when it came in, not when the loop got round to it
                came = arrival_bound()
                if limited:  # the stream is ending; keep reading so the status gets through
                    continue
                if asked.unanswered > 0:  # the answer to a request (or in its place): free
                    asked.unanswered -= 1
                    self.to_trio.soon(session.deliver, raw, session.arriving(came))
                    continue
                now = time.perf_counter()
                allowance = min(self.settings.message_burst, allowance + (now - last) * rate)
                last = now
                if allowance < 1:  # end the stream
                    detail = f"rate limit: more than {rate:g} unasked messages per second"
                    goodbye = referee_pb2.Goodbye(reason=detail)
                    outbound.put_nowait(referee_pb2.RefereeMessage(goodbye=goodbye))
                    outbound.put_nowait(Ending(detail, "RESOURCE_EXHAUSTED"))
                    limited = True
                    continue
                allowance -= 1
                self.to_trio.soon(session.deliver, raw, session.arriving(came))
        except Exception as error:
            detail = f"stream error: {error}"
        finally:
            self.to_trio.soon(session.close, detail)
            # The bot's side is over: end ours too (the core keeps its own status, if any).
            outbound.put_nowait(Ending(detail))

    async def list_matches(
        self,
        request: referee_pb2.ListMatchesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> referee_pb2.ListMatchesResponse:
        return self.live.listing()

    async def list_games(
        self,
        request: referee_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> referee_pb2.ListGamesResponse:
        return list_games(self.lobby.games)

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

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    self.play,
                    request_deserializer=None,  # raw bytes: see _parse
                    response_serializer=referee_pb2.RefereeMessage.SerializeToString,
                ),
                "Watch": grpc.unary_stream_rpc_method_handler(
                    self.watch,
                    request_deserializer=referee_pb2.WatchRequest.FromString,
                    response_serializer=referee_pb2.WatchMessage.SerializeToString,
                ),
                "ListGames": grpc.unary_unary_rpc_method_handler(
                    self.list_games,
                    request_deserializer=referee_pb2.ListGamesRequest.FromString,
                    response_serializer=referee_pb2.ListGamesResponse.SerializeToString,
                ),
                "ListMatches": grpc.unary_unary_rpc_method_handler(
                    self.list_matches,
                    request_deserializer=referee_pb2.ListMatchesRequest.FromString,
                    response_serializer=referee_pb2.ListMatchesResponse.SerializeToString,
                ),
            },
        )


def _parse(raw: bytes) -> referee_pb2.BotMessage | None:
    message = referee_pb2.BotMessage()
    try:
        message.ParseFromString(raw)
    except DecodeError:
        return None
    return message


def list_games(only: frozenset[str] = frozenset()) -> referee_pb2.ListGamesResponse:
    """The games this referee runs: `only` those, or every registered game when it is empty."""
    return referee_pb2.ListGamesResponse(
        games=[
            referee_pb2.GameInfo(
                id=game.id,
                title=game.title,
                rules_version=game.rules_version,
                options=[
                    referee_pb2.GameOption(
                        name=spec.name,
                        type=spec.kind,
                        default=format_value(spec.default),
                        min=spec.minimum if spec.kind == "int" else None,
                        max=spec.maximum if spec.kind == "int" else None,
                        description=spec.description,
                    )
                    for spec in game.option_specs
                ],
            )
            for game in GAMES.values()
            if not only or game.id in only
        ]
    )


class ServerControl:
    """A running server's switches, for graceful shutdown: `drain` makes health checks answer
    NOT_SERVING while the referee finishes its matches."""

    def __init__(self) -> None:
        self.health: health_aio.HealthServicer | None = None

    async def drain(self) -> None:
        if self.health is not None:
            await call_asyncio(self._set(health_pb2.HealthCheckResponse.NOT_SERVING))

    async def _set(self, status: int) -> None:
        assert self.health is not None
        for name in ("", SERVICE):
            await self.health.set(name, status)


async def _start(
    lobby: Lobby,
    live: LiveMatches,
    settings: ServerSettings,
    control: ServerControl,
    trio_token: trio.lowlevel.TrioToken,
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(options=settings.options())
    service = RefereeService(lobby, live, settings, trio_token)
    server.add_generic_rpc_handlers((service.handler(),))
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    control.health = health
    await control._set(health_pb2.HealthCheckResponse.SERVING)
    health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
    reflection = ReflectionServicer((SERVICE, health_name, V1, V1ALPHA))
    server.add_generic_rpc_handlers(reflection.handlers())
    address = f"{settings.host}:{settings.port}"
    check_free(settings.host, settings.port)
    try:
        if settings.tls_cert is not None and settings.tls_key is not None:
            credentials = grpc.ssl_server_credentials(
                [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())]
            )
            port = server.add_secure_port(address, credentials)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:  # grpc's "Failed to bind"
        port = 0
    if port == 0:
        raise ListenError(f"cannot listen on {address!r}")
    await server.start()
    return server, port


async def _start_door(
    lobby: Lobby,
    door: str,
    socket_path: Path,
    settings: ServerSettings,
    trio_token: trio.lowlevel.TrioToken,
) -> grpc.aio.Server:
    server = grpc.aio.server(options=settings.options())
    service = RefereeService(lobby, LiveMatches(), settings, trio_token, door)
    server.add_generic_rpc_handlers((service.handler(),))
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    if server.add_insecure_port(f"unix:{socket_path}") == 0:
        raise ListenError(f"cannot listen on unix socket {str(socket_path)!r}")
    await server.start()
    return server


@asynccontextmanager
async def serve_door(
    lobby: Lobby, door: str, socket_path: Path, settings: ServerSettings | None = None
) -> AsyncIterator[None]:
    """Serve one sandboxed bot's door while the block runs: a server of its own on the Unix
    socket `socket_path`, where the lobby accepts only the tokens admitted with `door` (and
    those nowhere else). gRPC does not say which socket a call came in on, nor the peer's
    credentials, so one server per door is how the referee knows (referee.local.doors)."""
    settings = settings or ServerSettings()
    token = trio.lowlevel.current_trio_token()
    server = await call_asyncio(_start_door(lobby, door, socket_path, settings, token))
    try:
        yield
    finally:
        with trio.CancelScope(shield=True):
            await call_asyncio(server.stop(0))


@asynccontextmanager
async def serve(
    lobby: Lobby,
    settings: ServerSettings,
    live: LiveMatches | None = None,
    control: ServerControl | None = None,
) -> AsyncIterator[int]:
    """Serve the lobby over gRPC while the block runs; yields the port (useful with port 0).

    `live` lists the matches spectators may Watch; `control` receives the server's switches.
    """
    token = trio.lowlevel.current_trio_token()
    server, port = await call_asyncio(
        _start(lobby, live or LiveMatches(), settings, control or ServerControl(), token)
    )
    try:
        yield port
    finally:
        with trio.CancelScope(shield=True):
            await call_asyncio(server.stop(settings.grace_seconds))
