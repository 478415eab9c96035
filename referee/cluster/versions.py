"""Hosted versions on Dask workers: each built folder shipped to a worker once, by content.

A hosted version runs from its run folder (its build, or its files when it has nothing to
build). `pack_folder` zips that folder as it is, links kept as links and never followed (a
build that links to the contest's database ships a dangling link, not the database), in a fixed
order with fixed times, so the same folder always gives the same digest. `cache_version` runs on
a worker (through `Client.run`) and unpacks it into `<worker local directory>/croupier-versions/
<version id>/` once: a second call with the same digest costs nothing. A batch of hosted
matches (referee.cluster.batch) then plays from there, and names the versions it lacks
(`VersionsMissing`) when Dask ran it on a worker that was never sent them.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import stat
import time
import zipfile
from pathlib import Path
from typing import Any

from referee.cluster.dask_extra import ClusterError
from referee.cluster.packing import COMPLETE, entry, unpack_once

#: The folder, under a worker's local directory, that versions are cached in.
VERSIONS_FOLDER = "croupier-versions"
#: A built folder past this size is refused: it travels in one message through the scheduler.
MAX_BYTES = 512 * 1024 * 1024


class VersionsMissing(ClusterError):
    """A batch ran on a worker that has not cached some of its versions (Dask moved it there):
    the coordinator ships them and sends the batch again."""

    def __init__(self, worker: str, missing: tuple[str, ...]) -> None:
        super().__init__(f"worker {worker} has not cached versions {', '.join(missing)}")
        self.worker = worker
        self.missing = missing

    def __reduce__(self) -> tuple[type[VersionsMissing], tuple[str, tuple[str, ...]]]:
        return VersionsMissing, (self.worker, self.missing)


def pack_folder(folder: Path) -> tuple[str, bytes]:
    """(SHA-256 digest, zip) of everything in `folder`: regular files with their modes, links as
    links (never followed), folders; anything else (a FIFO, a socket) is left out."""
    buffer = io.BytesIO()
    total = 0
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(_entries(folder)):
            mode = path.lstat().st_mode
            info = entry(path.relative_to(folder).as_posix(), mode)
            if stat.S_ISLNK(mode):
                archive.writestr(info, os.readlink(path))
                continue
            data = path.read_bytes()
            total += len(data)
            if total > MAX_BYTES:
                raise ClusterError(
                    f"a version's built folder is over {MAX_BYTES // 2**20} MiB: too large to "
                    "ship to the cluster's workers"
                )
            archive.writestr(info, data)
    data = buffer.getvalue()
    return hashlib.sha256(data).hexdigest(), data


def _entries(folder: Path) -> list[Path]:
    found = []
    for top, dirs, files in os.walk(folder):  # links to folders are listed, not entered
        for name in dirs + files:
            path = Path(top) / name
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                found.append(path)
    return found


def cache_folder(local_directory: str | Path) -> Path:
    return Path(local_directory) / VERSIONS_FOLDER


def cached(root: Path, version: str) -> bool:
    return (root / version / COMPLETE).is_file()


def unpack_version(data: bytes, digest: str, target: Path) -> None:
    """Unpack a packed version into `target` once (referee.cluster.packing.unpack_once), after
    checking that it is what was packed."""
    if (target / COMPLETE).is_file():
        return
    if hashlib.sha256(data).hexdigest() != digest:
        raise ClusterError(f"version {target.name} arrived damaged")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.parent.chmod(0o755)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        unpack_once(archive, target)


async def cache_version(version: str, digest: str, data: bytes, dask_worker: Any = None) -> float:
    """Run on a worker by `Client.run`: cache the version unless it is cached; returns the
    seconds it took. (Unpacked in a thread: the worker's event loop keeps its heartbeats.)"""
    began = time.monotonic()
    root = cache_folder(dask_worker.local_directory if dask_worker is not None else ".")
    await asyncio.to_thread(unpack_version, data, digest, root / version)
    return time.monotonic() - began
