"""A contest as a continuous ladder: the bots that are connected meet as they become idle.

The contest lives in the ladder database (referee.results.database), so `croupier ladder standings`
and `croupier ladder verify` work on it: a schedule row is added when a table sits down, and the
match, its record's hash and its faults are committed in one transaction when it ends. Deals
derive from a master seed whose SHA-256 is stored when the contest starts and which is revealed
when it shuts down. Who meets whom is referee.contest.pairing's: the book keeps the meetings and
the ratings it pairs by.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from referee.errors import CroupierError
from referee.games.base import Game
from referee.games.options import Options
from referee.ladder import schedule as planning
from referee.match.luck import value_digest
from referee.match.luck_history import same_corrections
from referee.match.records import commit_record
from referee.match.runner import MatchOutcome
from referee.ratings import fits, methods
from referee.ratings.standings import Plan, Standings, compute
from referee.results.database import Finished, Store, now
from referee.results.matches import ScheduledMatch
from referee.spacing import Spacing

log = logging.getLogger("croupier.referee")

#: Ratings for pairing are refitted at most this often (the fit covers every match so far, so
#: once it is slow, less often: `Spacing`).
RATING_REFRESH_SECONDS = 2.0
#: The meta key of a contest whose submissions are frozen for good (a final round:
#: referee.contest.final); its value says why, to the authors.
FROZEN = "submissions_frozen"


def contest_game(path: Path) -> tuple[str, dict[str, str]] | None:
    """The game id and options (text) a contest database was made for, or None (a database
    with no contest in it yet: accounts only)."""
    store = Store(path, create=False)
    try:
        kept = store.meta("plan")
    finally:
        store.close()
    if kept is None:
        return None
    plan = Plan.from_json(kept)
    return plan.game, plan.options


def contest_game_mismatch(path: Path, plan: Plan, game: str) -> str:
    options = " ".join(f"--option {k}={v}" for k, v in sorted(plan.options.items()))
    return (
        f"the contest in {str(path)!r} plays {plan.game!r} ({options or 'default options'}), "
        f"not {game!r} or other options: a contest keeps the game it was made with; serve it "
        f"with --game {plan.game} {options}".rstrip()
        + ", or start another contest in a new database"
    )


class ContestBook:
    """The contest's history and standings in a ladder database (created on first use).

    Its methods may be called from worker threads; a lock keeps each one whole.
    """

    def __init__(self, path: Path, game: Game, options: Options) -> None:
        self.store = Store(path, create=True)
        self.game = game
        self.options = options
        self.seats = game.seat_count(options)
        if self.store.meta("revealed") == "1":
            self.store.close()
            raise CroupierError(
                f"the contest in {str(path)!r} is over and its seed was revealed: "
                "start a new contest with a new database"
            )
        self._check_game(path)
        master = self.store.meta("master_seed")
        if master is None:
            master = planning.new_master_seed()
            self.store.initialise(
                {
                    "master_seed": master,
                    "seed_sha256": planning.commitment(master),
                    "luck_value": value_digest(game.id) or "",
                    "created_at": now(),
                    "plan": self._plan(()).to_json(),
                },
                [],
            )
        elif (committed := self.store.meta("luck_value")) is not None and not same_corrections(
            game.id, committed
        ):
            self.store.close()
            raise CroupierError(
                f"the contest in {str(path)!r} committed to luck value function {committed!r} "
                f"at its start, and this croupier's is {value_digest(game.id)!r}: serve it with "
                "the croupier that started it"
            )
        elif self.store.meta("finished_at") is not None:
            # A contest stopped before its end resumes: it is not finished (a referee before
            # issue 24.3 marked every stop so).
            self.store.drop_meta("finished_at")
        self.master = master
        #: Matches committed so far, over every run: a contest file's `matches` is their total.
        self.committed = len(self.store.committed())
        self.numbers = itertools.count(
            max(m.number for m in self.store.schedule() or [_zero()]) + 1
        )
        self.meetings: Counter[frozenset[str]] = Counter()
        for result in self.store.results():
            for a, b in itertools.combinations(set(result.match.bots), 2):
                self.meetings[frozenset((a, b))] += 1
        #: How often each bot sat in each seat (every table that sat down): seats rotate by it
        #: (referee.contest.pairing.seat_order).
        self.seated: Counter[tuple[str, int]] = Counter(
            (bot, seat) for match in self.store.schedule() for seat, bot in enumerate(match.bots)
        )
        self.ratings: dict[str, float] = {}
        #: The entrants whose ratings are no longer provisional: the others sit first
        #: (referee.contest.pairing).
        self.settled: frozenset[str] = frozenset()
        self._refits = Spacing(RATING_REFRESH_SECONDS)
        self._lock = threading.Lock()
        self.bots = set(Plan.from_json(self.store.meta("plan") or self._plan(()).to_json()).bots)

    def _check_game(self, path: Path) -> None:
        """Refuse to serve a contest (a final round included) in another game, or with other
        options, than it was made with: its standings and seeds are that game's (issue 42.4)."""
        kept = self.store.meta("plan")
        if kept is None:
            return
        plan = Plan.from_json(kept)
        if (plan.game, plan.options) != (self.game.id, self.options.as_text()):
            self.store.close()
            raise CroupierError(contest_game_mismatch(path, plan, self.game.id))

    def _plan(self, bots: Sequence[str]) -> Plan:
        return Plan(
            name="contest",
            game=self.game.id,
            options=self.options.as_text(),
            bots=tuple(sorted(bots)),
            system=methods.chosen(self.game, self.options).name,
            duplicate=False,
            rotations=self.seats,
            format="contest",
        )

    def seat(self, bots: Sequence[str], deal: int | None = None) -> ScheduledMatch:
        """A table sits down, its bots in their seats' order (`seat_order`): its schedule row,
        with the next deal's seed, or with `deal`'s (a ranked challenge's duplicate deal,
        referee.challenges.book.deal_key: its seed still derives from the master seed)."""
        with self._lock:
            return self._seat(bots, deal)

    def _seat(self, bots: Sequence[str], deal: int | None = None) -> ScheduledMatch:
        number = next(self.numbers)
        deal = number if deal is None else deal
        entrants = tuple(dict.fromkeys(bots))
        match = ScheduledMatch(
            number=number,
            round=1,
            table=number,
            deal=deal,
            rotation=0,
            seed=planning.derive_seed(self.master, deal),
            bots=tuple(bots),
            sides=tuple(entrants.index(bot) for bot in bots),
            entrants=entrants,
        )
        self.store.add_schedule([match])
        self.seated.update((bot, seat) for seat, bot in enumerate(bots))
        if not set(bots) <= self.bots:
            self.bots |= set(bots)
            self.store.put_meta("plan", self._plan(sorted(self.bots)).to_json())
        return match

    def commit(self, match: ScheduledMatch, outcome: MatchOutcome, seconds: float) -> MatchOutcome:
        """The match's record made final (referee.match.records.commit_record: on disk before
        its row), then the match in one transaction (an aborted match is not committed).
        Returns the outcome with its record where it now is."""
        assert outcome.record_path is not None
        record, digest = commit_record(outcome.record_path)
        with self._lock:
            self._commit(match, outcome, record, digest, seconds)
            self.committed += 1
        return dataclasses.replace(outcome, record_path=record)

    def _commit(
        self,
        match: ScheduledMatch,
        outcome: MatchOutcome,
        record: Path,
        digest: str,
        seconds: float,
    ) -> None:
        self.store.commit(
            Finished(
                match=match,
                match_id=outcome.match_id,
                record=record,
                record_sha256=digest,
                result=outcome.result,
                faults=outcome.faults,
                seconds=seconds,
                luck=outcome.luck,
            )
        )
        for a, b in itertools.combinations(set(match.bots), 2):
            self.meetings[frozenset((a, b))] += 1

    @property
    def frozen(self) -> str | None:
        """Why this contest's submissions are frozen for good, or None."""
        with self._lock:
            return self.store.meta(FROZEN)

    def standings(self) -> Standings:
        with self._lock:
            return self._standings()

    def _standings(self) -> Standings:
        plan = Plan.from_json(self.store.meta("plan") or self._plan(()).to_json())
        return compute(
            plan,
            self.store.results(),
            self.store.exits(),
            scheduled=self.store.scheduled(),
            seed_sha256=self.store.meta("seed_sha256") or "",
            seed=self.master if self.store.meta("revealed") == "1" else None,
        )

    def refresh_ratings(self) -> None:
        """Refit the ratings used for pairing, at most every RATING_REFRESH_SECONDS and at most
        a `Spacing` share of the time."""
        began = time.monotonic()
        if not self._refits.due(began):
            return
        with self._lock:
            plan = Plan.from_json(self.store.meta("plan") or self._plan(()).to_json())
            results = self.store.results()
        rated = plan.method.for_pairing(results, plan.duplicate, plan.rotations, plan.bots)
        self.ratings = {bot: rating.value for bot, rating in rated.items()}
        self.settled = frozenset(rated) - fits.provisional(rated)
        self._refits.ran(began, time.monotonic())

    def close(self, *, reveal: bool) -> None:
        """Close the database; with `reveal` the contest is over: mark it finished and reveal
        the master seed (so anyone can check every deal). A stopped contest may resume."""
        if reveal:
            self.store.finish(reveal=True)
        self.store.close()


def _zero() -> ScheduledMatch:
    return ScheduledMatch(0, 0, 0, 0, 0, 0, (), (), ())
