"""Matches among bot processes launched on this machine.

- `launcher`: starts a bot's command with its addresses and CROUPIER_TOKEN, restarts it when it
  exits, stops its whole process group, keeps its output (`bot_log`: through a pipe, into a log
  kept to its cap); `processes`: a launched bot's CPU time, and stopping it while it waits (the
  match layer's `LaunchedBot`); `priority`: bots start below the referee's CPU priority;
- `series`: `croupier match`: a loopback referee and N matches among launched bots; `workers`:
  those matches shared among N referee processes, one per core;
- `sandbox`: the bubblewrap sandbox a bot runs in, built from `bot_root` (what it sees: an
  allow-list), `doors` (its own socket and user), `relay` (that socket on its own loopback, run
  inside the sandbox with the standard library alone), `syscalls` (the seccomp filter), `limits`
  and `cgroups`; `spawn` starts it from a thread that lives as long as the referee;
- `last_output`: what a bot printed last, for its error messages; `leftovers`: cgroups and socket
  folders of referees that died, removed at the next start.

May import: `referee.match`, `referee.transport` (a series starts a server), `referee.games` and
the shared modules. Never a ladder, the contest server or the CLI.
"""
