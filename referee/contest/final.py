"""A contest's final round: its accounts' active versions, frozen, re-played from fresh ratings.

As the Google AI Challenge ended: submissions close, and the versions then active play a final
on their own, their earlier results forgotten. `final_round` makes that contest in a new
database beside its own hosted store, and `croupier serve --db FINAL` plays it:

- the accounts are copied, token hashes and revocations too (authors keep their tokens);
- each account's active version is copied whole, as built and qualified (never built again,
  so it is the very program that qualified), and is active there;
- the book starts from nothing: no match, no rating; `serve` draws a new master seed;
- its submissions are frozen for good (referee.contest.book.FROZEN): an upload is refused.

The contest it comes from is only read (SQLite read-only, files copied): its database, records
and store are left byte for byte as they were. Freeze or stop it first, so that no version
becomes active while it is copied. The final is made whole or not at all: whatever fails on
the way (a version changed, a file that cannot be read) removes what it had made, so that a
second try starts clean. A version's folder keeps its folders, regular files and links; what
an older build left that is none of those (a FIFO, a socket) is left out and said (issue 41.3).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from referee.contest.book import FROZEN
from referee.contest.tokens import TokenStore
from referee.databases import open_read_only
from referee.errors import CroupierError
from referee.hosted.roster import PLAY_LOG
from referee.hosted.store import (
    SHORT_ID,
    Version,
    VersionStore,
    beside,
    read_listing,
    version_folder,
)
from referee.hosted.submitting import MATCH_LOGS
from referee.ratings.standings import Plan
from referee.results.database import Store

#: What an author is told when uploading to a final round.
FINAL_FROZEN = "this is the contest's final round, played by the versions active when it began"
#: What a version's folder holds that stays with the contest it played in: its output there.
_LEFT_BEHIND = frozenset({MATCH_LOGS, PLAY_LOG})


@dataclass(frozen=True, slots=True)
class FinalRound:
    """What `final_round` made: the new contest's database and store, and what it holds."""

    database: Path
    versions: Path
    accounts: int
    active: tuple[Version, ...]
    #: What was left out of the versions' folders (no folder, file or link), by path.
    left_out: tuple[str, ...] = ()


def final_round(
    source: Path,
    into: Path,
    *,
    source_versions: Path | None = None,
    into_versions: Path | None = None,
) -> FinalRound:
    """Make the final round of the contest at `source` in a new database `into`, its hosted
    store at `into_versions` (default: `versions/` beside it). CroupierError, before anything is
    written, if `into` or its store exists already or the store would be the source's."""
    source_versions = source_versions or beside(source)
    into_versions = into_versions or beside(into)
    if not source.is_file():
        raise CroupierError(f"no contest database at {str(source)!r}")
    if into.exists():
        raise CroupierError(f"{str(into)!r} exists already: a final round starts a new database")
    if into_versions.resolve() == source_versions.resolve():
        raise CroupierError(
            f"the final round would share the versions folder {str(into_versions)!r} with its "
            "contest: put its database in a folder of its own (or give its versions folder)"
        )
    if into_versions.exists() and any(into_versions.iterdir()):
        raise CroupierError(f"{str(into_versions)!r} is not empty: give a new versions folder")
    listing = read_listing(source_versions)
    active = tuple(v for v in listing.versions if v.id in listing.active)
    left_out: list[str] = []
    fresh_versions = not into_versions.exists()
    try:
        accounts = TokenStore(into).carry(source)
        book = Store(into, create=True)
        try:
            book.put_meta(FROZEN, FINAL_FROZEN)
            plan = _plan_of(source)
            if plan is not None:  # the final plays the contest's game, nothing else (42.4)
                book.put_meta("plan", replace(plan, bots=()).to_json())
        finally:
            book.close()
        store = VersionStore(into_versions)
        try:
            for version in active:
                folder = version_folder(source_versions, version.id)
                _carry(version, folder, store, left_out)
        finally:
            store.close()
    except BaseException as error:
        _unmake(into, into_versions, fresh_versions)
        if isinstance(error, OSError):
            raise CroupierError(f"the final round was not made: {error}") from None
        raise
    return FinalRound(into, into_versions, accounts, active, tuple(left_out))


def _plan_of(source: Path) -> Plan | None:
    """The contest's plan (its game and options), read without a write: None before any
    match was seated."""
    with contextlib.closing(open_read_only(source)) as db:
        found = db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()
    return None if found is None else Plan.from_json(found[0])


def _unmake(database: Path, versions: Path, fresh: bool) -> None:
    """Remove what a final round that failed had made: its database (and SQLite's files beside
    it) and its versions folder (only its contents, where it was given empty)."""
    for path in (database, *(database.with_name(database.name + end) for end in _SQLITE)):
        path.unlink(missing_ok=True)
    if fresh:
        shutil.rmtree(versions, ignore_errors=True)
    elif versions.is_dir():
        for entry in versions.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()


#: What SQLite keeps beside a database.
_SQLITE = ("-wal", "-shm", "-journal")


def _carry(version: Version, folder: Path, store: VersionStore, left_out: list[str]) -> None:
    """Copy `version` from its `folder` into `store` (its files, build and qualification; not
    its output in the old contest) and make it its account's active version there."""
    src = store.incoming()
    _copy(folder / "src", src, left_out, f"{version.id[:SHORT_ID]}/src")
    for entry in folder.iterdir():
        if entry.name in _LEFT_BEHIND or entry.name == "src":
            continue
        _copy(entry, src.parent / entry.name, left_out, f"{version.id[:SHORT_ID]}/{entry.name}")
    added = store.add(version.account, src)
    if added.id != version.id:  # the id is the files' hash: a copy that differs is no copy
        raise CroupierError(
            f"version {version.id} changed while it was copied (its files hash to {added.id} "
            "now): the final round was not made; stop the contest and try again"
        )
    store.activate(added.id, version.reason)


def _copy(source: Path, into: Path, left_out: list[str], shown: str) -> None:
    """`source` (a folder, file or link) copied to `into`, links as links; anything else under
    it is left out, its path (as `shown` names `source`) added to `left_out`."""
    mode = source.lstat().st_mode
    if stat.S_ISLNK(mode):
        os.symlink(os.readlink(source), into)
    elif stat.S_ISREG(mode):
        shutil.copy2(source, into)
    elif stat.S_ISDIR(mode):
        os.mkdir(into)
        for entry in sorted(source.iterdir()):
            _copy(entry, into / entry.name, left_out, f"{shown}/{entry.name}")
        shutil.copystat(source, into)
    else:
        left_out.append(shown)
