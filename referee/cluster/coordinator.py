"""The one way to play matches on a Dask cluster: what a `Work` source hands out (a ladder's
schedule, a contest's tables of hosted versions) sent in batches, what returns committed here.

The source keeps everything it keeps on one machine (schedule, SQLite, ratings, records,
progress); only the playing moves. Each batch is one Dask task (`referee.cluster.batch`): a
referee and a launch of the bots on a worker, then match after match. The results come back
with the records (zlib), which are written here as `<id>.jsonl.partial` and settled one match
at a time through the source (which commits through referee.match.records.commit_record), so
the resume guarantee is the local one.

Two things differ between sources, and the venue is given each: a shipper, how a batch's bots
reach a worker and where what they printed goes (a ladder's `[cluster] ship` files or root,
referee.cluster.ship; a contest's hosted versions, referee.cluster.hosted), and a failure
policy (referee.cluster.failures: a ladder stops, and the same command resumes; a contest plays
a lost batch again and rests the versions of one that failed).

A worker that dies takes its running batches with it; Dask runs them again on another worker
(nothing of them was committed), so every match is committed once. Backpressure: at most
`threads + workers` batches are in flight (every thread busy and one more queued per worker;
a shipper that ships to one worker at a time, one batch a thread), recounted as workers come
and go, so a 100,000-match ladder never floods the scheduler.
"""

from __future__ import annotations

import logging
import math
import signal
import threading
import time
import uuid
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio
from distributed import CancelledError, Client, KilledWorker

from croupier.v1 import common_pb2
from referee.cluster.batch import (
    Batch,
    BatchFailed,
    BatchOutcome,
    PlayedMatch,
    play_batch,
    worker_facts,
)
from referee.cluster.dask_extra import ClusterError
from referee.cluster.live import watched
from referee.cluster.versions import VersionsMissing
from referee.errors import CroupierError
from referee.ladder.config import LadderConfig
from referee.ladder.venue import (
    BatchReport,
    LadderObserver,
    Work,
    match_id,
    record_path,
)
from referee.match.live_relay import Mirror
from referee.match.records import write_partial
from referee.results.database import Finished
from referee.results.matches import ScheduledMatch
from referee.transport.host import call_asyncio
from referee.version import VERSION

T = TypeVar("T")

log = logging.getLogger("croupier.referee")

#: How long the coordinator waits for the scheduler, and then for a first worker (seconds).
CONNECT_SECONDS = 10.0
#: How long closing the Dask client may take (seconds).
CLOSE_SECONDS = 5.0
WORKER_WAIT_SECONDS = 60.0
#: How often the cluster's size is read again (seconds).
REFRESH_SECONDS = 2.0
#: Batch sizing when `[cluster] batch` is not given: the first batches have FIRST_BATCH
#: matches; then as many as make starting a batch's referee and bots at most OVERHEAD_SHARE of
#: its time, but no more than about MAX_BATCH_SECONDS of play (what a dying worker may take
#: with it) nor MAX_BATCH matches; near the end, what is left is shared among the threads.
FIRST_BATCH = 8
OVERHEAD_SHARE = 0.05
MAX_BATCH_SECONDS = 60.0
MAX_BATCH = 256


