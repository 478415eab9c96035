"""A contest's challenges in its own SQLite database, beside its standings.

Three tables: `challenges` (what was asked, where it stands, how it ended), `challenge_matches`
(a row per match of a challenge, written when its table sits down and completed, with its
record's hash and its result's rows, in one transaction when it is committed) and
`challenge_consent` (what each account answers ranked challenges from above).

An unranked challenge's matches live in these tables alone: the standings and the ratings
(referee.results.database's `schedule`, `matches` and `seats`) never see them. A ranked one's are
also the contest's own matches (seated and committed by referee.contest.book), linked here by
their contest number: a referee killed between the contest's commit and this table's adopts the
contest's row when it resumes (`adopt`), so no match is counted twice or lost. Deal keys
(`deal_key`) lie above any contest number, so a challenge's seeds derive from the contest's
committed master seed as every other deal's does, and never repeat a contest deal.
"""

from __future__ import annotations

import enum
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from referee import private
from referee.challenges.terms import Consent
from referee.databases import open_database, open_read_only, write_transaction
from referee.hosted.store import SHORT_ID
from referee.results.database import FaultRow, Rows, SeatRow
from referee.results.matches import MatchResult, ScheduledMatch

#: A challenge's deal keys start here: far above any contest's match numbers, so that
#: derive_seed(master, key) never gives a challenge a deal of the contest.
CHALLENGE_DEALS = 10**12

_SCHEMA = """
CREATE TABLE IF NOT EXISTS challenges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account TEXT NOT NULL,
    version TEXT NOT NULL,
    opponent TEXT NOT NULL,
    opponent_version TEXT NOT NULL,
    follows_active INTEGER NOT NULL,
    ranked INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    elo0 REAL NOT NULL,
    elo1 REAL NOT NULL,
    alpha REAL NOT NULL,
    beta REAL NOT NULL,
    test_on TEXT NOT NULL,
    state TEXT NOT NULL,
    outcome TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '',
    llr REAL NOT NULL DEFAULT 0,
    played INTEGER NOT NULL DEFAULT 0,
    stop TEXT NOT NULL DEFAULT '',
    consented INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    expires_at REAL
);
CREATE TABLE IF NOT EXISTS challenge_matches (
    challenge INTEGER NOT NULL REFERENCES challenges(id),
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    number INTEGER,
    match_id TEXT NOT NULL UNIQUE,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,
    sides TEXT NOT NULL,
    record TEXT,
    record_sha256 TEXT,
    rows TEXT,
    seconds REAL,
    finished_at TEXT,
    PRIMARY KEY (challenge, deal, rotation)
);
CREATE TABLE IF NOT EXISTS challenge_consent (
    account TEXT PRIMARY KEY,
    consent TEXT NOT NULL
);
"""


class State(enum.StrEnum):
    """Where a challenge is: waiting for consent, queued, playing, or ended."""

    WAITING = "waiting"
    QUEUED = "queued"
    PLAYING = "playing"
    ENDED = "ended"


class Outcome(enum.StrEnum):
    """How an ended challenge ended: the test's verdict, or not."""

    #: H1 accepted: the challenger is at least elo1 stronger.
    BETTER = "better"
    #: H0 accepted: it is at most elo0 stronger.
    NOT_BETTER = "not-better"
    #: The budget ran out, or it ended for a reason (cancelled, a version withdrawn), undecided.
    UNDECIDED = "undecided"
    #: Never played: the opponent refused, or its consent did not come in time.
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge as stored."""

    id: int
    account: str
    version: str
    opponent: str
    opponent_version: str
    #: The opponent is another account's version, which must stay that account's active one.
    follows_active: bool
    ranked: bool
    deals: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    on: str
    state: State
    outcome: str
    reason: str
    summary: str
    llr: float
    played: int
    #: Why its author or its opponent asked it to stop ("" while no one has).
    stop: str
    #: A ranked challenge downward that its opponent consented to (which it may withdraw).
    consented: bool
    created_at: float
    started_at: float | None
    ended_at: float | None
    expires_at: float | None

    @property
    def in_flight(self) -> bool:
        return self.state is not State.ENDED


_COLUMNS = (
    "id, account, version, opponent, opponent_version, follows_active, ranked, deals, elo0, "
    "elo1, alpha, beta, test_on, state, outcome, reason, summary, llr, played, stop, consented, "
    "created_at, "
    "started_at, ended_at, expires_at"
)


def _challenge(row: Sequence[object]) -> Challenge:
    values = list(row)
    values[5] = bool(values[5])
    values[6] = bool(values[6])
    values[13] = State(str(values[13]))
    values[20] = bool(values[20])
    return Challenge(*values)  # type: ignore[arg-type]


def deal_key(challenge: int, deal: int) -> int:
    """The deal number a challenge's deal `deal` (1-based) is seeded by."""
    return CHALLENGE_DEALS * challenge + deal


