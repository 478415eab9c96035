"""A contest's hosted versions on the cluster venue: the shipper (referee.cluster.coordinator.
Shipper) that sends each version's built folder to a worker once, by its content hash
(referee.cluster.versions), before the first batch that needs it there, and hands each author
their version's output of each match played.

A worker keeps what it was sent for its lifetime; one that left, or was restarted at the same
address (a new id), is forgotten, so a batch Dask moves to a worker that lacks a version names
it (VersionsMissing) and is sent again once it was shipped. Batches therefore go to a worker
chosen here: the one with the most free threads, among equals the one that caches most versions.
"""

from __future__ import annotations

import functools
import logging
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from referee.cluster.batch import LOG_TAIL_BYTES, Batch
from referee.cluster.versions import cache_version, pack_folder
from referee.ladder.config import BotSpec, LadderConfig
from referee.ladder.venue import match_id
from referee.results.matches import ScheduledMatch
from referee.transport.host import call_asyncio
from referee.version import VERSION

log = logging.getLogger("croupier.referee")

#: What an author's match log starts with when the match was played on a cluster.
CLUSTER_LOG_HEAD = (
    "[played on the cluster's worker {worker}: what this version printed in the batch of "
    "{matches} matches this one was played in, its last {kept:,} bytes]\n"
)


@dataclass(frozen=True, slots=True)
class Entrant:
    """An active hosted version as the cluster plays it."""

    identity: str
    #: Its version's id: the folder it is cached in on a worker.
    version: str
    #: Its run folder here, packed and shipped to workers.
    folder: Path
    #: Where its author reads its output of each match (`<match id>.log`).
    logs: Path
    #: How a worker launches it: from `<version id>/` in the worker's cache of versions.
    spec: BotSpec


class HostedVersions:
    """The shipper of a contest's hosted versions; `entrants` (by identity) is the contest's:
    every version it has seated this run."""

    pinned = True

    def __init__(self, entrants: Mapping[str, Entrant]) -> None:
        self.entrants = entrants
        #: The versions each worker has cached (as far as this process shipped them), by its
        #: address; `worker_ids` tells a worker restarted at the same address (its cache gone).
        self.cached: dict[str, set[str]] = {}
        self.worker_ids: dict[str, str] = {}
        #: Each active version packed, while it is active (a retired one's bytes are let go:
        #: the referee's memory holds at most the active versions').
        self._packed: dict[str, tuple[str, bytes]] = {}

    def playing(self, active: set[str]) -> None:
        """The versions now active: the others' packed bytes are let go."""
        for retired in set(self._packed) - active:
            del self._packed[retired]

    async def start(self, client: Any, config: LadderConfig) -> Batch:
        placement = replace(config.placement, cluster=None)
        return Batch(0, VERSION, replace(config, placement=placement), (), root="")

    def batch(self, template: Batch, number: int, matches: Sequence[ScheduledMatch]) -> Batch:
        """The batch's bots are its versions, each launched from its folder in the cache."""
        used = [self.entrants[bot] for bot in dict.fromkeys(b for m in matches for b in m.bots)]
        return replace(
            template,
            number=number,
            config=replace(template.config, bots=tuple(e.spec for e in used)),
            matches=tuple(matches),
            versions=tuple(e.version for e in used),
        )

    def workers(self, running: dict[str, Any]) -> None:
        """Forget what was shipped to workers that left, or were restarted (a new id)."""
        for address in set(self.cached) - set(running):
            del self.cached[address]
        for address, info in running.items():
            worker_id = str(info.get("id", address))
            if self.worker_ids.get(address) != worker_id:
                self.worker_ids[address] = worker_id
                self.cached.pop(address, None)

    def affinity(self, worker: str) -> int:
        return len(self.cached.get(worker, ()))

    async def ship(self, client: Any, worker: str, batch: Batch) -> None:
        """Cache on `worker` every version of the batch it lacks, each packed here once."""
        have = self.cached.setdefault(worker, set())
        for bot in batch.config.bots:
            entrant = self.entrants[bot.name]
            vid = entrant.version
            if vid in have:
                continue
            if vid not in self._packed:
                self._packed[vid] = await trio.to_thread.run_sync(pack_folder, entrant.folder)
            digest, data = self._packed[vid]
            began = time.monotonic()
            run = functools.partial(
                client.run, cache_version, vid, digest, data, workers=[worker], on_error="return"
            )
            answers = await call_asyncio(run())
            answer = answers.get(worker)
            if answer is None or isinstance(answer, BaseException):
                raise OSError(f"could not ship {entrant.identity} to {worker}: {answer!r}")
            have.add(vid)
            log.info(
                "hosted version shipped",
                extra={
                    "bot": entrant.identity,
                    "worker": worker,
                    "bytes": len(data),
                    "seconds": round(time.monotonic() - began, 3),
                },
            )

    def keep_logs(
        self,
        worker: str,
        batch: Batch,
        logs: tuple[tuple[str, bytes], ...],
        committed: Sequence[ScheduledMatch],
    ) -> Path | None:
        """Each version's output in the batch, as its author's log of each committed match."""
        tails = {name.rsplit("-", 1)[0]: tail for name, tail in logs}
        head = CLUSTER_LOG_HEAD.format(
            worker=worker, matches=len(batch.matches), kept=LOG_TAIL_BYTES
        ).encode()
        for match in committed:
            name = match_id(batch.config, match.number)
            for bot in set(match.bots) & set(self.entrants):
                folder = self.entrants[bot].logs
                folder.mkdir(exist_ok=True)
                said = zlib.decompress(tails[bot]) if bot in tails else b""
                (folder / f"{name}.log").write_bytes(head + said)
        return None
