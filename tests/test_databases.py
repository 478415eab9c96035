"""The one SQLite opener (issue 43.5): the PRAGMAs every database gets, a read-only open
that creates nothing, whatever the path's characters, and the one write transaction."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.contest.tokens import TokenStore, revoked_accounts
from referee.databases import (
    BUSY_MS,
    Durability,
    open_database,
    open_read_only,
    write_transaction,
)


def test_every_database_is_opened_with_the_same_pragmas(tmp_path: Path) -> None:
    db = open_database(tmp_path / "a.db")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
    assert db.execute("PRAGMA busy_timeout").fetchone() == (BUSY_MS,)
    db.close()
    cache = open_database(tmp_path / "cache.db", durability=Durability.NORMAL)
    assert cache.execute("PRAGMA synchronous").fetchone() == (1,)
    cache.close()


def test_a_read_only_open_creates_nothing_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(sqlite3.OperationalError):
        open_read_only(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()
    open_database(tmp_path / "made.db").execute("CREATE TABLE t (x)")
    db = open_read_only(tmp_path / "made.db")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        db.execute("INSERT INTO t VALUES (1)")
    db.close()


def test_a_contest_folder_named_with_uri_characters_is_read(tmp_path: Path) -> None:
    """`file:PATH?mode=ro` read a folder named `a#b` as the file `a` (a fragment): the
    revoked accounts of such a contest were silently none."""
    folder = tmp_path / "season #2?"
    folder.mkdir()
    store = TokenStore(folder / "contest.db")
    store.add("alice")
    store.revoke("alice")
    assert revoked_accounts(folder / "contest.db") == {"alice"}


def test_a_write_is_all_or_nothing(tmp_path: Path) -> None:
    """Issue 43.5: every store writes through write_transaction. A failure half-way leaves
    nothing; an error SQLite ended the transaction on itself is raised as it is (no second
    error from a ROLLBACK with no transaction); a committed write is seen by another reader."""
    db = open_database(tmp_path / "w.db", autocommit=True)
    db.execute("CREATE TABLE t (x INTEGER UNIQUE)")

    def written(*rows: int, then_fail: bool = False) -> None:
        with write_transaction(db):
            for row in rows:
                db.execute("INSERT INTO t VALUES (?)", (row,))
            if then_fail:
                raise RuntimeError("half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        written(1, then_fail=True)
    assert db.execute("SELECT count(*) FROM t").fetchone() == (0,)
    assert not db.in_transaction
    with pytest.raises(sqlite3.IntegrityError):
        written(2, 2)
    written(3)
    reader = open_read_only(tmp_path / "w.db")
    assert reader.execute("SELECT x FROM t").fetchall() == [(3,)]
    reader.close()
    db.close()
