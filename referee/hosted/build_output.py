"""A build's output, taken out of its sandbox: the tar stream referee.hosted.build_inside writes,
unpacked with limits of the referee's own.

The stream comes from the referee's program, but through a pipe the build's processes could
reach, so it is read as untrusted: names that climb or pass through a link, more bytes than the
build's disk limit, more than MOST_FILES entries, or a kind that is no folder, file or link are
refused, and the output is kept whole (renamed in) or not at all. A link is kept when it leads
into the folder or into what every bot is shown (the system's programs, croupier's Python, the
organiser's runtime); any other leads to nothing a bot can see and would only mislead whoever
walks the store, so it is left out, and the build log says so (issue 41.3).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import sys
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from referee.local.bot_root import SYSTEM, is_inside

#: Entries a build folder may hold (each costs an inode, and walking the folder reads them all).
MOST_FILES = 100_000
_CHUNK = 1 << 20


@dataclass
class Kept:
    """What `keep` did: the output's notes for the build log, and why it was refused (None:
    it is in place)."""

    notes: list[str] = field(default_factory=list)
    refused: str | None = None


def shown_roots(runtime: Path | None) -> list[Path]:
    """Where a kept link may lead outside the folder: what every bot is shown."""
    roots = [Path(name) for name in SYSTEM]
    roots += [Path(sys.prefix), Path(os.path.realpath(sys.prefix))]
    roots.append(Path(os.path.realpath(sys.base_prefix)))
    if runtime is not None:
        roots += [runtime, runtime.resolve()]
    return roots


def keep(stream: BinaryIO, into: Path, disk_bytes: int, roots: Sequence[Path]) -> Kept:
    """Unpack the build's output from `stream` into `into` (absent: made here, through
    `into.partial`), holding it to `disk_bytes` and MOST_FILES; links judged against `roots`
    (`shown_roots`). The stream is read to its end, or until it is refused."""
    partial = into.with_name(into.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    os.mkdir(partial, 0o755)
    kept = Kept()
    try:
        kept.refused = _unpack(stream, partial, into, disk_bytes, roots, kept.notes)
    except (tarfile.TarError, OSError, UnicodeError) as error:
        kept.refused = f"its output could not be read ({error})"
    if kept.refused is None:
        os.rename(partial, into)
    else:
        shutil.rmtree(partial, ignore_errors=True)
    return kept


def _unpack(
    stream: BinaryIO,
    partial: Path,
    into: Path,
    disk_bytes: int,
    roots: Sequence[Path],
    notes: list[str],
) -> str | None:
    folders = {""}
    used = files = 0
    with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8") as tar:
        for member in tar:
            name = posixpath.normpath(member.name)
            parent = posixpath.dirname(name)
            if name.startswith(("/", "..")) or name in (".", "") or parent not in folders:
                return f"its output names {member.name!r}, outside its folder"
            files += 1
            used += max(member.size, 0)
            if used > disk_bytes or files > MOST_FILES:
                most = f"{disk_bytes // (1 << 20)} MiB or {MOST_FILES:,} files"
                return f"its output is over its disk limit ({most})"
            path = partial / name
            if member.isdir():
                os.mkdir(path, 0o755)
                folders.add(name)
            elif member.isfile():
                _write(tar, member, path)
            elif member.issym():
                target = _target(member.linkname, into, name)
                if any(is_inside(target, root) for root in (into, *roots)):
                    os.symlink(member.linkname, path)
                else:
                    notes.append(
                        f"left out {name!r}, a link to {member.linkname!r}: it leads out of the "
                        "bot's folder, and a bot sees its folder and the runtime only"
                    )
            else:
                return f"its output holds {member.name!r}, which is no folder, file or link"
    return None


def _target(link: str, into: Path, name: str) -> Path:
    """Where a link named `name` in `into` leads, taken lexically (it may lead to nothing)."""
    base = posixpath.join(str(into), posixpath.dirname(name))
    return Path(posixpath.normpath(posixpath.join(base, link)))


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> None:
    data = tar.extractfile(member)
    assert data is not None  # a regular file's
    mode = 0o755 if member.mode & 0o111 else 0o644
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as out:
        while chunk := data.read(_CHUNK):
            out.write(chunk)
    os.chmod(path, mode)  # whatever the umask took
