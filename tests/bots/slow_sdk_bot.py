"""A Python SDK bot that thinks too long once, for the SDK's ending tests:
python slow_sdk_bot.py SECONDS.

Its first decision blocks for SECONDS (a `time.sleep` inside `act`, as a slow search does), so
the referee may move on meanwhile (time the decision out, say Goodbye, end the stream); it then
answers at random, as it does every later decision.
"""

from __future__ import annotations

import random
import sys
import time

import croupier
from croupier.v1 import referee_pb2


class SlowOnce(croupier.Bot):
    name = "slow-once"
    version = "1"
    decisions = 0

    def act(self, request: referee_pb2.ActionRequest) -> int:
        SlowOnce.decisions += 1
        if SlowOnce.decisions == 1:
            time.sleep(float(sys.argv[1]))
        return random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    croupier.run(SlowOnce)
