"""Play a ladder: the schedule in SQLite, the matches at a venue (referee.ladder.venue: bot
processes on this machine, or a Dask cluster), each committed here as it finishes.

Each match is played into `<id>.jsonl.partial`, which becomes `<id>.jsonl` (flushed to
disk) just before the match is committed, record hash and all, in one transaction. On resume the
matches that are not in the database are played again from scratch, over whatever files they
left, so a kill at any moment loses nothing and counts nothing twice.
"""

from __future__ import annotations

import fcntl
import functools
import json
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import trio

from referee import private
from referee.ladder import ownership
from referee.ladder import schedule as planning
from referee.ladder.config import Format, LadderConfig
from referee.ladder.local_venue import LocalVenue
from referee.ladder.venue import (
    LadderError,
    LadderObserver,
    StartInfo,
    Venue,
    Work,
    record_path,
)
from referee.ladder.view import Kind, Presence, RefereeView
from referee.match.luck import value_digest
from referee.match.luck_history import same_corrections
from referee.match.records import commit_record, partial_path
from referee.match.spectators import LiveMatches
from referee.ratings import methods
from referee.ratings.sprt import Sprt, SprtState, sprt, sprt_units
from referee.ratings.standings import Plan, Standings, compute, from_store
from referee.results.database import Finished, Store, StoreError, fault_name, now
from referee.results.matches import MatchResult, ScheduledMatch

#: Live standings are recomputed at most this often (seconds).
STANDINGS_INTERVAL = 1.0


@dataclass(frozen=True, slots=True)
class Summary:
    standings: Standings
    #: True once every scheduled match is in the database (or an SPRT ended the ladder).
    complete: bool
    played: int
    seconds: float


def plan_of(config: LadderConfig) -> Plan:
    return Plan(
        name=config.name,
        game=config.game.id,
        options=config.options.as_text(),
        bots=tuple(bot.name for bot in config.bots),
        system=methods.chosen(config.game, config.options).name,
        duplicate=config.duplicate,
        rotations=planning.Layout.of(config.game, config.options).rotations,
        format=str(config.format),
        order=str(config.order),
    )


#: Keys of a bot in the fingerprint that say how it is launched, not what it plays: a database
#: takes a file that changes them (a fixed command), and says so.
_LAUNCH_KEYS = frozenset({"command", "env"})


