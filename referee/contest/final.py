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
becomes active while it is copied.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from referee.contest.book import FROZEN
from referee.contest.tokens import TokenStore
from referee.errors import CroupierError
from referee.hosted.roster import PLAY_LOG
from referee.hosted.store import Version, VersionStore, beside, read_listing, version_folder
from referee.hosted.submitting import MATCH_LOGS
from referee.ladder.store import Store

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
    accounts = TokenStore(into).carry(source)
    book = Store(into, create=True)
    try:
        book.put_meta(FROZEN, FINAL_FROZEN)
    finally:
        book.close()
    store = VersionStore(into_versions)
    try:
        for version in active:
            _carry(version, version_folder(source_versions, version.id), store)
    finally:
        store.close()
    return FinalRound(into, into_versions, accounts, active)


def _carry(version: Version, folder: Path, store: VersionStore) -> None:
    """Copy `version` from its `folder` into `store` (its files, build and qualification; not
    its output in the old contest) and make it its account's active version there."""
    src = store.incoming()
    shutil.copytree(folder / "src", src, symlinks=True)
    for entry in folder.iterdir():
        if entry.name in _LEFT_BEHIND or entry.name == "src":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, src.parent / entry.name, symlinks=True)
        else:
            shutil.copy2(entry, src.parent / entry.name, follow_symlinks=False)
    added = store.add(version.account, src)
    if added.id != version.id:  # the id is the files' hash: a copy that differs is no copy
        raise CroupierError(f"version {version.id} changed while it was copied: {added.id}")
    store.activate(added.id, version.reason)
