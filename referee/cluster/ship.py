"""Ship a ladder's bot files to every worker: `[cluster] ship = ["bots", ...]`.

The coordinator packs the listed paths (relative to the ladder's root) into one zip; a Dask
worker plugin unpacks it into `<worker local directory>/croupier-ship-<digest>/` on every worker,
those there now and those that join later (the scheduler keeps the plugin). The bots then run
from that folder as they would from the root here. The digest names the content, so a changed
bot is a new folder and an unchanged one is unpacked once per worker. `ShippedFiles` is the
cluster venue's shipper for a ladder (referee.cluster.coordinator.Shipper): these files, or with
no `ship` the bots installed on every worker at `[cluster] root`.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio
from distributed import Worker
from distributed.diagnostics.plugin import WorkerPlugin

from referee.cluster.batch import SHIP_PREFIX, Batch, template
from referee.cluster.dask_extra import ClusterError
from referee.cluster.packing import entry, unpack_once
from referee.ladder.config import LadderConfig
from referee.results.matches import ScheduledMatch
from referee.transport.host import call_asyncio

#: Folders never worth shipping.
SKIPPED = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"})

#: Shipped files travel through the scheduler, which keeps them for workers that join later:
#: past this size, install the bots on the workers instead.
MAX_BYTES = 256 * 1024 * 1024


def pack(root: Path, paths: Sequence[str]) -> tuple[str, bytes]:
    """(digest, zip) of `paths` under `root`, in a fixed order and with fixed times, so the
    same files always give the same digest. Unix modes are kept (a bot may be an executable)."""
    buffer = io.BytesIO()
    total = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(set(_files(root, paths))):
            source = root / path
            data = source.read_bytes()
            total += len(data)
            if total > MAX_BYTES:
                raise ClusterError(
                    f"the files to ship are over {MAX_BYTES // 2**20} MiB: install the bots on "
                    "the workers instead and set [cluster] root"
                )
            archive.writestr(entry(path.as_posix(), source.stat().st_mode), data)
    data = buffer.getvalue()
    return hashlib.sha256(data).hexdigest()[:24], data


def _files(root: Path, paths: Sequence[str]) -> Iterator[Path]:
    for name in paths:
        top = root / name
        if top.is_file():
            yield top.relative_to(root)
            continue
        if not top.is_dir():
            raise ClusterError(f"cannot ship {name!r}: no such file or folder in {str(root)!r}")
        for folder, dirs, files in os.walk(top, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for file in files:
                yield (Path(folder) / file).relative_to(root)


def unpack(data: bytes, target: Path) -> None:
    """Unpack into `target` once (referee.cluster.packing.unpack_once)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        unpack_once(archive, target)


class ShipFiles(WorkerPlugin):
    """Unpacks the shipped files on every worker as it starts (or at once, on those running)."""

    idempotent = True

    def __init__(self, digest: str, data: bytes) -> None:
        self.digest = digest
        self.data = data

    @property
    def name(self) -> str:
        return f"{SHIP_PREFIX}{self.digest}"

    def setup(self, worker: Worker) -> None:
        unpack(self.data, Path(worker.local_directory) / self.name)


class ShippedFiles:
    """A ladder's shipper: every worker has its bots (shipped to all at the start, or installed
    at `[cluster] root`), so a batch may go anywhere; their logs are appended to
    `<bot>-<worker>.log` in the ladder's log folder."""

    pinned = False

    def __init__(self) -> None:
        self.logs = Path("logs")

    async def start(self, client: Any, config: LadderConfig) -> Batch:
        settings = config.placement.cluster
        assert settings is not None
        self.logs = config.placement.records / "logs"
        if not settings.ship:
            return template(config, root=settings.root)
        digest, data = await trio.to_thread.run_sync(pack, config.placement.root, settings.ship)
        plugin = ShipFiles(digest, data)
        await call_asyncio(client.register_plugin(plugin, name=plugin.name))
        return template(config, shipped=digest)

    def batch(self, template: Batch, number: int, matches: Sequence[ScheduledMatch]) -> Batch:
        return replace(template, number=number, matches=tuple(matches))

    def workers(self, running: dict[str, Any]) -> None:
        """Every worker has the files (the plugin runs on those that join): nothing to forget."""

    def affinity(self, worker: str) -> int:
        return 0

    async def ship(self, client: Any, worker: str, batch: Batch) -> None:
        """Nothing to send per batch: the plugin sent the files to every worker."""

    def keep_logs(
        self,
        worker: str,
        batch: Batch,
        logs: tuple[tuple[str, bytes], ...],
        committed: Sequence[ScheduledMatch],
    ) -> Path | None:
        """Append a batch's bot log tails to `<bot>-<worker>.log` in the ladder's log folder."""
        if not logs:
            return None
        self.logs.mkdir(parents=True, exist_ok=True)
        where = worker.split("://")[-1].replace(":", "-").replace("/", "-")
        for name, tail in logs:
            with (self.logs / f"{_bot_of(name)}-{where}.log").open("ab") as handle:
                handle.write(f"== batch {batch.number}\n".encode())
                handle.write(zlib.decompress(tail))
        return self.logs


def _bot_of(log_name: str) -> str:
    """The bot of a worker's log file: `<bot>-<slot>.log` or `<bot>-per-match.log`."""
    stem = Path(log_name).stem
    if stem.endswith("-per-match"):
        return stem.removesuffix("-per-match")
    return stem.rsplit("-", 1)[0]
