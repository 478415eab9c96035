"""Bot accounts for a contest: a name and a secret token, of which only the SHA-256 is stored.

The store is SQLite, the embedded default that ladders use too. `add` shows the token once;
`revoke` takes effect at once on a running referee (it polls `revoked_since`).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from referee import private
from referee.databases import open_database, open_read_only
from referee.errors import CroupierError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""


class TokenError(CroupierError):
    """A bad account name, a duplicate, or an unknown one."""


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    created_at: str
    revoked_at: str | None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TokenStore:
    """Accounts in a SQLite file; every call is its own short transaction."""

    def __init__(self, path: Path, *, create: bool = True) -> None:
        """Open the accounts at `path`; with `create` False a missing file is an error (so a
        mistyped --db is not silently made into an empty database)."""
        self.path = path
        if not create and not path.is_file():
            raise TokenError(
                f"no account database at {str(path)!r} (`croupier token add NAME --db "
                f"{path}` creates one)"
            )
        if create:
            private.file(path)  # every account, and the contest's seed: owner-only
        with self._connect() as db:
            db.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        try:
            db = open_database(self.path)
        except sqlite3.Error as error:
            raise TokenError(
                f"cannot open the account database {str(self.path)!r}: {error}"
            ) from None
        return db

    def add(self, name: str) -> str:
        """Create an account; returns its token, which is never stored or shown again."""
        return self.add_many([name])[0][1]

    def add_many(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """Create these accounts, all or none (one transaction: a bad name, a name given
        twice or one that has a token adds none); returns each name with its token, in order."""
        for name in names:
            if not _NAME.fullmatch(name):
                raise TokenError(
                    f"bad bot name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-'"
                )
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise TokenError(f"bot {twice[0]!r} is named more than once: no account was added")
        added: list[tuple[str, str]] = []
        with self._connect() as db:
            for name in names:
                token = secrets.token_urlsafe(32)
                # A revoked account may be given a new token; an active one may not.
                done = db.execute(
                    "INSERT INTO tokens (name, token_hash, created_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, "
                    "created_at = excluded.created_at, revoked_at = NULL "
                    "WHERE tokens.revoked_at IS NOT NULL",
                    (name, token_hash(token), _now()),
                ).rowcount
                if not done:
                    more = "" if len(names) == 1 else ": no account was added"
                    raise TokenError(f"bot {name!r} already has a token (revoke it first){more}")
                added.append((name, token))
        return added

    def revoke(self, name: str) -> None:
        with self._connect() as db:
            found = db.execute(
                "UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (_now(), name),
            ).rowcount
        if not found:
            raise TokenError(f"no active token for bot {name!r}")

    def accounts(self) -> list[Account]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT name, created_at, revoked_at FROM tokens ORDER BY name"
            ).fetchall()
        return [Account(*row) for row in rows]

    def lookup(self, token: str) -> str | None:
        """The bot name of an active token, or None."""
        return self._owner(token, revoked=False)

    def refusal(self, token: str) -> str | None:
        """Why `token` is refused, when it is a revoked account's (else None: unknown)."""
        name = self._owner(token, revoked=True)
        if name is None:
            return None
        return f"token revoked: the account {name!r} may no longer play (ask the organiser)"

    def _owner(self, token: str, *, revoked: bool) -> str | None:
        state = "IS NOT NULL" if revoked else "IS NULL"
        with self._connect() as db:
            row = db.execute(
                f"SELECT name FROM tokens WHERE token_hash = ? AND revoked_at {state}",
                (token_hash(token),),
            ).fetchone()
        return row[0] if row else None

    def carry(self, source: Path) -> int:
        """Copy every account of the contest database at `source` (read-only: left as it is)
        here, with its token's hash and any revocation, so that a final round's authors keep
        their tokens. Returns how many; TokenError if `source` holds no accounts."""
        try:
            with contextlib.closing(open_read_only(source)) as db:
                rows = db.execute(
                    "SELECT name, token_hash, created_at, revoked_at FROM tokens ORDER BY name"
                ).fetchall()
        except sqlite3.Error as error:
            raise TokenError(f"cannot read the accounts of {str(source)!r}: {error}") from None
        with self._connect() as db:
            db.executemany("INSERT INTO tokens VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    def revoked(self) -> set[str]:
        """The names whose tokens are revoked (the referee polls this)."""
        with self._connect() as db:
            rows = db.execute("SELECT name FROM tokens WHERE revoked_at IS NOT NULL").fetchall()
        return {row[0] for row in rows}


def revoked_accounts(path: Path) -> frozenset[str]:
    """The revoked accounts in a contest database, read-only (a ladder database that holds no
    accounts gives none, and is left as it is)."""
    try:
        with contextlib.closing(open_read_only(path)) as db:
            rows = db.execute("SELECT name FROM tokens WHERE revoked_at IS NOT NULL").fetchall()
    except sqlite3.Error:
        return frozenset()
    return frozenset(row[0] for row in rows)
