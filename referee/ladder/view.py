"""What a read-only companion of a running referee (the web site) may see of it.

Both `croupier serve` (referee.contest.serving) and `croupier ladder run` (the runner and the
local venue here) fill in one `RefereeView`; the site (referee.web) reads nothing else. Both keep
their results in a ladder database (referee.results.database), so the view names that database and
says when it changed; live matches are the same `LiveMatches` registry that gRPC spectators
watch, which only ever holds public events. Never a token: bots are named by their ladder or
account names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from referee.games.base import Game
from referee.games.options import Options
from referee.local.limits import Limits
from referee.match.clock import TimeControl
from referee.match.spectators import LiveMatches


class Kind(StrEnum):
    """What the referee runs: the word the site's pages use for it."""

    #: `croupier serve --db`: bots connect from anywhere, open-ended or up to `matches`.
    CONTEST = "contest"
    #: `croupier ladder run`: a ladder file's schedule among launched bots.
    LADDER = "ladder"


@dataclass(frozen=True, slots=True)
class Presence:
    """A bot's state now: its open sessions and the live matches it plays."""

    sessions: int
    playing: int

    @property
    def state(self) -> str:
        if self.playing:
            return "playing"
        return "idle" if self.sessions else "offline"


@dataclass(frozen=True, slots=True)
class Terms:
    """What every bot of a contest gets, the same for all: public, so that authors read it on
    the site rather than learn it from their faults."""

    time_control: TimeControl
    #: Faults in a match before the seat is retired.
    max_faults: int
    #: Seconds a bot may take to reconnect mid-match and take its seat back.
    reconnect_grace: float
    #: Matches one session plays before the referee ends it (None: no limit).
    max_matches_per_session: int | None = None
    #: A hosted bot's limits unless its bot.toml asks for others (None: no hosted bots here).
    hosted_limits: Limits | None = None


@dataclass(eq=False)
class RefereeView:
    """What the site may see of a running contest or ladder. The referee's side fills it in
    and calls `notify` after each commit; the site only reads it and appends its listeners."""

    kind: Kind
    game: Game
    options: Options
    live: LiveMatches
    #: The ladder's name ("" for a contest).
    name: str = ""
    #: The database the results are committed to; None while there is none (a contest without
    #: accounts, or a ladder whose database is not made yet: the runner sets it when it is).
    database: Path | None = None
    #: A contest's store of hosted bots' versions (referee.hosted.store), read-only: a bot's
    #: page lists its account's versions and statuses from it. None: no hosted bots.
    versions: Path | None = None
    #: Matches planned (None: open-ended); a ladder's total moves with Swiss rounds and an SPRT.
    planned: int | None = None
    #: The accounts whose tokens are revoked, as the referee last enforced them.
    revoked: set[str] = field(default_factory=set)
    #: Called (on the referee's thread, so quickly) after each commit to the database: a
    #: match's result, the ladder's first schedule, the end (the master seed revealed).
    committed: list[Callable[[], None]] = field(default_factory=list)
    #: The names at each live match's seats, by match id, where they differ from the seat
    #: names in its MatchStart (a contest's accounts; a bot chooses its Hello.name).
    tables: dict[str, list[str]] = field(default_factory=dict)
    #: Who is connected (set by whoever holds the lobby).
    connected: Callable[[], dict[str, Presence]] = dict
    #: What every bot gets (a contest's); None: not shown (a ladder's bots each have their own).
    terms: Terms | None = None

    def presence(self) -> dict[str, Presence]:
        """Every bot that connected (or is in the ladder), with its sessions and live matches."""
        return self.connected()

    def notify(self) -> None:
        """Tell the listeners that the database changed."""
        for listener in list(self.committed):
            listener()