@dataclass
class BatchSizes:
    """What sizes batches (a ladder's, and a contest's hosted matches): the time batches spend
    starting versus playing."""

    batches: int = 0
    matches: int = 0
    overhead: float = 0.0
    playing: float = 0.0

    def add(self, outcome: BatchOutcome) -> tuple[float, float]:
        playing = sum(played.seconds for played in outcome.played)
        overhead = max(outcome.seconds - playing, 0.0)
        self.batches += 1
        self.matches += len(outcome.played)
        self.overhead += overhead
        self.playing += playing
        return overhead, playing

    def size(self, fixed: int | None, threads: int, backlog: int) -> int:
        if fixed is not None:
            return fixed
        # Near the end, split what is left so that every thread still gets a share...
        fair = math.ceil(backlog / max(threads, 1)) if backlog else 1
        if not self.matches:
            return max(1, min(FIRST_BATCH, fair))
        per_match = max(self.playing / self.matches, 1e-3)
        per_batch = self.overhead / self.batches
        wanted = math.ceil(per_batch * (1 - OVERHEAD_SHARE) / OVERHEAD_SHARE / per_match)
        wanted = min(wanted, max(1, math.floor(MAX_BATCH_SECONDS / per_match)), MAX_BATCH)
        # ... but never so small that starting a batch costs more than playing it.
        least = math.ceil(per_batch / per_match)
        return max(1, min(wanted, max(fair, least)))


async def aio(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return await call_asyncio(make())


class Shipper(Protocol):
    """How a batch's bots reach the worker that plays it, and where what they printed goes."""

    #: Whether each batch goes to a worker chosen here (its bots shipped there first) rather
    #: than anywhere (every worker has them: files shipped to all, or bots installed).
    pinned: bool

    async def start(self, client: Any, config: LadderConfig) -> Batch:
        """What every batch gets but its number and matches; what every worker needs, sent."""
        ...

    def batch(self, template: Batch, number: int, matches: Sequence[ScheduledMatch]) -> Batch:
        """The batch of these matches."""
        ...

    def workers(self, running: dict[str, Any]) -> None:
        """The running workers now (forget what was sent to one that left or restarted)."""
        ...

    def affinity(self, worker: str) -> int:
        """How much of what batches need `worker` has already (more: chosen first)."""
        ...

    async def ship(self, client: Any, worker: str, batch: Batch) -> None:
        """Before `batch` goes to `worker` ("": anywhere): send what it lacks (OSError)."""
        ...

    def keep_logs(
        self,
        worker: str,
        batch: Batch,
        logs: tuple[tuple[str, bytes], ...],
        committed: Sequence[ScheduledMatch],
    ) -> Path | None:
        """Keep the bots' log tails of a batch (`committed`: its matches that were); returns
        where they were kept, if anywhere (a worker thread)."""
        ...


class FailurePolicy(Protocol):
    """What a source does with a batch that did not come back whole (referee.cluster.failures).
    A method that returns has dealt with the batch; one that raises LadderError stops play."""

    def failed(self, batch: Batch, error: CroupierError, logs: Path | None) -> None:
        """The batch's bots could not play it (one never connected; the worker could not run
        it); `logs`: where their output was kept."""
        ...

    def lost(self, batch: Batch, error: BaseException) -> None:
        """The cluster lost the batch, nothing of it committed: its workers died, the scheduler
        went away, or it ran on a worker without its versions (VersionsMissing)."""
        ...

    def broken(self, batch: Batch, why: str, error: BaseException | None = None) -> None:
        """What came back is not what was sent (other matches, a damaged record: those matches
        are not settled), or the task failed in a way of no known kind (`error`)."""
        ...


@dataclass(frozen=True, slots=True)
class ClusterVenue:
    """The venue on a Dask cluster: the scheduler named by the config's `[cluster]` table."""

    shipper: Shipper
    policy: FailurePolicy
    #: Whether Ctrl-C is this venue's to take (a ladder run); a server keeps its own signals.
    sigint: bool = True

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        """Play what `work` hands out on the Dask cluster at `config.cluster.scheduler` until
        it has none left. Raises LadderError (or ClusterError) when the cluster cannot go on;
        what was committed stays. With `sigint`, Ctrl-C is a KeyboardInterrupt once the Dask
        client is closed (the batches running then finish on their workers, unused)."""
        settings = config.placement.cluster
        assert settings is not None and settings.scheduler
        address = settings.scheduler

        async def coordinate() -> None:
            try:  # Dask retries until its own timeout: a scheduler that is starting is waited for
                client = await aio(lambda: connect_client(address))
            except (OSError, ValueError) as error:
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {address!r}: {error} (start one with "
                    "`croupier cluster local` or `dask scheduler`)"
                ) from None
            try:
                coordinator = _Coordinator(config, work, observer, client, self)
                await coordinator.run()
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_SECONDS):
                    await aio(client.close)

        if self.sigint:
            await _interruptible(coordinate)
        else:
            await coordinate()


