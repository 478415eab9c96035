"""Hosted bots' versions, content-addressed, beside the contest database.

Layout under `root`:

- `versions/<id>/src/`: a version's files, as `referee.hosted.archive.unpack` wrote them; a
  folder appears there only whole (renamed in from `incoming/`), and is never changed after;
- `incoming/<random>/src/`: an upload being unpacked (`VersionStore.incoming`); whatever is left
  there after a kill is removed by `recover`;
- `store.db`: SQLite (WAL): which account submitted which version and when, and its status.

A version's folder is renamed in before its row is written, so after a kill at any moment a
listed version is whole; a folder with no row (killed between the two) is removed by `recover`.
A version belongs to the account that first submitted it; the same contents from another account
are refused rather than shared, so that one version has one author.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import os
import secrets
import shutil
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import NewType

from referee import private
from referee.databases import open_database, open_read_only, write_transaction
from referee.errors import CroupierError

VersionId = NewType("VersionId", str)

_CHUNK_BYTES = 1024 * 1024
#: The columns a Version is read from, in its fields' order.
_COLUMNS = "id, account, status, reason, submitted_at, updated_at, public"
_VERSIONS_COLUMNS = ", ".join(f"versions.{name}" for name in _COLUMNS.split(", "))
_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    id TEXT PRIMARY KEY,
    account TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    public TEXT
);
CREATE INDEX IF NOT EXISTS versions_by_account ON versions (account, submitted_at);
CREATE TABLE IF NOT EXISTS active (
    account TEXT PRIMARY KEY,
    id TEXT NOT NULL REFERENCES versions (id)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account TEXT NOT NULL,
    version TEXT NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    match TEXT NOT NULL,
    at TEXT NOT NULL,
    challenge INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_by_account ON events (account, id);
"""


#: Why contents that are another account's version are refused. Neither that version's id nor
#: its account is said (issue 41.4): the author learns only what content addressing must tell.
ANOTHER_ACCOUNT_S = (
    "these files are already another account's upload, byte for byte (a version is its files' "
    "SHA-256, and has one author): change any byte, e.g. a comment in bot.toml, and upload again"
)


class StoreError(CroupierError):
    """An unknown version, or contents that are another account's version."""


class VersionStatus(enum.StrEnum):
    """Where a version is: received, then built (or not), then qualified (or not)."""

    RECEIVED = "received"
    QUEUED = "queued"
    BUILDING = "building"
    BUILT = "built"
    BUILD_FAILED = "build-failed"
    QUALIFYING = "qualifying"
    QUALIFIED = "qualified"
    FAILED = "failed"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True, slots=True)
class Version:
    """One version as stored; `new` is False when `add` found the same contents already in."""

    id: VersionId
    account: str
    status: VersionStatus
    reason: str
    submitted_at: str
    updated_at: str
    new: bool = False
    #: What anyone may read of `reason` (the contest's site), where it holds words of the
    #: author's or the bot's (a build's output, a bot's last line, its Hello): None, all of it.
    public: str | None = None

    @property
    def queued(self) -> bool:
        """Whether it waits for a build turn (referee.hosted.turns)."""
        return self.status is VersionStatus.QUEUED

    @property
    def public_reason(self) -> str:
        """Why it has its status, as anyone may read it: never a word of the bot's, which could
        otherwise publish what it learned on the contest's front page (issue 41.0). A failure
        stored before the public reason existed shows its status alone."""
        if self.public is not None:
            return self.public
        failed = self.status in (VersionStatus.BUILD_FAILED, VersionStatus.FAILED)
        return str(self.status) if failed else self.reason


class Moment(enum.StrEnum):
    """What happens to a version besides its statuses, as its team follows it
    (`VersionStore.events`): it became its account's active version, played its first match,
    was retired from play, played a challenge to its end."""

    ACTIVE = "active"
    FIRST_MATCH = "first-match"
    RETIRED = "retired"
    CHALLENGE_DECIDED = "challenge-decided"


#: What an event tells: a status the version reached, or a moment of its play.
EventKind = VersionStatus | Moment


