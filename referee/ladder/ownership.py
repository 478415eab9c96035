"""A records folder belongs to one ladder database (issue 24.1).

A runner deletes what an interrupted run left of its pending matches and writes each match's
record under a name made from the ladder's name and the match's number, so two databases sharing
one folder would delete and overwrite each other's records. Each database therefore marks the
folder it writes (`MARK`, naming its owner id, kept in the database's meta) and refuses a folder
that another database marked, or that holds records when it is new itself.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from referee.ladder.venue import LadderError

#: The mark in a records folder: {"owner": id, "database": path}.
MARK = ".croupier-records"
#: The database's meta key holding its owner id.
META_KEY = "records_owner"


def new_owner() -> str:
    return secrets.token_hex(8)


def claim(records: Path, database: Path, owner: str, *, new: bool) -> None:
    """Make `records` the folder of the database `owner` (at `database`), or refuse it: marked
    by another database, or unmarked and holding records while this database is `new` (records
    that a database from before the marks wrote). A resumed database that finds its folder
    unmarked (made before the marks) claims it."""
    mark = records / MARK
    try:
        text = mark.read_text()
    except FileNotFoundError:
        text = None
    except OSError as error:
        raise LadderError(f"cannot read {str(mark)!r}: {error.strerror}") from None
    if text is not None:
        try:
            found = json.loads(text)
        except json.JSONDecodeError:
            found = {}
        if not isinstance(found, dict) or found.get("owner") != owner:
            other = found.get("database", "?") if isinstance(found, dict) else "?"
            raise LadderError(
                f"records folder {str(records)!r} holds the records of another ladder database "
                f"({other!r}); give this one its own folder (--records DIR, or `records` in "
                "the ladder file)"
            )
        return
    if new and records.is_dir() and any(records.glob("*.jsonl*")):
        raise LadderError(
            f"records folder {str(records)!r} holds records this new database did not write; "
            "give it its own folder (--records DIR, or `records` in the ladder file)"
        )
    records.mkdir(parents=True, exist_ok=True)
    payload = {"owner": owner, "database": str(database.resolve())}
    mark.write_text(json.dumps(payload) + "\n")
