"""What the site shows of a contest or ladder as a whole: readings of its database (standings,
matches played, rating histories) and who is connected, published as one snapshot for every
viewer; a written report (referee.web.report_index) embeds the same, built by the same
functions. A reading happens in a worker thread, at most every SNAPSHOT_SECONDS and less often
when readings are slow (`Spacing`); commits and new matches ask for one sooner.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import AsyncGenerator, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import trio
from starlette.requests import Request
from starlette.responses import Response

from referee.contest.tokens import read_teams
from referee.hosted.current import entrants, split
from referee.hosted.store import Listing, read_listing
from referee.ladder.view import Presence, RefereeView
from referee.match.spectators import LiveMatch
from referee.ratings.fits import Rating
from referee.ratings.head_to_head import LEGEND, cells
from referee.ratings.standings import (
    PROVISIONAL_LEGEND,
    Row,
    Standings,
    fault_text,
    from_store,
    notes,
    ratings_over,
    row_text,
)
from referee.results.database import Played, Store, now
from referee.results.matches import MatchResult
from referee.spacing import Spacing
from referee.text import named
from referee.web.live import Beat, event_stream, json_text, seat_names, sse

#: How often the snapshot looks at who is connected; commits and new matches push it sooner,
#: but it is rebuilt at most every SNAPSHOT_SECONDS (each rebuild reads the database and refits
#: the ratings, in a worker thread that still shares the interpreter with the referee).
PRESENCE_SECONDS = 1.0
SNAPSHOT_SECONDS = 2.0
#: The snapshot is built at most this often.
PUBLISH_SECONDS = 0.25
#: A standings viewer gets the snapshot at most this often (the latest one) ...
VIEWER_SECONDS = 1.0
#: ... and all of them together at most this many a second: with more viewers, each gets it
#: less often (100 viewers: every 2 s).
VIEWER_WRITES = 50
#: Finished matches listed on the front page.
RECENT = 20
#: Points in a bot's rating-over-time plot (sampled evenly over the committed matches).
PLOT_POINTS = 60


@dataclass(frozen=True, slots=True)
class Contest:
    """One reading of the contest database (taken in a worker thread)."""

    standings: Standings
    played: list[Played]
    results: dict[int, MatchResult]
    #: When each bot's latest match was committed (UTC, ISO 8601).
    last_played: dict[str, str]
    #: The hosted versions and the active ones, read with the database (empty without them):
    #: which rows of the standings are current (referee.hosted.current).
    listing: Listing
    #: Each team's current members' names, leader first (referee.contest.tokens; none for a
    #: ladder's database).
    teams: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _read(database: Path, versions: Path | None) -> Contest:
    listing = read_listing(versions) if versions is not None else Listing((), frozenset())
    store = Store(database, create=False)
    try:
        with store.snapshot():
            results = store.results()
            standings = from_store(store, results)
            played = store.played()
    finally:
        store.close()
    return reading(standings, played, results, listing, read_teams(database))


def reading(
    standings: Standings,
    played: list[Played],
    results: list[MatchResult],
    listing: Listing | None = None,
    teams: dict[str, tuple[str, ...]] | None = None,
) -> Contest:
    """A reading of a database from what a store snapshot gave (the site's and the report's)."""
    by_number = {r.match.number: r for r in results}
    last_played: dict[str, str] = {}
    for match in played:
        for bot in by_number[match.number].match.bots if match.number in by_number else ():
            last_played[bot] = max(last_played.get(bot, ""), match.finished_at)
    listing = listing if listing is not None else Listing((), frozenset())
    return Contest(standings, played, by_number, last_played, listing, teams or {})


def standings_info(standings: Standings) -> dict[str, Any]:
    """What a snapshot's `contest` says of the standings as a whole (beside the venue's kind,
    name, game and options)."""
    return {
        "rating": standings.plan.system,
        "rating_note": standings.plan.method.note(),
        "rating_heading": standings.plan.method.heading,
        "rating_label": standings.plan.method.label,
        "matches_done": standings.matches_done,
        "format": standings.plan.format,
        "duplicate": standings.plan.duplicate,
        "sprt": standings.sprt,
        "seed_sha256": standings.seed_sha256,
        "seed": standings.seed,
        "finished": standings.finished,
        "provisional_legend": PROVISIONAL_LEGEND,
        "notes": notes(standings),
    }


def head_to_head(contest: Contest | None) -> dict[str, Any]:
    """The head-to-head matrix of the current rows, as the site and the report draw it."""
    matrix: dict[str, Any] = {"bots": [], "cells": [], "legend": LEGEND}
    if contest is not None:
        current = split(contest.standings, contest.listing).current
        bots = [row.bot for row in current.rows]
        matrix |= {"bots": bots, "cells": cells(current.pairs_shown(), bots)}
    return matrix


def standing_rows(
    contest: Contest | None,
    presence: dict[str, Presence],
    revoked: Collection[str],
    left: dict[str, str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The standings' current rows (ranked among themselves) then connected bots not rated
    yet; and apart, the rows of retired hosted versions (referee.hosted.current), whose
    ranks are the whole field's (/api/v1/standings?all=1), not this table's. Each row carries
    its cells' text as the CLI prints them; `left` says when each bot was seen to leave."""
    rows: list[dict[str, Any]] = []
    retired: list[dict[str, Any]] = []
    listing = Listing((), frozenset())
    if contest is not None:
        standings = contest.standings
        listing = contest.listing
        intervals = standings.plan.method.has_intervals
        parts = split(standings, listing)
        rows = [
            asdict(row) | {"text": _text(row, intervals, parts.current)}
            for row in parts.current.rows
        ]
        retired = [
            asdict(row) | {"rank": None, "text": _text(row, intervals, standings)}
            for row in parts.retired
        ]
    listed = {row["bot"] for row in rows + retired}
    unrated = [bot for bot in presence if bot not in listed]
    for name, who in entrants(unrated, listing).items():
        unrated_row: dict[str, Any] = {"rank": None, "bot": name, "matches": 0, "faults": {}}
        (rows if who.current else retired).append(unrated_row)
    named = entrants([row["bot"] for row in rows + retired], listing)
    teams = contest.teams if contest is not None else {}
    for row in rows + retired:
        bot: str = row["bot"]
        here = presence.get(bot)
        row |= named[bot].fields()
        row["sessions"] = here.sessions if here else 0
        row["playing"] = here.playing if here else 0
        row["state"] = here.state if here else "offline"
        row["revoked"] = row["account"] in revoked  # its versions too
        row["members"] = list(teams.get(row["account"], ()))
        row["last_seen"] = None if here and here.sessions else last_seen(contest, left, bot)
    return rows, retired