def event_kind(text: str) -> EventKind:
    """An event's kind, as stored."""
    return Moment(text) if text in set(Moment) else VersionStatus(text)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened to a version; `id` rises with every event of the store, so a
    follower that saw up to `id` asks for what came after it and misses nothing."""

    id: int
    account: str
    version: VersionId
    kind: EventKind
    #: Why (a build's exit, the check that failed and the bot's last line, what retired it).
    reason: str
    #: The match, for FIRST_MATCH; else "".
    match: str
    at: str
    #: The challenge, for CHALLENGE_DECIDED; else 0.
    challenge: int = 0


@dataclass(frozen=True, slots=True)
class Recovery:
    """What `recover` cleaned up at start-up."""

    removed_incoming: tuple[str, ...]
    removed_orphans: tuple[VersionId, ...]
    rebuild: tuple[VersionId, ...]


def version_id(folder: Path) -> VersionId:
    """The SHA-256, in lowercase hex, of a folder's files, so an author's client can compute it.

    Take every regular file under `folder` (folders, times and owners do not count), named by its
    path relative to `folder` with `/` between parts, in UTF-8. Sort them by those bytes. Hash,
    in that order, for each file: the line `<x or -> <size in decimal> <path>\\n` (`x` when any
    execute bit is set), then the file's bytes. For one file `run.sh` holding `hi\\n`, executable,
    that is SHA-256 of `x 3 run.sh\\nhi\\n`. A path holds no newline (`unpack` refuses control
    characters), so the stream is unambiguous.
    """
    digest = hashlib.sha256()
    for path, relative in sorted(_files(folder, ""), key=lambda item: item[1].encode()):
        with path.open("rb") as data:
            size = os.fstat(data.fileno()).st_size
            executable = os.fstat(data.fileno()).st_mode & 0o111
            digest.update(f"{'x' if executable else '-'} {size} {relative}\n".encode())
            while chunk := data.read(_CHUNK_BYTES):
                digest.update(chunk)
    return VersionId(digest.hexdigest())


def _files(folder: Path, prefix: str) -> Iterator[tuple[Path, str]]:
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            yield from _files(Path(entry.path), f"{prefix}{entry.name}/")
        elif entry.is_file(follow_symlinks=False):
            yield Path(entry.path), f"{prefix}{entry.name}"


def _fsync_tree(folder: Path) -> None:
    """Everything under `folder` on disk before it is renamed in: files, then their folders."""
    for parent, _folders, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(parent, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_folder(Path(parent))


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class VersionStore:
    """The versions under `root` (made if missing). Safe to call from several threads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._incoming = root / "incoming"
        self._versions = root / "versions"
        private.folder(self._incoming)  # every author's files: owner-only (bots see theirs
        private.folder(self._versions)  # through the sandbox's binds, never by these paths)
        database = private.file(root / "store.db")
        self._db = open_database(database, autocommit=True, shared=True)
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(versions)")}
        if "public" not in columns:  # a store made before public reasons
            self._db.execute("ALTER TABLE versions ADD COLUMN public TEXT")
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
        if "challenge" not in columns:  # a store made before challenges' events
            self._db.execute("ALTER TABLE events ADD COLUMN challenge INTEGER NOT NULL DEFAULT 0")
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def incoming(self) -> Path:
        """A fresh `incoming/<random>/src` to unpack an upload into: it does not exist yet, its
        parent does. Hand it to `add` when the unpack has finished, or remove its parent."""
        parent = self._incoming / secrets.token_hex(8)
        parent.mkdir()
        return parent / "src"

    def folder(self, id: VersionId) -> Path:
        """The version's folder (its files are in `src/`)."""
        return version_folder(self.root, id)

    def add(self, account: str, unpacked: Path) -> Version:
        """Store a finished unpack (a path from `incoming`) as `account`'s version: its files are
        synced, then renamed in whole. The same contents again are the same version (`new` is
        False); the same contents as another account's version are refused."""
        staging = unpacked.parent
        if staging.parent != self._incoming or unpacked.name != "src":
            raise ValueError(f"{str(unpacked)!r} is not a folder from VersionStore.incoming()")
        id = version_id(unpacked)
        existing = self._row(id)
        if existing is not None:
            shutil.rmtree(staging)
            if existing.account != account:
                raise StoreError(ANOTHER_ACCOUNT_S)
            return existing
        _fsync_tree(staging)
        target = self.folder(id)
        try:
            os.rename(staging, target)
        except OSError:
            if not target.is_dir():  # not "already there": a real failure
                raise
            shutil.rmtree(staging)
        _fsync_folder(self._versions)
        _fsync_folder(self._incoming)
        now = _now()
        with self._lock, self._transaction():
            inserted = self._db.execute(
                "INSERT INTO versions VALUES (?, ?, ?, '', ?, ?, NULL) ON CONFLICT (id) DO NOTHING",
                (id, account, VersionStatus.RECEIVED, now, now),
            ).rowcount
            if inserted:
                self._event(id, VersionStatus.RECEIVED, "")
        stored = self.version(id)
        if stored.account != account:  # another account's add won a race for these contents
            raise StoreError(ANOTHER_ACCOUNT_S)
        return dataclasses.replace(stored, new=inserted == 1)

    def version(self, id: VersionId) -> Version:
        """The version `id`; `StoreError` if there is none."""
        found = self._row(id)
        if found is None:
            raise StoreError(f"no version {id!r}")
        return found

    def versions(self, account: str) -> list[Version]:
        """The account's versions, oldest first."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM versions WHERE account = ? ORDER BY submitted_at, rowid",
                (account,),
            ).fetchall()
        return [_version(row) for row in rows]

    def set_status(
        self,
        id: VersionId,
        status: VersionStatus,
        reason: str = "",
        public: str | None = None,
    ) -> Version:
        """Record where the version is now, with why (a build's or a check's failure) and what
        anyone may read of it (`public`; None: all of `reason`). A withdrawn version stays
        withdrawn (what the pipeline was doing with it when it was withdrawn changes nothing):
        the version is returned as it is."""
        with self._lock, self._transaction():
            was_active = self._is_active(id)
            changed = self._db.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ?, public = ? "
                "WHERE id = ? AND status != ?",
                (status, reason, _now(), public, id, VersionStatus.WITHDRAWN),
            ).rowcount
            if changed:
                self._event(id, status, reason)
                if was_active and status is VersionStatus.WITHDRAWN:
                    self._event(id, Moment.RETIRED, f"{reason}: it plays no more")
        return self.version(id)

    def resubmit(self, id: VersionId) -> Version:
        """Queue a version whose build or qualification failed, or that was withdrawn, again: its
        files were submitted again, so its author wants them built and played (a build that a
        loaded machine stopped is not the files' fault, issue 42.8). Others are as they were."""
        ended = (VersionStatus.BUILD_FAILED, VersionStatus.FAILED, VersionStatus.WITHDRAWN)
        with self._lock, self._transaction():
            changed = self._db.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ?, public = NULL "
                f"WHERE id = ? AND status IN ({', '.join('?' for _ in ended)})",
                (VersionStatus.RECEIVED, "submitted again", _now(), id, *ended),
            ).rowcount
            if changed:
                self._event(id, VersionStatus.RECEIVED, "submitted again")
        return self.version(id)

    def with_status(self, *statuses: VersionStatus) -> list[Version]:
        """Every account's versions in one of `statuses`, oldest first (the pipeline's queue)."""
        marks = ", ".join("?" for _ in statuses)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM versions WHERE status IN ({marks}) "
                "ORDER BY submitted_at, rowid",
                statuses,
            ).fetchall()
        return [_version(row) for row in rows]

    def activate(self, id: VersionId, reason: str = "") -> Version:
        """Mark the version qualified, with why, and make it the one its account plays in place
        of the one before, in one transaction: no reader sees one without the other. A withdrawn
        version is left withdrawn (StoreError)."""
        with self._lock, self._transaction():
            before = self._db.execute(
                "SELECT active.id FROM active JOIN versions USING (account) "
                "WHERE versions.id = ? AND active.id != ?",
                (id, id),
            ).fetchone()
            changed = self._db.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ?, public = NULL "
                "WHERE id = ? AND status != ?",
                (VersionStatus.QUALIFIED, reason, _now(), id, VersionStatus.WITHDRAWN),
            ).rowcount
            if changed:
                self._db.execute(
                    "INSERT INTO active SELECT account, id FROM versions WHERE id = ? "
                    "ON CONFLICT (account) DO UPDATE SET id = excluded.id",
                    (id,),
                )
                self._event(id, VersionStatus.QUALIFIED, reason)
                self._event(id, Moment.ACTIVE, "")
                if before is not None and self._row_status(before[0]) is VersionStatus.QUALIFIED:
                    why = f"replaced by the newer version {id[:SHORT_ID]}"
                    self._event(VersionId(before[0]), Moment.RETIRED, why)
        if not changed:
            raise StoreError(f"no version {id!r} to activate (withdrawn, or none)")
        return self.version(id)

    def played(self, id: VersionId, match_id: str) -> None:
        """The version played `match_id`: its team is told of its first match only."""
        with self._lock, self._transaction():
            first = self._db.execute(
                "SELECT 1 FROM events WHERE version = ? AND kind = ?",
                (id, Moment.FIRST_MATCH),
            ).fetchone()
            if first is None:
                self._event(id, Moment.FIRST_MATCH, "", match_id)

    def challenge_decided(self, id: VersionId, challenge: int, summary: str) -> None:
        """Challenge `challenge`, which version `id` played, is over: its team is told how."""
        with self._lock, self._transaction():
            self._event(id, Moment.CHALLENGE_DECIDED, summary, challenge=challenge)

    def events(self, account: str, after: int = 0, limit: int = 100) -> list[Event]:
        """The account's versions' events after the event `after` (0: from the first), oldest
        first, at most `limit`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, account, version, kind, reason, match, at, challenge FROM events "
                "WHERE account = ? AND id > ? ORDER BY id LIMIT ?",
                (account, after, limit),
            ).fetchall()
        return [
            Event(id, who, VersionId(version), event_kind(kind), reason, match, at, challenge)
            for id, who, version, kind, reason, match, at, challenge in rows
        ]

    def _event(
        self, id: VersionId, kind: EventKind, reason: str, match: str = "", challenge: int = 0
    ) -> None:
        """Append an event of version `id` (under the lock, in the caller's transaction)."""
        self._db.execute(
            "INSERT INTO events (account, version, kind, reason, match, at, challenge) "
            "SELECT account, id, ?, ?, ?, ?, ? FROM versions WHERE id = ?",
            (kind, reason, match, _now(), challenge, id),
        )

    def _is_active(self, id: VersionId) -> bool:
        row = self._db.execute("SELECT 1 FROM active WHERE id = ?", (id,)).fetchone()
        return row is not None and self._row_status(id) is VersionStatus.QUALIFIED

    def _row_status(self, id: str) -> VersionStatus | None:
        row = self._db.execute("SELECT status FROM versions WHERE id = ?", (id,)).fetchone()
        return None if row is None else VersionStatus(row[0])

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction (the connection is in autocommit): a change and its events
        are seen together or not at all."""
        with write_transaction(self._db):
            yield

    def active(self, account: str) -> Version | None:
        """The version the account plays: the last one activated, while it is still qualified
        (a withdrawn one leaves the account none until another qualifies)."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_VERSIONS_COLUMNS} FROM active JOIN versions USING (id) "
                "WHERE active.account = ? AND versions.status = ?",
                (account, VersionStatus.QUALIFIED),
            ).fetchone()
        return None if row is None else _version(row)

    def active_versions(self) -> list[Version]:
        """Every account's active version (see `active`), by account."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_VERSIONS_COLUMNS} FROM active JOIN versions USING (id) "
                "WHERE versions.status = ? ORDER BY active.account",
                (VersionStatus.QUALIFIED,),
            ).fetchall()
        return [_version(row) for row in rows]

    def withdraw(self, account: str, id: VersionId) -> Version:
        """Withdraw one of the account's versions: it is kept, but no longer played. Another
        account's version is reported as missing, not as someone else's."""
        found = self._row(id)
        if found is None or found.account != account:
            raise StoreError(f"no version {id!r} of account {account!r}")
        return self.set_status(id, VersionStatus.WITHDRAWN, f"withdrawn by {account}")

    def recover(self) -> Recovery:
        """At start-up, before any upload: remove unfinished uploads and version folders that
        never got their row, and send versions whose build was cut short back to `received`, so
        that the build runs again."""
        removed = sorted(entry.name for entry in self._incoming.iterdir())
        for name in removed:
            shutil.rmtree(self._incoming / name)
        with self._lock, self._transaction():
            known = {row[0] for row in self._db.execute("SELECT id FROM versions")}
            rebuild = [
                row[0]
                for row in self._db.execute(
                    "SELECT id FROM versions WHERE status = ? ORDER BY rowid",
                    (VersionStatus.BUILDING,),
                )
            ]
            stopped = "the referee stopped during its build"
            self._db.execute(
                "UPDATE versions SET status = ?, reason = ?, updated_at = ? WHERE status = ?",
                (VersionStatus.RECEIVED, stopped, _now(), VersionStatus.BUILDING),
            )
            for id in rebuild:
                self._event(VersionId(id), VersionStatus.RECEIVED, stopped)
        orphans = sorted(
            entry.name for entry in self._versions.iterdir() if entry.name not in known
        )
        for name in orphans:
            shutil.rmtree(self._versions / name)
        return Recovery(
            removed_incoming=tuple(removed),
            removed_orphans=tuple(VersionId(name) for name in orphans),
            rebuild=tuple(VersionId(id) for id in rebuild),
        )

    def _row(self, id: VersionId) -> Version | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM versions WHERE id = ?", (id,)
            ).fetchone()
        return None if row is None else _version(row)


def beside(database: Path) -> Path:
    """Where a contest keeps its hosted versions unless told otherwise: beside its database."""
    return database.parent / "versions"


def version_folder(root: Path, id: VersionId) -> Path:
    """The folder of version `id` in the store at `root` (its files are in `src/`)."""
    return root / "versions" / id


@dataclass(frozen=True, slots=True)
class Listing:
    """The versions as a reader sees them, oldest first, with the ones their accounts play."""

    versions: tuple[Version, ...]
    active: frozenset[VersionId]

    def find(self, id: str) -> Version:
        """The listed version `id`, or the one its prefix names; `StoreError` if none is."""
        return by_prefix(self.versions, id)


#: How much of a version's id tables show (as git shows commits): enough to name it.
SHORT_ID = 12
#: The shortest prefix that names a version (fewer hex digits name too many in a big store).
MIN_PREFIX = 6


def by_prefix(versions: Iterable[Version], id: str) -> Version:
    """The version whose id is `id`, or starts with it (at least MIN_PREFIX hex digits, naming
    one version only); `StoreError` with the reason otherwise."""
    text = id.strip().lower()
    exact = [v for v in versions if v.id == text]
    if exact:
        return exact[0]
    if len(text) < MIN_PREFIX:
        raise StoreError(f"no version {id!r} (give at least {MIN_PREFIX} digits of its id)")
    named = [v for v in versions if v.id.startswith(text)]
    if not named:
        raise StoreError(f"no version {id!r}")
    if len(named) > 1:
        raise StoreError(f"{id!r} names {len(named)} versions: give more of its id")
    return named[0]


def read_listing(root: Path, account: str | None = None) -> Listing:
    """Every account's versions (or only `account`'s) in the store at `root`, read-only (SQLite
    mode=ro): the organiser's CLI and the contest's site never change the store, nor wait on
    the referee's writes (WAL readers do not block). No store yet is an empty listing, and so is
    one the referee is creating (its file there, its tables not yet: the site reads it as the
    referee starts, and once crashed on it)."""
    database = root / "store.db"
    if not database.is_file():
        return Listing((), frozenset())
    where, given = ("WHERE account = ?", (account,)) if account is not None else ("", ())
    db = open_read_only(database)
    try:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        if "versions" not in tables:
            return Listing((), frozenset())
        columns = {row[1] for row in db.execute("PRAGMA table_info(versions)")}
        public = "public" if "public" in columns else "NULL"  # a store before public reasons
        selected = _COLUMNS.replace("public", public)
        rows = db.execute(
            f"SELECT {selected} FROM versions {where} ORDER BY submitted_at, rowid", given
        ).fetchall()
        active = []
        if "active" in tables:  # a store made before active versions has none
            active = db.execute(
                "SELECT id FROM active JOIN versions USING (id) WHERE versions.status = ?",
                (VersionStatus.QUALIFIED,),
            ).fetchall()
    finally:
        db.close()
    return Listing(tuple(_version(row) for row in rows), frozenset(row[0] for row in active))


def _version(row: tuple[str, ...]) -> Version:
    id, account, status, reason, submitted_at, updated_at, public = row
    return Version(
        VersionId(id),
        account,
        VersionStatus(status),
        reason,
        submitted_at,
        updated_at,
        public=public,
    )


def entrant(version: Version) -> str:
    """The contest's name for a hosted version: its account and its id's first digits."""
    return f"{version.account}@{version.id[:SHORT_ID]}"


def plays_as(name: str, bot: str) -> bool:
    """Whether the entrant `name` is `bot`: that very name, or a hosted version of the account
    `bot` (`alice@4e639b076764` is alice's), so that a hosted account is followed and listed
    by its account as a network bot is by its name."""
    return name == bot or name.startswith(f"{bot}@")
