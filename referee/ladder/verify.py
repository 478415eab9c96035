"""Check a ladder database as a participant would: the revealed seed matches the commitment
published at the start, every match's seed derives from it, every record is the one committed
(same SHA-256) and replays exactly, and every result row the standings are computed from is
what its record says (issue 42.1: the database is not trusted, the records are, through the
hashes it committed and the engine): each match's seats (bot, side, score, rank, faults,
retirement, luck), faults, result text and termination are computed again from its record
(`Rows.of`, the function the commit used) and each difference is a problem, as is a row of no
committed match, a committed record of another match, and a complete record of a scheduled
match with no row. A record's header names the challenge its match was played for, and none
for any other (issue 45.5): each record's is held against the database's.

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
import math
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from google.protobuf import json_format

from croupier.v1 import common_pb2, record_pb2
from referee.databases import Durability, open_database
from referee.ladder.pool import process_pool
from referee.ladder.schedule import commitment, derive_seed
from referee.machine import cores
from referee.match.records import ChallengeMark, read_all
from referee.match.replay import clipped, verify
from referee.ratings.standings import Standings, from_store
from referee.results.database import Rows, Store
from referee.results.matches import ScheduledMatch
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
    #: The scheduled match, and what the database holds of its result: both checked against
    #: the record.
    match: ScheduledMatch | None = None
    rows: Rows | None = None
    #: The challenge the database says the match was played for (None: no challenge), as the
    #: record's header must name it.
    challenge: ChallengeMark | None = None


@dataclass(frozen=True, slots=True)
class Beside:
    """What a contest's database keeps beside its schedule (its challenges:
    referee.challenges.verify): the checks of records outside the schedule, the problems found
    reading them, and the scheduled matches played for a challenge (a ranked one's), by
    number."""

    checks: list[RecordCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    challenges: dict[int, ChallengeMark] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RecordFound:
    """What checking one record found: `verified` when it replays (or replayed before) without
    a problem, `replayed` when that replay happened now."""

    sha256: str
    problems: tuple[str, ...] = ()
    verified: bool = False
    replayed: bool = False


def standings_of(database: Path, *, reference: str | None = None) -> Standings:
    """The standings of the ladder in `database` (complete or not); with `reference`, ratings
    as differences from that bot's."""
    store = Store(database, create=False)
    try:
        return from_store(store, reference=reference)
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
            self._db = open_database(path, durability=Durability.NORMAL)  # a lost note: a replay
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
    beside: Callable[[bool], Beside] | None = None,
) -> LadderCheck:
    """Check seeds, record hashes and (with `replay`) every record against the engine, on
    `workers` processes (default: one per CPU, once there are POOL_FROM records to replay);
    `on_record(done, total)` follows the records as they are checked. With `cache` (see
    `default_cache`), records replayed before are hashed and checked but not replayed again,
    and those replayed now are added to it as they are (an interrupted run keeps them).
    `beside(replay)` gives what the database keeps beside its schedule (a contest's
    challenges: `Beside`)."""
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
        rows = store.rows()
    finally:
        store.close()
    numbers = {number for number, *_ in committed}
    for number in sorted(set(rows) - numbers):
        check.problems.append(f"match {number}: seats or faults rows of no committed match")
    check.problems += _unlisted(committed, schedule)
    found_beside = beside(replay) if beside is not None else Beside()
    more = found_beside.checks
    check.problems += found_beside.problems
    replayed = Replayed(cache) if cache is not None and replay else None
    try:
        digests = [digest for *_, digest in committed] + [c.sha256 for c in more]
        known = replayed.known(digests) if replayed else set()
        checks = [
            RecordCheck(
                match_id,
                path,
                digest,
                str(schedule[number].seed),
                replay,
                digest in known,
                schedule[number],
                rows.get(number),
                found_beside.challenges.get(number),
            )
            for number, match_id, path, digest in committed
        ]
        checks += [replace(c, replay=replay, cached=c.sha256 in known) for c in more]
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
    header = _header(data)
    if header is not None and header.seed != check.seed:
        problems.append(f"{check.match_id}: record seed differs from the schedule's")
    if header is not None and ChallengeMark.of(header) != check.challenge:
        problems.append(
            f"{check.match_id}: the record says {_played_for(ChallengeMark.of(header))}, the "
            f"database {_played_for(check.challenge)}"
        )
    problems += _rows_problems(check)
    if not check.replay or check.cached:
        return RecordFound(check.sha256, tuple(problems), check.replay)
    report = verify(check.path)
    problems.extend(f"{check.match_id}: {p}" for p in report.problems)
    return RecordFound(check.sha256, tuple(problems), report.ok, report.ok)


