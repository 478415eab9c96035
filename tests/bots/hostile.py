"""A hostile bot with a valid token, for tests/test_hostile.py and bench/hostile_mix.py:
python hostile.py MODE. Settings come from the environment (HOSTILE_*).

`flood`: after Welcome, waits for the file HOSTILE_GO (if set), then sends HOSTILE_BYTES-byte
messages (Hello again, valid protobuf) at HOSTILE_RATE a second for HOSTILE_SECONDS, never
answering; it reconnects if its stream ends. `impostor`: plays random legal actions under the
Hello.name HOSTILE_NAME, with an out-of-range index every third request (faults in its name).
`no_hello`: opens HOSTILE_STREAMS streams whose first message is an ActionReply. `silent`: opens
HOSTILE_STREAMS streams that send nothing and close their side after HOSTILE_SECONDS. `drop`:
plays, then on its third request drops its connection and stays away for HOSTILE_SECONDS;
`exit_late` then exits with code 3.
`garbage`: answers every request with bytes that are no protobuf message. `slow`: answers every
request after HOSTILE_SECONDS. `twice`: plays, sending every reply twice. `two_places`: plays on
two connections at once under one token, and sends every reply on both (one of them is another
match's). `slowloris`: holds HOSTILE_STREAMS raw connections open, each sending the HTTP/2
preface one byte every HOSTILE_SECONDS and reopening when the referee closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import time
from pathlib import Path

import grpc

from croupier.v1 import referee_pb2

MODES = {
    *("flood", "impostor", "no_hello", "silent", "drop", "exit_late", "garbage", "slow"),
    *("twice", "two_places", "slowloris"),
}


def setting(name: str, default: str) -> str:
    return os.environ.get(f"HOSTILE_{name}", default)


def open_play(
    channel: grpc.aio.Channel,
) -> grpc.aio.StreamStreamCall[bytes, referee_pb2.RefereeMessage]:
    play: grpc.aio.StreamStreamMultiCallable[bytes, referee_pb2.RefereeMessage]
    play = channel.stream_stream(
        "/croupier.v1.Referee/Play",
        request_serializer=None,  # raw bytes, so that anything can be sent
        response_deserializer=referee_pb2.RefereeMessage.FromString,
    )
    return play(metadata=(("authorization", f"Bearer {os.environ['CROUPIER_TOKEN']}"),))


def hello(name: str) -> bytes:
    message = referee_pb2.BotMessage(hello=referee_pb2.Hello(name=name, version="1"))
    return message.SerializeToString()


def reply(request: referee_pb2.ActionRequest, index: int) -> bytes:
    answer = referee_pb2.ActionReply(
        match_id=request.match_id, request_id=request.request_id, action_index=index
    )
    return referee_pb2.BotMessage(action_reply=answer).SerializeToString()


async def flood(channel: grpc.aio.Channel) -> None:
    size, rate = int(setting("BYTES", "60000")), float(setting("RATE", "400"))
    seconds = float(setting("SECONDS", "10"))
    junk = hello("x" * size)
    go = setting("GO", "")
    until: float | None = None
    sent = 0
    while until is None or time.monotonic() < until:
        call = open_play(channel)
        await call.write(hello("flood"))
        if not isinstance(await call.read(), referee_pb2.RefereeMessage):
            continue
        reader = asyncio.ensure_future(drain(call))
        while go and not Path(go).exists():
            await asyncio.sleep(0.02)
        if until is None:
            print("flooding", file=sys.stderr, flush=True)
            until, start = time.monotonic() + seconds, time.monotonic()
        try:
            while time.monotonic() < until:
                await call.write(junk)
                sent += 1
                await asyncio.sleep(max(0.0, start + sent / rate - time.monotonic()))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as error:
            print(f"stream ended: {error}", file=sys.stderr, flush=True)
        call.cancel()
        reader.cancel()
    print(f"sent {sent}", file=sys.stderr, flush=True)


async def drain(call: grpc.aio.StreamStreamCall[bytes, referee_pb2.RefereeMessage]) -> None:
    """Read and ignore whatever the referee sends (so that its writes never back up)."""
    try:
        while isinstance(await call.read(), referee_pb2.RefereeMessage):
            pass
    except grpc.aio.AioRpcError:
        pass


async def play(
    channel: grpc.aio.Channel,
    mode: str,
    twins: list[grpc.aio.StreamStreamCall[bytes, referee_pb2.RefereeMessage]] | None = None,
) -> None:
    """Play matches as asked, misbehaving as MODE says, until the referee says Goodbye. With
    `twins`, every reply also goes to each of the other calls there (see `two_places`)."""
    rng = random.Random(1)
    call = open_play(channel)
    if twins is not None:
        twins.append(call)
    await call.write(hello(setting("NAME", mode) if mode == "impostor" else mode))
    requests = 0
    while isinstance(message := await call.read(), referee_pb2.RefereeMessage):
        kind = message.WhichOneof("kind")
        if kind == "goodbye":
            await call.done_writing()
            return
        if kind != "action_request":
            continue
        request = message.action_request
        requests += 1
        index = rng.randrange(len(request.legal_actions))
        if mode == "impostor" and requests % 3 == 0:
            index = len(request.legal_actions) + 1
        if mode in {"drop", "exit_late"} and requests == 3:
            call.cancel()
            await asyncio.sleep(float(setting("SECONDS", "30")))
            if mode == "exit_late":
                os._exit(3)
            return
        if mode == "garbage":
            await call.write(b"\xff\xff\xff\xff garbage")
            continue
        if mode == "slow":
            await asyncio.sleep(float(setting("SECONDS", "2")))
        await call.write(reply(request, index))
        if mode == "twice":
            await call.write(reply(request, index))
        for twin in twins or ():
            if twin is not call:
                with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    await twin.write(reply(request, index))


async def two_places() -> None:
    """One account's bot on two connections at once, each reply sent on both."""
    address = os.environ["CROUPIER_ADDRESS"]
    twins: list[grpc.aio.StreamStreamCall[bytes, referee_pb2.RefereeMessage]] = []
    async with (
        grpc.aio.insecure_channel(address) as one,
        grpc.aio.insecure_channel(
            address, options=(("grpc.use_local_subchannel_pool", 1),)
        ) as other,
    ):
        await asyncio.gather(play(one, "two_places", twins), play(other, "two_places", twins))


