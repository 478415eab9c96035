"""Hosted bots: authors upload a bot's folder, the referee builds, qualifies and keeps it.

- `manifest`: a bot's `bot.toml` (its games, build and run commands, the limits it asks for),
  read and checked against the contest's maxima;
- `archive`: an upload unpacked without trusting it (no links, devices, traversal, bombs);
- `store`: versions in a content-addressed store (the id is the SHA-256 of the normalised
  contents), their authors and statuses in SQLite, recovered after a kill;
- `build`: builds a version once, in the bot sandbox (referee.local.sandbox), within its own
  limits and at the lowest CPU priority, two at a time;
- `build_inside` and `build_output`: the part of a build run inside its sandbox, and its output
  unpacked with the referee's own limits;
- `pipeline`: a received version built once and qualified once (`qualify`: the doctor's checks
  in the sandbox), taking fair `turns` with other accounts' versions;
- `submitting`: an upload checked against the quotas, unpacked and stored; `roster`: the active
  versions launched by the contest; `house`: the organiser's house bots, stored as uploads,
  challenged by anyone, seated at no ranked table;
- `current`: which rows of a contest's standings are current (each account's active version,
  the bots that connect by themselves), for the site and `croupier ladder standings`.

May import: `referee.ladder` (its bot commands), `referee.local` (limits, the sandbox),
`referee.games` and the shared modules. Never the CLI, the contest server or the web site,
which use it.
"""

from __future__ import annotations
