"""A random bot that logs through the SDK's DecisionLog into the file named by its first
argument: a line at each match start, two at each decision (one of them markup, which every
viewer must show as text), and one at the match's end."""

from __future__ import annotations

import logging
import random
import sys

import croupier
from croupier.v1 import referee_pb2

log = logging.getLogger("logging_bot")


class LoggingBot(croupier.Bot):
    name = "logging"
    version = "1"

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        log.info("seated at %d", start.seat)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        index = random.randrange(len(request.legal_actions))
        log.info(
            "decision %d: %s\n<script>alert(1)</script>",
            request.decision,
            request.legal_actions[index].text,
        )
        return index

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        log.info("over")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s", handlers=[])
    logging.getLogger().addHandler(croupier.DecisionLog(sys.argv[1]))
    croupier.run(LoggingBot)
