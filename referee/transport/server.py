"""The gRPC server's lifecycle: listening (TCP, TLS, a sandboxed bot's Unix socket) with the
settings of referee.transport.settings, health checking, reflection, graceful shutdown, and the
service that routes each RPC: bot sessions to referee.transport.play, spectators to
referee.transport.watch, the game list here; and, for a contest with accounts, authors' uploads
(referee.transport.submissions).
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import trio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.games import GAMES
from referee.games.options import OptionSpec, format_value
from referee.match.lobby import Lobby
from referee.match.spectators import LiveMatches
from referee.transport.challenges import SERVICE as CHALLENGES
from referee.transport.challenges import ChallengeDesk, ChallengesService
from referee.transport.desk import SERVICE as DESK
from referee.transport.desk import DeskService, Members
from referee.transport.host import call_asyncio
from referee.transport.play import PlayService, serialize
from referee.transport.reflection import V1, V1ALPHA, ReflectionServicer
from referee.transport.settings import ServerSettings
from referee.transport.submissions import SERVICE as SUBMISSIONS
from referee.transport.submissions import Desk, SubmissionsService
from referee.transport.watch import WatchService

SERVICE = "croupier.v1.Referee"


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


class RefereeService:
    """Implements croupier.v1.Referee on grpc.aio for one lobby: its bots' streams (Play), its
    spectators (Watch, ListMatches) and the game list."""

    def __init__(
        self,
        lobby: Lobby,
        live: LiveMatches,
        settings: ServerSettings,
        door: str = "",
    ) -> None:
        self.lobby = lobby
        self.players = PlayService(lobby, settings, door)
        self.spectators = WatchService(live)

    async def list_games(
        self,
        request: referee_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext[object, object],
    ) -> referee_pb2.ListGamesResponse:
        return list_games(self.lobby.games)

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Play": grpc.stream_stream_rpc_method_handler(
                    self.players.play,
                    request_deserializer=None,  # raw bytes: see play._parse
                    response_serializer=serialize,
                ),
                "Watch": grpc.unary_stream_rpc_method_handler(
                    self.spectators.watch,
                    request_deserializer=referee_pb2.WatchRequest.FromString,
                    response_serializer=referee_pb2.WatchMessage.SerializeToString,
                ),
                "ListGames": grpc.unary_unary_rpc_method_handler(
                    self.list_games,
                    request_deserializer=referee_pb2.ListGamesRequest.FromString,
                    response_serializer=referee_pb2.ListGamesResponse.SerializeToString,
                ),
                "ListMatches": grpc.unary_unary_rpc_method_handler(
                    self.spectators.list_matches,
                    request_deserializer=referee_pb2.ListMatchesRequest.FromString,
                    response_serializer=referee_pb2.ListMatchesResponse.SerializeToString,
                ),
            },
        )


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
                        min=_bounds(spec)[0] if spec.kind == "int" else None,
                        max=_bounds(spec)[1] if spec.kind == "int" else None,
                        description=spec.description,
                        choices=sorted(spec.choices),
                    )
                    for spec in game.option_specs
                ],
            )
            for game in GAMES.values()
            if not only or game.id in only
        ]
    )


def _bounds(spec: OptionSpec) -> tuple[int, int]:
    """An int option's bounds: its choices' when it has some (its range is then unset: 0..0)."""
    if spec.choices:
        return min(spec.choices), max(spec.choices)
    return spec.minimum, spec.maximum


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
    desk: Desk | None,
    members: Members | None = None,
    challenges: ChallengeDesk | None = None,
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(options=settings.options())
    service = RefereeService(lobby, live, settings)
    server.add_generic_rpc_handlers((service.handler(),))
    services = [SERVICE]
    if desk is not None:
        submissions = SubmissionsService(
            desk, lobby, settings.upload_idle_seconds, settings.upload_seconds
        )
        server.add_generic_rpc_handlers((submissions.handler(),))
        services.append(SUBMISSIONS)
        if members is not None:
            desk_service = DeskService(members, desk, settings.max_team_size)
            server.add_generic_rpc_handlers((desk_service.handler(),))
            services.append(DESK)
    if challenges is not None:
        server.add_generic_rpc_handlers((ChallengesService(challenges, lobby).handler(),))
        services.append(CHALLENGES)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    control.health = health
    await control._set(health_pb2.HealthCheckResponse.SERVING)
    health_name = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
    reflection = ReflectionServicer((*services, health_name, V1, V1ALPHA))
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
) -> grpc.aio.Server:
    server = grpc.aio.server(options=settings.options())
    service = RefereeService(lobby, LiveMatches(), settings, door)
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
    server = await call_asyncio(_start_door(lobby, door, socket_path, settings))
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
    desk: Desk | None = None,
    members: Members | None = None,
    challenges: ChallengeDesk | None = None,
) -> AsyncIterator[int]:
    """Serve the lobby over gRPC while the block runs; yields the port (useful with port 0).

    `live` lists the matches spectators may Watch; `control` receives the server's switches;
    with `desk`, the Submissions service takes the lobby's accounts' uploads, and with
    `members` too (the contest's teams), the Desk service their teams and events; with
    `challenges` the Challenges service their challenges.
    """
    server, port = await call_asyncio(
        _start(
            lobby,
            live or LiveMatches(),
            settings,
            control or ServerControl(),
            desk,
            members,
            challenges,
        )
    )
    try:
        yield port
    finally:
        with trio.CancelScope(shield=True):
            await call_asyncio(server.stop(settings.grace_seconds))
