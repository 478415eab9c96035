"""docs/contest.md's TLS recipe works (issue 42, papercut): its openssl lines, run as written (the
example name and address swapped for this machine's loopback), make a CA and a certificate that
a real referee serves and a client trusting the CA accepts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grpc
import pytest
import trio

from croupier.v1 import referee_pb2, referee_pb2_grpc
from referee import transport
from referee.match.lobby import Lobby

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- tls recipe: begin -->", "<!-- tls recipe: end -->"


def recipe() -> str:
    """The recipe's shell lines, for localhost and 127.0.0.1."""
    text = (ROOT / "docs" / "contest.md").read_text()
    block = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    lines = block.strip().removeprefix("```sh").removesuffix("```")
    return lines.replace("contest.example.org", "localhost").replace("203.0.113.7", "127.0.0.1")


def test_the_docs_tls_recipe_makes_a_certificate_a_client_trusts(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    subprocess.run(["sh", "-e", "-c", recipe()], cwd=tmp_path, check=True, capture_output=True)
    settings = transport.ServerSettings(
        tls_cert=tmp_path / "server.pem", tls_key=tmp_path / "server.key"
    )
    trusted = grpc.ssl_channel_credentials((tmp_path / "ca.pem").read_bytes())

    async def scenario() -> list[str]:
        async with transport.serve(Lobby(open_access=True), settings) as port:

            def ask(host: str) -> list[str]:
                with grpc.secure_channel(f"{host}:{port}", trusted) as channel:
                    stub = referee_pb2_grpc.RefereeStub(channel)
                    games = stub.ListGames(referee_pb2.ListGamesRequest(), timeout=10)
                return [game.id for game in games.games]

            with trio.fail_after(30):
                return [
                    *await trio.to_thread.run_sync(ask, "localhost"),
                    *await trio.to_thread.run_sync(ask, "127.0.0.1"),
                ]

    games = transport.run(scenario)
    assert games.count("xix") == 2, games
