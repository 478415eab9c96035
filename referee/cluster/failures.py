"""What the cluster venue (referee.cluster.coordinator) does with a batch that did not come back
whole: a ladder stops (`Stop`: what was committed stays, the same command resumes), a contest
plays on (`PlayAgain`: a lost batch's matches again, the versions of a failed one rested).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio
from distributed import CancelledError, KilledWorker

from referee.cluster.batch import Batch, BatchFailed
from referee.cluster.coordinator import described
from referee.cluster.versions import VersionsMissing
from referee.errors import CroupierError
from referee.hosted.roster import RELAUNCH_SECONDS
from referee.ladder.venue import LadderError
from referee.results.matches import ScheduledMatch

log = logging.getLogger("croupier.referee")

#: A contest's match whose batch was lost this many times (workers dying under it) is given up.
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class Stop:
    """A ladder's policy: any batch that did not come back whole stops the ladder, with what
    went wrong; the same command resumes it."""

    scheduler: str

    def failed(self, batch: Batch, error: CroupierError, logs: Path | None) -> None:
        if isinstance(error, BatchFailed) and logs is not None:
            raise LadderError(f"{error}; the bots' logs are kept in {logs}") from None
        raise LadderError(str(error)) from None

    def lost(self, batch: Batch, error: BaseException) -> None:
        matches = described(batch)
        if isinstance(error, KilledWorker):
            raise LadderError(
                f"{matches} took down every worker that played them, so Dask gave up "
                f"({error}); the ladder stops here, run the same command to resume"
            ) from None
        if isinstance(error, CancelledError):
            raise LadderError(
                f"lost {matches} with the Dask scheduler at {self.scheduler!r}; "
                "what was committed is kept, run the same command to resume"
            ) from None
        if isinstance(error, OSError):
            raise LadderError(
                f"lost the Dask scheduler at {self.scheduler!r} ({error}); what was "
                "committed is kept, run the same command to resume"
            ) from None
        raise LadderError(str(error)) from None

    def broken(self, batch: Batch, why: str, error: BaseException | None = None) -> None:
        raise LadderError(why) from None


@dataclass
class PlayAgain:
    """A contest's policy: it never stops for a batch. A lost one's matches go back to be
    played again (with their numbers and seeds) up to MAX_ATTEMPTS times; the versions of one
    that failed rest RELAUNCH_SECONDS, as a version the roster cannot keep running does; what
    came back wrong is left unplayed (its schedule rows stay without results)."""

    #: Hand a match back to its source, to be handed out first.
    give_back: Callable[[ScheduledMatch], None]
    #: Rest these versions until this trio time.
    rest: Callable[[Sequence[str], float], None]
    attempts: Counter[int] = field(default_factory=Counter)

    def failed(self, batch: Batch, error: CroupierError, logs: Path | None) -> None:
        # A version that never connected on the worker, or the like: not the cluster's fault.
        why = f"{error}; its versions play again in {RELAUNCH_SECONDS:.0f} s"
        log.warning("hosted batch failed", extra={"matches": described(batch), "why": why})
        self.rest(batch.versions, trio.current_time() + RELAUNCH_SECONDS)

    def lost(self, batch: Batch, error: BaseException) -> None:
        if isinstance(error, VersionsMissing):
            # Dask moved it: the versions that worker lacks are shipped before a batch goes
            # there again (a worker restarted at the same address is forgotten).
            why = f"moved to {error.worker}, which lacked its versions"
        else:
            why = f"{type(error).__name__}: {error}"
        for match in batch.matches:
            self.attempts[match.number] += 1
            if self.attempts[match.number] >= MAX_ATTEMPTS:
                log.warning("hosted match given up", extra={"match": match.number, "why": why})
            else:
                log.info("hosted match played again", extra={"match": match.number, "why": why})
                self.give_back(match)

    def broken(self, batch: Batch, why: str, error: BaseException | None = None) -> None:
        extra = {"matches": described(batch), "why": why}
        if error is not None:  # of no known kind: with its traceback
            log.error("hosted batch failed", extra=extra, exc_info=error)
        else:
            log.warning("hosted batch came back wrong", extra=extra)
