"""A contest's challenges checked as `croupier ladder verify` checks its matches.

A ranked challenge's matches are the contest's own (its schedule and matches rows): verified
with them, and here only found committed there. An unranked one's are checked here, record by
record: the hash committed, the header's seed and the rows held against the record, the replay;
once the contest has revealed its master seed, each seed against its deal's key
(referee.challenges.book.deal_key). Every challenge match's record must name its challenge,
ranked or not, as the database does (issue 45.5), and the contest's other matches none.
Read-only: a database with no challenge has nothing here.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from referee.challenges.book import deal_key, rows_of, scheduled
from referee.databases import open_read_only
from referee.ladder.schedule import derive_seed
from referee.ladder.verify import Beside, RecordCheck
from referee.match.records import ChallengeMark


def challenge_checks(database: Path, replay: bool) -> Beside:
    """The checks of every committed unranked challenge match, the problems found in the
    tables themselves, and the contest's matches a ranked challenge played."""
    db = open_read_only(database)
    try:
        try:
            rows = db.execute(
                "SELECT m.challenge, c.ranked, m.deal, m.rotation, m.number, m.match_id, m.seed, "
                "m.bots, m.sides, m.record, m.record_sha256, m.rows FROM challenge_matches m "
                "JOIN challenges c ON c.id = m.challenge WHERE m.record IS NOT NULL "
                "ORDER BY m.challenge, m.deal, m.rotation"
            ).fetchall()
        except sqlite3.OperationalError:  # no challenge table: a contest without challenges
            return Beside()
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        contest = {row[0] for row in db.execute("SELECT number FROM matches")}
    finally:
        db.close()
    master = meta.get("master_seed") if meta.get("revealed") == "1" else None
    found = Beside()
    for challenge, ranked, *row in rows:
        deal, rotation, number, id, seed, bots, sides, record, digest, held = row
        mark = ChallengeMark(challenge, bool(ranked))
        if master is not None and seed != derive_seed(master, deal_key(challenge, deal)):
            found.problems.append(f"{id}: seed does not derive from the master seed")
        if mark.ranked != (number is not None):
            found.problems.append(
                f"{id}: {mark} in the database, but its match is "
                f"{'not ' if number is None else ''}one of the contest's"
            )
        if number is not None:
            if number not in contest:
                found.problems.append(
                    f"{id}: a ranked challenge's match the contest never committed"
                )
            found.challenges[number] = mark
            continue
        match = scheduled(challenge, deal, rotation, seed, json.loads(bots), json.loads(sides))
        path = database.parent / record
        found.checks.append(
            RecordCheck(id, path, digest, str(seed), replay, False, match, rows_of(held), mark)
        )
    return found
