"""`croupier ladder verify` trusts the records, not the database (issue 42.1, 42.2): a real
ladder played once, then copied and tampered with as an auditor found, each change a problem
that names the match and the value. Every case here verified with "0 problems" before."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.ladder import verify_ladder
from tests.test_ladder_run import HEURISTIC, RANDOM, xix_ladder

runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished XIX ladder of duplicate deals (each deal played in both seatings)."""
    folder = tmp_path_factory.mktemp("played")
    settings = 'matches_per_pairing = 4\nseed = "audit"\nsandbox = false\nduplicate = true'
    path = xix_ladder(folder, [HEURISTIC, RANDOM], settings)
    result = runner.invoke(app, ["ladder", "run", str(path)])
    assert result.exit_code == 0, result.output
    return folder


def copied(played: Path, tmp_path: Path) -> Path:
    """The ladder's database and records, copied (the database names its records relatively)."""
    copy = tmp_path / "copy"
    shutil.copytree(played, copy)
    return copy / "ladder.sqlite"


def sql(database: Path, *statements: str) -> None:
    with sqlite3.connect(database) as db:
        for statement in statements:
            db.execute(statement)
    db.close()


def problems(database: Path) -> list[str]:
    check = verify_ladder(database, workers=1)
    return check.problems


#: An auditor's edits of the database alone, and what verify says of each.
EDITS = {
    "ranks swapped": (["UPDATE seats SET rank = 3 - rank"], "rank 2 in the database, 1 in"),
    "a score": (["UPDATE seats SET score = score + 5 WHERE number = 1 AND seat = 0"], "score"),
    "a luck": (["UPDATE seats SET luck = luck + 1.5 WHERE number = 1 AND seat = 0"], ": luck "),
    "a name": (["UPDATE seats SET bot = 'random' WHERE number = 1 AND seat = 0"], "bot 'random'"),
    "faults": (["UPDATE seats SET faults = 2 WHERE number = 1 AND seat = 0"], "faults 2 in"),
    "a result": (["UPDATE matches SET result = 'seat 1 wins 99-0' WHERE number = 1"], "result "),
    "a retirement": (["UPDATE seats SET retired = 1 WHERE number = 3 AND seat = 1"], "retired 1"),
    "a termination": (
        ["UPDATE matches SET termination = 'retired' WHERE number = 2"],
        "termination 'retired'",
    ),
    "seat rows deleted": (["DELETE FROM seats WHERE number = 2"], "0 seat rows in the database"),
    "a match's rows deleted": (
        [f"DELETE FROM {table} WHERE number = 2" for table in ("faults", "seats", "matches")],
        "is complete but the database holds no row of it",
    ),
    "rows of no match": (
        ["DELETE FROM matches WHERE number = 2"],
        "match 2: seats or faults rows of no committed match",
    ),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_database_is_caught_by_its_records(
    played: Path, tmp_path: Path, edit: str
) -> None:
    statements, said = EDITS[edit]
    database = copied(played, tmp_path)
    assert problems(database) == []
    sql(database, *statements)
    found = problems(database)
    assert any(said in problem for problem in found), found


def test_a_row_pointing_at_its_twin_deal_s_record_is_caught(played: Path, tmp_path: Path) -> None:
    """The other seating of the same deal: the same seed, hashed and replaying, but its seats
    are the other way round."""
    database = copied(played, tmp_path)
    with sqlite3.connect(database) as db:
        (first, second), *_ = db.execute(
            "SELECT a.number, b.number FROM schedule a JOIN schedule b "
            "ON a.deal = b.deal AND a.number < b.number ORDER BY a.number"
        ).fetchall()
        db.execute(
            "UPDATE matches SET (record, record_sha256) = "
            "(SELECT record, record_sha256 FROM matches WHERE number = ?) WHERE number = ?",
            (second, first),
        )
    db.close()
    found = problems(database)
    assert any("(another match's record?)" in problem for problem in found), found


def rewritten(database: Path, number: int, change: Callable[[list[dict]], None]) -> None:  # type: ignore[type-arg]
    """Match `number`'s record rewritten by `change` (its lines as JSON), and its hash in the
    database made the new one's: a tamper that hashing alone cannot see."""
    with sqlite3.connect(database) as db:
        (relative,) = db.execute(
            "SELECT record FROM matches WHERE number = ?", (number,)
        ).fetchone()
        path = database.parent / relative
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        change(lines)
        data = "".join(json.dumps(line) + "\n" for line in lines).encode()
        path.write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        db.execute("UPDATE matches SET record_sha256 = ? WHERE number = ?", (digest, number))
    db.close()


def test_an_aborted_result_with_a_winner_is_refused(played: Path, tmp_path: Path) -> None:
    """Issue 42.2: a result marked aborted was never checked, so any winner verified."""
    database = copied(played, tmp_path)

    def abort(lines: list[dict]) -> None:  # type: ignore[type-arg]
        lines[-1]["result"]["result"]["termination"] = "TERMINATION_ABORTED"

    rewritten(database, 1, abort)
    found = problems(database)
    assert any("an aborted result" in problem for problem in found), found
    assert any("aborted match, which is never committed" in problem for problem in found), found


def test_a_nan_luck_correction_is_refused(played: Path, tmp_path: Path) -> None:
    database = copied(played, tmp_path)

    def nan(lines: list[dict]) -> None:  # type: ignore[type-arg]
        lines[-1]["result"]["luck"][0] = "NaN"

    rewritten(database, 1, nan)
    found = problems(database)
    assert any("luck corrections" in problem for problem in found), found


def test_a_record_relabelled_schema_1_with_its_luck_changed_is_refused(
    played: Path, tmp_path: Path
) -> None:
    database = copied(played, tmp_path)

    def relabel(lines: list[dict]) -> None:  # type: ignore[type-arg]
        lines[0]["header"]["schemaVersion"] = 1
        lines[-1]["result"]["luck"] = [9.0, -9.0]

    rewritten(database, 1, relabel)
    found = problems(database)
    assert any("where schema 1 has none" in problem for problem in found), found


def test_a_problem_quoting_a_huge_line_stays_one_short_line(played: Path, tmp_path: Path) -> None:
    """A valid 20 MB event line made a 20 MB problem."""
    database = copied(played, tmp_path)

    def huge(lines: list[dict]) -> None:  # type: ignore[type-arg]
        event = next(line for line in lines if "event" in line)
        event["event"]["event"]["text"] = "x" * 20_000_000

    rewritten(database, 1, huge)
    found = problems(database)
    assert found and all(len(problem) < 1000 for problem in found), [len(p) for p in found]
    assert any("20,000,000 characters" in problem for problem in found), found


def test_a_ladder_match_s_record_claiming_a_challenge_is_refused(
    played: Path, tmp_path: Path
) -> None:
    """Issue 45.5: a record names the challenge its match was played for, and a ladder's match
    was played for none; rewritten to claim one (its hash made the new one's), it is caught."""
    database = copied(played, tmp_path)

    def claim(lines: list[dict]) -> None:  # type: ignore[type-arg]
        lines[0]["header"]["challenge"] = {"id": "3", "ranked": True}

    rewritten(database, 2, claim)
    with sqlite3.connect(database) as db:
        (match_id,) = db.execute("SELECT match_id FROM matches WHERE number = 2").fetchone()
    db.close()
    found = problems(database)
    assert found == [
        f"{match_id}: the record says challenge 3 (ranked), the database no challenge"
    ], found