def match_id(challenge: int, deal: int, rotation: int, ranked: bool) -> str:
    """`challenge-00007-0012-1`: a challenge's match says it is one (and `ranked-challenge-`
    when it counts), in its record's header and everywhere its id is shown."""
    head = "ranked-challenge" if ranked else "challenge"
    return f"{head}-{challenge:05d}-{deal:04d}-{rotation}"


def scheduled(
    challenge: int,
    deal: int,
    rotation: int,
    seed: int,
    bots: Sequence[str],
    sides: Sequence[int],
    entrants: Sequence[str] = (),
) -> ScheduledMatch:
    """A challenge's match as the statistics and the verifier see it: deal `deal` of the
    challenge (its SPRT pairs a deal's rotations) in the table numbered as the challenge. It has
    no place in the contest's schedule, so no number of its own there (0)."""
    return ScheduledMatch(
        number=0,
        round=1,
        table=challenge,
        deal=deal,
        rotation=rotation,
        seed=seed,
        bots=tuple(bots),
        sides=tuple(sides),
        entrants=tuple(entrants),
    )


@dataclass(frozen=True, slots=True)
class ChallengeMatch:
    """A match of a challenge: its schedule, and once committed its record and rows."""

    challenge: int
    match: ScheduledMatch
    match_id: str
    #: Its number in the contest (a ranked challenge's), or None.
    number: int | None
    record: Path | None
    record_sha256: str | None
    rows: Rows | None

    def result(self) -> MatchResult | None:
        """The match as the statistics see it, once committed."""
        if self.rows is None:
            return None
        seats = sorted(self.rows.seats)
        luck = [s.luck for s in seats]
        return MatchResult(
            match=self.match,
            scores=tuple(s.score for s in seats),
            ranks=tuple(s.rank for s in seats),
            faults=tuple((f.seat, f.reason) for f in self.rows.faults),
            luck=None if None in luck else tuple(float(x) for x in luck if x is not None),
        )


def rows_json(rows: Rows) -> str:
    return json.dumps(
        {
            "result": rows.result,
            "termination": rows.termination,
            "seats": [list(seat) for seat in rows.seats],
            "faults": [list(fault) for fault in rows.faults],
        }
    )


def rows_of(text: str) -> Rows:
    data = json.loads(text)
    return Rows(
        data["result"],
        data["termination"],
        tuple(SeatRow(*seat) for seat in data["seats"]),
        tuple(FaultRow(*fault) for fault in data["faults"]),
    )


