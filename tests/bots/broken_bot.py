"""A bot with one deliberate defect, for the bot doctor's tests: python broken_bot.py MODE.

It plays random legal actions over a raw grpc.aio stream (so that it can break the protocol),
except where MODE says otherwise:

- `good`: nothing wrong; leaves on Goodbye, and exits with code 1 when its stream breaks.
- `wrong_token`: presents a token that is not CROUPIER_TOKEN.
- `no_hello`: sends an ActionReply where Hello should come first.
- `wrong_game`: says in Hello that it plays only chess.
- `slow`: answers its third request of each match 0.1 s past its move budget (so past the
  deadline when the bank is empty).
- `illegal`: answers its third request of each match with an index past the legal actions.
- `stale`: answers its third request of each match naming another request id.
- `one_match`: closes its session and exits after its first MatchEnd.
- `second_match`: crashes (exit code 3) on its second MatchStart.
- `no_reconnect`: when its stream breaks it neither reconnects nor exits.
- `ignore_goodbye`: keeps running after Goodbye.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

import grpc

from croupier.v1 import referee_pb2

MODES = {
    "good",
    "wrong_token",
    "no_hello",
    "wrong_game",
    "slow",
    "illegal",
    "stale",
    "one_match",
    "second_match",
    "no_reconnect",
    "ignore_goodbye",
}


def reply(request: referee_pb2.ActionRequest, index: int, request_id: int | None = None) -> bytes:
    message = referee_pb2.BotMessage(
        action_reply=referee_pb2.ActionReply(
            match_id=request.match_id,
            request_id=request.request_id if request_id is None else request_id,
            action_index=index,
        )
    )
    return message.SerializeToString()


async def hang() -> None:
    await asyncio.sleep(3600)


async def main(mode: str) -> int:
    rng = random.Random(7)
    token = "not-the-token" if mode == "wrong_token" else os.environ["CROUPIER_TOKEN"]
    async with grpc.aio.insecure_channel(os.environ["CROUPIER_ADDRESS"]) as channel:
        play: grpc.aio.StreamStreamMultiCallable[bytes, referee_pb2.RefereeMessage]
        play = channel.stream_stream(
            "/croupier.v1.Referee/Play",
            request_serializer=None,  # raw bytes, so that anything can be sent
            response_deserializer=referee_pb2.RefereeMessage.FromString,
        )
        call = play(metadata=(("authorization", f"Bearer {token}"),))
        hello = referee_pb2.Hello(name=f"broken-{mode}", version="1")
        if mode == "wrong_game":
            hello.games.append("chess")
        first = referee_pb2.BotMessage(hello=hello)
        if mode == "no_hello":
            first = referee_pb2.BotMessage(action_reply=referee_pb2.ActionReply(action_index=0))
        await call.write(first.SerializeToString())
        starts = requests = 0
        try:
            while True:
                message = await call.read()
                if not isinstance(message, referee_pb2.RefereeMessage):  # grpc.aio.EOF
                    if mode == "no_reconnect":
                        await hang()
                    return 0
                kind = message.WhichOneof("kind")
                if kind == "match_start":
                    starts += 1
                    requests = 0
                    if mode == "second_match" and starts == 2:
                        os._exit(3)
                elif kind == "match_end" and mode == "one_match":
                    await call.done_writing()
                    return 0
                elif kind == "goodbye":
                    await call.done_writing()
                    if mode == "ignore_goodbye":
                        await hang()
                    return 0
                elif kind == "action_request":
                    request = message.action_request
                    requests += 1
                    index = rng.randrange(len(request.legal_actions))
                    if requests != 3:
                        await call.write(reply(request, index))
                    elif mode == "slow":
                        await asyncio.sleep(request.clock.move_ms / 1000 + 0.1)
                        await call.write(reply(request, index))
                    elif mode == "illegal":
                        await call.write(reply(request, len(request.legal_actions) + 2))
                    elif mode == "stale":
                        await call.write(reply(request, index, request.request_id + 1000))
                    else:
                        await call.write(reply(request, index))
        except grpc.aio.AioRpcError as error:
            if mode == "no_reconnect":
                await hang()
            print(f"broken_bot: {error.code().name}: {error.details()}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        raise SystemExit(f"usage: broken_bot.py {{{','.join(sorted(MODES))}}}")
    raise SystemExit(asyncio.run(main(sys.argv[1])))
