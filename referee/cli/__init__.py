"""The `croupier` command: one module per sub-app, as typer lays out bigger apps.

A command parses its arguments, calls a library function, prints (rich tables and progress), and
exits with a documented code (`consoles`: 0 done, 1 a check failed, 2 bad input). The top layer:
it may import every other package; nothing imports it.

Typer builds every command's options to print any help, so a command module imports at its top
only typer, the standard library and the shared modules (`consoles`, `epilog`, `options`,
`seeds`, `bot_limits`, `web_settings`); a command imports the rest (servers, engines,
the ladder, rich's displays) inside its function. `croupier --help` then loads none of them
(tests/test_startup.py names what it must not load).

Commands: `app` (the command tree; `__main__` for `python -m`), `match` (games, match), `replay`,
`review`, `positions` (extract, test), `doctor`, `serve`, `contest` (token, contest final),
`watch`, `submit` (submit, submissions, their follow), `team` (a team's members), `challenge`
(an author's challenges), `ladder` (with `ladder_run` and its live `ladder_display`), `cluster`.
Shared: `logs` (structured logging), `resume` (an interrupted command's resume line).
"""

from __future__ import annotations

from referee.cli.app import app, main

__all__ = ["app", "main"]
