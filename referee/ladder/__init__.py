"""Ladders: many matches among launched bots, with formats, duplicate deals, ratings with
intervals, state in SQLite (resumable after any kill), and standings.

`load` reads a ladder file, `run_ladder` plays it (trio; run it with `referee.transport.run`),
`standings_of` reads the standings of a ladder database, `verify_ladder` checks one.
`RefereeView` is what a companion (the web site) may see of a running ladder or contest;
`ladder_view` makes one for `run_ladder` to fill in.

Modules: `config` (the ladder file; `overrides`: what a run changes of it), `schedule` (who
meets whom, on which deal), `runner` (the ladder played at a `venue`: `local_venue` here,
`process_venue` for several referee processes, a cluster's from outside), `verify` (a
database checked against its records, replays shared on a `pool`, as the report's pages are:
referee.web.report),
`ownership` (a records folder belongs to one database), `view` (what the web site sees
of a running ladder). Its database is `referee.results`'s, its standings and SPRT
`referee.ratings`'.

May import: `referee.local` (launched bots), `referee.match`, `referee.ratings`,
`referee.results`, `referee.games` and the shared modules; `referee.transport` only in
`local_venue`, which starts the loopback referee its matches are played on. Never a cluster,
the contest server or the CLI: where matches are played is a `Venue` the CLI hands in.
"""

from __future__ import annotations

from referee.ladder.config import LadderConfig, LadderConfigError, load
from referee.ladder.runner import Summary, ladder_view, run_ladder
from referee.ladder.venue import LadderError, LadderObserver, StartInfo, Venue
from referee.ladder.verify import LadderCheck, standings_of, verify_ladder
from referee.ladder.view import Presence, RefereeView
from referee.ratings.sprt import Sprt
from referee.ratings.standings import Standings

__all__ = [
    "LadderCheck",
    "LadderConfig",
    "LadderConfigError",
    "LadderError",
    "LadderObserver",
    "Presence",
    "RefereeView",
    "Sprt",
    "Standings",
    "StartInfo",
    "Summary",
    "Venue",
    "ladder_view",
    "load",
    "run_ladder",
    "standings_of",
    "verify_ladder",
]
