"""A contest's challenges checked as `croupier ladder verify` checks its matches.

A ranked challenge's matches are the contest's own (its schedule and matches rows): verified
with them, and here only found committed there. An unranked one's are checked here, record by
record: the hash committed, the header's seed and the rows held against the record, the replay;
once the contest has revealed its master seed, each seed against its deal's key
(referee.challenges.book.deal_key). Read-only: a database with no challenge has nothing here.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from referee.challenges.book import deal_key, rows_of, scheduled
from referee.databases import open_read_only
from referee.ladder.schedule import derive_seed
from referee.ladder.verify import RecordCheck


def challenge_checks(database: Path, replay: bool) -> tuple[list[RecordCheck], list[str]]:
    """The checks of every committed unranked challenge match, and the problems found in the
    tables themselves."""
    db = open_read_only(database)
    try:
        try:
            rows = db.execute(
                "SELECT challenge, deal, rotation, number, match_id, seed, bots, sides, record, "
                "record_sha256, rows FROM challenge_matches WHERE record IS NOT NULL "
                "ORDER BY challenge, deal, rotation"
            ).fetchall()
        except sqlite3.OperationalError:  # no challenge table: a contest without challenges
            return [], []
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        contest = {row[0] for row in db.execute("SELECT number FROM matches")}
    finally:
        db.close()
    master = meta.get("master_seed") if meta.get("revealed") == "1" else None
    checks: list[RecordCheck] = []
    problems: list[str] = []
    for challenge, deal, rotation, number, id, seed, bots, sides, record, digest, held in rows:
        if master is not None and seed != derive_seed(master, deal_key(challenge, deal)):
            problems.append(f"{id}: seed does not derive from the master seed")
        if number is not None:
            if number not in contest:
                problems.append(f"{id}: a ranked challenge's match the contest never committed")
            continue
        match = scheduled(challenge, deal, rotation, seed, json.loads(bots), json.loads(sides))
        path = database.parent / record
        checks.append(RecordCheck(id, path, digest, str(seed), replay, False, match, rows_of(held)))
    return checks, problems