class ChallengeBook:
    """The challenge tables of one contest database; safe from several threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        private.file(path)
        self._db = open_database(path, autocommit=True, shared=True)
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, write_transaction(self._db) as db:
            yield db

    # -- challenges ----------------------------------------------------------------------

    def add(self, challenge: Challenge) -> Challenge:
        """Store a new challenge (its `id` is ignored) and return it with its id."""
        values = [
            getattr(challenge, name if name != "test_on" else "on")
            for name in _COLUMNS.split(", ")[1:]
        ]
        with self._transaction() as db:
            cursor = db.execute(
                f"INSERT INTO challenges ({_COLUMNS.split(', ', 1)[1]}) "
                f"VALUES ({', '.join('?' * len(values))})",
                [str(v) if isinstance(v, State) else v for v in values],
            )
            number = cursor.lastrowid
        assert number is not None
        return self.get(number)

    def get(self, id: int) -> Challenge:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM challenges WHERE id = ?", (id,)
            ).fetchone()
        if row is None:
            raise KeyError(id)
        return _challenge(row)

    def find(self, id: int) -> Challenge | None:
        try:
            return self.get(id)
        except KeyError:
            return None

    def of_account(self, account: str) -> list[Challenge]:
        """Every challenge `account` asked, or was asked by another (as the opponent)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM challenges WHERE account = ? OR opponent = ? ORDER BY id",
                (account, account),
            ).fetchall()
        return [_challenge(row) for row in rows]

    def every(self, *states: State) -> list[Challenge]:
        """Every challenge (in those states, if given), oldest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM challenges ORDER BY id").fetchall()
        found = [_challenge(row) for row in rows]
        return [c for c in found if not states or c.state in states]

    def asked_since(self, account: str, since: float) -> list[float]:
        """When `account` asked each challenge since `since` (unix time), oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT created_at FROM challenges WHERE account = ? AND created_at >= ? "
                "ORDER BY created_at",
                (account, since),
            ).fetchall()
        return [float(row[0]) for row in rows]

    def set_state(self, id: int, state: State, **extra: object) -> Challenge:
        """Move a challenge on; `extra` sets other columns (`outcome`, `reason`, ...)."""
        columns: dict[str, object] = {"state": str(state), **extra}
        if state is State.PLAYING:
            columns.setdefault("started_at", time.time())
        if state is State.ENDED:
            columns.setdefault("ended_at", time.time())
        assignments = ", ".join(f"{name} = ?" for name in columns)
        with self._transaction() as db:
            db.execute(f"UPDATE challenges SET {assignments} WHERE id = ?", [*columns.values(), id])
        return self.get(id)

    def progress(self, id: int, played: int, llr: float, summary: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE challenges SET played = ?, llr = ?, summary = ? WHERE id = ?",
                (played, llr, summary, id),
            )

    def ask_stop(self, id: int, why: str) -> None:
        """Ask a playing challenge to end at its next match's end, saying `why`."""
        with self._transaction() as db:
            db.execute("UPDATE challenges SET stop = ? WHERE id = ? AND stop = ''", (why, id))

    # -- consent -------------------------------------------------------------------------

    def consent(self, account: str) -> Consent:
        with self._lock:
            row = self._db.execute(
                "SELECT consent FROM challenge_consent WHERE account = ?", (account,)
            ).fetchone()
        return Consent.ASK if row is None else Consent(row[0])

    def set_consent(self, account: str, consent: Consent) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO challenge_consent (account, consent) VALUES (?, ?)",
                (account, str(consent)),
            )

    # -- matches -------------------------------------------------------------------------

    def seat(self, challenge: int, scheduled: ScheduledMatch, number: int | None, id: str) -> None:
        """A match of the challenge sits down (before it is played): its row, uncommitted. A
        match seated before and never committed (the referee stopped) is seated again."""
        with self._transaction() as db:
            db.execute(
                "DELETE FROM challenge_matches WHERE challenge = ? AND deal = ? AND rotation = ? "
                "AND record IS NULL",
                (challenge, scheduled.deal, scheduled.rotation),
            )
            db.execute(
                "INSERT INTO challenge_matches (challenge, deal, rotation, number, match_id, "
                "seed, bots, sides) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    challenge,
                    scheduled.deal,
                    scheduled.rotation,
                    number,
                    id,
                    scheduled.seed,
                    json.dumps(scheduled.bots),
                    json.dumps(scheduled.sides),
                ),
            )

    def commit(
        self,
        challenge: int,
        deal: int,
        rotation: int,
        record: Path,
        digest: str,
        rows: Rows,
        seconds: float,
    ) -> None:
        """The match committed: its record (already in its final place) and its rows."""
        where = os.path.relpath(record.resolve(), self.path.resolve().parent)
        with self._transaction() as db:
            db.execute(
                "UPDATE challenge_matches SET record = ?, record_sha256 = ?, rows = ?, "
                "seconds = ?, finished_at = datetime('now') "
                "WHERE challenge = ? AND deal = ? AND rotation = ?",
                (where, digest, rows_json(rows), seconds, challenge, deal, rotation),
            )

    def matches(self, challenge: Challenge) -> list[ChallengeMatch]:
        """The challenge's matches seated so far, in deal and rotation order."""
        with self._lock:
            return _matches(self._db, self.path, challenge)

    def adopt(self, challenge: Challenge) -> int:
        """A ranked challenge's matches the contest committed but this table did not (the
        referee stopped between the two commits) take the contest's record and rows; returns
        how many."""
        adopted = 0
        for match in self.matches(challenge):
            if match.rows is not None or match.number is None:
                continue
            with self._lock:
                found = self._db.execute(
                    "SELECT record, record_sha256, result, termination, seconds FROM matches "
                    "WHERE number = ?",
                    (match.number,),
                ).fetchone()
                if found is None:
                    continue
                seats = self._db.execute(
                    "SELECT seat, bot, side, score, rank, faults, retired, luck FROM seats "
                    "WHERE number = ? ORDER BY seat",
                    (match.number,),
                ).fetchall()
                faults = self._db.execute(
                    "SELECT seat, bot, reason, detail FROM faults WHERE number = ? ORDER BY rowid",
                    (match.number,),
                ).fetchall()
            rows = Rows(
                found[2],
                found[3],
                tuple(SeatRow(*seat) for seat in seats),
                tuple(FaultRow(*fault) for fault in faults),
            )
            record = self.path.parent / found[0]
            m = match.match
            self.commit(challenge.id, m.deal, m.rotation, record, found[1], rows, found[4])
            adopted += 1
        return adopted