def _header(data: bytes) -> record_pb2.RecordHeader | None:
    """A record's header line, or None when its first line is no header (the replay says what
    is wrong with it)."""
    first = data.split(b"\n", 1)[0]
    try:
        line = json_format.Parse(first, record_pb2.Record())
    except (json_format.ParseError, UnicodeDecodeError):
        return None
    return line.header if line.WhichOneof("line") == "header" else None


def _played_for(challenge: ChallengeMark | None) -> str:
    return "no challenge" if challenge is None else str(challenge)


def _rows_problems(check: RecordCheck) -> list[str]:
    """Each difference between what the database holds of the match and what its record says:
    its header (the match, the seats' bots) and its result computed again into rows."""
    if check.match is None or check.rows is None:
        return []
    records, errors = read_all(check.path, strict=False)
    if errors or records[-1].WhichOneof("line") != "result":
        return []  # the replay says what is wrong with it
    header, last = records[0].header, records[-1].result
    found = []
    match = check.match
    if header.match_id != check.match_id:
        found.append(
            f"the database's row is match {check.match_id}, its record match "
            f"{clipped(header.match_id)}"
        )
    names = tuple(seat.name for seat in header.seats)
    if len(names) != len(match.bots) or not all(map(_names, names, match.bots)):
        found.append(
            f"seats {list(match.bots)} in the schedule, {[clipped(n) for n in names]} "
            "in the record (another match's record?)"
        )
    if last.result.termination == common_pb2.TERMINATION_ABORTED:
        found.append("the record is of an aborted match, which is never committed")
    faults = [line.fault.fault for line in records if line.WhichOneof("line") == "fault"]
    expected = Rows.of(match, last.result, faults, tuple(last.luck))
    found += _differences(check.rows, expected)
    return [f"{check.match_id}: {problem}" for problem in found]


def _names(recorded: str, bot: str) -> bool:
    """Whether a record's seat name is the scheduled bot's: its name, or in a contest its
    account with its Hello name beside it ("alice (random)", referee.contest.serving)."""
    return recorded == bot or recorded.startswith(f"{bot} (")


def _differences(held: Rows, recorded: Rows) -> list[str]:
    """What the database `held` says differently from the `recorded` rows, one line each."""
    found = []
    if held.result != recorded.result:
        found.append(
            f"result {clipped(held.result)} in the database, {clipped(recorded.result)} "
            "in the record"
        )
    if held.termination != recorded.termination:
        found.append(
            f"termination {held.termination!r} in the database, "
            f"{recorded.termination!r} in the record"
        )
    if len(held.seats) != len(recorded.seats):
        found.append(
            f"{len(held.seats)} seat rows in the database, {len(recorded.seats)} seats "
            "in the record"
        )
    for mine, theirs in zip(held.seats, recorded.seats, strict=False):
        for name, value in mine._asdict().items():
            other = getattr(theirs, name)
            if not _same(value, other):
                found.append(
                    f"seat {mine.seat}: {name} {value!r} in the database, {other!r} in the record"
                )
    if held.faults != recorded.faults:
        found.append(
            f"{len(held.faults)} fault rows in the database differ from the record's "
            f"{len(recorded.faults)} faults"
        )
    return found


def _same(held: object, recorded: object) -> bool:
    """Equal, a NaN luck included (a NaN is never a luck correction: the replay refuses it)."""
    if isinstance(held, float) and isinstance(recorded, float):
        return held == recorded or (math.isnan(held) and math.isnan(recorded))
    return held == recorded


def _unlisted(
    committed: Sequence[tuple[int, str, Path, str]], schedule: dict[int, ScheduledMatch]
) -> list[str]:
    """A complete record in the records' folders, of a scheduled match that has no row: its
    rows were deleted (or the referee stopped between the record and its commit)."""
    listed = {path.resolve() for _, _, path, _ in committed}
    folders = {path.parent for _, _, path, _ in committed}
    by_seed: dict[str, list[ScheduledMatch]] = {}
    for match in schedule.values():
        by_seed.setdefault(str(match.seed), []).append(match)
    done = {number for number, *_ in committed}
    found = []
    for folder in sorted(folders):
        for path in sorted(folder.glob("*.jsonl")):
            if path.resolve() in listed:
                continue
            records, errors = read_all(path, strict=False)
            if errors or records[-1].WhichOneof("line") != "result":
                continue  # not finished: never committed
            names = [seat.name for seat in records[0].header.seats]
            numbers = [
                match.number
                for match in by_seed.get(records[0].header.seed, [])
                if len(names) == len(match.bots) and all(map(_names, names, match.bots))
            ]
            for number in (n for n in numbers if n not in done):
                found.append(
                    f"match {number}: its record {str(path)!r} is complete but the database "
                    "holds no row of it (deleted, or the referee stopped before its commit)"
                )
    return found
