"""Hosted bots: authors upload a bot's folder, the referee builds, qualifies and keeps it.

- `manifest`: a bot's `bot.toml` (its games, build and run commands, the limits it asks for),
  read and checked against the contest's maxima.

May import: `referee.ladder` (its bot commands), `referee.local` (limits), `referee.games` and
the shared modules. Never the CLI, the contest server or the web site.
"""