def _text(row: Row, intervals: bool, of: Standings) -> dict[str, str]:
    return row_text(row, intervals, of) | {"faults": fault_text(row)}


def last_seen(contest: Contest | None, left: dict[str, str], bot: str) -> str | None:
    """When a bot that is not connected was last seen: when the site saw it leave (`left`),
    or its latest match if the site never saw it (UTC, ISO 8601)."""
    played = contest.last_played.get(bot, "") if contest is not None else ""
    return max(left.get(bot, ""), played) or None


def played_json(contest: Contest, played: Played) -> dict[str, Any]:
    """A committed match as every list of the site and the report gives it."""
    result = contest.results.get(played.number)
    bots = list(result.match.bots) if result is not None else []
    return {
        "number": played.number,
        "match": played.match_id,
        "bots": bots,
        "result": named(played.result, bots),
        "ranks": list(result.ranks) if result is not None else [],
        "scores": list(result.scores) if result is not None else [],
        "faults": [  # one entry per seat and reason, counted (not its name N times)
            {
                "seat": seat,
                "bot": bots[seat] if seat < len(bots) else "",
                "reason": reason,
                "detail": details[0],
                "count": len(details),
            }
            for (seat, reason), details in played.fault_groups().items()
        ],
        "termination": played.termination,
        "seconds": played.seconds,
        "finished_at": played.finished_at,
    }


