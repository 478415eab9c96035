"""Signed-in sessions of the contest site's desk (referee.web.desk): a member signs in with
their token once, and the browser holds a session id instead, in a cookie.

A session id is 256 random bits (`secrets.token_urlsafe(32)`); the contest database's
`sessions` table keeps only its SHA-256, with the team, the member and the hash of the token
they signed in with. A session is good only while that member's token still works: each
`member` call joins the session to the team's members, so that a removed member, a rotated
token or a revoked team ends it at once, and signing out deletes its row (a copied cookie
replayed later finds nothing). Sessions expire after SESSION_SECONDS whatever is done with
them. A session's CSRF token is an HMAC of the string "csrf" keyed by its id: never stored,
unguessable without the cookie, and useless without it.

The table is added to a contest database of any earlier schema when the store is opened (a
new table, so no other table and no schema version changes; tests/test_desk_site.py opens a
file made before it).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator

from referee.contest.tokens import Member, TokenStore, token_hash
from referee.databases import open_database
from referee.errors import CroupierError
from referee.match.lobby import UNKNOWN_TOKEN

#: How long a session lasts from its sign-in, signed out or not (seconds): a working day.
SESSION_SECONDS = 12 * 3600
_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    team TEXT NOT NULL,
    member TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
"""


class SignInError(CroupierError):
    """A token that signs no one in (unknown, or revoked: the message says why)."""


def _hash(session: str) -> str:
    return hashlib.sha256(session.encode()).hexdigest()


def csrf_token(session: str) -> str:
    """The CSRF token of the session `session`, which every form it posts must carry."""
    return hmac.new(session.encode(), b"csrf", hashlib.sha256).hexdigest()


def csrf_matches(session: str, sent: str) -> bool:
    """Whether `sent` is the session's CSRF token (compared in constant time)."""
    return hmac.compare_digest(csrf_token(session).encode(), sent.encode())


class SessionStore:
    """The desk's sessions, in the contest database beside its teams (`accounts`). Every call
    is its own short transaction; safe from several threads."""

    def __init__(
        self,
        accounts: TokenStore,
        seconds: float = SESSION_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.accounts = accounts
        self.seconds = seconds
        self._clock = clock
        with self._session() as db:
            db.executescript(_SCHEMA)

    @contextlib.contextmanager
    def _session(self) -> Iterator[sqlite3.Connection]:
        with contextlib.closing(open_database(self.accounts.path)) as db, db:
            yield db

    def sign_in(self, token: str) -> tuple[str, Member]:
        """A new session for the member whose token this is, and that member; SignInError
        saying why a token does not work (the referee's own words for it). Expired sessions
        are swept here."""
        member = self.accounts.member(token) if token else None
        if member is None:
            why = self.accounts.refusal(token) if token else None
            raise SignInError(why or UNKNOWN_TOKEN)
        session = secrets.token_urlsafe(32)
        now = self._clock()
        row = (_hash(session), member.team, member.name, token_hash(token), now, now + self.seconds)
        with self._session() as db:
            db.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)", row)
        return session, member

    def member(self, session: str) -> Member | None:
        """The member signed in by `session`, while it has not expired or been signed out and
        the token they signed in with still works (not removed, rotated or revoked)."""
        with self._session() as db:
            row = db.execute(
                "SELECT members.team, members.name, members.leader, members.created_at "
                "FROM sessions JOIN members ON members.token_hash = sessions.token_hash "
                "AND members.team = sessions.team AND members.name = sessions.member "
                "JOIN teams ON teams.name = members.team "
                "WHERE sessions.id_hash = ? AND sessions.expires_at > ? "
                "AND members.removed_at IS NULL AND teams.revoked_at IS NULL",
                (_hash(session), self._clock()),
            ).fetchone()
        if row is None:
            return None
        team, name, leader, created = row
        return Member(team, name, bool(leader), created)

    def sign_out(self, session: str) -> None:
        """End the session: its cookie, wherever a copy of it is, signs no one in again."""
        with self._session() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (_hash(session),))
