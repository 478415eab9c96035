"""A random bot that plays the same moves in the same match wherever and whenever it plays it.

Its generator is seeded from the match id and its seat at every MatchStart, so a ladder's
outcomes do not depend on which process, which machine or in which order the matches are
played: what the cluster tests compare. It prints its working folder once, so a test can see
where it ran from (the shipped copy on a worker).
"""

from __future__ import annotations

import os
import random

import croupier
from croupier.v1 import referee_pb2


class SeededRandom(croupier.Bot):
    name = "seeded-random"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.rng = random.Random(f"{start.match_id}/{start.seat}")

    def act(self, request: referee_pb2.ActionRequest) -> int:
        return self.rng.randrange(len(request.legal_actions))


if __name__ == "__main__":
    print(f"seeded-random runs in {os.getcwd()}", flush=True)
    croupier.run(SeededRandom)
