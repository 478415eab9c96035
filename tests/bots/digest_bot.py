"""A deterministic bot whose every choice depends on everything the referee has sent it.

It keeps a running SHA-256 over what reaches it in a match (the MatchStart, then each
ActionRequest's observation, legal actions and events), leaving out only what legitimately varies
between two runs of one seeded match: the match id, the request id and the clock. Each decision
is that digest modulo the number of legal actions. So a match plays the same moves wherever and
whenever it is played, but only while the transport delivers the same messages: a lost, reordered
or altered event changes every later choice, which the golden records (tests/golden/) then show.

`--illegal-every N` makes every N-th decision of a match an out-of-range index, an illegal action
the referee faults and plays for the seat (N larger than the match is long: no faults).
"""

from __future__ import annotations

import argparse
import hashlib

import croupier
from croupier.v1 import referee_pb2


class DigestBot(croupier.Bot):
    name = "digest"
    version = "1"

    def __init__(self, illegal_every: int = 0) -> None:
        self.illegal_every = illegal_every
        self.digest = hashlib.sha256()
        self.decisions = 0

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        copy = referee_pb2.MatchStart()
        copy.CopyFrom(start)
        copy.ClearField("match_id")
        self.digest = hashlib.sha256(copy.SerializeToString(deterministic=True))
        self.decisions = 0

    def act(self, request: referee_pb2.ActionRequest) -> int:
        copy = referee_pb2.ActionRequest()
        copy.CopyFrom(request)
        for varying in ("match_id", "request_id", "clock"):
            copy.ClearField(varying)
        self.digest.update(copy.SerializeToString(deterministic=True))
        self.decisions += 1
        count = len(request.legal_actions)
        if self.illegal_every and self.decisions % self.illegal_every == 0:
            return count  # one past the last legal action
        return int.from_bytes(self.digest.digest()[:8], "big") % count


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--illegal-every", type=int, default=0, metavar="N")
    croupier.run(DigestBot(parser.parse_args().illegal_every))
