"""The reference Xeri heuristic (croupier.bots.XeriHeuristicBot) as a bot program."""

from __future__ import annotations

import croupier
from croupier.bots import XeriHeuristicBot

if __name__ == "__main__":
    croupier.run(XeriHeuristicBot)
