"""Check a ladder database as a participant would: the revealed seed matches the commitment
published at the start, every match's seed derives from it, and every record is the one
committed (same SHA-256) and replays exactly.

Replaying is what costs (~8 ms a XIX match), so it runs on every CPU (`workers`), and with a
`cache` (`Replayed`) a record whose exact bytes this croupier version already replayed without
a problem is not replayed again: a replay depends only on the record's bytes (its header holds
the seed) and the engine. Everything else is checked every time: each record is read and hashed
against the database's commitment, its header's seed against the schedule, and the seeds
against the revealed master seed. The cache is the verifier's own (never the database's: an
auditor does not take the audited party's word for what was replayed).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf import json_format

from croupier.v1 import record_pb2
from referee.ladder.pool import process_pool
from referee.ladder.schedule import commitment, derive_seed
from referee.ladder.standings import Standings, from_store
from referee.ladder.store import Store
from referee.match.bounds import cores
from referee.match.replay import verify
from referee.version import VERSION

#: Records replayed in one task of the pool (few enough that progress moves, many enough that
#: the pool's overhead per task does not show).
CHUNK = 25
#: Replays from which a pool pays for the start of its processes (~8 ms each for XIX).
POOL_FROM = 200


@dataclass
class LadderCheck:
    """What `verify_ladder` found; `problems` is empty for a ladder that checks out."""

    matches: int = 0
    records_verified: int = 0
    #: Of `records_verified`, those not replayed now: the cache had their exact bytes replayed.
    records_cached: int = 0
    seed_checked: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True)
class RecordCheck:
    """One committed record to check (pickled to a pool worker)."""

    match_id: str
    path: Path
    sha256: str
    #: The schedule's seed for this match, as the header must hold it.
    seed: str
    replay: bool
    #: Its bytes replayed without a problem before (the cache says): not replayed again.
    cached: bool = False


@dataclass(frozen=True, slots=True)
class RecordFound:
    """What checking one record found: `verified` when it replays (or replayed before) without
    a problem, `replayed` when that replay happened now."""

    sha256: str
    problems: tuple[str, ...] = ()
    verified: bool = False
    replayed: bool = False


def standings_of(database: Path) -> Standings:
    """The standings of the ladder in `database` (complete or not)."""
    store = Store(database, create=False)
    try:
        return from_store(store)
    finally:
        store.close()


def default_cache() -> Path:
    """The user's cache of replayed records: `$XDG_CACHE_HOME/croupier/replayed.sqlite`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "croupier" / "replayed.sqlite"


