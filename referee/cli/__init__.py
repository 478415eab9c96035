"""The `croupier` command: one module per sub-app, as typer lays out bigger apps.

A command parses its arguments, calls a library function, prints (rich tables and progress), and
exits with a documented code (`support`: 0 done, 1 a check failed, 2 bad input). The top layer:
it may import every other package; nothing imports it.
"""

from __future__ import annotations

from referee.cli.app import app, main

__all__ = ["app", "main"]
