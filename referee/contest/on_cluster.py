"""Hosted versions played on a Dask cluster: `croupier serve --db --cluster tcp://SCHEDULER:8786`.

The contest keeps what it keeps on one machine (the book, its standings, the records, the
authors' logs); its hosted versions play each other on the cluster's workers instead of in
slots here. `ClusterTables.run` seats tables of active versions with the contest's own pairing
(referee.contest.pairing: unsettled entrants first, pacing, the least met) and sends them in
batches, one Dask task per batch, to a worker with a free thread; batches are sized as a
ladder's on a cluster (referee.cluster.coordinator.BatchSizes: 8 matches at first, then as many
as make the launch of their bots a small share of their time, up to a minute of play). The
task (referee.cluster.batch.play_batch) plays them with the ladder's code: a loopback referee
on the worker, each version launched there in the sandbox from its built folder, `ponder =
false`, its manifest's limits. The records come back, and each match is committed here as the
contest commits its own.

A version's built folder is shipped to a worker once, by its content hash
(referee.cluster.versions), before the first batch that needs it there; a worker keeps it for
its lifetime. A worker that dies takes its batch with it, uncommitted: Dask runs the task
again on another worker, which names the versions it lacks (VersionsMissing) if it was never
sent them; they are shipped and the same matches, with their numbers and seeds, are sent again.
Nothing is committed twice: only this process commits, once per match that came back.

Network bots play each other on this machine as before (a table never mixes the two: a
network bot reaches only this referee), in one book and one set of standings.
"""

from __future__ import annotations

import functools
import itertools
import logging
import time
import uuid
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio
from distributed import CancelledError, KilledWorker

from croupier.v1 import common_pb2
from referee.cluster.batch import LOG_TAIL_BYTES, Batch, BatchFailed, BatchOutcome, play_batch
from referee.cluster.coordinator import (
    CLOSE_SECONDS,
    BatchSizes,
    aio,
    check_workers,
    connect_client,
    running_workers,
)
from referee.cluster.dask_extra import ClusterError
from referee.cluster.live import watched
from referee.cluster.versions import VersionsMissing, cache_version, pack_folder
from referee.contest.book import ContestBook
from referee.contest.pairing import Pacing, choose_table, seat_order
from referee.contest.starts import Starts
from referee.errors import CroupierError
from referee.hosted.manifest import ManifestError, load_manifest
from referee.hosted.pipeline import PipelineSettings, VersionFiles
from referee.hosted.roster import RELAUNCH_SECONDS
from referee.hosted.store import Version, VersionStore, entrant
from referee.hosted.submitting import MATCH_LOGS
from referee.ladder.config import BotSpec, LadderConfig
from referee.match.live_relay import Mirror
from referee.match.records import write_partial
from referee.match.runner import MatchOutcome
from referee.match.spectators import LiveMatches
from referee.results.matches import ScheduledMatch
from referee.version import VERSION

log = logging.getLogger("croupier.referee")

#: What an open-ended contest tells the batch sizer is left to play: more than any batch takes.
OPEN_ENDED = 10**9
#: A match whose batch was lost this many times (workers dying under it) is given up.
MAX_ATTEMPTS = 3
#: How often the dispatcher looks again at the active versions and the workers (seconds).
POLL_SECONDS = 1.0
#: What an author's match log starts with when the match was played on a cluster.
CLUSTER_LOG_HEAD = (
    "[played on the cluster's worker {worker}: what this version printed in the batch of "
    "{matches} matches this one was played in, its last {kept:,} bytes]\n"
)


@dataclass(frozen=True, slots=True)
class Entrant:
    """An active hosted version as the cluster plays it."""

    identity: str
    version: Version
    #: Its run folder here, packed and shipped to workers.
    folder: Path
    #: How a worker launches it: from `<version id>/` in the worker's cache of versions.
    spec: BotSpec


