"""The smallest croupier bot: a uniformly random legal action, for any game.

Run it against a referee: CROUPIER_ADDRESS=host:port CROUPIER_TOKEN=... python random_bot.py
"""

from __future__ import annotations

import random

import croupier
from croupier.v1 import referee_pb2


class RandomBot(croupier.Bot):
    name = "random"
    version = "1"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        return random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    croupier.run(RandomBot)
