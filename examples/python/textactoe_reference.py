"""The reference textactoe bot that searches (croupier.bots.reference) as a bot program:
`--budget N` playouts a decision (default 200), `--seed S`."""

from __future__ import annotations

from croupier.bots.reference import TexTacToeReferenceBot, main

if __name__ == "__main__":
    main(TexTacToeReferenceBot)
