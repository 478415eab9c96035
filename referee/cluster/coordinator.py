"""The coordinator: hand a ladder's matches to a Dask cluster in batches, commit what returns.

The ladder keeps everything it keeps on one machine (schedule, SQLite, ratings, records,
progress); only the playing moves. Each batch is one Dask task (`referee.cluster.batch`):
a referee and a launch of the bots on a worker, then match after match. The results come back
with the records (zlib), which are written here as `<id>.jsonl.partial` and committed one
match at a time through the ladder's own commit, so the resume guarantee is the local one.

A worker that dies takes its running batches with it; Dask runs them again on another worker
(nothing of them was committed), so every match is committed once. Backpressure: at most
`threads + workers` batches are in flight (every thread busy and one more queued per worker),
recounted as workers come and go, so a 100,000-match ladder never floods the scheduler.
"""

from __future__ import annotations

import logging
import math
import signal
import threading
import time
import uuid
import zlib
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import trio
from distributed import CancelledError, Client, KilledWorker

from croupier.v1 import common_pb2
from referee.cluster.batch import (
    Batch,
    BatchFailed,
    BatchOutcome,
    PlayedMatch,
    play_batch,
    template,
    worker_facts,
)
from referee.cluster.dask_extra import ClusterError
from referee.cluster.live import watched
from referee.cluster.ship import ShipFiles, pack
from referee.errors import CroupierError
from referee.ladder.config import LadderConfig
from referee.ladder.venue import (
    BatchReport,
    LadderError,
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


class ClusterVenue:
    """The venue on a Dask cluster: the scheduler named by the ladder's `[cluster]` table."""

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        await play_on_cluster(config, work, observer)


async def play_on_cluster(config: LadderConfig, work: Work, observer: LadderObserver) -> None:
    """Play the ladder's matches on the Dask cluster at `config.cluster.scheduler` until `work`
    has none left. Raises LadderError (or ClusterError) when the cluster cannot go on; what
    was committed stays, and the same command resumes. Ctrl-C is a KeyboardInterrupt once the
    Dask client is closed (the batches running then finish on their workers, unused)."""
    settings = config.cluster
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
            await _Coordinator(config, work, observer, client).run()
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_SECONDS):
                await aio(client.close)

    await _interruptible(coordinate)


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
        self, config: LadderConfig, work: Work, observer: LadderObserver, client: Any
    ) -> None:
        assert config.cluster is not None
        self.config = config
        self.settings = config.cluster
        self.work = work
        self.observer = observer
        self.client = client
        self.capacity = 1
        self.threads = 1
        self.in_flight = 0
        self.changed = trio.Event()
        self.measure = BatchSizes()
        self.batches = 0
        self.logs = config.records / "logs"
        #: Where the batches' live matches go, with a site (referee.cluster.live).
        self.mirror: Mirror | None = None

    def _signal(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def run(self) -> None:
        await self._check_workers()
        template = await self._template()
        view = self.work.view
        with watched(self.client, view.live if view is not None else None) as (topic, mirror):
            self.mirror = mirror
            await self._dispatch(replace(template, live_topic=topic))

    async def _dispatch(self, template: Batch) -> None:
        async with trio.open_nursery() as watch:
            watch.start_soon(self._watch_size)
            async with trio.open_nursery() as batches:
                while True:
                    while self.in_flight >= self.capacity:
                        await self.changed.wait()
                    size = self.measure.size(self.settings.batch, self.threads, self.work.backlog())
                    matches = await self.work.take(size)
                    if not matches:
                        break
                    self.in_flight += 1
                    self.batches += 1
                    batch = replace(template, number=self.batches, matches=tuple(matches))
                    batches.start_soon(self._play, batch)
            watch.cancel_scope.cancel()

    # -- the cluster --------------------------------------------------------------------

    async def _workers(self) -> dict[str, Any]:
        return await running_workers(self.client)

    async def _size(self) -> None:
        workers = await self._workers()
        threads = sum(int(worker.get("nthreads", 1)) for worker in workers.values())
        self.threads = max(1, threads)
        capacity = max(1, threads + len(workers))
        if capacity != self.capacity:
            self.capacity = capacity
            self._signal()

    async def _watch_size(self) -> None:
        while True:
            await trio.sleep(REFRESH_SECONDS)
            try:
                await self._size()
            except OSError:  # the scheduler is away: the batches' futures will say so
                continue

    async def _check_workers(self) -> None:
        await check_workers(self.client, self.settings.scheduler or "")
        await self._size()

    async def _template(self) -> Batch:
        """What every task gets but its matches; the shipped files registered first."""
        if not self.settings.ship:
            return template(self.config, root=self.settings.root)
        digest, data = await trio.to_thread.run_sync(pack, self.config.root, self.settings.ship)
        plugin = ShipFiles(digest, data)
        await aio(lambda: self.client.register_plugin(plugin, name=plugin.name))
        return template(self.config, shipped=digest)

    # -- one batch ----------------------------------------------------------------------

    async def _play(self, batch: Batch) -> None:
        try:
            began = time.monotonic()
            outcome = await self._outcome(batch)
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
            self.in_flight -= 1
            self._signal()

    async def _outcome(self, batch: Batch) -> BatchOutcome:
        first, last = batch.matches[0].number, batch.matches[-1].number
        key = f"croupier-{self.config.name}-{first:05d}-{uuid.uuid4().hex[:8]}"
        future: Any = self.client.submit(play_batch, batch, key=key, pure=False)
        matches = f"matches {first}-{last}" if last != first else f"match {first}"
        try:
            outcome: BatchOutcome = await aio(lambda: _result(future))
        except BatchFailed as error:
            await trio.to_thread.run_sync(self._keep_logs, error.worker, batch.number, error.logs)
            where = f"; the bots' logs are kept in {self.logs}" if error.logs else ""
            raise LadderError(f"{error}{where}") from None
        except CroupierError as error:
            raise LadderError(str(error)) from None
        except KilledWorker as error:
            raise LadderError(
                f"{matches} took down every worker that played them, so Dask gave up "
                f"({error}); the ladder stops here, run the same command to resume"
            ) from None
        except CancelledError:
            raise LadderError(
                f"lost {matches} with the Dask scheduler at {self.settings.scheduler!r}; "
                "what was committed is kept, run the same command to resume"
            ) from None
        except OSError as error:
            raise LadderError(
                f"lost the Dask scheduler at {self.settings.scheduler!r} ({error}); what was "
                "committed is kept, run the same command to resume"
            ) from None
        except Exception as error:
            raise LadderError(
                f"{matches} failed on the cluster: {type(error).__name__}: {error}"
            ) from None
        finally:
            future.release()
        numbers = [played.number for played in outcome.played]
        if numbers != [match.number for match in batch.matches]:
            raise LadderError(f"the cluster sent back matches {numbers} for {matches}")
        return outcome

    async def _commit(self, batch: Batch, outcome: BatchOutcome) -> None:
        """Write the records as partial files, then commit each match as the local runner
        does (flush, rename, hash, one transaction)."""
        await trio.to_thread.run_sync(self._write, outcome)
        for match, played in zip(batch.matches, outcome.played, strict=True):
            await self.work.settle(self._finished(match, played))

    def _write(self, outcome: BatchOutcome) -> None:
        for played in outcome.played:
            final = record_path(self.config, played.number)
            data = zlib.decompress(played.record)
            if len(data) != played.record_size:
                raise LadderError(f"the record of match {played.number} arrived damaged")
            write_partial(final, data)
        self._keep_logs(outcome.worker, outcome.number, outcome.logs)

    def _keep_logs(self, worker: str, number: int, logs: tuple[tuple[str, bytes], ...]) -> None:
        """Append a batch's bot log tails to `<bot>-<worker>.log` in the ladder's log folder."""
        if not logs:
            return
        self.logs.mkdir(parents=True, exist_ok=True)
        where = worker.split("://")[-1].replace(":", "-").replace("/", "-")
        for name, tail in logs:
            with (self.logs / f"{_bot_of(name)}-{where}.log").open("ab") as handle:
                handle.write(f"== batch {number}\n".encode())
                handle.write(zlib.decompress(tail))

    def _finished(self, match: ScheduledMatch, played: PlayedMatch) -> Finished:
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


async def _result(future: Awaitable[T]) -> T:
    return await future


def _bot_of(log_name: str) -> str:
    """The bot of a worker's log file: `<bot>-<slot>.log` or `<bot>-per-match.log`."""
    stem = Path(log_name).stem
    if stem.endswith("-per-match"):
        return stem.removesuffix("-per-match")
    return stem.rsplit("-", 1)[0]
