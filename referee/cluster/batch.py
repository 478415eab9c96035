"""The Dask task: play a batch of a ladder's matches on a worker, return results and records.

`play_batch` runs in a worker's thread. It plays with `referee.ladder.local_venue.play_matches`, the
code a local ladder runs (a referee on a loopback port, the bots launched there with
`CROUPIER_ADDRESS` and a token, match after match over their sessions), into a scratch folder
that is gone when the task returns. Nothing is written on the coordinator's side: a task that
dies with its worker leaves nothing behind, and Dask runs it again elsewhere.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
import tempfile
import time
import zlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from referee import transport
from referee.cluster.dask_extra import ClusterError
from referee.cluster.packing import COMPLETE
from referee.cluster.versions import VersionsMissing, cache_folder, cached
from referee.errors import CroupierError, leaves
from referee.games import get_game
from referee.ladder.config import LadderConfig
from referee.ladder.local_venue import play_matches
from referee.ladder.venue import LadderError
from referee.match.live_relay import Relayed, relayed
from referee.match.records import partial_path
from referee.match.spectators import LiveMatches
from referee.results.database import Exit, Finished
from referee.results.matches import ScheduledMatch
from referee.version import VERSION

#: A bot's log sent back per batch is cut to its last this many bytes.
LOG_TAIL_BYTES = 64 * 1024

#: The folder, under a worker's local directory, that shipped files are unpacked into.
SHIP_PREFIX = "croupier-ship-"


class BatchFailed(LadderError):
    """A batch the worker could not play: every mistake with where it happened, and the bots'
    log tails, so that the coordinator keeps them beside the ladder's other logs (the worker's
    scratch folder is gone when the task ends)."""

    def __init__(self, text: str, worker: str, logs: tuple[tuple[str, bytes], ...]) -> None:
        super().__init__(text)
        self.worker = worker
        self.logs = logs

    def __reduce__(
        self,
    ) -> tuple[type[BatchFailed], tuple[str, str, tuple[tuple[str, bytes], ...]]]:
        return BatchFailed, (str(self), self.worker, self.logs)


@dataclass(frozen=True, slots=True)
class Batch:
    """One Dask task's work. `config.bots[i].cwd` is relative to the root on the worker."""

    number: int
    version: str
    config: LadderConfig
    matches: tuple[ScheduledMatch, ...]
    #: The ladder's root on the worker: this path, or (with `shipped`) the unpacked files.
    root: str
    shipped: str | None = None
    #: Hosted versions the batch plays (referee.cluster.versions): the root is then the worker's
    #: cache of versions, and each bot's folder is its version's id.
    versions: tuple[str, ...] = ()
    #: The Dask event topic its live matches are relayed on (referee.cluster.live); "": none.
    live_topic: str = ""


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match as it travels back: protobuf messages as bytes, the record zlib-compressed."""

    number: int
    result: bytes
    faults: tuple[bytes, ...]
    seconds: float
    exits: tuple[Exit, ...]
    record: bytes
    record_size: int
    luck: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """What a task returns: its matches in the order given, and what the worker measured."""

    number: int
    worker: str
    played: tuple[PlayedMatch, ...]
    #: (log file name, its tail, zlib-compressed) for every bot log of the batch.
    logs: tuple[tuple[str, bytes], ...]
    #: The whole task on the worker, starting and stopping the referee and the bots included.
    seconds: float


def template(config: LadderConfig, root: str | None = None, shipped: str | None = None) -> Batch:
    """The batch every task of the ladder gets but for its number and matches: bot folders
    relative to the root, and the root as the workers see it (by default, where it is here)."""
    here = config.placement.root
    bots = tuple(replace(bot, cwd=Path(os.path.relpath(bot.cwd, here))) for bot in config.bots)
    where = root if root is not None else str(here.resolve())
    placement = replace(config.placement, cluster=None)
    return Batch(0, VERSION, replace(config, bots=bots, placement=placement), (), where, shipped)


def play_batch(batch: Batch) -> BatchOutcome:
    """The Dask task: play `batch.matches` here and return them. Bot mistakes are results; a
    ladder that cannot go on (a bot that never connects) raises LadderError naming the worker
    and what the bot's log said last."""
    began = time.monotonic()
    worker, scratch = _where()
    if batch.version != VERSION:
        raise ClusterError(
            f"worker {worker} runs croupier {VERSION!r} but the coordinator runs "
            f"{batch.version!r}: install the same version everywhere"
        )
    root = _root(batch, scratch, worker)
    with tempfile.TemporaryDirectory(prefix="croupier-batch-", dir=scratch) as folder:
        config = _local_config(batch, root, Path(folder), worker)
        try:
            played = transport.run(_play, config, batch.matches, _publisher(batch))
        except (CroupierError, BaseExceptionGroup) as error:
            raise _explained(error, config, worker) from None
        logs = tuple(_log_tails(config.placement.records / "logs"))
    return BatchOutcome(batch.number, worker, played, logs, time.monotonic() - began)


