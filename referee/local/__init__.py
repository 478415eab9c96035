"""Matches among bot processes launched on this machine.

- `launcher`: starts a bot's command with CROUPIER_ADDRESS/CROUPIER_TOKEN, restarts it when it
  exits, stops its whole process group, keeps its output;
- `series`: `croupier match`: a loopback referee and N matches among launched bots.

May import: `referee.match`, `referee.transport` (a series starts a server), `referee.games` and
the shared modules. Never a ladder, the contest server or the CLI.
"""