class ClusterTables:
    """Plays the contest's hosted versions against each other on a Dask cluster."""

    def __init__(
        self,
        scheduler: str,
        store: VersionStore,
        book: ContestBook,
        settings: PipelineSettings,
        rules: LadderConfig,
        pacing: Pacing,
        starts: Starts,
        committed: Callable[[MatchOutcome], None],
        revoked: Callable[[], set[str]] = set,
        live: LiveMatches | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.store = store
        self.book = book
        self.settings = settings
        #: The contest's terms as a batch's settings (its bots filled in per batch).
        self.rules = rules
        self.pacing = pacing
        self.starts = starts
        self.committed = committed
        self.revoked = revoked
        self.meetings: Counter[frozenset[str]] = Counter(book.meetings)
        #: The versions each worker has cached (as far as this process shipped them), by its
        #: address; `worker_ids` tells a worker restarted at the same address (its cache gone).
        self.cached: dict[str, set[str]] = {}
        self.worker_ids: dict[str, str] = {}
        #: Batches running per worker.
        self.busy: Counter[str] = Counter()
        #: Matches whose batch was lost, to be played again first, and how often each was.
        self.again: list[ScheduledMatch] = []
        self.attempts: Counter[int] = Counter()
        #: Each active version packed, while it is active (a retired one's bytes are let go:
        #: the referee's memory holds at most the active versions').
        self._packed: dict[str, tuple[str, bytes]] = {}
        #: When each version whose batch failed may play again (trio time).
        self.resting: dict[str, float] = {}
        self._entrants: dict[str, Entrant] = {}
        self._changed = trio.Event()
        self._batches = itertools.count(1)
        #: Batch sizes as a ladder's on a cluster: a batch's bots are launched once for all its
        #: matches, so it grows until their start-up is a small share of its time.
        self.sizes = BatchSizes()
        self.threads = 1
        #: The contest's live matches, which the batches relay theirs to (None: not relayed).
        self.live = live
        self.live_topic = ""
        self.mirror: Mirror | None = None

    def hosted(self) -> frozenset[str]:
        """Every hosted version this run has played here (they never sit at a network table)."""
        return frozenset(self._entrants)

    def _signal(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def run(self, stop: trio.Event) -> None:
        """Dispatch batches until `stop` is set or every start is taken, then wait for the
        batches still running. Raises ClusterError when the cluster cannot be used."""
        try:
            client = await aio(lambda: connect_client(self.scheduler))
        except (OSError, ValueError) as error:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {self.scheduler!r}: {error} (start one "
                "with `croupier cluster local` or `dask scheduler`)"
            ) from None
        try:
            await check_workers(client, self.scheduler)
            with watched(client, self.live) as (self.live_topic, self.mirror):
                async with trio.open_nursery() as batches:
                    await self._dispatch(client, batches, stop)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_SECONDS):
                await aio(client.close)

    async def _dispatch(self, client: Any, batches: trio.Nursery, stop: trio.Event) -> None:
        while not stop.is_set():
            if self.starts.over.is_set() and not self.again and not self.busy.total():
                return
            try:
                workers = await running_workers(client)
            except OSError:  # the scheduler is away: look again
                await trio.sleep(POLL_SECONDS)
                continue
            self._forget_changed(workers)
            entrants = await self._active()
            active = {e.version.id for e in entrants.values()}
            for retired in set(self._packed) - active:
                del self._packed[retired]
            self.pacing.observe(entrants, trio.current_time())
            self.threads = max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))
            worker = self._free(workers)
            matches = await self._tables(entrants, self._size()) if worker is not None else []
            if worker is None or not matches:
                with trio.move_on_after(POLL_SECONDS):
                    await self._changed.wait()
                continue
            self.busy[worker] += 1
            batches.start_soon(self._play, client, worker, matches)

    def _forget_changed(self, workers: dict[str, Any]) -> None:
        """Forget what was shipped to workers that left, or were restarted (a new id)."""
        for address in set(self.cached) - set(workers):
            del self.cached[address]
        for address, info in workers.items():
            worker_id = str(info.get("id", address))
            if self.worker_ids.get(address) != worker_id:
                self.worker_ids[address] = worker_id
                self.cached.pop(address, None)

    def _free(self, workers: dict[str, Any]) -> str | None:
        """The worker with the most free threads (None: every thread is busy)."""
        room = {w: int(info.get("nthreads", 1)) - self.busy[w] for w, info in workers.items()}
        best = max(room, key=lambda w: (room[w], len(self.cached.get(w, ()))), default=None)
        return best if best is not None and room[best] > 0 else None

    async def _active(self) -> dict[str, Entrant]:
        """The active versions of accounts not revoked, by identity (but those resting)."""
        versions = await trio.to_thread.run_sync(self.store.active_versions)
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
        files = VersionFiles(self.store.folder(version.id))
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
        return Entrant(identity, version, files.run_folder(manifest), spec)

    def _size(self) -> int:
        total = self.starts.total
        left = OPEN_ENDED if total is None else total - self.starts.started + len(self.again)
        return self.sizes.size(None, self.threads, left)

    async def _tables(self, entrants: dict[str, Entrant], size: int) -> list[ScheduledMatch]:
        """Up to `size` matches: those to play again first (while all their versions are
        active), then new tables, each seated in the book."""
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

    # -- one batch ----------------------------------------------------------------------

    async def _play(self, client: Any, worker: str, matches: list[ScheduledMatch]) -> None:
        number = next(self._batches)
        try:
            outcome = await self._outcome(client, worker, matches, number)
            if outcome is not None:
                self.sizes.add(outcome)
                await self._commit(matches, outcome)
        finally:
            if self.mirror is not None:  # whatever of it is still live ends for its viewers
                self.mirror.lost(number)
            self.busy[worker] -= 1
            if not self.busy[worker]:
                del self.busy[worker]
            self._signal()

    async def _outcome(
        self, client: Any, worker: str, matches: list[ScheduledMatch], number: int
    ) -> BatchOutcome | None:
        """The batch played on the cluster (None: lost, its matches queued to play again, or
        given up)."""
        used = [self._entrants[bot] for bot in dict.fromkeys(b for m in matches for b in m.bots)]
        numbers = f"{matches[0].number}-{matches[-1].number}"
        try:
            await self._ship(client, worker, used)
            batch = Batch(
                number=number,
                version=VERSION,
                config=replace(self.rules, bots=tuple(e.spec for e in used)),
                matches=tuple(matches),
                root="",
                versions=tuple(e.version.id for e in used),
                live_topic=self.live_topic,
            )
            key = f"croupier-contest-{matches[0].number:05d}-{uuid.uuid4().hex[:8]}"
            future: Any = client.submit(
                play_batch, batch, key=key, pure=False, workers=[worker], allow_other_workers=True
            )
            log.info("hosted batch sent", extra={"matches": numbers, "worker": worker})
            try:
                outcome: BatchOutcome = await aio(lambda: _result(future))
            finally:
                future.release()
        except VersionsMissing as error:
            # The versions may have been shipped there since it looked: those not are shipped
            # before a batch goes there (a worker restarted at the same address is forgotten).
            self._again(matches, f"moved to {error.worker}, which lacked its versions")
            return None
        except (BatchFailed, CroupierError) as error:
            # A version that never connected on the worker, or the like: not the cluster's
            # fault. The batch's versions rest, as a version the roster cannot keep running.
            why = f"{error}; its versions play again in {RELAUNCH_SECONDS:.0f} s"
            log.warning("hosted batch failed", extra={"matches": numbers, "why": why})
            until = trio.current_time() + RELAUNCH_SECONDS
            for entrant_ in used:
                self.resting[entrant_.version.id] = until
            return None
        except (KilledWorker, CancelledError, OSError) as error:
            self._again(matches, f"{type(error).__name__}: {error}")
            return None
        except Exception as error:  # whatever else a worker sends back must not stop the contest
            why = f"{type(error).__name__}: {error}"
            log.exception("hosted batch failed", extra={"matches": numbers, "why": why})
            return None
        if [p.number for p in outcome.played] != [m.number for m in matches]:
            log.warning("hosted batch came back wrong", extra={"matches": numbers})
            return None
        return outcome

    def _again(self, matches: list[ScheduledMatch], why: str) -> None:
        for match in matches:
            self.attempts[match.number] += 1
            if self.attempts[match.number] >= MAX_ATTEMPTS:
                log.warning("hosted match given up", extra={"match": match.number, "why": why})
            else:
                log.info("hosted match played again", extra={"match": match.number, "why": why})
                self.again.append(match)

    async def _ship(self, client: Any, worker: str, used: list[Entrant]) -> None:
        """Cache on `worker` every version of `used` it lacks, each packed here once."""
        have = self.cached.setdefault(worker, set())
        for entrant_ in used:
            vid = entrant_.version.id
            if vid in have:
                continue
            if vid not in self._packed:
                self._packed[vid] = await trio.to_thread.run_sync(pack_folder, entrant_.folder)
            digest, data = self._packed[vid]
            began = time.monotonic()
            run = functools.partial(
                client.run, cache_version, vid, digest, data, workers=[worker], on_error="return"
            )
            answers = await aio(run)
            answer = answers.get(worker)
            if answer is None or isinstance(answer, BaseException):
                raise OSError(f"could not ship {entrant_.identity} to {worker}: {answer!r}")
            have.add(vid)
            log.info(
                "hosted version shipped",
                extra={
                    "bot": entrant_.identity,
                    "worker": worker,
                    "bytes": len(data),
                    "seconds": round(time.monotonic() - began, 3),
                },
            )

    async def _commit(self, matches: list[ScheduledMatch], outcome: BatchOutcome) -> None:
        """Each match's record written, then committed in the book as a local match is."""
        for match, played in zip(matches, outcome.played, strict=True):
            match_id = f"contest-{match.number:05d}"
            path = self.rules.records / f"{match_id}.jsonl"
            data = zlib.decompress(played.record)
            if len(data) != played.record_size:
                log.warning("hosted record damaged", extra={"match": match_id})
                continue
            partial = await trio.to_thread.run_sync(write_partial, path, data)
            result = MatchOutcome(
                match_id=match_id,
                result=common_pb2.Result.FromString(played.result),
                faults=tuple(common_pb2.Fault.FromString(f) for f in played.faults),
                record_path=partial,
                luck=played.luck,
            )
            result = await trio.to_thread.run_sync(self.book.commit, match, result, played.seconds)
            await trio.to_thread.run_sync(self._keep_logs, match, match_id, outcome)
            self.committed(result)
        await trio.to_thread.run_sync(self.book.refresh_ratings)

    def _keep_logs(self, match: ScheduledMatch, match_id: str, outcome: BatchOutcome) -> None:
        """Each version's output in the batch, as its author's log of this match."""
        tails = {name.rsplit("-", 1)[0]: tail for name, tail in outcome.logs}
        head = CLUSTER_LOG_HEAD.format(
            worker=outcome.worker, matches=len(outcome.played), kept=LOG_TAIL_BYTES
        ).encode()
        for bot in set(match.bots) & set(self._entrants):
            folder = self.store.folder(self._entrants[bot].version.id) / MATCH_LOGS
            folder.mkdir(exist_ok=True)
            said = zlib.decompress(tails[bot]) if bot in tails else b""
            (folder / f"{match_id}.log").write_bytes(head + said)


async def _result(future: Any) -> Any:
    return await future