def _decisive(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """The fingerprint without the bots' launch keys: what decides the results."""
    bots = [
        {key: value for key, value in bot.items() if key not in _LAUNCH_KEYS}
        for bot in fingerprint.get("bots", [])
    ]
    return {**fingerprint, "bots": bots}


def _launch_changes(stored: dict[str, Any], fingerprint: dict[str, Any]) -> list[str]:
    before = {bot["name"]: bot for bot in stored.get("bots", [])}
    return [
        f"bot {bot['name']!r}: {key} was {before[bot['name']].get(key)!r}, now {bot.get(key)!r}"
        for bot in fingerprint["bots"]
        for key in sorted(_LAUNCH_KEYS)
        if bot["name"] in before and before[bot["name"]].get(key) != bot.get(key)
    ]


def _prepare(
    store: Store, config: LadderConfig, test: Sprt | None
) -> tuple[str, Sprt | None, list[str]]:
    """Create the ladder in a new database, or check that the database is this ladder's.
    Returns the master seed, the SPRT in force, and the bots' launch changes it took."""
    fingerprint = config.fingerprint()
    stored = store.meta_json("fingerprint")
    if stored is None:
        master = config.seed or planning.new_master_seed()
        store.initialise(
            {
                "fingerprint": _json(fingerprint),
                "plan": plan_of(config).to_json(),
                "master_seed": master,
                "seed_sha256": planning.commitment(master),
                "luck_value": value_digest(config.game.id) or "",
                "created_at": now(),
                "sprt": _json(asdict(test)) if test is not None else "null",
            },
            planning.first_schedule(config, master),
        )
        return master, test, []
    decisive, made = _decisive(fingerprint), _decisive(stored)
    if made != decisive:
        changes = [
            f"{key} was {made.get(key)!r}, now {decisive.get(key)!r}"
            for key in sorted(set(made) | set(decisive))
            if made.get(key) != decisive.get(key)
        ]
        raise StoreError(
            f"database {str(store.path)!r} holds a ladder made from a different file "
            f"({'; '.join(changes)}); restore the file or use a new database"
        )
    stored_plan = store.meta("plan")
    if stored_plan is not None and Plan.from_json(stored_plan).order != str(config.order):
        # the table's order is how it is shown, not what was played: the file may change it
        store.put_meta(
            "plan", replace(Plan.from_json(stored_plan), order=str(config.order)).to_json()
        )
    master = store.meta("master_seed") or ""
    if config.seed is not None and planning.commitment(config.seed) != store.meta("seed_sha256"):
        raise StoreError(f"database {str(store.path)!r} was started with a different seed")
    committed = store.meta("luck_value")  # None: a ladder older than luck corrections
    if committed is not None and not same_corrections(config.game.id, committed):
        raise StoreError(
            f"database {str(store.path)!r} committed to luck value function {committed!r} at "
            f"its start, and this croupier's is {value_digest(config.game.id)!r}: corrections "
            "made by two would not compare; resume it with the croupier that started it"
        )
    before = store.meta_json("sprt")
    if test is not None and before != asdict(test):
        was = "no SPRT" if before is None else f"SPRT {before}"
        resume = "without --sprt" if before is None else "with that SPRT"
        raise StoreError(
            f"database {str(store.path)!r} was started with {was}: resume it {resume}, or give "
            "--database NEW.sqlite to start a new run with this one"
        )
    launched = _launch_changes(stored, fingerprint)
    if launched:
        store.put_meta("fingerprint", _json(fingerprint))
    return master, Sprt(**before) if before is not None else None, launched


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _check_sprt(config: LadderConfig, test: Sprt | None) -> None:
    if test is None:
        return
    if problem := test.check():
        raise LadderError(f"bad SPRT: {problem}")
    if not plan_of(config).method.sprt or len(config.bots) != 2:
        raise LadderError(
            "an SPRT tests one bot against another: it needs a two-player game and exactly two "
            f"bots, not {len(config.bots)} bots at {config.game.id!r} with {config.seats} seats"
        )
    if test.on == "corrected" and value_digest(config.game.id) is None:
        raise LadderError(f"{config.game.id!r} has no luck value function: no corrected margins")


class _Dispenser:
    """Hands out the matches still to play; adds Swiss rounds when a round is complete, and
    after an SPRT verdict only finishes the deals already started."""

    def __init__(
        self,
        pending: list[ScheduledMatch],
        next_round: Callable[[], Awaitable[list[ScheduledMatch]]] | None,
        started: set[int],
    ) -> None:
        self.queue = deque(pending)
        self.next_round = next_round
        self.started_deals = started
        self.in_flight = 0
        self.stopping = False
        self._generating = False
        self._changed = trio.Event()

    def _signal(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _pop(self) -> ScheduledMatch | None:
        """The next match if one is ready now (never waits for a Swiss round)."""
        if self.stopping:
            self.queue = deque(m for m in self.queue if m.deal in self.started_deals)
        if not self.queue:
            return None
        match = self.queue.popleft()
        self.started_deals.add(match.deal)
        self.in_flight += 1
        return match

    async def take(self, count: int) -> list[ScheduledMatch]:
        """Up to `count` matches for one batch: waits for the first like `next`, then takes
        only what is ready. Empty when the ladder has nothing more to play."""
        first = await self.next()
        if first is None:
            return []
        batch = [first]
        while len(batch) < count and (match := self._pop()) is not None:
            batch.append(match)
        return batch

    async def next(self) -> ScheduledMatch | None:
        while True:
            if (match := self._pop()) is not None:
                return match
            if self.in_flight == 0 and not self._generating:
                if self.stopping or self.next_round is None:
                    return None
                self._generating = True
                try:
                    matches = await self.next_round()
                finally:
                    self._generating = False
                if not matches:
                    self.next_round = None
                self.queue.extend(matches)
                self._signal()
                continue
            await self._changed.wait()

    def finished(self) -> None:
        self.in_flight -= 1
        self._signal()

    def give_back(self, match: ScheduledMatch) -> None:
        """A match handed out that will not be finished where it went (its referee worker
        died): it is the next to be handed out."""
        self.in_flight -= 1
        self.queue.appendleft(match)
        self._signal()

    def stop(self) -> None:
        self.stopping = True
        self._signal()


class _Ladder:
    def __init__(
        self,
        config: LadderConfig,
        store: Store,
        master: str,
        test: Sprt | None,
        observer: LadderObserver,
        venue: Venue,
        view: RefereeView | None,
    ) -> None:
        self.config = config
        self.venue = venue
        self.view = view
        self.store = store
        self.master = master
        self.test = test
        self.observer = observer
        self.plan = plan_of(config)
        self.scheduled = store.schedule()
        self.results: list[MatchResult] = store.results()
        self.exits = store.exits()
        self.sprt_state: SprtState | None = None
        #: The SPRT's report when it reached its verdict (kept in the database at once): the
        #: matches that complete the deals already started do not reopen the test.
        self.sprt_verdict = store.meta("sprt_report")
        self.played = 0
        self._standings_due = -math.inf
        self._standings_busy = False

    # -- the schedule --------------------------------------------------------------------

    def total(self) -> int:
        """Matches the ladder will play: known exactly except for Swiss rounds not yet paired
        (each round plays as many matches as the first)."""
        if self.config.format is not Format.SWISS or not self.scheduled:
            return len(self.scheduled)
        first = sum(1 for m in self.scheduled if m.round == 1)
        planned = planning.rounds_planned(self.scheduled)
        return len(self.scheduled) + first * (self.config.rounds - planned)

    async def next_round(self) -> list[ScheduledMatch]:
        if self.config.format is not Format.SWISS:
            return []
        if planning.rounds_planned(self.scheduled) >= self.config.rounds:
            return []
        matches = planning.swiss_round(self.config, self.master, self.scheduled, self.results)
        await trio.to_thread.run_sync(self.store.add_schedule, matches)
        self.scheduled.extend(matches)
        return matches

    def check_sprt(self) -> bool:
        """Update the SPRT; True once it has a verdict (then `sprt_verdict` holds its report,
        to be stored)."""
        if self.test is None:
            return False
        if self.sprt_verdict is not None:
            return True
        units = sprt_units(
            self.results, self.config.bots[0].name, self.config.duplicate, self.test.on
        )
        self.sprt_state = sprt(self.test, units)
        if self.sprt_state.verdict is None:
            return False
        self.sprt_verdict = self.sprt_report()
        return True

    def sprt_report(self) -> str | None:
        if self.sprt_verdict is not None:
            return self.sprt_verdict
        if self.sprt_state is None:
            return None
        return self.sprt_state.describe(self.config.bots[0].name, self.config.bots[1].name)

    def commit(self, finished: Finished) -> Finished:
        """Flush the record to disk, move it into place, hash it, commit (worker thread)."""
        record, digest = commit_record(partial_path(finished.record))
        done = replace(finished, record=record, record_sha256=digest)
        self.store.commit(done)
        return done

    def remember(self, finished: Finished) -> None:
        by_seat = {seat.seat: seat for seat in finished.result.seats}
        seats = range(len(finished.match.bots))
        self.results.append(
            MatchResult(
                match=finished.match,
                scores=tuple(by_seat[s].score for s in seats),
                ranks=tuple(by_seat[s].rank for s in seats),
                faults=tuple((f.seat, fault_name(f.reason)) for f in finished.faults),
                luck=finished.luck or None,
            )
        )
        self.exits.extend(finished.exits)

    async def live_standings(self, force: bool = False) -> None:
        """Recompute the standings in a worker thread, at most every STANDINGS_INTERVAL seconds
        and never more than a tenth of the time: a big ladder's ratings take a while, and the
        referee (which times the bots) must keep the interpreter most of the time."""
        if self._standings_busy:
            return
        if not force and time.monotonic() < self._standings_due:
            return
        self._standings_busy = True
        began = time.monotonic()
        try:
            # Snapshots taken here, on the referee's thread: the workers append as they go.
            standings = await trio.to_thread.run_sync(
                functools.partial(
                    compute,
                    self.plan,
                    list(self.results),
                    list(self.exits),
                    scheduled=self.total(),
                    seed_sha256=planning.commitment(self.master),
                    sprt=self.sprt_report(),
                )
            )
        finally:
            self._standings_busy = False
            spent = time.monotonic() - began
            self._standings_due = time.monotonic() + max(STANDINGS_INTERVAL, 10 * spent)
        self.observer.standings(standings)

    async def settle(self, dispenser: _Dispenser, finished: Finished) -> None:
        """A match is over (its record at `<record>.partial`): commit it, count it, update the
        SPRT, progress and live standings. The one way a match enters the ladder."""
        try:
            finished = await trio.to_thread.run_sync(self.commit, finished)
        finally:
            dispenser.finished()
        self.remember(finished)
        self.played += 1
        if self.check_sprt() and not dispenser.stopping:
            dispenser.stop()
            await trio.to_thread.run_sync(
                self.store.put_meta, "sprt_report", self.sprt_report() or ""
            )
        total = len(self.results) + len(dispenser.queue) + dispenser.in_flight
        total = total if dispenser.stopping else self.total()
        self.observer.progress(len(self.results), total)
        if self.view is not None:
            self.view.planned = total
            self.view.notify()
        await self.live_standings()

    async def run(self) -> bool:
        """Play what is left; True when the ladder is complete."""
        config = self.config
        committed = {r.match.number for r in self.results}
        pending = [m for m in self.scheduled if m.number not in committed]
        for match in pending:  # what an interrupted run left of these matches is void
            final = record_path(config, match.number)
            final.unlink(missing_ok=True)
            partial_path(final).unlink(missing_ok=True)
        stopping = self.check_sprt()
        dispenser = _Dispenser(
            pending,
            self.next_round if config.format is Format.SWISS else None,
            started={r.match.deal for r in self.results},
        )
        if stopping:
            dispenser.stop()
        self.observer.progress(len(self.results), self.total())
        if self.results:
            await self.live_standings(force=True)
        if not await self._has_work(dispenser):
            return self._complete(dispenser)
        private.folder(config.placement.records)  # every hand of every match: owner-only where new
        settle = functools.partial(self.settle, dispenser)
        work = Work(
            next=dispenser.next,
            take=dispenser.take,
            backlog=lambda: len(dispenser.queue),
            settle=settle,
            view=self.view,
            give_back=dispenser.give_back,
        )
        await self.venue.play(config, work, self.observer)
        return self._complete(dispenser)

    async def _has_work(self, dispenser: _Dispenser) -> bool:
        """Whether any match is left to play (so that bots are worth launching)."""
        if dispenser.stopping:
            return any(m.deal in dispenser.started_deals for m in dispenser.queue)
        if dispenser.queue:
            return True
        more = await self.next_round()
        dispenser.queue.extend(more)
        return bool(more)

    def _complete(self, dispenser: _Dispenser) -> bool:
        config = self.config
        committed = {r.match.number for r in self.results}
        everything = all(m.number in committed for m in self.scheduled)
        if dispenser.stopping:
            self.store.drop_unplayed()
            self.scheduled = [m for m in self.scheduled if m.number in committed]
            return True
        rounds_left = (
            config.format is Format.SWISS
            and planning.rounds_planned(self.scheduled) < config.rounds
        )
        return everything and not rounds_left


async def run_ladder(
    config: LadderConfig,
    sprt_test: Sprt | None = None,
    observer: LadderObserver | None = None,
    venue: Venue | None = None,
    view: RefereeView | None = None,
) -> Summary:
    """Run (or resume) the ladder until every scheduled match is in its database, or an SPRT
    decides; then reveal the master seed. Returns the final standings. The matches are played
    at `venue` (default: LocalVenue, on this machine); a ladder whose file names a Dask
    scheduler needs the cluster's venue (referee.cluster.ClusterVenue).

    With `view` (see `ladder_view`), the ladder shows itself to a companion such as the web
    site: the database once it is made, a notification after each commit and at the end, and
    the venue's live matches (LocalVenue opens them in `view.live`)."""
    observer = observer or LadderObserver()
    if venue is None:
        if config.placement.cluster is not None and config.placement.cluster.scheduler:
            raise LadderError(
                f"ladder {config.name!r} plays on the Dask cluster at "
                f"{config.placement.cluster.scheduler!r}: run it with that cluster's venue"
            )
        venue = LocalVenue()
    _check_sprt(config, sprt_test)
    began = time.monotonic()
    config.placement.database.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(config.placement.database):
        return await _run(config, sprt_test, observer, venue, view, began)


@contextmanager
def _exclusive(database: Path) -> Iterator[None]:
    """One runner per database: a second one would play the same matches. The lock (flock on
    `<database>.lock`) dies with its process, so a kill -9 never leaves it stale."""
    with open(database.with_name(database.name + ".lock"), "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LadderError(
                f"database {str(database)!r} is in use by another `croupier ladder run`"
            ) from None
        yield


async def _run(
    config: LadderConfig,
    sprt_test: Sprt | None,
    observer: LadderObserver,
    venue: Venue,
    view: RefereeView | None,
    began: float,
) -> Summary:
    existed = config.placement.database.exists()
    store = Store(config.placement.database, create=True)
    try:
        resumed = store.meta("fingerprint") is not None
        owner = store.meta(ownership.META_KEY) or ownership.new_owner()
        try:
            ownership.claim(
                config.placement.records, config.placement.database, owner, new=not resumed
            )
        except LadderError:
            if not existed:  # refused before anything was written: leave no database behind
                store.close()
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{config.placement.database}{suffix}").unlink(missing_ok=True)
            raise
        master, test, changed = _prepare(store, config, sprt_test)
        store.put_meta(ownership.META_KEY, owner)
        _check_sprt(config, test)
        ladder = _Ladder(config, store, master, test, observer, venue, view)
        observer.started(
            StartInfo(
                name=config.name,
                game=config.game.id,
                total=ladder.total(),
                done=len(ladder.results),
                seed_sha256=planning.commitment(master),
                luck_value=store.meta("luck_value") or "",
                resumed=resumed,
                database=config.placement.database,
                records=config.placement.records,
                changed=tuple(changed),
            )
        )
        if view is not None:
            view.database, view.planned = config.placement.database, ladder.total()
            view.notify()
        complete = store.meta("finished_at") is not None
        if not complete:
            complete = await ladder.run()
            if complete:
                report = ladder.sprt_report()
                store.finish(reveal=True, extra={"sprt_report": report} if report else None)
                if view is not None:
                    view.planned = len(ladder.results)
                    view.notify()
        return Summary(
            standings=from_store(store),
            complete=complete,
            played=ladder.played,
            seconds=time.monotonic() - began,
        )
    finally:
        store.close()


def ladder_view(config: LadderConfig) -> RefereeView:
    """A view of this ladder for a companion (the web site) to read while `run_ladder` runs it
    with that view; its database is shown once the runner has made or checked it."""
    return RefereeView(
        Kind.LADDER,
        config.game,
        config.options,
        LiveMatches(),
        name=config.name,
        connected=functools.partial(_listed, config),
    )


def _listed(config: LadderConfig) -> dict[str, Presence]:
    """Before a venue says who is connected: the ladder's bots, none connected."""
    return {bot.name: Presence(0, 0) for bot in config.bots}
