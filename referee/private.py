"""Files and folders only their owner may read: databases, records, logs, the contest's folders.

A contest's database holds its master seed and every account; a record holds every hand of its
match. Bots run as users of their own where the referee is root (referee.local.doors), and the
sandbox shows them none of these (referee.local.bot_root); what croupier creates is owner-only as
well, so that a view that one day shows too much still shows nothing readable (issue 41.0).
Files and folders that exist already keep their modes: they are the organiser's.
"""

from __future__ import annotations

import os
from pathlib import Path

#: A private file's mode, and a private folder's.
FILE_MODE = 0o600
FOLDER_MODE = 0o700


def folder(path: Path) -> Path:
    """`path` as a folder, made owner-only where missing (its missing parents too)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for part in reversed(missing):
        try:
            os.mkdir(part, FOLDER_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process
        os.chmod(part, FOLDER_MODE)  # whatever the umask took
    return path


def file(path: Path) -> Path:
    """`path` as a file, made empty and owner-only (in a private folder) where missing, so that
    whatever then opens it (SQLite: its WAL and shared-memory files take the database's mode)
    creates nothing readable by others."""
    folder(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return path
    os.close(fd)
    os.chmod(path, FILE_MODE)
    return path


def open_new(path: Path) -> int:
    """A descriptor of `path`, a new file, owner-only, opened to write (in a private folder);
    FileExistsError if it exists."""
    folder(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return fd