_MATCH_COLUMNS = "deal, rotation, number, match_id, seed, bots, sides, record, record_sha256, rows"


def _matches(
    db: sqlite3.Connection, database: Path, challenge: Challenge, match_id: str | None = None
) -> list[ChallengeMatch]:
    """`challenge`'s matches (only `match_id`, if given) in deal and rotation order, their
    records' paths resolved beside `database`."""
    only = "" if match_id is None else " AND match_id = :match"
    rows = db.execute(
        f"SELECT {_MATCH_COLUMNS} FROM challenge_matches WHERE challenge = :challenge{only} "
        "ORDER BY deal, rotation",
        {"challenge": challenge.id, "match": match_id},
    ).fetchall()
    found = []
    entrants = (challenge_entrant(challenge), opponent_entrant(challenge))
    for deal, rotation, number, id, seed, bots, sides, record, digest, held in rows:
        match = scheduled(
            challenge.id, deal, rotation, seed, json.loads(bots), json.loads(sides), entrants
        )
        found.append(
            ChallengeMatch(
                challenge.id,
                match,
                id,
                number,
                database.parent / record if record is not None else None,
                digest,
                rows_of(held) if held is not None else None,
            )
        )
    return found


def challenge_entrant(challenge: Challenge) -> str:
    """The challenger's name in its matches: its version as the contest names it."""
    return f"{challenge.account}@{challenge.version[:SHORT_ID]}"


def opponent_entrant(challenge: Challenge) -> str:
    return f"{challenge.opponent}@{challenge.opponent_version[:SHORT_ID]}"


def read_challenges(database: Path) -> list[Challenge]:
    """Every challenge in the contest's database, read-only (the site and the organiser's reads
    never change it nor wait on the referee's writes); none in a database without the tables."""
    if not database.is_file():
        return []
    db = open_read_only(database)
    try:
        rows = db.execute(f"SELECT {_COLUMNS} FROM challenges ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # no challenge table yet
        return []
    finally:
        db.close()
    return [_challenge(row) for row in rows]


def read_matches(database: Path, challenge: Challenge) -> list[ChallengeMatch]:
    """`challenge`'s matches seated so far, read-only, as `read_challenges` reads (the desk's
    list of a team's challenge's matches)."""
    db = open_read_only(database)
    try:
        return _matches(db, database, challenge)
    finally:
        db.close()


def read_match(database: Path, match_id: str) -> tuple[Challenge, ChallengeMatch] | None:
    """The challenge match `match_id` and its challenge, read-only; None for no challenge's
    (a contest's own match, or none; a database without the tables)."""
    if not database.is_file():
        return None
    db = open_read_only(database)
    try:
        found = db.execute(
            f"SELECT {', '.join(f'c.{name}' for name in _COLUMNS.split(', '))} "
            "FROM challenge_matches m JOIN challenges c ON c.id = m.challenge "
            "WHERE m.match_id = ?",
            (match_id,),
        ).fetchone()
        if found is None:
            return None
        challenge = _challenge(found)
        (match,) = _matches(db, database, challenge, match_id)
    except sqlite3.OperationalError:  # no challenge table yet
        return None
    finally:
        db.close()
    return challenge, match
