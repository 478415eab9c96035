"""The digest bot (tests/bots/digest_bot.py), writing down every message the referee sends it.

Each message, less what varies between two runs of one seeded match (the match id, the request
id, the clock), is appended to FOLDER/<seat>.bin, serialized and length-prefixed (4 bytes,
big-endian), so a test can compare a seat's stream from a real referee byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: find tests/

import croupier
from croupier.v1 import referee_pb2
from tests.bots.digest_bot import DigestBot

Message = referee_pb2.MatchStart | referee_pb2.ActionRequest | referee_pb2.MatchEnd


def invariant(message: Message) -> bytes:
    """The message as two runs of one seeded match send it alike."""
    copy = type(message).FromString(message.SerializeToString())
    for varying in ("match_id", "request_id", "clock"):
        if varying in type(message).DESCRIPTOR.fields_by_name:
            copy.ClearField(varying)
    data = copy.SerializeToString(deterministic=True)
    return len(data).to_bytes(4, "big") + data


class StreamBot(DigestBot):
    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self.path = folder / "unknown.bin"

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        super().on_match_start(start)
        self.path = self.folder / f"{start.seat}.bin"
        self._write(start)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        self._write(request)
        return super().act(request)

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        self._write(end)

    def _write(self, message: Message) -> None:
        with self.path.open("ab") as file:
            file.write(invariant(message))


if __name__ == "__main__":
    croupier.run(StreamBot(Path(sys.argv[1])))
