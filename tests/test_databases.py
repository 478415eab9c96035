"""The one SQLite opener (issue 43.5): the PRAGMAs every database gets, and a read-only open
that creates nothing, whatever the path's characters."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.contest.tokens import TokenStore, revoked_accounts
from referee.databases import BUSY_MS, Durability, open_database, open_read_only


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
