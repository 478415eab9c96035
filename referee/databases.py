"""The one way croupier opens its SQLite files (ladder and contest databases, the accounts, the
hosted versions' store, verify's cache): write-ahead logging, so that readers (the site, a
standings command) never block the referee's writes nor wait on them; a busy wait rather than
an error while another process writes; and a read-only open by URI that cannot create or
change a file it was only to read."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

#: How long a statement waits for another connection's write to finish (ms).
BUSY_MS = 10_000


class Durability(StrEnum):
    """How surely a committed write survives a power cut (SQLite's `synchronous`)."""

    #: Results, accounts and versions: a commit is on disk when it returns.
    FULL = "FULL"
    #: A cache (verify's replayed records): a lost row costs a replay, nothing else.
    NORMAL = "NORMAL"


def open_database(
    path: Path,
    *,
    durability: Durability = Durability.FULL,
    autocommit: bool = False,
    shared: bool = False,
) -> sqlite3.Connection:
    """`path` opened for reading and writing (created if missing: make it private first, see
    referee.private). `autocommit`: no implicit transactions (the caller says BEGIN);
    `shared`: usable from several threads, one at a time."""
    db = sqlite3.connect(
        path,
        timeout=BUSY_MS / 1000,
        check_same_thread=not shared,
        isolation_level=None if autocommit else "DEFERRED",
    )
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={durability}")
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    except sqlite3.Error:
        db.close()
        raise
    return db


def open_read_only(path: Path) -> sqlite3.Connection:
    """`path` opened for reading alone: a missing file is an error, never an empty database."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_MS / 1000)
    db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    return db


@contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One atomic write on an autocommit connection: all of it is committed, or none of it.
    BEGIN IMMEDIATE takes the write lock at once, so a writer waits (busy_timeout) at its start
    rather than failing half-way; ROLLBACK only if SQLite has not already ended the transaction
    itself (as it does on some errors), so the first error is the one raised."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
