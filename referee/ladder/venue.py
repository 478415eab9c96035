"""Where a ladder's matches are played, and what the ladder hands that place.

The ladder runner (referee.ladder.runner) owns the schedule, the database and the standings; a
`Venue` plays the matches it hands out and gives each finished one back to be committed. Three
venues exist: `LocalVenue` (referee.ladder.local_venue: a loopback referee and bot processes on this
machine), `ProcessVenue` (referee.ladder.process_venue: several such referees, one process each) and
`ClusterVenue` (referee.cluster: batches on a Dask cluster). The CLI chooses one,
so the runner never imports the cluster package and Dask stays an optional import.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from referee.errors import CroupierError
from referee.ladder.config import LadderConfig
from referee.ladder.view import RefereeView
from referee.ratings.standings import Standings
from referee.results.database import Finished
from referee.results.matches import ScheduledMatch


class LadderError(CroupierError):
    """A ladder that cannot start or go on (a bot that never connects, a bad SPRT setup)."""


@dataclass(frozen=True, slots=True)
class StartInfo:
    """What a ladder run announces before its first match."""

    name: str
    game: str
    total: int
    done: int
    seed_sha256: str
    resumed: bool
    database: Path
    records: Path
    #: How bots' launch settings (command, env) changed since the database was made.
    changed: tuple[str, ...] = ()
    #: The value function the luck corrections are made with, "name:sha256" ("": none).
    luck_value: str = ""


class LadderObserver:
    """Hooks for progress and live standings; the default does nothing. All are called on the
    referee's thread between matches, so they must return quickly."""

    def started(self, info: StartInfo) -> None:
        """Before the first match (or at once, for a ladder that is already complete)."""

    def progress(self, done: int, total: int) -> None:
        """After every committed match; `total` can change (Swiss rounds, an SPRT verdict)."""

    def standings(self, standings: Standings) -> None:
        """Live standings, at most every STANDINGS_INTERVAL seconds."""

    def batch(self, report: BatchReport) -> None:
        """A batch played on a cluster worker was committed (where its time went)."""


@dataclass(frozen=True, slots=True)
class BatchReport:
    """One batch of matches played on a cluster worker: where the time went."""

    worker: str
    matches: int
    #: On the worker: the whole task; what was not spent in matches (starting and stopping the
    #: referee and the bots, waiting for them to connect); the matches themselves.
    seconds: float
    overhead: float
    playing: float
    #: At the coordinator: submitting to having the results, then writing and committing.
    wall: float
    commit: float
    #: The records' size, and as they travelled (zlib).
    record_bytes: int
    sent_bytes: int


@dataclass(frozen=True, slots=True)
class Work:
    """What a venue needs from the ladder: matches to play, and where to send them back."""

    #: The next match to play, or None once the ladder is played (or stopped).
    next: Callable[[], Awaitable[ScheduledMatch | None]]
    #: Up to n matches to play (waiting for the first); empty once the ladder is played.
    take: Callable[[int], Awaitable[list[ScheduledMatch]]]
    #: How many matches are ready to be taken now.
    backlog: Callable[[], int]
    #: Commit one finished match whose record is at `<record>.partial` on this machine.
    settle: Callable[[Finished], Awaitable[None]]
    #: Someone watches the ladder (the web site): a venue opens its matches in `view.live`
    #: (those played elsewhere relayed, referee.match.live_relay) and sets `view.connected`.
    view: RefereeView | None = None
    #: Hand back a match that was handed out but will not be finished (the referee worker
    #: playing it died): it is handed out again first. None where no venue needs it.
    give_back: Callable[[ScheduledMatch], None] | None = None


class Venue(Protocol):
    """A place that plays a ladder's matches until `work` has none left."""

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        """Play what `work` hands out; raise LadderError when matches cannot be played."""
        ...


def match_id(config: LadderConfig, number: int) -> str:
    return f"{config.name}-{number:05d}"


def record_path(config: LadderConfig, number: int) -> Path:
    return config.placement.records / f"{match_id(config, number)}.jsonl"
