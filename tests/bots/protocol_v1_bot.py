"""A bot built as last round's were: python protocol_v1_bot.py, beside stubs generated from the
protocol version 1 protos (tests/data/protocol-v1.binpb) in its own folder's `croupier/v1/`.

It sends no protocol version (its Hello has no such field) and always chooses action 0, which its
stubs' plain `uint32 action_index` leaves off the wire. In Xactika it reads the bids from field 9
(int32, -1 for no bid), as those bots did, and dies if they are not there. It uses no SDK: only
its own stubs and grpc.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its own stubs before croupier's

import grpc

from croupier.v1 import referee_pb2

PLAY = "/croupier.v1.Referee/Play"


def check_bids(request: referee_pb2.ActionRequest) -> None:
    """What an old Xactika bot relied on: one bid per seat, -1 until the seat has bid."""
    if request.observation.WhichOneof("game") != "xactika":
        return
    observation = request.observation.xactika
    # Its own stubs' `bids` (field 9, int32), not the current stubs' that type checkers see.
    bids: list[int] = list(getattr(observation, "bids"))  # noqa: B009
    if len(bids) != observation.players or not all(-1 <= bid <= 8 for bid in bids):
        raise SystemExit(f"version 1 bids missing or wrong: {bids!r}")


def main() -> None:
    address = os.environ["CROUPIER_ADDRESS"]
    metadata = (("authorization", f"Bearer {os.environ['CROUPIER_TOKEN']}"),)
    with grpc.insecure_channel(address) as channel:
        play = channel.stream_stream(
            PLAY,
            request_serializer=referee_pb2.BotMessage.SerializeToString,
            response_deserializer=referee_pb2.RefereeMessage.FromString,
        )
        outbox: list[referee_pb2.BotMessage] = []
        hello = referee_pb2.Hello(name="v1-bot", version="1")
        outbox.append(referee_pb2.BotMessage(hello=hello))
        replies = _Queue(outbox)
        for message in play(iter(replies), metadata=metadata):
            kind = message.WhichOneof("kind")
            if kind == "action_request":
                request = message.action_request
                check_bids(request)
                reply = referee_pb2.ActionReply(
                    match_id=request.match_id, request_id=request.request_id, action_index=0
                )
                replies.put(referee_pb2.BotMessage(action_reply=reply))
            elif kind == "goodbye":
                replies.close()


class _Queue:
    """The request stream: blocks until a message is put, ends when closed."""

    def __init__(self, first: list[referee_pb2.BotMessage]) -> None:
        import queue

        self._queue: queue.Queue[referee_pb2.BotMessage | None] = queue.Queue()
        for message in first:
            self._queue.put(message)

    def put(self, message: referee_pb2.BotMessage) -> None:
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(None)

    def __iter__(self) -> _Queue:
        return self

    def __next__(self) -> referee_pb2.BotMessage:
        message = self._queue.get()
        if message is None:
            raise StopIteration
        return message


if __name__ == "__main__":
    main()