class Replayed:
    """The SHA-256s of records that replayed without a problem, per croupier version (a new
    version may check more). Content-addressed: a record moved or copied is still known, a
    record changed by one byte is not. A cache that cannot be opened is just empty."""

    def __init__(self, path: Path) -> None:
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=10)
            self._db.execute("PRAGMA journal_mode = WAL")  # notes added as replays finish
            self._db.execute("PRAGMA synchronous = NORMAL")  # a lost note costs a replay
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replayed (sha256 TEXT, version TEXT, "
                "PRIMARY KEY (sha256, version)) WITHOUT ROWID"
            )
        except (OSError, sqlite3.Error):
            self._db = None

    def known(self, digests: Sequence[str]) -> set[str]:
        if self._db is None:
            return set()
        with contextlib.suppress(sqlite3.Error):
            rows = self._db.execute("SELECT sha256 FROM replayed WHERE version = ?", (VERSION,))
            wanted = set(digests)
            return {digest for (digest,) in rows if digest in wanted}
        return set()

    def add(self, digests: Sequence[str]) -> None:
        if self._db is None or not digests:
            return
        with contextlib.suppress(sqlite3.Error), self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO replayed VALUES (?, ?)", [(d, VERSION) for d in digests]
            )

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def verify_ladder(
    database: Path,
    *,
    replay: bool = True,
    on_record: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    cache: Path | None = None,
) -> LadderCheck:
    """Check seeds, record hashes and (with `replay`) every record against the engine, on
    `workers` processes (default: one per CPU, once there are POOL_FROM records to replay);
    `on_record(done, total)` follows the records as they are checked. With `cache` (see
    `default_cache`), records replayed before are hashed and checked but not replayed again,
    and those replayed now are added to it as they are (an interrupted run keeps them)."""
    store = Store(database, create=False)
    try:
        check = LadderCheck()
        schedule = {m.number: m for m in store.schedule()}
        revealed = store.meta("revealed") == "1"
        master = store.meta("master_seed") if revealed else None
        if master is not None:
            check.seed_checked = True
            if commitment(master) != store.meta("seed_sha256"):
                check.problems.append("the revealed seed does not match the published SHA-256")
            for match in schedule.values():
                if match.seed != derive_seed(master, match.deal):
                    check.problems.append(f"match {match.number}: seed does not derive from it")
        committed = store.records()
    finally:
        store.close()
    replayed = Replayed(cache) if cache is not None and replay else None
    try:
        known = replayed.known([digest for *_, digest in committed]) if replayed else set()
        checks = [
            RecordCheck(match_id, path, digest, str(schedule[number].seed), replay, digest in known)
            for number, match_id, path, digest in committed
        ]
        total = len(checks)
        processes = min(max(1, workers if workers is not None else cores()), total or 1)
        replays = sum(c.replay and not c.cached for c in checks)
        found: dict[int, RecordFound] = {}
        if on_record is not None:
            on_record(0, total)
        # A pool when asked for one, or when the replays pay for its start.
        pooled = workers is not None or replays >= POOL_FROM
        for start, part in _checked(checks, processes if pooled else 1):
            found.update(enumerate(part, start))
            check.matches = len(found)
            if replayed is not None:
                replayed.add([f.sha256 for f in part if f.replayed])
            if on_record is not None:
                on_record(check.matches, total)
        for _, outcome in sorted(found.items()):  # in schedule order, however they came
            check.problems.extend(outcome.problems)
            check.records_verified += outcome.verified
            check.records_cached += outcome.verified and not outcome.replayed
    finally:
        if replayed is not None:
            replayed.close()
    return check


def _checked(checks: list[RecordCheck], processes: int) -> Iterator[tuple[int, list[RecordFound]]]:
    """What each record's check found, a chunk at a time as they finish, each with the index
    of its first record (in a pool of `processes`, or here, one record at a time)."""
    size = CHUNK if processes > 1 else 1
    starts = range(0, len(checks), size)
    if processes <= 1:
        for start in starts:
            yield start, check_records(checks[start : start + size])
        return
    with process_pool(processes) as pool:
        futures = {pool.submit(check_records, checks[i : i + size]): i for i in starts}
        for future in as_completed(futures):
            yield futures[future], future.result()


def check_records(checks: Sequence[RecordCheck]) -> list[RecordFound]:
    """Check each record: read it, compare its SHA-256 and its header's seed with what was
    committed, and replay it when asked. Runs in pool workers."""
    return [_check(check) for check in checks]


def _check(check: RecordCheck) -> RecordFound:
    where = f"{check.match_id}: record {str(check.path)!r}"
    try:
        data = check.path.read_bytes()
    except OSError as error:
        problem = f"{check.match_id}: cannot read record {str(check.path)!r}: {error}"
        return RecordFound(check.sha256, (problem,))
    if hashlib.sha256(data).hexdigest() != check.sha256:
        return RecordFound(check.sha256, (f"{where} is not the one committed",))
    problems = []
    seed = _header_seed(data)
    if seed is not None and seed != check.seed:
        problems.append(f"{check.match_id}: record seed differs from the schedule's")
    if not check.replay or check.cached:
        return RecordFound(check.sha256, tuple(problems), check.replay)
    report = verify(check.path)
    problems.extend(f"{check.match_id}: {p}" for p in report.problems)
    return RecordFound(check.sha256, tuple(problems), report.ok, report.ok)


def _header_seed(data: bytes) -> str | None:
    """The seed in a record's header line, or None when its first line is no header (the
    replay says what is wrong with it)."""
    first = data.split(b"\n", 1)[0]
    try:
        line = json_format.Parse(first, record_pb2.Record())
    except (json_format.ParseError, UnicodeDecodeError):
        return None
    return line.header.seed if line.WhichOneof("line") == "header" else None
