"""The reference Tex-Tac-Toe heuristic (croupier.bots.TexTacToeHeuristicBot) as a bot program."""

from __future__ import annotations

import croupier
from croupier.bots import TexTacToeHeuristicBot

if __name__ == "__main__":
    croupier.run(TexTacToeHeuristicBot)
