"""A ladder's state in SQLite: its plan, its schedule, and every finished match.

A finished match goes in with its seats, faults and record (path and SHA-256) in one
transaction, so a ladder killed at any moment has each match either wholly in the database or not
at all; on resume the matches not in it are played again. The database also keeps the master
seed (secret until the ladder ends) and its published SHA-256.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from croupier.v1 import common_pb2
from referee import private
from referee.databases import open_database, write_transaction
from referee.errors import CroupierError
from referee.results.matches import MatchResult, ScheduledMatch

#: 2: seats carry their luck correction; a schema 1 database is migrated when opened.
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    number INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,
    sides TEXT NOT NULL,
    entrants TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    number INTEGER PRIMARY KEY REFERENCES schedule(number),
    match_id TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL,
    record_sha256 TEXT NOT NULL,
    result TEXT NOT NULL,
    termination TEXT NOT NULL,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    number INTEGER NOT NULL REFERENCES matches(number),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    side INTEGER NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    retired INTEGER NOT NULL,
    luck REAL,
    PRIMARY KEY (number, seat)
);
CREATE TABLE IF NOT EXISTS faults (
    number INTEGER NOT NULL REFERENCES matches(number),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS exits (
    id INTEGER PRIMARY KEY,
    bot TEXT NOT NULL,
    slot INTEGER NOT NULL,
    detail TEXT NOT NULL,
    at TEXT NOT NULL
);
"""


def damaged(path: Path, error: sqlite3.DatabaseError) -> StoreError:
    """One line for a damaged database file: what is wrong, and how to recover."""
    return StoreError(
        f"the ladder database {str(path)!r} is damaged ({error}); its match records are "
        "untouched: restore the database from a backup, or salvage what SQLite can still read "
        f"with `sqlite3 {path} .recover | sqlite3 recovered.sqlite`"
    )


def disk_full(path: Path) -> StoreError:
    """One line for a database SQLite cannot write to because its disk is full."""
    return StoreError(
        f"cannot write the ladder database {str(path)!r}: the disk is full; free some space and "
        "run the command again (every match committed so far is kept)"
    )


def _is_damage(error: BaseException) -> bool:
    # Exactly DatabaseError: its subclasses (a locked file, a constraint) are not damage.
    return type(error) is sqlite3.DatabaseError


