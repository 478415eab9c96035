"""Contest accounts as teams: a team (the account: the name it plays under everywhere) has a
leader and members, each with a secret token of their own, of which only the SHA-256 is stored.

The store is SQLite, the embedded default that ladders use too. A token is shown once, when it
is made. Any member's token is the team's for playing, submitting and reading logs; only the
leader's adds or removes members (the organiser, with the database, may do anything). Revoking
a member's token leaves the others working; revoking the team ends every token of it. A running
referee polls `revoked_tokens` and `revoked`, so either takes effect at once, open streams too.

A database made before teams (one `tokens` table, a token an account) is migrated when it is
first opened for writing: each account becomes a team whose leader, of the same name, keeps its
token (tests/test_teams.py opens a file made by the previous schema).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from referee import private
from referee.databases import open_database, open_read_only
from referee.errors import CroupierError, ForbiddenError, NotFoundError, QuotaError
from referee.hosted.house import PREFIX as HOUSE_PREFIX
from referee.hosted.house import is_house

#: An account's name (a house bot's too: referee.hosted.house).
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: A member's name is only shown (the team's name is the identity): any printable text.
MAX_MEMBER_CHARS = 64
_SCHEMA = """
CREATE TABLE IF NOT EXISTS teams (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS members (
    team TEXT NOT NULL REFERENCES teams (name),
    name TEXT NOT NULL,
    leader INTEGER NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    removed_at TEXT,
    PRIMARY KEY (team, name)
);
CREATE TABLE IF NOT EXISTS revoked_tokens (
    token_hash TEXT PRIMARY KEY,
    team TEXT NOT NULL,
    member TEXT NOT NULL,
    why TEXT NOT NULL,
    revoked_at TEXT NOT NULL
);
"""
#: The previous schema's one table: an account, a token (migrated by `_migrate`).
_OLD_TABLE = "tokens"
#: Why a revoked team's tokens are refused, as the bot or author is told.
_TEAM_REVOKED = "the account was revoked"


class TokenError(CroupierError):
    """A bad account name, a duplicate, or an unknown one."""


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a team; `removed_at` set once their token was revoked."""

    team: str
    name: str
    leader: bool
    created_at: str
    removed_at: str | None = None


@dataclass(frozen=True, slots=True)
class Account:
    """A team: its name (the account everything names), and its members, leader first."""

    name: str
    created_at: str
    revoked_at: str | None
    members: tuple[Member, ...] = ()

    @property
    def current(self) -> tuple[Member, ...]:
        """The members whose tokens work now (none once the team is revoked)."""
        if self.revoked_at is not None:
            return ()
        return tuple(m for m in self.members if m.removed_at is None)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_member_name(name: str) -> str:
    """A member's name as given, or TokenError saying what a name may be."""
    if not name.strip() or len(name) > MAX_MEMBER_CHARS or not name.isprintable():
        raise TokenError(
            f"bad member name {name!r}: use 1 to {MAX_MEMBER_CHARS} printable characters"
        )
    return name


class TokenStore:
    """Teams in a SQLite file; every call is its own short transaction."""

    def __init__(self, path: Path, *, create: bool = True) -> None:
        """Open the accounts at `path`, migrating a database of the previous schema; with
        `create` False a missing file is an error (so a mistyped --db is not silently made into
        an empty database)."""
        self.path = path
        if not create and not path.is_file():
            raise TokenError(
                f"no account database at {str(path)!r} (`croupier token add NAME --db "
                f"{path}` creates one)"
            )
        if create:
            private.file(path)  # every account, and the contest's seed: owner-only
        with contextlib.closing(self._connect()) as db, db:
            db.executescript(_SCHEMA)
            _migrate(db)

    def _connect(self) -> sqlite3.Connection:
        try:
            db = open_database(self.path)
        except sqlite3.Error as error:
            raise TokenError(
                f"cannot open the account database {str(self.path)!r}: {error}"
            ) from None
        return db

    def _session(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """A connection for one transaction: committed (or rolled back) and closed."""
        return _transaction(self._connect())

    def add(self, name: str) -> str:
        """Create a team led by a member of its name; returns the leader's token, which is
        never stored or shown again."""
        return self.add_many([name])[0][1]

    def add_many(self, names: Sequence[str]) -> list[tuple[str, str]]:
        """Create these teams, all or none (one transaction: a bad name, a name given twice or
        one that has a token adds none), each led by a member of its name; returns each name
        with its leader's token, in order. A revoked team may be given a new one: its old
        members stay removed."""
        for name in names:
            if not BOT_NAME.fullmatch(name):
                raise TokenError(
                    f"bad bot name {name!r}: use 1 to 64 letters, digits, '_', '.' or '-'"
                )
            if is_house(name):
                raise TokenError(
                    f"bad bot name {name!r}: names beginning {HOUSE_PREFIX!r} are the "
                    "organiser's house bots (the contest file's [house]), which no token holds"
                )
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise TokenError(f"bot {twice[0]!r} is named more than once: no account was added")
        added: list[tuple[str, str]] = []
        with self._session() as db:
            for name in names:
                now = _now()
                done = db.execute(
                    "INSERT INTO teams VALUES (?, ?, NULL) ON CONFLICT (name) DO UPDATE SET "
                    "created_at = excluded.created_at, revoked_at = NULL "
                    "WHERE teams.revoked_at IS NOT NULL",
                    (name, now),
                ).rowcount
                if not done:
                    more = "" if len(names) == 1 else ": no account was added"
                    raise TokenError(f"bot {name!r} already has a token (revoke it first){more}")
                db.execute(
                    "UPDATE members SET removed_at = ? WHERE team = ? AND removed_at IS NULL",
                    (now, name),
                )
                token = secrets.token_urlsafe(32)
                _put_member(db, name, name, token, leader=True)
                added.append((name, token))
        return added

    def revoke(self, name: str) -> None:
        """Revoke a team: every member's token is refused from now on."""
        with self._session() as db:
            found = db.execute(
                "UPDATE teams SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (_now(), name),
            ).rowcount
            if found:
                db.execute(
                    "INSERT OR IGNORE INTO revoked_tokens SELECT token_hash, team, name, ?, ? "
                    "FROM members WHERE team = ? AND removed_at IS NULL",
                    (_TEAM_REVOKED, _now(), name),
                )
        if not found:
            raise TokenError(f"no active token for bot {name!r}")

    def add_member(
        self, team: str, member: str, *, by: str | None = None, max_size: int | None = None
    ) -> str:
        """Add `member` to `team` and return their token (shown once). `by`: the token of the
        member asking, who must be the team's leader (None: the organiser); `max_size`: the
        contest's cap on a team's members, the leader counted (None: none). A removed member's
        name may be added again, with a new token."""
        check_member_name(member)
        with self._session() as db:
            self._check_leader(db, team, by, "adds members")
            current = _current(db, team)
            if member in current:
                raise TokenError(f"team {team!r} already has a member {member!r}")
            if max_size is not None and len(current) >= max_size:
                raise QuotaError(
                    f"team size: team {team!r} has {len(current)} members, the most this "
                    f"contest allows (max_team_size = {max_size}); remove one first"
                )
            token = secrets.token_urlsafe(32)
            _put_member(db, team, member, token, leader=False)
        return token

    def remove_member(self, team: str, member: str, *, by: str | None = None) -> None:
        """Revoke `member`'s token: refused from now on, open streams included; the team's other
        members are untouched. `by` as for `add_member`. The leader is not removed (the
        organiser revokes the team)."""
        with self._session() as db:
            self._check_leader(db, team, by, "removes members")
            found = _current(db, team).get(member)
            if found is None:
                raise NotFoundError(f"team {team!r} has no member {member!r}")
            if found:
                raise ForbiddenError(
                    f"{member!r} leads team {team!r} and cannot be removed (the organiser "
                    "revokes a team: `croupier token revoke`)"
                )
            why = f"{member!r} was removed from team {team!r}: ask its leader to add you again"
            _retire_token(db, team, member, why)
            db.execute(
                "UPDATE members SET removed_at = ? WHERE team = ? AND name = ?",
                (_now(), team, member),
            )

    def rotate(self, team: str, member: str, *, by: str | None = None) -> str:
        """Give `member` a new token, returned (shown once); the old one is refused from now on,
        open streams included. `by`: the member themselves or the team's leader (None: the
        organiser)."""
        with self._session() as db:
            caller = self._caller(db, team, by)
            if caller is not None and not caller.leader and caller.name != member:
                raise ForbiddenError(
                    f"only the leader of team {team!r} rotates another member's token; "
                    f"{caller.name!r} may rotate their own"
                )
            if member not in _current(db, team):
                raise NotFoundError(f"team {team!r} has no member {member!r}")
            why = f"the token of {member!r} of team {team!r} was replaced: use the new one"
            _retire_token(db, team, member, why)
            token = secrets.token_urlsafe(32)
            db.execute(
                "UPDATE members SET token_hash = ? WHERE team = ? AND name = ?",
                (token_hash(token), team, member),
            )
        return token

    def _caller(self, db: sqlite3.Connection, team: str, by: str | None) -> Member | None:
        """The member whose token is `by`, who must be of `team` (None for the organiser)."""
        if db.execute("SELECT 1 FROM teams WHERE name = ?", (team,)).fetchone() is None:
            raise NotFoundError(f"no team {team!r}")
        if by is None:
            return None
        caller = _member(db, token_hash(by))
        if caller is None or caller.team != team:
            raise ForbiddenError(f"that token is no member's of team {team!r}")
        return caller

    def _check_leader(self, db: sqlite3.Connection, team: str, by: str | None, does: str) -> None:
        caller = self._caller(db, team, by)
        if caller is not None and not caller.leader:
            raise ForbiddenError(
                f"only the leader of team {team!r} {does}; {caller.name!r} is a member (ask "
                "your leader)"
            )

    def accounts(self) -> list[Account]:
        """Every team, by name, with its members (removed ones too), leader first."""
        with self._session() as db:
            return _accounts(db)

    def team_members(self, team: str) -> list[Member]:
        """The team's members whose tokens work now, leader first."""
        found = [a for a in self.accounts() if a.name == team]
        return list(found[0].current) if found else []

    def member(self, token: str) -> Member | None:
        """The member whose token this is, while it works (their team not revoked)."""
        with self._session() as db:
            return _member(db, token_hash(token))

    def lookup(self, token: str) -> str | None:
        """The team (the account, the bot's name) of a working token, or None."""
        found = self.member(token)
        return found.team if found is not None else None

    def refusal(self, token: str) -> str | None:
        """Why `token` is refused, when it was a member's (else None: unknown)."""
        with self._session() as db:
            row = db.execute(
                "SELECT team, why FROM revoked_tokens WHERE token_hash = ?", (token_hash(token),)
            ).fetchone()
        if row is None:
            return None
        team, why = row
        if why == _TEAM_REVOKED:
            return f"token revoked: the account {team!r} may no longer play (ask the organiser)"
        return f"token revoked: {why}"

    def revoked_tokens(self) -> dict[str, str]:
        """Every revoked token's hash, with why (the referee polls this to end their streams)."""
        with self._session() as db:
            rows = db.execute("SELECT token_hash, why FROM revoked_tokens").fetchall()
        return {hash: f"token revoked: {why}" for hash, why in rows}

    def carry(self, source: Path) -> int:
        """Copy every team of the contest database at `source` (read-only: left as it is, of
        this schema or the previous one) here, with its members' tokens' hashes and any
        revocation, so that a final round's authors keep their tokens. Returns how many teams;
        TokenError if `source` holds no accounts."""
        try:
            with contextlib.closing(open_read_only(source)) as old:
                tables = _tables(old)
                if "teams" in tables:
                    teams = old.execute("SELECT * FROM teams").fetchall()
                    members = old.execute("SELECT * FROM members").fetchall()
                    revoked = old.execute("SELECT * FROM revoked_tokens").fetchall()
                else:
                    rows = old.execute(f"SELECT * FROM {_OLD_TABLE}").fetchall()
                    teams, members, revoked = _from_old(rows)
        except sqlite3.Error as error:
            raise TokenError(f"cannot read the accounts of {str(source)!r}: {error}") from None
        with self._session() as db:
            db.executemany("INSERT INTO teams VALUES (?, ?, ?)", teams)
            db.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?)", members)
            db.executemany("INSERT INTO revoked_tokens VALUES (?, ?, ?, ?, ?)", revoked)
        return len(teams)

    def revoked(self) -> set[str]:
        """The teams that are revoked (the referee polls this)."""
        with self._session() as db:
            rows = db.execute("SELECT name FROM teams WHERE revoked_at IS NOT NULL").fetchall()
        return {row[0] for row in rows}


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    with contextlib.closing(db), db:
        yield db


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _from_old(
    rows: list[tuple[str, str, str, str | None]],
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The previous schema's accounts (name, token_hash, created_at, revoked_at) as teams, their
    leaders, and the revoked ones' tokens."""
    teams: list[tuple[object, ...]] = [(name, made, gone) for name, _, made, gone in rows]
    members: list[tuple[object, ...]] = [(n, n, 1, hash, made, None) for n, hash, made, _ in rows]
    revoked: list[tuple[object, ...]] = [
        (hash, name, name, _TEAM_REVOKED, when) for name, hash, _, when in rows if when is not None
    ]
    return teams, members, revoked


def _migrate(db: sqlite3.Connection) -> None:
    """A database of the previous schema (one `tokens` table), as teams, in the caller's
    transaction: each account a team led by a member of its name who keeps its token."""
    if _OLD_TABLE not in _tables(db):
        return
    rows = db.execute(
        f"SELECT name, token_hash, created_at, revoked_at FROM {_OLD_TABLE}"
    ).fetchall()
    teams, members, revoked = _from_old(rows)
    db.executemany("INSERT INTO teams VALUES (?, ?, ?)", teams)
    db.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?)", members)
    db.executemany("INSERT INTO revoked_tokens VALUES (?, ?, ?, ?, ?)", revoked)
    db.execute(f"DROP TABLE {_OLD_TABLE}")


def _put_member(db: sqlite3.Connection, team: str, name: str, token: str, *, leader: bool) -> None:
    """A new member, or a removed one back with a new token."""
    db.execute(
        "INSERT INTO members VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (team, name) DO UPDATE "
        "SET leader = excluded.leader, token_hash = excluded.token_hash, "
        "created_at = excluded.created_at, removed_at = NULL",
        (team, name, int(leader), token_hash(token), _now()),
    )


def _retire_token(db: sqlite3.Connection, team: str, member: str, why: str) -> None:
    db.execute(
        "INSERT OR REPLACE INTO revoked_tokens SELECT token_hash, team, name, ?, ? FROM members "
        "WHERE team = ? AND name = ?",
        (why, _now(), team, member),
    )


def _current(db: sqlite3.Connection, team: str) -> dict[str, bool]:
    """The team's members whose tokens work, each with whether they lead it."""
    rows = db.execute(
        "SELECT name, leader FROM members WHERE team = ? AND removed_at IS NULL", (team,)
    ).fetchall()
    return {name: bool(leader) for name, leader in rows}


def _member(db: sqlite3.Connection, hash: str) -> Member | None:
    row = db.execute(
        "SELECT members.team, members.name, members.leader, members.created_at FROM members "
        "JOIN teams ON teams.name = members.team WHERE members.token_hash = ? "
        "AND members.removed_at IS NULL AND teams.revoked_at IS NULL",
        (hash,),
    ).fetchone()
    if row is None:
        return None
    team, name, leader, created = row
    return Member(team, name, bool(leader), created)


def _accounts(db: sqlite3.Connection) -> list[Account]:
    members: dict[str, list[Member]] = {}
    for team, name, leader, created, removed in db.execute(
        "SELECT team, name, leader, created_at, removed_at FROM members "
        "ORDER BY team, leader DESC, created_at, name"
    ):
        members.setdefault(team, []).append(Member(team, name, bool(leader), created, removed))
    rows = db.execute("SELECT name, created_at, revoked_at FROM teams ORDER BY name").fetchall()
    return [
        Account(name, created, revoked, tuple(members.get(name, ())))
        for name, created, revoked in rows
    ]


def read_teams(path: Path) -> dict[str, tuple[str, ...]]:
    """Each team's current members' names, leader first, from a contest database read-only
    (one of the previous schema: each account its own only member; a ladder database, which
    holds no accounts: none)."""
    try:
        with contextlib.closing(open_read_only(path)) as db:
            tables = _tables(db)
            if "teams" not in tables:
                if _OLD_TABLE not in tables:
                    return {}
                rows = db.execute(
                    f"SELECT name FROM {_OLD_TABLE} WHERE revoked_at IS NULL"
                ).fetchall()
                return {name: (name,) for (name,) in rows}
            return {
                account.name: tuple(m.name for m in account.current)
                for account in _accounts(db)
                if account.current
            }
    except sqlite3.Error:
        return {}


def revoked_accounts(path: Path) -> frozenset[str]:
    """The revoked accounts in a contest database, read-only, of this schema or the previous
    one (a ladder database that holds no accounts gives none, and is left as it is)."""
    try:
        with contextlib.closing(open_read_only(path)) as db:
            table = "teams" if "teams" in _tables(db) else _OLD_TABLE
            rows = db.execute(f"SELECT name FROM {table} WHERE revoked_at IS NOT NULL").fetchall()
    except sqlite3.Error:
        return frozenset()
    return frozenset(row[0] for row in rows)
