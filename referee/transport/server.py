"""The gRPC service: bot sessions (Play), the game list, health checking and reflection.

Handlers run on the asyncio loop and hand everything to the trio side through the trio token;
the trio side sends back by putting on the stream's asyncio queue, which is safe because trio runs
as a guest on the same thread. Play's requests arrive as raw bytes: a message that does not parse
is the bot's fault (recorded by its seat), not a broken stream.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import grpc
import trio
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from croupier.v1 import referee_pb2
from referee.games import GAMES
from referee.games.options import format_value
from referee.lobby import Lobby
from referee.sessions import Session
from referee.transport.host import call_asyncio
from referee.version import VERSION

SERVICE = "croupier.v1.Referee"


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

    def __init__(self, lobby: Lobby, trio_token: trio.lowlevel.TrioToken) -> None:
        self.lobby = lobby
        self.trio_token = trio_token

    async def play(
        self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, object]
    ) -> AsyncIterator[referee_pb2.RefereeMessage]:
        token = bearer_token(context.invocation_metadata())
        if not self.lobby.accepts(token):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing or unknown token: send metadata 'authorization: Bearer <token>'",
            )
        try:
            first = await anext(aiter(requests))
        except StopAsyncIteration:
            return
        hello = _parse(first)
        if hello is None or hello.WhichOneof("kind") != "hello":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a session must be Hello"
            )
        outbound: asyncio.Queue[referee_pb2.RefereeMessage | None] = asyncio.Queue()
        session = Session(
            token=token,
            hello=hello.hello,
            send=outbound.put_nowait,
            finish=lambda _reason: outbound.put_nowait(None),
        )
        yield referee_pb2.RefereeMessage(
            welcome=referee_pb2.Welcome(session_id=session.id, referee_version=VERSION)
        )
        self.trio_token.run_sync_soon(self.lobby.open, session)
        reader = asyncio.ensure_future(self._read(requests, session))
        try:
            while (message := await outbound.get()) is not None:
                yield message
        finally:
            reader.cancel()
            self.trio_token.run_sync_soon(session.close, "the stream ended")

    async def _read(self, requests: AsyncIterator[bytes], session: Session) -> None:
        detail = "the bot closed its stream"
        try:
            async for raw in requests:
                self.trio_token.run_sync_soon(session.deliver, raw)
        except grpc.aio.AioRpcError as error:
            detail = f"stream error: {error.code().name}"
        finally:
            self.trio_token.run_sync_soon(session.close, detail)

    async def list_games(
        self,
        request: referee_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> referee_pb2.ListGamesResponse:
        return list_games()

    async def watch(
        self, request: referee_pb2.WatchRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> AsyncIterator[referee_pb2.WatchMessage]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Watch is not served yet")
        yield referee_pb2.WatchMessage()  # pragma: no cover - abort raises

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


async def _start(
    lobby: Lobby, settings: ServerSettings, trio_token: trio.lowlevel.TrioToken
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(options=settings.options())
    server.add_generic_rpc_handlers((RefereeService(lobby, trio_token).handler(),))
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for name in ("", SERVICE):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (
            SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    if port == 0:
        raise OSError(f"cannot listen on {settings.host}:{settings.port}")
    await server.start()
    return server, port


@asynccontextmanager
async def serve(lobby: Lobby, settings: ServerSettings) -> AsyncIterator[int]:
    """Serve the lobby over gRPC while the block runs; yields the port (useful with port 0)."""
    server, port = await call_asyncio(_start(lobby, settings, trio.lowlevel.current_trio_token()))
    try:
        yield port
    finally:
        with trio.CancelScope(shield=True):
            await call_asyncio(server.stop(settings.grace_seconds))
