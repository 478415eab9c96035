"""Check a ladder database as a participant would: the revealed seed matches the commitment
published at the start, every match's seed derives from it, and every record is the one
committed (same SHA-256) and replays exactly."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from referee.ladder.schedule import commitment, derive_seed
from referee.ladder.standings import Standings, from_store
from referee.ladder.store import Store
from referee.match.records import read_all
from referee.match.replay import verify


@dataclass
class LadderCheck:
    """What `verify_ladder` found; `problems` is empty for a ladder that checks out."""

    matches: int = 0
    records_verified: int = 0
    seed_checked: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def standings_of(database: Path) -> Standings:
    """The standings of the ladder in `database` (complete or not)."""
    store = Store(database, create=False)
    try:
        return from_store(store)
    finally:
        store.close()


def verify_ladder(
    database: Path,
    *,
    replay: bool = True,
    on_record: Callable[[int, int], None] | None = None,
) -> LadderCheck:
    """Check seeds, record hashes and (with `replay`) every record against the engine;
    `on_record(done, total)` follows the records as they are checked."""
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
        for number, match_id, path, digest in committed:
            check.matches += 1
            if on_record is not None:
                on_record(check.matches - 1, len(committed))  # the records checked so far
            try:
                data = path.read_bytes()
            except OSError as error:
                check.problems.append(f"{match_id}: cannot read record {str(path)!r}: {error}")
                continue
            if hashlib.sha256(data).hexdigest() != digest:
                check.problems.append(f"{match_id}: record {str(path)!r} is not the one committed")
                continue
            records, errors = read_all(path, strict=False)
            header = records[0].header if records and not errors else None
            if header is not None and header.seed != str(schedule[number].seed):
                check.problems.append(f"{match_id}: record seed differs from the schedule's")
            if replay:
                report = verify(path)
                if report.ok:
                    check.records_verified += 1
                else:
                    check.problems.extend(f"{match_id}: {p}" for p in report.problems)
        if on_record is not None:
            on_record(len(committed), len(committed))
        return check
    finally:
        store.close()