async def slowloris() -> None:
    """Raw connections that never finish the HTTP/2 preface, one byte at a time."""
    host, port = os.environ["CROUPIER_ADDRESS"].rsplit(":", 1)
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    pause = float(setting("SECONDS", "1"))

    async def one() -> None:
        while True:
            try:
                _, writer = await asyncio.open_connection(host, int(port))
                for byte in preface[:-1]:  # never the last byte
                    writer.write(bytes([byte]))
                    await writer.drain()
                    await asyncio.sleep(pause)
                await asyncio.sleep(3600)
            except OSError:
                await asyncio.sleep(pause)

    await asyncio.gather(*(one() for _ in range(int(setting("STREAMS", "20")))))


async def unhello(channel: grpc.aio.Channel, mode: str) -> None:
    """Streams that never say Hello: an ActionReply first, or nothing at all."""

    async def one() -> None:
        call = open_play(channel)
        if mode == "no_hello":
            await call.write(reply(referee_pb2.ActionRequest(match_id="m", request_id=1), 0))
        else:
            await asyncio.sleep(float(setting("SECONDS", "0.2")))
        await call.done_writing()
        try:
            await call.read()
            print(f"{mode}: {await call.code()}", file=sys.stderr)
        except grpc.aio.AioRpcError as error:
            print(f"{mode}: {error.code().name}: {error.details()}", file=sys.stderr)

    await asyncio.gather(*(one() for _ in range(int(setting("STREAMS", "1")))))


async def main(mode: str) -> None:
    if mode == "slowloris":
        await slowloris()
        return
    if mode == "two_places":
        await two_places()
        return
    async with grpc.aio.insecure_channel(os.environ["CROUPIER_ADDRESS"]) as channel:
        if mode == "flood":
            await flood(channel)
        elif mode in {"no_hello", "silent"}:
            await unhello(channel, mode)
        else:
            await play(channel, mode)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        raise SystemExit(f"usage: hostile.py {{{','.join(sorted(MODES))}}}")
    asyncio.run(main(sys.argv[1]))
