"""Hosted versions played on a Dask cluster: `croupier serve --db --cluster tcp://SCHEDULER:8786`.

The contest keeps what it keeps on one machine (the book, its standings, the records, the
authors' logs); its hosted versions play each other on the cluster's workers instead of in
slots here. `ClusterTables` is the contest as a `Work` source (referee.ladder.venue) of the one
cluster venue (referee.cluster.coordinator.ClusterVenue), which plays a ladder's matches too:
it seats tables of active versions with the contest's own pairing (referee.contest.pairing:
unsettled entrants first, pacing, the least met), each seated in the book, and commits each
match that comes back in the book as the contest commits its own. The venue sizes the batches
as a ladder's, ships each version to a worker once (referee.cluster.hosted), and, with the
contest's failure policy (referee.cluster.failures.PlayAgain), plays the matches of a batch that
a dying worker took with it again, with their numbers and seeds, and rests the versions of a
batch that failed. Nothing is committed twice: only this process commits, once per match that
came back.

Network bots play each other on this machine as before (a table never mixes the two: a
network bot reaches only this referee), in one book and one set of standings.
"""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from referee.cluster.coordinator import ClusterVenue
from referee.cluster.failures import PlayAgain
from referee.cluster.hosted import Entrant, HostedVersions
from referee.contest.book import ContestBook
from referee.contest.pairing import Pacing, choose_table, seat_order
from referee.contest.starts import Starts
from referee.hosted.house import ranked
from referee.hosted.manifest import ManifestError, load_manifest
from referee.hosted.pipeline import PipelineSettings, VersionFiles
from referee.hosted.store import Version, VersionStore, entrant
from referee.hosted.submitting import MATCH_LOGS
from referee.ladder.config import BotSpec, LadderConfig
from referee.ladder.venue import LadderObserver, Work
from referee.ladder.view import RefereeView
from referee.match.records import partial_path
from referee.match.runner import MatchOutcome
from referee.results.database import Finished
from referee.results.matches import ScheduledMatch

log = logging.getLogger("croupier.referee")

#: What an open-ended contest tells the batch sizer is left to play: more than any batch takes.
OPEN_ENDED = 10**9
#: How often the tables look again at the active versions when none may sit down (seconds).
POLL_SECONDS = 1.0


