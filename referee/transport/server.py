"""The gRPC service: bot sessions (Play), the game list, health checking and reflection.

Handlers run on the asyncio loop and hand everything to the trio side through the trio token;
the trio side sends back by putting on the stream's asyncio queue, which is safe because trio runs
as a guest on the same thread. Play's requests arrive as raw bytes: a message that does not parse
is the bot's fault (recorded by its seat), not a broken stream.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import trio
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from croupier.v1 import referee_pb2
from referee.games import GAMES
from referee.games.options import format_value
from referee.match.lobby import Lobby
from referee.match.sessions import Ending, Session
from referee.match.spectators import LiveMatches
from referee.transport.host import arrival_bound, call_asyncio, polls
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
    #: Messages per second a stream may send on average, and in a burst.
    max_messages_per_second: float = 1000.0
    message_burst: int = 200
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
        ]


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | grpc.aio.Metadata | None) -> str:
    for key, value in metadata or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            if text.startswith("Bearer "):
                return text.removeprefix("Bearer ").strip()
    return ""


class RefereeService:
    """Implements croupier.v1.Referee on grpc.aio for one lobby."""

    def __init__(
        self,
        lobby: Lobby,
        live: LiveMatches,
        settings: ServerSettings,
        trio_token: trio.lowlevel.TrioToken,
    ) -> None:
        self.lobby = lobby
        self.live = live
        self.settings = settings
        self.trio_token = trio_token
        self.open_streams: dict[str, int] = {}

    async def play(
        self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, object]
    ) -> AsyncIterator[referee_pb2.RefereeMessage]:
        """A bot's session: authenticate, count it against its token's limit, then serve it.

        The token is checked once the first message (Hello) has arrived: a refusal before the
        client's first write completes reaches the client as INTERNAL, not as the reason.
        """
        try:
            first = await anext(aiter(requests))
        except StopAsyncIteration:
            return
        identity = self.lobby.identity(bearer_token(context.invocation_metadata()))
        if identity is None:
            log.info("refused", extra={"peer": context.peer(), "why": "bad token"})
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing or unknown token: send metadata 'authorization: Bearer <token>'",
            )
            return
        limit = self.settings.max_sessions_per_token
        if self.open_streams.get(identity, 0) >= limit:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"session limit: at most {limit} open sessions per token",
            )
        self.open_streams[identity] = self.open_streams.get(identity, 0) + 1
        try:
            async for message in self._session(identity, first, requests, context):
                yield message
        finally:
            self.open_streams[identity] -= 1

    async def _session(
        self,
        identity: str,
        first: bytes,
        requests: AsyncIterator[bytes],
        context: grpc.aio.ServicerContext[bytes, object],
    ) -> AsyncIterator[referee_pb2.RefereeMessage]:
        hello = _parse(first)
        if hello is None or hello.WhichOneof("kind") != "hello":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a session must be Hello"
            )
            return
        outbound: asyncio.Queue[referee_pb2.RefereeMessage | Ending] = asyncio.Queue()
        session = Session(
            token=identity,
            hello=hello.hello,
            send=outbound.put_nowait,
            finish=outbound.put_nowait,
            polls=polls,
        )
        log.info(
            "session opened",
            extra={
                "session": session.id,
                "bot": identity,
                "bot_name": hello.hello.name,
                "peer": context.peer(),
            },
        )
        yield referee_pb2.RefereeMessage(
            welcome=referee_pb2.Welcome(session_id=session.id, referee_version=VERSION)
        )
        self.trio_token.run_sync_soon(self.lobby.open, session)
        reader = asyncio.ensure_future(self._read(requests, session, outbound))
        ending = Ending("the stream ended")
        try:
            while not isinstance(message := await outbound.get(), Ending):
                session.leaving(message)  # a request's clock starts as gRPC takes it
                yield message
            ending = message
        except BaseException:
            reader.cancel()
            raise
        finally:
            self.trio_token.run_sync_soon(session.close, ending.reason)
            log.info(
                "session closed",
                extra={"session": session.id, "bot": identity, "why": ending.reason},
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
                now = time.perf_counter()
                allowance = min(self.settings.message_burst, allowance + (now - last) * rate)
                last = now
                if allowance < 1:
                    if not limited:  # end the stream; keep reading so the status gets through
                        detail = f"rate limit: more than {rate:g} messages per second"
                        goodbye = referee_pb2.Goodbye(reason=detail)
                        outbound.put_nowait(referee_pb2.RefereeMessage(goodbye=goodbye))
                        outbound.put_nowait(Ending(detail, "RESOURCE_EXHAUSTED"))
                        limited = True
                    continue
                allowance -= 1
                self.trio_token.run_sync_soon(session.deliver, raw, session.arriving(came))
        except Exception as error:
            detail = f"stream error: {error}"
        finally:
            self.trio_token.run_sync_soon(session.close, detail)
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
        return list_games()

    async def watch(
        self, request: referee_pb2.WatchRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> AsyncIterator[referee_pb2.WatchMessage]:
        live = self.live.get(request.match_id)
        if live is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no live match {request.match_id!r} (see ListMatches)"
            )
            return
        queue: asyncio.Queue[referee_pb2.WatchMessage | None] = asyncio.Queue()
        live.watch(queue.put_nowait)
        try:
            while (message := await queue.get()) is not None:
                yield message
        finally:
            live.unwatch(queue.put_nowait)

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


def list_games() -> referee_pb2.ListGamesResponse:
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
                        min=spec.minimum,
                        max=spec.maximum,
                        description=spec.description,
                    )
                    for spec in game.option_specs
                ],
            )
            for game in GAMES.values()
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
    reflection.enable_server_reflection(
        (
            SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    address = f"{settings.host}:{settings.port}"
    if settings.tls_cert is not None and settings.tls_key is not None:
        credentials = grpc.ssl_server_credentials(
            [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())]
        )
        port = server.add_secure_port(address, credentials)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {settings.host}:{settings.port}")
    await server.start()
    return server, port


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
