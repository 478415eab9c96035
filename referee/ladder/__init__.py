"""Ladders: many matches among launched bots, with formats, duplicate deals, ratings with
intervals, state in SQLite (resumable after any kill), and standings.

`load` reads a ladder file, `run_ladder` plays it (trio; run it with `referee.transport.run`),
`standings_of` reads the standings of a ladder database, `verify_ladder` checks one.
"""

from __future__ import annotations

from referee.ladder.config import LadderConfig, LadderConfigError, load
from referee.ladder.ratings import Sprt
from referee.ladder.runner import Summary, run_ladder
from referee.ladder.standings import Standings
from referee.ladder.venue import LadderError, LadderObserver, StartInfo, Venue
from referee.ladder.verify import LadderCheck, standings_of, verify_ladder

__all__ = [
    "LadderCheck",
    "LadderConfig",
    "LadderConfigError",
    "LadderError",
    "LadderObserver",
    "Sprt",
    "Standings",
    "StartInfo",
    "Summary",
    "Venue",
    "load",
    "run_ladder",
    "standings_of",
    "verify_ladder",
]
