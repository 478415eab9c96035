"""Files as they travel to Dask workers, one way for a ladder's shipped bots and a contest's
hosted versions: zip entries with fixed times (the same files give the same bytes), and an
unpack that is whole or absent."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from referee.cluster.dask_extra import ClusterError

#: What marks an unpacked folder as whole (written last, after every file).
COMPLETE = ".complete"


def entry(name: str, mode: int) -> zipfile.ZipInfo:
    """A zip entry for a file (or, with S_IFLNK in `mode`, a link) with a fixed time."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    if stat.S_ISLNK(mode):
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
    else:
        info.external_attr = (mode & 0o777 | stat.S_IFREG) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
    return info


def unpack_once(archive: zipfile.ZipFile, target: Path) -> None:
    """Unpack into `target` once: into a fresh folder renamed into place, marked whole last, so
    that a worker that dies halfway leaves nothing that looks usable. Everything is made
    readable by other users (a sandboxed bot runs as a user of its own); an entry that would
    land outside is refused."""
    if (target / COMPLETE).is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        _extract(archive, fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    try:
        fresh.rename(target)
    except OSError:  # another worker of this machine was first: theirs is as good
        shutil.rmtree(fresh, ignore_errors=True)


def _extract(archive: zipfile.ZipFile, fresh: Path) -> None:
    inside = fresh.resolve()
    for info in archive.infolist():
        out = fresh / info.filename
        if ".." in Path(info.filename).parts or not out.parent.resolve().is_relative_to(inside):
            raise ClusterError(f"refusing to unpack {info.filename!r} outside {fresh}")
        out.parent.mkdir(parents=True, exist_ok=True)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            os.symlink(archive.read(info).decode(), out)
            continue
        out.write_bytes(archive.read(info))
        out.chmod((mode & 0o777 or 0o644) | 0o444 | (0o111 if mode & 0o100 else 0))
    for folder, _, _ in os.walk(fresh):
        Path(folder).chmod(0o755)
    (fresh / COMPLETE).touch()