class ClusterTables:
    """The contest's hosted versions seated at tables for the cluster venue."""

    def __init__(
        self,
        store: VersionStore,
        book: ContestBook,
        settings: PipelineSettings,
        rules: LadderConfig,
        pacing: Pacing,
        starts: Starts,
        committed: Callable[[MatchOutcome], None],
        revoked: Callable[[], set[str]] = set,
        view: RefereeView | None = None,
    ) -> None:
        self.store = store
        self.book = book
        self.settings = settings
        #: The contest's terms as a batch's settings (its bots filled in per batch), with the
        #: scheduler as its `[cluster]` table.
        self.rules = rules
        self.pacing = pacing
        self.starts = starts
        self.committed = committed
        self.revoked = revoked
        self.view = view
        self.meetings: Counter[frozenset[str]] = Counter(book.meetings)
        #: Matches whose batch was lost, to be played again first.
        self.again: list[ScheduledMatch] = []
        #: When each version whose batch failed may play again (trio time).
        self.resting: dict[str, float] = {}
        self._entrants: dict[str, Entrant] = {}
        self.shipper = HostedVersions(self._entrants)
        self._stop = trio.Event()

    def hosted(self) -> frozenset[str]:
        """Every hosted version this run has played here (they never sit at a network table)."""
        return frozenset(self._entrants)

    async def run(self, stop: trio.Event) -> None:
        """Play until `stop` is set or every start is taken, then wait for the batches still
        running. Raises ClusterError when the cluster cannot be used."""
        self._stop = stop
        venue = ClusterVenue(self.shipper, PlayAgain(self.again.append, self.rest), sigint=False)
        work = Work(
            next=self._next,
            take=self.take,
            backlog=self.backlog,
            settle=self.settle,
            view=self.view,
            give_back=self.again.append,
        )
        await venue.play(self.rules, work, LadderObserver())

    def rest(self, versions: Sequence[str], until: float) -> None:
        for version in versions:
            self.resting[version] = until

    def backlog(self) -> int:
        total = self.starts.total
        return OPEN_ENDED if total is None else total - self.starts.started + len(self.again)

    async def _next(self) -> ScheduledMatch | None:
        matches = await self.take(1)
        return matches[0] if matches else None

    async def take(self, size: int) -> list[ScheduledMatch]:
        """Up to `size` matches, waiting for the first: those to play again first (while all
        their versions are active), then new tables, each seated in the book. Empty once the
        contest stops, or every start is taken and nothing is left to play again."""
        while not self._stop.is_set():
            if self.starts.over.is_set() and not self.again:
                return []
            entrants = await self._active()
            self.shipper.playing({e.version for e in entrants.values()})
            self.pacing.observe(entrants, trio.current_time())
            if matches := await self._tables(entrants, size):
                return matches
            with trio.move_on_after(POLL_SECONDS):
                await self._stop.wait()
        return []

    async def settle(self, finished: Finished) -> None:
        """A match that came back, its record at `<record>.partial`: committed in the book
        (referee.match.records.commit_record: the record on disk before its row)."""
        outcome = MatchOutcome(
            match_id=finished.match_id,
            result=finished.result,
            faults=finished.faults,
            record_path=partial_path(finished.record),
            luck=finished.luck,
        )
        commit = self.book.commit
        outcome = await trio.to_thread.run_sync(commit, finished.match, outcome, finished.seconds)
        self.committed(outcome)
        await trio.to_thread.run_sync(self.book.refresh_ratings)

    async def _active(self) -> dict[str, Entrant]:
        """The active versions of accounts not revoked, by identity (but those resting)."""
        versions = ranked(await trio.to_thread.run_sync(self.store.active_versions))
        revoked = await trio.to_thread.run_sync(self.revoked)
        found: dict[str, Entrant] = {}
        now = trio.current_time()
        for version in versions:
            if version.account in revoked or self.resting.get(version.id, 0.0) > now:
                continue
            identity = entrant(version)
            known = self._entrants.get(identity)
            if known is None:
                known = self._entrant(version, identity)
                if known is None:
                    continue
                self._entrants[identity] = known
            found[identity] = known
        return found

    def _entrant(self, version: Version, identity: str) -> Entrant | None:
        folder = self.store.folder(version.id)
        files = VersionFiles(folder)
        try:
            manifest = load_manifest(files.src, self.settings.maxima)
        except ManifestError as error:  # it qualified with this manifest: the store was changed
            log.warning("hosted version not played", extra={"bot": identity, "why": str(error)})
            return None
        spec = BotSpec(
            name=identity,
            command=manifest.run,
            cwd=Path(version.id),
            limits=manifest.limits(self.settings.qualify.limits),
            own_folder=True,
            confined=True,
        )
        return Entrant(identity, version.id, files.run_folder(manifest), folder / MATCH_LOGS, spec)

    async def _tables(self, entrants: dict[str, Entrant], size: int) -> list[ScheduledMatch]:
        matches: list[ScheduledMatch] = []
        while self.again and len(matches) < size:
            match = self.again.pop(0)
            if set(match.bots) <= set(entrants):
                matches.append(match)
            else:
                why = "a version is no longer active"
                log.warning("hosted match not played", extra={"match": match.number, "why": why})
        seats = self.rules.seats
        # The network bots, which play on the referee's machine: they never sit here.
        elsewhere = self.pacing.present - set(entrants)
        while len(matches) < size and len(entrants) >= seats:
            table = choose_table(
                list(entrants.values()),
                seats,
                self.book.ratings,
                self.meetings,
                self.pacing,
                self.book.settled,
                elsewhere,
            )
            if table is None or self.starts.take() is None:
                break
            bots = [e.identity for e in table]
            bots = [bots[i] for i in seat_order(bots, self.book.seated)]
            self.pacing.seated(bots)
            for a, b in itertools.combinations(set(bots), 2):
                self.meetings[frozenset((a, b))] += 1
            matches.append(await trio.to_thread.run_sync(self.book.seat, bots))
        return matches
