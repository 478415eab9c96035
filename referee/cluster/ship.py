"""Ship a ladder's bot files to every worker: `[cluster] ship = ["bots", ...]`.

The coordinator packs the listed paths (relative to the ladder's root) into one zip; a Dask
worker plugin unpacks it into `<worker local directory>/croupier-ship-<digest>/` on every worker,
those there now and those that join later (the scheduler keeps the plugin). The bots then run
from that folder as they would from the root here. The digest names the content, so a changed
bot is a new folder and an unchanged one is unpacked once per worker.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from distributed import Worker
from distributed.diagnostics.plugin import WorkerPlugin

from referee.cluster.batch import SHIP_PREFIX
from referee.cluster.dask_extra import ClusterError
from referee.cluster.packing import entry, unpack_once

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
