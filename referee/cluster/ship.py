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
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from distributed import Worker
from distributed.diagnostics.plugin import WorkerPlugin

from referee.cluster import ClusterError
from referee.cluster.batch import SHIP_PREFIX

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
            info = zipfile.ZipInfo(path.as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (source.stat().st_mode & 0o777 | stat.S_IFREG) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            data = source.read_bytes()
            total += len(data)
            if total > MAX_BYTES:
                raise ClusterError(
                    f"the files to ship are over {MAX_BYTES // 2**20} MiB: install the bots on "
                    "the workers instead and set [cluster] root"
                )
            archive.writestr(info, data)
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
    """Unpack into `target` once: into a fresh folder renamed into place, marked complete, so a
    worker that dies halfway leaves nothing that looks usable."""
    if (target / ".complete").is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            out = (fresh / info.filename).resolve()
            if not out.is_relative_to(fresh.resolve()):
                raise ClusterError(f"refusing to unpack {info.filename!r} outside {fresh}")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.read(info))
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                out.chmod(mode)
    (fresh / ".complete").touch()
    try:
        fresh.rename(target)
    except OSError:  # another worker of this machine was first: theirs is as good
        shutil.rmtree(fresh, ignore_errors=True)


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
