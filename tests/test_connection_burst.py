"""Bots reconnecting all at once to a busy referee (a restart, a network blip) are all let in:
gRPC's own queue of calls waiting to be accepted must not refuse them first (ServerSettings.
max_pending_calls; its default of about 1,000 refused hundreds)."""

from __future__ import annotations

import collections
import json
import subprocess
import sys
import time

import trio

from referee import transport
from referee.match.lobby import Lobby

BURST = 3000
TOKEN = "burst-token"

CLIENT = """
import asyncio, collections, json, sys
import grpc
from croupier.v1 import referee_pb2, referee_pb2_grpc

async def main(port, burst, token):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        await channel.channel_ready()
        print("connected", flush=True)
        await asyncio.sleep(0.5)
        stub = referee_pb2_grpc.RefereeStub(channel)
        hello = referee_pb2.BotMessage(hello=referee_pb2.Hello(name="b", protocol_version=2))

        async def one():
            call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
            try:
                await call.write(hello)
                message = await call.read()
                return message.WhichOneof("kind")
            except grpc.aio.AioRpcError as error:
                return error.code().name
            finally:
                call.cancel()

        print(json.dumps(collections.Counter(await asyncio.gather(*(one() for _ in range(burst))))))

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]))
"""


async def burst_against_a_busy_referee() -> dict[str, int]:
    lobby = Lobby()
    lobby.admit(TOKEN)
    settings = transport.ServerSettings(max_sessions_per_token=2 * BURST)
    async with transport.serve(lobby, settings) as port:
        client = await trio.lowlevel.open_process(
            [sys.executable, "-c", CLIENT, str(port), str(BURST), TOKEN],
            stdout=subprocess.PIPE,
        )
        assert client.stdout is not None
        lines = client.stdout
        first = await lines.receive_some()
        assert b"connected" in first
        await trio.sleep(0.2)
        time.sleep(2.0)  # the referee's thread is busy while the burst arrives
        output = first
        while chunk := await lines.receive_some():
            output += chunk
        await client.wait()
    counts: dict[str, int] = json.loads(output.decode().splitlines()[-1])
    return counts


def test_a_burst_of_sessions_at_a_busy_referee_is_all_let_in() -> None:
    counts = transport.run(burst_against_a_busy_referee)
    assert counts == {"welcome": BURST}, collections.Counter(counts)
