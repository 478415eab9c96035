"""The reference XIX heuristic (croupier.bots.XixHeuristicBot) as a bot program."""

from __future__ import annotations

import croupier
from croupier.bots import XixHeuristicBot

if __name__ == "__main__":
    croupier.run(XixHeuristicBot)
