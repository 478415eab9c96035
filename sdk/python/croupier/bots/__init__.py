"""Reference bots that ship with the SDK: the example programs, the referee's tests and benchmarks
all play these same classes."""

from __future__ import annotations

from croupier.bots.random_bot import RandomBot
from croupier.bots.textactoe_heuristic import TexTacToeHeuristicBot
from croupier.bots.xactika_heuristic import XactikaHeuristicBot
from croupier.bots.xeri_heuristic import XeriHeuristicBot
from croupier.bots.xix_heuristic import XixHeuristicBot

__all__ = [
    "RandomBot",
    "TexTacToeHeuristicBot",
    "XactikaHeuristicBot",
    "XeriHeuristicBot",
    "XixHeuristicBot",
]
