"""A client and a referee that disagree about TLS are told so in one line that names the fix:
the Python SDK, the Node SDK and `croupier watch`, against a real referee with a test CA."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
import trio
from typer.testing import CliRunner

from croupier.tls_check import speaks_tls
from referee import transport
from referee.cli.app import app
from referee.match.lobby import Lobby
from tests.node_support import NODE_RANDOM, node_or_skip
from tests.tls_helpers import make_ca_and_server_cert

ROOT = Path(__file__).resolve().parent.parent
PYTHON_RANDOM = ROOT / "examples" / "python" / "random_bot.py"

#: (the referee speaks TLS, the client's CA: "right", "wrong" or "" for plaintext, what it hears)
CASES = [
    (True, "", "speaks TLS: "),
    (True, "wrong", "speaks TLS, but its certificate is not signed by the CA given: "),
    (False, "right", "speaks plaintext, not TLS: "),
]


def run_against(
    tmp_path: Path, server_tls: bool, ca: str, argv: list[str] | None
) -> tuple[str, str, float]:
    """Serve a referee (TLS or not) and run `argv` (a bot) or `croupier watch` (None) against it
    with the CA `ca`; returns (the address, the last line of the client's errors, seconds)."""
    right, cert, key = make_ca_and_server_cert(tmp_path)
    (tmp_path / "other").mkdir()
    wrong, _, _ = make_ca_and_server_cert(tmp_path / "other")
    ca_file = {"right": right, "wrong": wrong}.get(ca)
    settings = (
        transport.ServerSettings(tls_cert=cert, tls_key=key)
        if server_tls
        else transport.ServerSettings()
    )
    out: list[str] = []

    async def scenario() -> float:
        async with transport.serve(Lobby(open_access=True), settings) as port:
            address = f"127.0.0.1:{port}"
            out.append(address)
            started = time.monotonic()
            with trio.fail_after(30):
                if argv is None:
                    extra = ["--ca-file", str(ca_file)] if ca_file is not None else []
                    result = await trio.to_thread.run_sync(
                        lambda: CliRunner().invoke(app, ["watch", address, *extra])
                    )
                    assert result.exit_code == 2
                    out.append(result.output.strip().splitlines()[-1])
                else:
                    clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
                    env = {**clean, "CROUPIER_ADDRESS": address, "CROUPIER_TOKEN": "t"}
                    if ca_file is not None:
                        env["CROUPIER_CA_FILE"] = str(ca_file)
                    done = await trio.run_process(argv, env=env, capture_stderr=True, check=False)
                    assert done.returncode == 1
                    out.append(done.stderr.decode().strip().splitlines()[-1])
            return time.monotonic() - started

    took = transport.run(scenario)
    return out[0], out[1], took


@pytest.mark.parametrize(("server_tls", "ca", "heard"), CASES)
def test_the_python_sdk_says_what_the_tls_mismatch_is(
    tmp_path: Path, server_tls: bool, ca: str, heard: str
) -> None:
    argv = [sys.executable, str(PYTHON_RANDOM)]
    address, line, took = run_against(tmp_path, server_tls, ca, argv)
    assert line.startswith(f"croupier: the server at {address} {heard}"), line
    fix = "unset CROUPIER_CA_FILE" if ca == "right" else "set CROUPIER_CA_FILE"
    assert fix in line
    assert took < 10  # the SDK reconnects (issue 42.9), but no retry mends a mismatch


@pytest.mark.parametrize(("server_tls", "ca", "heard"), CASES)
def test_the_node_sdk_says_what_the_tls_mismatch_is_at_once(
    tmp_path: Path, server_tls: bool, ca: str, heard: str
) -> None:
    node = node_or_skip()
    address, line, took = run_against(tmp_path, server_tls, ca, [node, str(NODE_RANDOM)])
    assert line.startswith(f"croupier: the server at {address} {heard}"), line
    assert took < 10  # not after its 30 s of trying again: no retry mends a mismatch


@pytest.mark.parametrize(("server_tls", "ca", "heard"), CASES)
def test_watch_says_what_the_tls_mismatch_is(
    tmp_path: Path, server_tls: bool, ca: str, heard: str
) -> None:
    address, line, _ = run_against(tmp_path, server_tls, ca, None)
    assert line.startswith(f"error: cannot list matches on {address!r}: the server at {address}")
    assert heard in line
    assert ("drop --ca-file" if ca == "right" else "with --ca-file FILE") in line


def test_a_closed_port_is_no_tls_question() -> None:
    async def closed() -> str:
        async with transport.serve(Lobby(open_access=True), transport.ServerSettings()) as port:
            return f"127.0.0.1:{port}"

    assert speaks_tls(transport.run(closed)) is None  # the referee is gone: cannot be told


@pytest.mark.parametrize("spelling", ["--ca-file", "--ca"])
def test_submit_and_watch_take_one_spelling_of_the_ca_file(tmp_path: Path, spelling: str) -> None:
    """`submit` advised --ca-file and took --ca, `watch` took --ca-file (issue 42): both take
    --ca-file, and --ca stays as an alias that --help does not show, for old scripts."""
    _, cert, key = make_ca_and_server_cert(tmp_path)
    (tmp_path / "other").mkdir()
    wrong, _, _ = make_ca_and_server_cert(tmp_path / "other")
    settings = transport.ServerSettings(tls_cert=cert, tls_key=key)
    commands = [["submissions", "list", "--token", "t", "--to"]]
    if spelling == "--ca-file":
        commands.append(["watch"])  # watch never took --ca

    async def scenario() -> list[str]:
        lines = []
        async with transport.serve(Lobby(open_access=True), settings) as port:
            with trio.fail_after(30):
                for command in commands:
                    argv = [*command, f"127.0.0.1:{port}", spelling, str(wrong)]
                    result = await trio.to_thread.run_sync(CliRunner().invoke, app, argv)
                    assert result.exit_code == 2, result.output
                    lines.append(result.output.strip().splitlines()[-1])
        return lines

    for line in transport.run(scenario):
        assert "its certificate is not signed by the CA given" in line, line
        assert "give its CA certificate with --ca-file FILE" in line, line
    for command in (["submit"], ["submissions", "list"], ["watch"]):
        shown = CliRunner().invoke(app, [*command, "--help"], terminal_width=200).output
        assert "--ca-file" in shown and "--ca " not in shown, shown