def _publisher(batch: Batch) -> Callable[[list[Relayed]], Awaitable[None]] | None:
    """What sends the batch's live matches to its coordinator: Dask events on its topic, from
    this worker (None: not relayed, or not on a Dask worker)."""
    if not batch.live_topic:
        return None
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return None

    async def publish(relayed: list[Relayed]) -> None:
        worker.log_event(batch.live_topic, [batch.number, relayed])  # thread-safe

    return publish


async def _play(
    config: LadderConfig,
    matches: tuple[ScheduledMatch, ...],
    publish: Callable[[list[Relayed]], Awaitable[None]] | None = None,
) -> tuple[PlayedMatch, ...]:
    queue = iter(matches)
    played: list[PlayedMatch] = []

    async def next_match() -> ScheduledMatch | None:
        return next(queue, None)

    async def settle(finished: Finished) -> None:
        partial = partial_path(finished.record)
        data = partial.read_bytes()
        partial.unlink()
        played.append(
            PlayedMatch(
                number=finished.match.number,
                result=finished.result.SerializeToString(),
                faults=tuple(fault.SerializeToString() for fault in finished.faults),
                seconds=finished.seconds,
                exits=finished.exits,
                record=zlib.compress(data, 6),
                record_size=len(data),
                luck=finished.luck,
            )
        )
        await trio.lowlevel.checkpoint()

    async def play(live: LiveMatches | None = None) -> None:
        await play_matches(config, next_match, settle, live=live)

    if publish is not None:
        await relayed(play, publish)
    else:
        await play()
    return tuple(played)


def _where() -> tuple[str, Path | None]:
    """This worker's address and scratch folder (the host name and the system's temporary
    folder when called outside a Dask worker, as tests do)."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return socket.gethostname(), None
    return worker.address, Path(worker.local_directory)


def _root(batch: Batch, scratch: Path | None, worker: str) -> Path:
    if batch.versions:
        root = cache_folder(scratch or tempfile.gettempdir())
        missing = tuple(v for v in batch.versions if not cached(root, v))
        if missing:
            raise VersionsMissing(worker, missing)
        return root
    if batch.shipped is None:
        root = Path(batch.root)
        if not root.is_dir():
            raise ClusterError(
                f"worker {worker} has no folder {batch.root!r} (the ladder's root): install the "
                "bots there on every worker, set [cluster] root, or ship them with [cluster] ship"
            )
        return root
    root = (scratch or Path(tempfile.gettempdir())) / f"{SHIP_PREFIX}{batch.shipped}"
    if not (root / COMPLETE).is_file():
        raise ClusterError(f"worker {worker} has not unpacked the shipped files into {root}")
    return root


def _local_config(batch: Batch, root: Path, folder: Path, worker: str) -> LadderConfig:
    """The ladder's settings as this worker plays them: its own paths, one match at a time."""
    config = batch.config
    bots = []
    for bot in config.bots:
        cwd = root / bot.cwd
        if not cwd.is_dir():
            raise ClusterError(f"bot {bot.name!r}: no folder {str(cwd)!r} on worker {worker}")
        bots.append(replace(bot, cwd=cwd))
    placement = replace(
        config.placement,
        root=root,
        records=folder / "records",
        database=folder / "unused.sqlite",
        concurrency=1,
        cluster=None,
    )
    return replace(config, game=get_game(config.game.id), bots=tuple(bots), placement=placement)


def _explained(error: BaseException, config: LadderConfig, worker: str) -> BaseException:
    """One BatchFailed for the coordinator: every mistake of the batch, where it happened, the
    last line each bot logged and their logs' tails. Anything else (our own bug) goes back as it
    is."""
    mistakes: list[BaseException] = []
    if isinstance(error, BaseExceptionGroup):
        found, others = error.split(CroupierError)
        if found is None or others is not None:
            return error
        mistakes = list(leaves(found))
    else:
        mistakes = [error]
    logs = config.placement.records / "logs"
    said = []
    for log in sorted(logs.glob("*.log")):
        lines = log.read_text(errors="replace").strip().splitlines()
        if lines:
            said.append(f"{log.stem}: {lines[-1].strip()!r}")
    # A log's path on the worker is gone with the task: name the file alone.
    text = "; ".join(str(mistake) for mistake in mistakes).replace(f"{logs}{os.sep}", "")
    where = f" (on worker {worker}"
    where += f"; last lines of the bot logs: {', '.join(said)})" if said else ")"
    return BatchFailed(text + where, worker, tuple(_log_tails(logs)))


def _log_tails(folder: Path) -> Iterator[tuple[str, bytes]]:
    for log in sorted(folder.glob("*.log")):
        with log.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - LOG_TAIL_BYTES))
            data = handle.read()
        if data:
            yield log.name, zlib.compress(data, 6)


def worker_facts() -> dict[str, str]:
    """What the coordinator checks on every worker before it sends any work."""
    return {"croupier": VERSION, "python": sys.version.split()[0], "host": platform.node()}
