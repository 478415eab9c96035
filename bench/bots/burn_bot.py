"""A bot that thinks for a fixed CPU time: it burns BURN_MS milliseconds of CPU (default 5) on
every decision, then plays a random legal action (croupier.bots.RandomBot).

What bench/ladder_throughput.py measures the referee against when bots are not instant: a
decision's CPU is then mostly the bot's, as with real bots that search.

Run it against a referee: BURN_MS=5 CROUPIER_ADDRESS=host:port CROUPIER_TOKEN=... python burn_bot.py
"""

from __future__ import annotations

import os
import time

import croupier
from croupier.bots import RandomBot
from croupier.v1 import referee_pb2

BURN_SECONDS = float(os.environ.get("BURN_MS", "5")) / 1000


class BurnBot(RandomBot):
    name = "burn"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        until = time.process_time() + BURN_SECONDS
        while time.process_time() < until:  # CPU time, not a sleep: a busy bot
            pass
        return super().act(request)


if __name__ == "__main__":
    croupier.run(BurnBot)
