"""A bot for every game: it picks a legal action uniformly at random."""

from __future__ import annotations

import random

from croupier.bot import Bot
from croupier.v1 import referee_pb2


class RandomBot(Bot):
    """Uniformly random legal actions; seed it for repeatable play."""

    name = "random"
    version = "1"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        return self._rng.randrange(len(request.legal_actions))