async def _interruptible(body: Callable[[], Awaitable[None]]) -> None:
    """Run `body`; on SIGINT cancel it, let it close what it opened, then raise
    KeyboardInterrupt. (Left to asyncio, Ctrl-C would tear the host loop down under the Dask
    client's pending futures.) Off the main thread there are no signals to take."""
    if threading.current_thread() is not threading.main_thread():
        await body()
        return
    interrupted = False
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                nonlocal interrupted
                async for _ in signals:
                    interrupted = True
                    nursery.cancel_scope.cancel()

            nursery.start_soon(watch)
            try:
                await body()
            finally:
                nursery.cancel_scope.cancel()
    if interrupted:
        raise KeyboardInterrupt


async def connect_client(address: str) -> Any:
    """A Dask client on the running asyncio loop (the one hosting trio): its futures are then
    awaited on that loop, with no thread of their own. (Dask's API is typed as Any here: the
    package's annotations are partial.)"""
    client: Any = Client
    return await client(address, asynchronous=True, set_as_default=False, timeout=CONNECT_SECONDS)


async def running_workers(client: Any) -> dict[str, Any]:
    """The scheduler's running workers by address, with what it knows of each (`nthreads`)."""
    info = await aio(lambda: client.scheduler.identity(n_workers=-1))
    workers: dict[str, Any] = info.get("workers", {})
    return {
        address: worker
        for address, worker in workers.items()
        if worker.get("status", "running") == "running"
    }


async def check_workers(client: Any, scheduler: str) -> None:
    """Wait for a first worker that answers, and check that every worker that answers runs this
    croupier. A worker that leaves while it is asked (killed, or restarted by its nanny) is not
    a wrong install: it is left out, and so is one that joins later, since a batch refuses to
    run on another croupier (referee.cluster.batch)."""
    deadline = trio.current_time() + WORKER_WAIT_SECONDS
    while True:
        if await running_workers(client):
            facts = await aio(lambda: client.run(worker_facts, on_error="return"))
            if checked_workers(facts):
                return
        if trio.current_time() >= deadline:
            raise ClusterError(
                f"no worker joined the Dask scheduler at {scheduler!r} within "
                f"{WORKER_WAIT_SECONDS:g} s (start some with `dask worker {scheduler}`)"
            )
        await trio.sleep(0.2)


def checked_workers(facts: dict[str, Any]) -> list[str]:
    """The workers whose facts (worker_facts, or what `client.run` returned instead) show this
    croupier; ClusterError for one that runs another or cannot run it. A worker whose
    connection closed while it was asked (an OSError: Dask's CommClosedError among them) left
    the cluster, and is skipped."""
    found = []
    for worker, fact in sorted(facts.items()):
        if isinstance(fact, OSError):
            log.warning("worker left during the check", extra={"worker": worker, "why": str(fact)})
            continue
        if isinstance(fact, BaseException):
            raise ClusterError(
                f"worker {worker} cannot run croupier ({type(fact).__name__}: {fact}): "
                "install the same croupier, with its [cluster] extra, on every worker"
            )
        if fact.get("croupier") != VERSION:
            raise ClusterError(
                f"worker {worker} runs croupier {fact.get('croupier')!r} but this "
                f"coordinator runs {VERSION!r}: install the same version everywhere"
            )
        found.append(worker)
    return found


