"""`python -m referee.cli`: the same as the `croupier` command."""

from referee.cli import main

main()