class Snapshots:
    """The site's reading of the database and its snapshot, kept fresh by `run` while the site
    is served."""

    def __init__(self, view: RefereeView) -> None:
        self.view = view
        self.game = view.game
        self.contest: Contest | None = None
        self.snapshot = "{}"
        self.version = 0
        self._stale = True
        #: Readings of the database (each reads every result and refits the ratings).
        self._reads = Spacing(SNAPSHOT_SECONDS)
        self._reading = trio.Lock()
        self._poke = trio.Event()
        self._published = trio.Event()
        self._ratings: tuple[Contest | None, list[tuple[int, dict[str, Rating]]]] = (None, [])
        #: The snapshot as a standings viewer gets it (encoded once per version).
        self.snapshot_event = b""
        #: The bots connected at the last snapshot, and when the site saw each one leave.
        self._online: set[str] = set()
        self._left: dict[str, str] = {}
        self._standings_beat = Beat(VIEWER_SECONDS, VIEWER_WRITES)
        view.committed.append(self._on_commit)
        view.live.openers.append(self._on_open)

    def _on_commit(self) -> None:
        self._stale = True
        self._poke.set()

    def _on_open(self, live: LiveMatch) -> None:
        self._poke.set()

    async def run(self) -> None:
        """Publish a snapshot on each commit or new match, and each second (who is connected);
        the database is read again at most every SNAPSHOT_SECONDS, and less often once a reading
        is slow (`Spacing`). Runs the standings viewers' beat too."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._standings_beat.run)
            while True:
                now = trio.current_time()
                if self._stale and self._reads.due(now) and self.view.database is not None:
                    self._stale = False
                    await self.read_database()
                self.publish(self._snapshot())
                wait = PRESENCE_SECONDS
                if self._stale:
                    wait = max(0.0, self._reads.next_at() - trio.current_time())
                with trio.move_on_after(wait):
                    await self._poke.wait()
                self._poke = trio.Event()
                await trio.sleep(PUBLISH_SECONDS)  # pokes come in bursts: one for a burst

    async def read_database(self, unless_since: float = math.inf) -> None:
        """Read the database, unless a reading began at or after `unless_since` (one reading
        serves every request that waited for it)."""
        assert self.view.database is not None
        async with self._reading:
            if self._reads.began >= unless_since:
                return
            began = trio.current_time()
            self.contest = await trio.to_thread.run_sync(
                _read, self.view.database, self.view.versions
            )
            self._reads.ran(began, trio.current_time())

    def publish(self, snapshot: str) -> None:
        if snapshot != self.snapshot:
            self.snapshot = snapshot
            self.snapshot_event = sse(snapshot, "snapshot").encode()
            self.version += 1
        self._published.set()

    async def reading(self) -> Contest | None:
        """The site's reading of the database; read now if the site just started (look
        before saying no)."""
        if self.contest is None and self.view.database is not None:
            await self.read_database()
        return self.contest

    async def first_published(self) -> str:
        """The snapshot, once there is one: a request in the site's first moments (before its
        first reading of the database) waits for it rather than get an empty `{}`, as it did
        on a loaded machine (issue 50)."""
        await self._published.wait()
        return self.snapshot

    def _snapshot(self) -> str:
        presence = self.view.presence()
        info: dict[str, Any] = {
            "kind": str(self.view.kind),
            "name": self.view.name,
            "game": self.game.id,
            "title": self.game.title,
            "options": self.view.options.as_text(),
        }
        recent: list[dict[str, Any]] = []
        now_online = {bot for bot, here in presence.items() if here.sessions}
        for bot in self._online - now_online:
            self._left[bot] = now()
        self._online = now_online
        if self.contest is not None:
            info |= standings_info(self.contest.standings) | {"matches_planned": self.view.planned}
            recent = [self.played(p) for p in reversed(self.contest.played[-RECENT:])]
        rows, retired = standing_rows(self.contest, presence, self.view.revoked, self._left)
        matrix = head_to_head(self.contest)
        live = [
            {"match": m.start.match_id, "bots": seat_names(self.view, m)}
            for m in self.view.live.matches.values()
        ]
        snapshot = {"contest": info, "standings": rows, "retired": retired, "head_to_head": matrix}
        return json_text(snapshot | {"live": live, "recent": recent})

    def members(self, account: str) -> tuple[str, ...]:
        """The team's members' names, leader first, as last read (shown as text, never HTML)."""
        return self.contest.teams.get(account, ()) if self.contest is not None else ()

    def played(self, played: Played) -> dict[str, Any]:
        assert self.contest is not None
        return played_json(self.contest, played)

    def last_seen(self, bot: str) -> str | None:
        return last_seen(self.contest, self._left, bot)

    def knows(self, bot: str) -> bool:
        """Whether `bot` has a place here: in the standings (a ladder's bots, a contest's
        accounts that played), connected now, or revoked."""
        if bot in self.view.presence() or bot in self.view.revoked:
            return True
        contest = self.contest
        return contest is not None and (
            bot in contest.standings.plan.bots or bot in contest.last_played
        )

    async def history(self, contest: Contest) -> list[tuple[int, dict[str, Rating]]]:
        """Every bot's rating after k committed matches, for up to PLOT_POINTS values of k
        spread over the contest; refitted once per reading of the database, for all bots."""
        if self._ratings[0] is contest:
            return self._ratings[1]
        plan = contest.standings.plan
        ordered = sorted(contest.played, key=lambda p: (p.finished_at, p.number))
        results = [contest.results[p.number] for p in ordered if p.number in contest.results]

        def fit() -> list[tuple[int, dict[str, Rating]]]:
            n = len(results)
            ks = sorted({max(1, round(n * i / PLOT_POINTS)) for i in range(1, PLOT_POINTS + 1)})
            return ratings_over(plan, results, ks if n else [])

        history = await trio.to_thread.run_sync(fit)
        self._ratings = (contest, history)
        return history

    async def events(self, request: Request) -> Response:
        async def stream() -> AsyncGenerator[bytes, None]:
            version = -1
            with self._standings_beat.joined():
                while True:
                    # The latest snapshot on each beat: with many matches at once it changes
                    # many times a second.
                    yield self.snapshot_event if version != self.version else b""
                    version = self.version
                    await self._standings_beat.wait()

        return event_stream(stream())

    async def committed(self, match_id: str) -> Played | None:
        """The committed match; if it is not known yet, as a reading of the database begun
        after the request finds it, so a link followed just after its commit never misses it.
        Such readings wait their turn (at most one a second, shared by every request waiting),
        so requests for unknown matches cannot keep the site reading."""
        found = self._find(match_id)
        if found is None and self.view.database is not None:
            asked = trio.current_time()
            while self._reads.began < asked:
                await trio.sleep_until(self._reads.next_at(least=1.0))
                await self.read_database(unless_since=asked)
            found = self._find(match_id)
        return found

    def _find(self, match_id: str) -> Played | None:
        if self.contest is None:
            return None
        return next((p for p in self.contest.played if p.match_id == match_id), None)


#: Why a committed match's record or replay is not served (never the site's file paths).
ALTERED = "this match's record is missing or was changed since it was committed"


async def intact(played: Played) -> bytes | None:
    """The committed match's record, if it is still what was committed (its SHA-256 as the
    database holds it): a replaced record is not served as the ladder's (issue 24.1)."""

    def read() -> bytes | None:
        try:
            data = played.record.read_bytes()
        except OSError:
            return None
        return data if hashlib.sha256(data).hexdigest() == played.record_sha256 else None

    return await trio.to_thread.run_sync(read)