class _Coordinator:
    def __init__(
        self,
        config: LadderConfig,
        work: Work,
        observer: LadderObserver,
        client: Any,
        venue: ClusterVenue,
    ) -> None:
        assert config.placement.cluster is not None
        self.config = config
        self.settings = config.placement.cluster
        self.work = work
        self.observer = observer
        self.client = client
        self.shipper = venue.shipper
        self.policy = venue.policy
        #: The running workers as last read, and the batches in flight by the worker each was
        #: sent to ("": anywhere).
        self.workers: dict[str, Any] = {}
        self.busy: Counter[str] = Counter()
        self.changed = trio.Event()
        self.measure = BatchSizes()
        self.batches = 0
        #: Where the batches' live matches go, with a site (referee.cluster.live).
        self.mirror: Mirror | None = None

    def _signal(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def run(self) -> None:
        await check_workers(self.client, self.settings.scheduler or "")
        await self._refresh()
        template = await self.shipper.start(self.client, self.config)
        view = self.work.view
        with watched(self.client, view.live if view is not None else None) as (topic, mirror):
            self.mirror = mirror
            await self._dispatch(replace(template, live_topic=topic))

    async def _dispatch(self, template: Batch) -> None:
        async with trio.open_nursery() as watch:
            watch.start_soon(self._watch_size)
            async with trio.open_nursery() as batches:
                while True:
                    while self._room() is None:
                        await self.changed.wait()
                    matches = await self.work.take(self._size())
                    if not matches:
                        if not self.busy.total():
                            break
                        await self.changed.wait()  # a batch in flight may give some back
                        continue
                    await self._refresh()
                    worker = self._room() or ""
                    self.busy[worker] += 1
                    self.batches += 1
                    batch = self.shipper.batch(template, self.batches, matches)
                    batches.start_soon(self._play, worker, batch)
            watch.cancel_scope.cancel()

    # -- the cluster --------------------------------------------------------------------

    def _threads(self) -> dict[str, int]:
        return {w: int(info.get("nthreads", 1)) for w, info in self.workers.items()}

    def _room(self) -> str | None:
        """Where the next batch may go now: "" (anywhere) while fewer than every thread and
        one more per worker are in flight; for a pinned shipper, the worker with the most free
        threads (among equals, the one that has most of what batches need). None: no room."""
        threads = self._threads()
        if not self.shipper.pinned:
            capacity = max(1, sum(threads.values()) + len(threads))
            return "" if self.busy.total() < capacity else None
        room = {worker: count - self.busy[worker] for worker, count in threads.items()}
        best = max(room, key=lambda w: (room[w], self.shipper.affinity(w)), default=None)
        return best if best is not None and room[best] > 0 else None

    def _size(self) -> int:
        threads = max(1, sum(self._threads().values()))
        return self.measure.size(self.settings.batch, threads, self.work.backlog())

    async def _refresh(self) -> None:
        """Read the running workers again (the last known stay while the scheduler is away:
        the batches' futures will say so)."""
        try:
            self.workers = await running_workers(self.client)
        except OSError:
            return
        self.shipper.workers(self.workers)
        self._signal()

    async def _watch_size(self) -> None:
        while True:
            await trio.sleep(REFRESH_SECONDS)
            await self._refresh()

    # -- one batch ----------------------------------------------------------------------

    async def _play(self, worker: str, batch: Batch) -> None:
        try:
            began = time.monotonic()
            outcome = await self._outcome(worker, batch)
            if outcome is None:
                return
            wall = time.monotonic() - began
            overhead, playing = self.measure.add(outcome)
            commit_began = time.monotonic()
            await self._commit(batch, outcome)
            self.observer.batch(
                BatchReport(
                    worker=outcome.worker,
                    matches=len(outcome.played),
                    seconds=outcome.seconds,
                    overhead=overhead,
                    playing=playing,
                    wall=wall,
                    commit=time.monotonic() - commit_began,
                    record_bytes=sum(p.record_size for p in outcome.played),
                    sent_bytes=sum(len(p.record) for p in outcome.played),
                )
            )
        finally:
            if self.mirror is not None:  # whatever of it is still live ends for its viewers
                self.mirror.lost(batch.number)
            self.busy[worker] -= 1
            if not self.busy[worker]:
                del self.busy[worker]
            self._signal()

    async def _outcome(self, worker: str, batch: Batch) -> BatchOutcome | None:
        """The batch played on the cluster; None when the failure policy dealt with it."""
        first, last = batch.matches[0].number, batch.matches[-1].number
        key = f"croupier-{self.config.name}-{first:05d}-{uuid.uuid4().hex[:8]}"
        where = {"workers": [worker], "allow_other_workers": True} if worker else {}
        try:
            await self.shipper.ship(self.client, worker, batch)
            future: Any = self.client.submit(play_batch, batch, key=key, pure=False, **where)
            log.info("batch sent", extra={"matches": f"{first}-{last}", "worker": worker})
            try:
                outcome: BatchOutcome = await aio(lambda: _result(future))
            finally:
                future.release()
        except BatchFailed as error:
            kept = await trio.to_thread.run_sync(
                self.shipper.keep_logs, error.worker, batch, error.logs, ()
            )
            self.policy.failed(batch, error, kept)
            return None
        except (VersionsMissing, KilledWorker, CancelledError, OSError) as error:
            self.policy.lost(batch, error)
            return None
        except CroupierError as error:
            self.policy.failed(batch, error, None)
            return None
        except Exception as error:  # whatever else a worker sends back
            why = f"{described(batch)} failed on the cluster: {type(error).__name__}: {error}"
            self.policy.broken(batch, why, error)
            return None
        numbers = [played.number for played in outcome.played]
        if numbers != [match.number for match in batch.matches]:
            self.policy.broken(
                batch, f"the cluster sent back matches {numbers} for {described(batch)}"
            )
            return None
        return outcome

    async def _commit(self, batch: Batch, outcome: BatchOutcome) -> None:
        """Write the records as partial files, then settle each match through the source
        (which flushes, renames, hashes and commits it in one transaction)."""
        damaged = await trio.to_thread.run_sync(self._write, outcome)
        for number in damaged:
            self.policy.broken(batch, f"the record of match {number} arrived damaged")
        committed = []
        for match, played in zip(batch.matches, outcome.played, strict=True):
            if played.number not in damaged:
                await self.work.settle(self._finished(match, played))
                committed.append(match)
        await trio.to_thread.run_sync(
            self.shipper.keep_logs, outcome.worker, batch, outcome.logs, committed
        )

    def _write(self, outcome: BatchOutcome) -> list[int]:
        """Each whole record written as its partial file; the numbers of those that are not."""
        damaged = []
        for played in outcome.played:
            data = zlib.decompress(played.record)
            if len(data) != played.record_size:
                damaged.append(played.number)
                continue
            write_partial(record_path(self.config, played.number), data)
        return damaged

    def _finished(self, match: ScheduledMatch, played: PlayedMatch) -> Finished:
        """A match as it came back, to be settled: the one place a played match becomes what
        a source commits (its luck corrections too: issue 28.4)."""
        return Finished(
            match=match,
            match_id=match_id(self.config, match.number),
            record=record_path(self.config, match.number),
            record_sha256="",
            result=common_pb2.Result.FromString(played.result),
            faults=tuple(common_pb2.Fault.FromString(fault) for fault in played.faults),
            seconds=played.seconds,
            exits=played.exits,
            luck=played.luck,
        )


def described(batch: Batch) -> str:
    """A batch's matches as a message names them: "match 7" or "matches 7-12"."""
    first, last = batch.matches[0].number, batch.matches[-1].number
    return f"matches {first}-{last}" if last != first else f"match {first}"


async def _result(future: Awaitable[T]) -> T:
    return await future
