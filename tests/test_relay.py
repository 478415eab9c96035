"""The loopback relay (referee/local/relay.py) on its own, outside the sandbox: it starts the
command in its own place, joins each TCP connection to the one Unix socket, and sends small
replies at once (tests/test_cheats.py plays a sandboxed bot through it)."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from referee.local import relay

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox's")

ROUND_TRIPS = 40
#: Linux's delayed ACK, which Nagle's algorithm waits for (s).
DELAYED_ACK = 0.040


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
        return port


def _serve_in_two_writes(server: socket.socket) -> None:
    """A door that answers each request in two small writes, as an HTTP/2 server may (a frame
    header, then its payload): with Nagle's algorithm on the relay's side, the second waits for
    the bot's delayed ACK."""
    while True:
        try:
            connection, _ = server.accept()
        except OSError:  # closed: the test is over
            return
        with connection:
            while data := connection.recv(64):
                connection.sendall(b"<" + data)
                time.sleep(0.002)  # two writes for the relay, not one
                connection.sendall(b">")


@contextmanager
def relayed(tmp_path: Path) -> Iterator[int]:
    """The relay in front of a two-write door, running `sleep` as its command; yields the port."""
    path = tmp_path / "door.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    threading.Thread(target=_serve_in_two_writes, args=(server,), daemon=True).start()
    port = _free_port()
    command = [sys.executable, "-I", "-S", relay.__file__, str(port), str(path), "--"]
    process = subprocess.Popen([*command, "sleep", "60"], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while True:  # until it listens (in the sandbox, before the bot's command starts)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "the relay never listened"
                time.sleep(0.05)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the command and the relay it left behind
        process.wait()
        server.close()


def test_the_relay_joins_tcp_to_the_door_and_answers_at_once(tmp_path: Path) -> None:
    with (
        relayed(tmp_path) as port,
        socket.create_connection(("127.0.0.1", port), timeout=10) as client,
    ):
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        took = []
        for index in range(ROUND_TRIPS):
            started = time.monotonic()
            ask = f"{index:03d}".encode()
            client.sendall(ask)
            answer = b""
            while len(answer) < len(ask) + 2:
                answer += client.recv(64)
            assert answer == b"<" + ask + b">"
            took.append(time.monotonic() - started)
    # Nagle's algorithm on the relay would hold back every second write for the client's
    # delayed ACK (40 ms on Linux): each round trip 40 ms or more (1.7 s for 40 here). Without
    # it, the door's own 2 ms pause. The median, not the total: a loaded machine delays some
    # round trips by its scheduling, never most of them by 40 ms (issue 50).
    typical = statistics.median(took)
    assert typical < DELAYED_ACK / 2, (
        f"the median of {ROUND_TRIPS} round trips took {typical * 1000:.1f} ms "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
