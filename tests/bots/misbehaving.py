"""A bot process that misbehaves on purpose, for the protocol tests: python misbehaving.py MODE.

It plays random legal actions, except on its third action request of each match, where MODE says
what it does: `good` (nothing wrong), `slow` (lets it time out, and answers it late, just before
its next reply: late however loaded the machine, whose fair clock forgives a bot's waits for a
CPU), `out_of_range` (an index past the legal actions), `garbage` (bytes that are no protobuf
message), `stale` (a wrong request id), `out_of_turn` (an extra reply after its answer), `exit`
(the process exits mid-match), `other_match` (answers naming another match), `reconnect` (drops its
connection and comes back at once with the same token), `reconnect_late` (comes back after
RECONNECT_AFTER seconds), `flood` (sends thousands of messages), `huge` (sends a 200 KB message),
`slow_good` (plays well, 20 ms a decision: for spectators), `no_index` (a reply without
action_index), `once` (plays well, and leaves after its first match).
CROUPIER_CA_FILE makes it speak TLS. With MATCHES_LOG set, it appends a line to that file for each
MatchStart (`start MATCH_ID`) and MatchEnd (`end MATCH_ID TERMINATION`) it receives.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

import grpc

from croupier.v1 import common_pb2, referee_pb2

MODES = {
    "good",
    "slow",
    "out_of_range",
    "garbage",
    "stale",
    "out_of_turn",
    "exit",
    "other_match",
    "reconnect",
    "reconnect_late",
    "flood",
    "huge",
    "slow_good",
    "no_index",
    "once",
}


class Reconnect(Exception):
    """Drop this session and open a new one."""


def channel() -> grpc.aio.Channel:
    address = os.environ["CROUPIER_ADDRESS"]
    ca_file = os.environ.get("CROUPIER_CA_FILE")
    if ca_file:
        with open(ca_file, "rb") as pem:
            return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(pem.read()))
    return grpc.aio.insecure_channel(address)


def reply(request: referee_pb2.ActionRequest, index: int, request_id: int | None = None) -> bytes:
    message = referee_pb2.BotMessage(
        action_reply=referee_pb2.ActionReply(
            match_id=request.match_id,
            request_id=request.request_id if request_id is None else request_id,
            action_index=index,
        )
    )
    return message.SerializeToString()


def note(line: str) -> None:
    """One line in MATCHES_LOG, if set: what a test reads of the matches this bot was in."""
    path = os.environ.get("MATCHES_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(line + "\n")


async def main(mode: str) -> None:
    reconnects = 0
    while True:
        try:
            await session(mode, reconnects)
            return
        except Reconnect:
            reconnects += 1
            if mode == "reconnect_late":
                await asyncio.sleep(float(os.environ.get("RECONNECT_AFTER", "3")))


async def session(mode: str, reconnects: int) -> None:
    rng = random.Random(1)
    async with channel() as chan:
        play: grpc.aio.StreamStreamMultiCallable[bytes, referee_pb2.RefereeMessage]
        play = chan.stream_stream(
            "/croupier.v1.Referee/Play",
            request_serializer=None,  # raw bytes, so that garbage can be sent
            response_deserializer=referee_pb2.RefereeMessage.FromString,
        )
        call = play(metadata=(("authorization", f"Bearer {os.environ['CROUPIER_TOKEN']}"),))
        hello = referee_pb2.BotMessage(
            hello=referee_pb2.Hello(name=f"bad-{mode}", version="1", protocol_version=2)
        )
        await call.write(hello.SerializeToString())
        requests = 0
        timed_out: referee_pb2.ActionRequest | None = None  # `slow`'s request, answered late
        while True:
            message = await call.read()
            if not isinstance(message, referee_pb2.RefereeMessage):  # grpc.aio.EOF
                return
            kind = message.WhichOneof("kind")
            if kind == "match_start":
                requests = 0
                note(f"start {message.match_start.match_id}")
            elif kind == "match_end":
                end = message.match_end
                note(f"end {end.match_id} {common_pb2.Termination.Name(end.result.termination)}")
                if mode == "once":
                    await call.done_writing()
                    return
            elif kind == "goodbye":
                await call.done_writing()
                return
            elif kind == "action_request":
                request = message.action_request
                requests += 1
                index = rng.randrange(len(request.legal_actions))
                if timed_out is not None:  # the referee asks again only after the timeout
                    await call.write(reply(timed_out, 0))  # late: must be dropped
                    timed_out = None
                if mode == "slow_good":
                    await asyncio.sleep(0.02)
                if requests != 3 or mode in {"good", "slow_good", "once"} or reconnects:
                    await call.write(reply(request, index))
                elif mode == "slow":
                    timed_out = request
                elif mode == "out_of_range":
                    await call.write(reply(request, len(request.legal_actions) + 5))
                elif mode == "garbage":
                    await call.write(b"\xff\xff\xff\xff garbage")
                elif mode == "stale":
                    await call.write(reply(request, index, request_id=request.request_id + 1000))
                elif mode == "out_of_turn":
                    await call.write(reply(request, index))
                    await call.write(reply(request, index))
                elif mode == "exit":
                    os._exit(3)
                elif mode == "other_match":
                    other = referee_pb2.ActionRequest()
                    other.CopyFrom(request)
                    other.match_id = "someone-elses-match"
                    await call.write(reply(other, index))
                elif mode in {"reconnect", "reconnect_late"}:
                    call.cancel()
                    raise Reconnect
                elif mode == "flood":
                    # Keep reading while flooding, as a real bot would: the referee's Goodbye
                    # names the limit (a write after the referee's end fails on our side first).
                    async def listen() -> None:
                        try:
                            while isinstance(
                                answer := await call.read(), referee_pb2.RefereeMessage
                            ):
                                if answer.WhichOneof("kind") == "goodbye":
                                    print(f"goodbye: {answer.goodbye.reason}", file=sys.stderr)
                        except grpc.aio.AioRpcError as error:
                            print(f"{error.code().name}: {error.details()}", file=sys.stderr)

                    listener = asyncio.ensure_future(listen())
                    try:
                        for _ in range(5000):
                            await call.write(reply(request, index))
                    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                        pass
                    await listener
                    sys.exit(1)
                elif mode == "no_index":  # forgets the field: must not play legal action 0
                    forgot = referee_pb2.ActionReply(
                        match_id=request.match_id, request_id=request.request_id
                    )
                    await call.write(
                        referee_pb2.BotMessage(action_reply=forgot).SerializeToString()
                    )
                elif mode == "huge":
                    await call.write(b"\x00" * 200_000)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        raise SystemExit(f"usage: misbehaving.py {{{','.join(sorted(MODES))}}}")
    asyncio.run(main(sys.argv[1]))
