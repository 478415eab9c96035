"""The reference Xactika heuristic (croupier.bots.XactikaHeuristicBot) as a bot program."""

from __future__ import annotations

import croupier
from croupier.bots import XactikaHeuristicBot

if __name__ == "__main__":
    croupier.run(XactikaHeuristicBot)