def _is_full(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and (
        getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
        or "database or disk is full" in str(error)
    )


def _store_failure(path: Path, error: BaseException) -> StoreError | None:
    if _is_damage(error):
        assert isinstance(error, sqlite3.DatabaseError)
        return damaged(path, error)
    return disk_full(path) if _is_full(error) else None


def _open_failure(path: Path, error: sqlite3.DatabaseError) -> StoreError:
    if "malformed" in str(error):
        return damaged(path, error)
    if _is_full(error):
        return disk_full(path)
    if isinstance(error, sqlite3.OperationalError):  # a disk error, a folder, no permission
        return StoreError(f"cannot use the ladder database {str(path)!r}: {error}")
    return StoreError(f"{str(path)!r} is not a ladder database: {error}")


@contextmanager
def reporting_store_failures(path: Path) -> Iterator[None]:
    """SQLite finding the file damaged, or its disk full, anywhere inside (worker threads and
    nurseries too), becomes a StoreError naming the file and what to do, not a traceback."""
    try:
        yield
    except sqlite3.DatabaseError as error:
        failure = _store_failure(path, error)
        if failure is None:
            raise
        raise failure from None
    except BaseExceptionGroup as group:
        found, rest = group.split(lambda error: _store_failure(path, error) is not None)
        if found is None or rest is not None:
            raise
        first: BaseException = found
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        failure = _store_failure(path, first)
        assert failure is not None
        raise failure from None


class StoreError(CroupierError):
    """A database that is not a ladder's, or that belongs to a different ladder."""


@dataclass(frozen=True, slots=True)
class Exit:
    """A bot process that exited while the ladder still needed it (it was restarted)."""

    bot: str
    slot: int
    detail: str


@dataclass(frozen=True, slots=True)
class Played:
    """A committed match as the `matches` table holds it (what a report lists)."""

    number: int
    match_id: str
    record: Path
    record_sha256: str
    #: The result's text (`seat 0 wins 20-8`) and how the match ended (`normal`, ...).
    result: str
    termination: str
    seconds: float
    #: When it was committed (UTC, ISO 8601, to the second).
    finished_at: str
    #: (seat, reason, detail) of each of its faults, in the order they happened.
    faults: tuple[tuple[int, str, str], ...] = ()

    def fault_groups(self) -> dict[tuple[int, str], list[str]]:
        """The faults by seat and reason, in the order each first happened, with their details:
        what a fault cell shows once, with their count."""
        groups: dict[tuple[int, str], list[str]] = {}
        for seat, reason, detail in self.faults:
            groups.setdefault((seat, reason), []).append(detail)
        return groups


@dataclass(frozen=True, slots=True)
class Finished:
    """What a worker commits for one match."""

    match: ScheduledMatch
    match_id: str
    record: Path
    record_sha256: str
    result: common_pb2.Result
    faults: tuple[common_pb2.Fault, ...]
    seconds: float
    exits: tuple[Exit, ...] = ()
    #: Per seat, the luck correction the record's result line carries (empty: none).
    luck: tuple[float, ...] = ()


class SeatRow(NamedTuple):
    """A seat's row of a committed match (the `seats` table, without its match's number)."""

    seat: int
    bot: str
    side: int
    score: int
    rank: int
    faults: int
    retired: int
    luck: float | None


class FaultRow(NamedTuple):
    """A fault's row of a committed match (the `faults` table, without its match's number)."""

    seat: int
    bot: str
    reason: str
    detail: str


@dataclass(frozen=True, slots=True)
class Rows:
    """What the database holds of one match's result: its `matches` row's result text and
    termination, its seats' rows and its faults' rows. `Rows.of` is the one way a result
    becomes rows: `Store.commit` writes them, `croupier ladder verify` computes them again from
    the record and compares (issue 42.1)."""

    result: str
    termination: str
    seats: tuple[SeatRow, ...]
    faults: tuple[FaultRow, ...]

    @classmethod
    def of(
        cls,
        match: ScheduledMatch,
        result: common_pb2.Result,
        faults: Sequence[common_pb2.Fault],
        luck: Sequence[float],
    ) -> Rows:
        by_seat = {seat.seat: seat for seat in result.seats}
        blank = common_pb2.SeatResult()
        seats = tuple(
            SeatRow(
                seat,
                bot,
                match.sides[seat],
                by_seat.get(seat, blank).score,
                by_seat.get(seat, blank).rank,
                by_seat.get(seat, blank).faults,
                int(by_seat.get(seat, blank).retired),
                luck[seat] if luck and seat < len(luck) else None,
            )
            for seat, bot in enumerate(match.bots)
        )
        named = [
            FaultRow(
                fault.seat,
                match.bots[fault.seat] if fault.seat < len(match.bots) else "",
                fault_name(fault.reason),
                fault.detail,
            )
            for fault in faults
        ]
        termination = common_pb2.Termination.Name(result.termination)
        return cls(
            result.text,
            termination.removeprefix("TERMINATION_").lower(),
            seats,
            tuple(named),
        )


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def fault_name(reason: int) -> str:
    """`timeout` for FAULT_REASON_TIMEOUT: the closed reason as the standings show it."""
    return common_pb2.FaultReason.Name(reason).removeprefix("FAULT_REASON_").lower()


class Store:
    """One ladder database. Methods are safe to call from worker threads, one at a time."""

    def __init__(self, path: Path, *, create: bool) -> None:
        self.path = path
        if not create and not path.is_file():
            raise StoreError(f"no ladder database at {str(path)!r}")
        if create:
            private.file(path)  # the master seed is in it: owner-only (issue 41.0)
        try:
            self._db = open_database(path, autocommit=True, shared=True)
            if create:
                self._db.executescript(_SCHEMA)
            version = self.meta("schema_version")
        except sqlite3.DatabaseError as error:
            raise _open_failure(path, error) from None
        if version is None and not create:
            raise StoreError(f"{str(path)!r} is not a ladder database (it has no ladder in it)")
        if version == "1":
            self._migrate_from_1()
            version = str(SCHEMA_VERSION)
        if version is not None and version != str(SCHEMA_VERSION):
            raise StoreError(f"{str(path)!r} has ladder schema {version!r}, not {SCHEMA_VERSION}")
        self._lock = threading.Lock()

    def _migrate_from_1(self) -> None:
        """Schema 1 had no luck corrections: its seats gain an empty `luck` column (its matches
        keep none), in one transaction, so an old ladder reads and resumes."""
        try:
            with write_transaction(self._db):
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(seats)")}
                if "luck" not in columns:
                    self._db.execute("ALTER TABLE seats ADD COLUMN luck REAL")
                self.set_meta(self._db, "schema_version", str(SCHEMA_VERSION))
        except sqlite3.DatabaseError as error:
            raise _open_failure(self.path, error) from None

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: all of it is committed, or none of it."""
        with self._lock, write_transaction(self._db) as db:
            yield db

    def meta(self, key: str) -> str | None:
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None  # no meta table: not a ladder database
        return None if row is None else str(row[0])

    def meta_json(self, key: str) -> Any:
        text = self.meta(key)
        return None if text is None else json.loads(text)

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def put_meta(self, key: str, value: str) -> None:
        """Set one meta value in its own transaction."""
        with self.transaction() as db:
            self.set_meta(db, key, value)

    def drop_meta(self, key: str) -> None:
        """Remove one meta value in its own transaction."""
        with self.transaction() as db:
            db.execute("DELETE FROM meta WHERE key = ?", (key,))

    def initialise(self, meta: dict[str, str], schedule: Sequence[ScheduledMatch]) -> None:
        """A new ladder: its plan and first schedule, in one transaction."""
        with self.transaction() as db:
            self.set_meta(db, "schema_version", str(SCHEMA_VERSION))
            for key, value in meta.items():
                self.set_meta(db, key, value)
            self._insert_schedule(db, schedule)

    def add_schedule(self, schedule: Sequence[ScheduledMatch]) -> None:
        """A Swiss round, added once the round before it is complete."""
        with self.transaction() as db:
            self._insert_schedule(db, schedule)

    def _insert_schedule(self, db: sqlite3.Connection, schedule: Sequence[ScheduledMatch]) -> None:
        db.executemany(
            "INSERT INTO schedule (number, round, table_no, deal, rotation, seed, bots, sides, "
            "entrants) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    m.number,
                    m.round,
                    m.table,
                    m.deal,
                    m.rotation,
                    m.seed,
                    json.dumps(m.bots),
                    json.dumps(m.sides),
                    json.dumps(m.entrants),
                )
                for m in schedule
            ],
        )

    def schedule(self) -> list[ScheduledMatch]:
        rows = self._db.execute(
            "SELECT number, round, table_no, deal, rotation, seed, bots, sides, entrants "
            "FROM schedule ORDER BY number"
        ).fetchall()
        return [
            ScheduledMatch(
                number=row[0],
                round=row[1],
                table=row[2],
                deal=row[3],
                rotation=row[4],
                seed=row[5],
                bots=tuple(json.loads(row[6])),
                sides=tuple(json.loads(row[7])),
                entrants=tuple(json.loads(row[8])),
            )
            for row in rows
        ]

    def scheduled(self) -> int:
        """How many matches are scheduled (without reading them)."""
        return int(self._db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0])

    def committed(self) -> set[int]:
        return {row[0] for row in self._db.execute("SELECT number FROM matches")}

    def commit(self, finished: Finished) -> None:
        """The match, its seats, faults and record, and the bot exits seen since the last
        commit: all in one transaction. The record must already be in its final place."""
        rows = Rows.of(finished.match, finished.result, finished.faults, finished.luck)
        record = os.path.relpath(finished.record.resolve(), self.path.resolve().parent)
        with self.transaction() as db:
            db.execute(
                "INSERT INTO matches (number, match_id, record, record_sha256, result, "
                "termination, seconds, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    finished.match.number,
                    finished.match_id,
                    record,
                    finished.record_sha256,
                    rows.result,
                    rows.termination,
                    finished.seconds,
                    now(),
                ),
            )
            db.executemany(
                "INSERT INTO seats (number, seat, bot, side, score, rank, faults, retired, "
                "luck) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(finished.match.number, *seat) for seat in rows.seats],
            )
            db.executemany(
                "INSERT INTO faults (number, seat, bot, reason, detail) VALUES (?, ?, ?, ?, ?)",
                [(finished.match.number, *fault) for fault in rows.faults],
            )
            db.executemany(
                "INSERT INTO exits (bot, slot, detail, at) VALUES (?, ?, ?, ?)",
                [(e.bot, e.slot, e.detail, now()) for e in finished.exits],
            )

    def rows(self) -> dict[int, Rows]:
        """What the database holds of each committed match's result, by number: the rows the
        standings are computed from, for `croupier ladder verify` to recompute from the
        records. A match whose `matches` row is gone but whose seats or faults are not is
        there too, with an empty result."""
        found: dict[int, Rows] = {}
        for number, result, termination in self._db.execute(
            "SELECT number, result, termination FROM matches"
        ):
            found[number] = Rows(result, termination, (), ())
        for number, *seat in self._db.execute(
            "SELECT number, seat, bot, side, score, rank, faults, retired, luck FROM seats "
            "ORDER BY number, seat"
        ):
            rows = found.setdefault(number, Rows("", "", (), ()))
            found[number] = replace(rows, seats=(*rows.seats, SeatRow(*seat)))
        for number, *fault in self._db.execute(
            "SELECT number, seat, bot, reason, detail FROM faults ORDER BY rowid"
        ):
            rows = found.setdefault(number, Rows("", "", (), ()))
            found[number] = replace(rows, faults=(*rows.faults, FaultRow(*fault)))
        return found

    def results(self) -> list[MatchResult]:
        """Every committed match, in schedule order."""
        schedule = {m.number: m for m in self.schedule()}
        seats: dict[int, dict[int, tuple[int, int, float | None]]] = {}
        for number, seat, score, rank, luck in self._db.execute(
            "SELECT number, seat, score, rank, luck FROM seats"
        ):
            seats.setdefault(number, {})[seat] = (score, rank, luck)
        faults: dict[int, list[tuple[int, str]]] = {}
        for number, seat, reason in self._db.execute(
            "SELECT number, seat, reason FROM faults ORDER BY rowid"
        ):
            faults.setdefault(number, []).append((seat, reason))
        out = []
        for number in sorted(seats):
            match = schedule[number]
            by_seat = seats[number]
            luck = [by_seat[s][2] for s in range(len(match.bots))]
            out.append(
                MatchResult(
                    match=match,
                    scores=tuple(by_seat[s][0] for s in range(len(match.bots))),
                    ranks=tuple(by_seat[s][1] for s in range(len(match.bots))),
                    faults=tuple(faults.get(number, ())),
                    luck=None if None in luck else tuple(float(c) for c in luck if c is not None),
                )
            )
        return out

    def records(self) -> list[tuple[int, str, Path, str]]:
        """(number, match id, record path, SHA-256) of every committed match."""
        base = self.path.parent
        return [
            (row[0], row[1], base / row[2], row[3])
            for row in self._db.execute(
                "SELECT number, match_id, record, record_sha256 FROM matches ORDER BY number"
            )
        ]

    def played(self) -> list[Played]:
        """Every committed match with its result text and faults, in schedule order."""
        base = self.path.parent
        faults: dict[int, list[tuple[int, str, str]]] = {}
        for number, seat, reason, detail in self._db.execute(
            "SELECT number, seat, reason, detail FROM faults ORDER BY rowid"
        ):
            faults.setdefault(number, []).append((seat, reason, detail))
        return [
            Played(
                number=row[0],
                match_id=row[1],
                record=base / row[2],
                record_sha256=row[3],
                result=row[4],
                termination=row[5],
                seconds=row[6],
                finished_at=row[7],
                faults=tuple(faults.get(row[0], ())),
            )
            for row in self._db.execute(
                "SELECT number, match_id, record, record_sha256, result, termination, seconds, "
                "finished_at FROM matches ORDER BY number"
            )
        ]

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads that all see one state of the database while a running ladder commits (WAL
        readers never block its writer, nor it them)."""
        with self._lock:
            self._db.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                self._db.execute("COMMIT")

    def exits(self) -> list[Exit]:
        return [
            Exit(row[0], row[1], row[2])
            for row in self._db.execute("SELECT bot, slot, detail FROM exits ORDER BY id")
        ]

    def drop_unplayed(self) -> int:
        """Forget the scheduled matches that were never played (an SPRT ended the ladder)."""
        with self.transaction() as db:
            cursor = db.execute(
                "DELETE FROM schedule WHERE number NOT IN (SELECT number FROM matches)"
            )
            return cursor.rowcount

    def finish(self, reveal: bool, extra: dict[str, str] | None = None) -> None:
        """The ladder is over: note when, and reveal the master seed."""
        with self.transaction() as db:
            self.set_meta(db, "finished_at", now())
            if reveal:
                self.set_meta(db, "revealed", "1")
            for key, value in (extra or {}).items():
                self.set_meta(db, key, value)
