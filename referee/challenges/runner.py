"""Challenges at play, beside a contest's referee (`croupier serve --db`).

`ChallengeRunner.run` looks at the challenge tables every POLL_SECONDS and plays each queued or
playing challenge (one resumed after a kill of the referee too): its two versions launched as
the roster launches a hosted version (the sandbox, their manifests' run and limits, `ponder =
false`) into a lobby of the runner's own, so no ranked table ever seats them; then deal after
deal, each in every rotation of the seats (referee.ladder.schedule.Layout: the challenger holds
one side, in a team game both its seats), each match in one of the contest's hosted slots
(pinned, a core a seat, as a ranked match) and on the contest's clock. After every match the
GSPRT (referee.challenges.decision) looks at the complete deals; the challenge ends when it
decides, when its budget of deals is played, or when it must (its author cancelled it, a version
was withdrawn or retired, an account revoked, a version kept crashing), and says which.

Challenges never take more than `share` of the slots' time (`Share`): after a challenge's match
held a slot for t seconds, challenges wait until the ranked matches have had the rest.
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import shlex
import time
from collections.abc import AsyncIterator, Callable, Container, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import trio

from croupier.v1 import common_pb2
from referee.challenges.book import (
    Challenge,
    ChallengeBook,
    Outcome,
    State,
    challenge_entrant,
    deal_key,
    match_id,
    opponent_entrant,
    scheduled,
)
from referee.challenges.decision import Decision, decide, summary
from referee.challenges.desk import ChallengeCounter, sides_problem
from referee.errors import RecordWriteError
from referee.games.base import Game
from referee.games.options import Options
from referee.hosted.manifest import ManifestError, load_manifest
from referee.hosted.pipeline import PipelineSettings, VersionFiles
from referee.hosted.roster import kept_output
from referee.hosted.store import SHORT_ID, VersionId, VersionStatus, VersionStore
from referee.ladder.schedule import Entrant, Layout, derive_seed
from referee.local.launcher import BotProcess, LaunchError, supervise
from referee.local.sandbox import Sandbox, socket_folder
from referee.match.lobby import Lobby
from referee.match.records import ChallengeMark, commit_record, partial_path
from referee.match.runner import MatchOutcome
from referee.match.seating import MatchRules, play_match, seated, take_sessions
from referee.match.session import Session
from referee.match.spectators import LiveMatches
from referee.results.database import Rows
from referee.results.matches import ScheduledMatch

log = logging.getLogger("croupier.referee")

#: How often the runner looks for new, cancelled or expired challenges (seconds).
POLL_SECONDS = 0.5
#: A challenge's bots' output, beside each version's folder in the store.
CHALLENGE_LOG = "challenges.log"


class Slots(Protocol):
    """The contest's hosted slots (referee.contest.slots.CoreSlots)."""

    def pinned(
        self, sessions: Sequence[Session], hosted: Container[str]
    ) -> AbstractAsyncContextManager[None]: ...


class RankedBook(Protocol):
    """The contest's book (referee.contest.book.ContestBook), where ranked matches count."""

    @property
    def master(self) -> str: ...
    def seat(self, bots: Sequence[str], deal: int | None = None) -> ScheduledMatch: ...
    def commit(
        self, match: ScheduledMatch, outcome: MatchOutcome, seconds: float
    ) -> MatchOutcome: ...
    def refresh_ratings(self) -> None: ...


class Share:
    """Challenges hold the slots at most `share` of their time: a turn of t seconds adds t to a
    debt that the clock pays back at `share` x slots a second; a turn starts once it is paid."""

    def __init__(self, share: float, slots: int) -> None:
        self.rate = share * slots
        self.debt = 0.0
        self.last = trio.current_time()
        self._at_once = trio.Semaphore(max(1, math.floor(share * slots)))
        #: Slot-seconds challenges held in all (for the bench's account).
        self.held = 0.0

    def _pay(self) -> None:
        now = trio.current_time()
        self.debt = max(0.0, self.debt - self.rate * (now - self.last))
        self.last = now

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        async with self._at_once:
            while True:
                self._pay()
                if self.debt <= 0:
                    break
                await trio.sleep(self.debt / self.rate)
            began = trio.current_time()
            try:
                yield
            finally:
                took = trio.current_time() - began
                self.held += took
                self.debt += took
                self._pay()


@dataclass(frozen=True, slots=True)
class Venue:
    """Where challenges play: the contest's rules, slots, book and folders."""

    rules: MatchRules
    game: Game
    options: Options
    slots: Slots
    #: Unranked challenges' records go in `records / "challenges"`; ranked ones beside the
    #: contest's.
    records: Path
    settings: PipelineSettings
    contest: RankedBook
    #: The contest's live matches, which a ranked challenge's matches join (an unranked one's
    #: are the runner's own: `ChallengeRunner.unlisted`).
    live: LiveMatches | None = None
    #: Called with each ranked match committed (the site's refresh, the referee's log).
    on_ranked: Callable[[MatchOutcome], None] = lambda _: None


class _Ended(Exception):
    """A challenge must end now, undecided, for `why`."""


class ChallengeRunner:
    """Plays the stored challenges; run it beside the referee."""

    def __init__(
        self,
        desk: ChallengeCounter,
        venue: Venue,
        share: Share,
    ) -> None:
        self.desk = desk
        self.book: ChallengeBook = desk.book
        self.store: VersionStore = desk.store
        self.venue = venue
        self.share = share
        self.lobby = Lobby(games=frozenset({venue.game.id}))
        self.layout = Layout.of(venue.game, venue.options)
        self.running: set[int] = set()
        #: The unranked challenges' live matches: in no public list, watched by no spectator.
        self.unlisted = LiveMatches()
        self._sandbox = Sandbox(enabled=True)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        with socket_folder() as doors:
            settings = self.venue.settings
            self._sandbox = Sandbox(
                enabled=True, socket_dir=doors, secrets=settings.secrets, runtime=settings.runtime
            )
            async with trio.open_nursery() as nursery:
                task_status.started()
                while True:
                    await trio.to_thread.run_sync(self.desk.expire)
                    due = await trio.to_thread.run_sync(
                        self.book.every, State.QUEUED, State.PLAYING
                    )
                    for challenge in due:
                        if challenge.id not in self.running:
                            self.running.add(challenge.id)
                            nursery.start_soon(self._run_one, challenge)
                    await trio.sleep(POLL_SECONDS)

    async def _run_one(self, challenge: Challenge) -> None:
        """Play `challenge` to its end and store how it ended; it stays in `running` until
        then, so the poll never starts it twice."""
        began = time.monotonic()
        try:
            try:
                outcome, why = await self._play(challenge)
            except _Ended as ended:
                outcome, why = Outcome.UNDECIDED, str(ended)
            current = await trio.to_thread.run_sync(self.book.get, challenge.id)
            decision = await trio.to_thread.run_sync(self._decision, current)
            text = summary(current, decision, str(outcome), time.monotonic() - began)
            await trio.to_thread.run_sync(
                lambda: self.book.set_state(
                    challenge.id,
                    State.ENDED,
                    outcome=str(outcome),
                    reason=why,
                    summary=text,
                    played=decision.deals,
                    llr=decision.llr,
                )
            )
            await trio.to_thread.run_sync(self._tell_teams, current, text)
        finally:
            self.running.discard(challenge.id)
        log.info("challenge ended", extra={"challenge": challenge.id, "result": text, "why": why})

    def _tell_teams(self, challenge: Challenge, summary: str) -> None:
        """Each team whose version played `challenge` follows its end (issue 46.2): the
        challenger's, and the opponent's when it is another team (a house bot has none)."""
        self.store.challenge_decided(VersionId(challenge.version), challenge.id, summary)
        if challenge.opponent != challenge.account:
            self.store.challenge_decided(
                VersionId(challenge.opponent_version), challenge.id, summary
            )

    def _decision(self, challenge: Challenge) -> Decision:
        if challenge.ranked:
            self.book.adopt(challenge)
        results = [r for m in self.book.matches(challenge) if (r := m.result()) is not None]
        return decide(challenge, results)

    async def _play(self, challenge: Challenge) -> tuple[Outcome, str]:
        # Refused when asked (ChallengeDesk.unplayable); one stored before the contest's game
        # or options changed ends here.
        problem = sides_problem(self.venue.game, self.venue.options)
        if problem is not None:
            raise _Ended(problem)
        if challenge.state is State.QUEUED:
            await trio.to_thread.run_sync(
                lambda: self.book.set_state(challenge.id, State.PLAYING, reason="playing")
            )
        log.info("challenge started", extra={"challenge": challenge.id})
        names = (challenge_entrant(challenge), opponent_entrant(challenge))
        identities = {name: f"challenge-{challenge.id}:{name}" for name in names}
        processes = {
            name: self._process(vid, identities[name], self._seats(side))
            for side, (name, vid) in enumerate(
                zip(names, (challenge.version, challenge.opponent_version), strict=True)
            )
        }
        done = trio.Event()
        crashed: list[str] = []
        result: tuple[Outcome, str] | None = None
        async with trio.open_nursery() as nursery:
            for name, process in processes.items():
                nursery.start_soon(self._supervise, name, process, done, crashed, nursery)
            try:
                result = await self._deals(challenge, names, identities)
            except _Ended as ended:  # inside the nursery: it would come out in a group
                result = Outcome.UNDECIDED, str(ended)
            finally:
                done.set()
                for identity in identities.values():
                    for session in self.lobby.by_identity.get(identity, []):
                        session.end("the challenge is over")
        if result is None:  # a process gave up: the nursery was cancelled
            raise _Ended(crashed[0] if crashed else "its bots stopped")
        return result

    def _seats(self, side: int) -> int:
        return len(self.layout.sides[side])

    def _process(self, version: str, identity: str, sessions: int) -> BotProcess:
        files = VersionFiles(self.store.folder(VersionId(version)))
        try:
            manifest = load_manifest(files.src, self.venue.settings.maxima)
        except ManifestError as error:
            raise _Ended(f"version {version[:SHORT_ID]} cannot be launched: {error}") from None
        token = secrets.token_urlsafe(24)
        self.lobby.admit(token, identity=identity)
        return BotProcess(
            command=shlex.join(manifest.run_argv()),
            token=token,
            log_path=files.root / CHALLENGE_LOG,
            sessions=sessions,
            cwd=files.run_folder(manifest),
            own_folder=True,
            confined=True,
            limits=manifest.limits(self.venue.settings.qualify.limits),
            sandbox=self._sandbox,
            ponder=False,
            max_restarts=1,
        )

    async def _supervise(
        self,
        name: str,
        process: BotProcess,
        done: trio.Event,
        crashed: list[str],
        nursery: trio.Nursery,
    ) -> None:
        try:
            await supervise(process, "127.0.0.1:0", self.lobby, done)
        except LaunchError as error:
            crashed.append(f"{name} could not be kept running: {error}")
            nursery.cancel_scope.cancel()

    async def _deals(
        self, challenge: Challenge, names: tuple[str, str], identities: dict[str, str]
    ) -> tuple[Outcome, str]:
        while True:
            current = await trio.to_thread.run_sync(self.book.get, challenge.id)
            why = await trio.to_thread.run_sync(self._why_stop, current)
            if why is not None:
                return Outcome.UNDECIDED, why
            decision = await trio.to_thread.run_sync(self._decision, current)
            text = summary(current, decision, "", 0.0)
            await trio.to_thread.run_sync(
                self.book.progress, challenge.id, decision.deals, decision.llr, text
            )
            if decision.outcome is not None:
                return decision.outcome, f"the test decided after {decision.deals} deals"
            nxt = await trio.to_thread.run_sync(self._next, current)
            if nxt is None:
                return Outcome.UNDECIDED, f"its budget of {current.deals} deals ran out"
            await self._match(current, names, identities, *nxt)

    def _next(self, challenge: Challenge) -> tuple[int, int] | None:
        """The next (deal, rotation) to play: the first not committed, within the budget."""
        done = {
            (m.match.deal, m.match.rotation)
            for m in self.book.matches(challenge)
            if m.rows is not None
        }
        for deal in range(1, challenge.deals + 1):
            for rotation in range(self.layout.rotations):
                if (deal, rotation) not in done:
                    return deal, rotation
        return None

    def _why_stop(self, challenge: Challenge) -> str | None:
        """Why the challenge must end now, or None."""
        if challenge.stop:
            return challenge.stop
        revoked = self.desk.revoked()
        for account in (challenge.account, challenge.opponent):
            if account in revoked:
                return f"account {account!r} was revoked"
        for whose, vid in (
            ("your", challenge.version),
            ("the opponent's", challenge.opponent_version),
        ):
            version = self.store.version(VersionId(vid))
            if version.status is not VersionStatus.QUALIFIED:
                return f"{whose} version {vid[:SHORT_ID]} is {version.status} now"
        if challenge.follows_active:
            active = self.store.active(challenge.opponent)
            if active is None or active.id != challenge.opponent_version:
                return (
                    f"the opponent's version {challenge.opponent_version[:SHORT_ID]} was retired "
                    f"(no longer {challenge.opponent}'s active version)"
                )
        return None

    async def _match(
        self,
        challenge: Challenge,
        names: tuple[str, str],
        identities: dict[str, str],
        deal: int,
        rotation: int,
    ) -> None:
        venue = self.venue
        table = tuple(Entrant(name, (name,) * self._seats(side)) for side, name in enumerate(names))
        bots, sides = self.layout.seating(table, rotation)
        key = deal_key(challenge.id, deal)
        seed = derive_seed(venue.contest.master, key)
        mid = match_id(challenge.id, deal, rotation, challenge.ranked)
        number: int | None = None
        contest_match: ScheduledMatch | None = None
        if challenge.ranked:
            contest_match = await trio.to_thread.run_sync(
                lambda: venue.contest.seat(bots, deal=key)
            )
            number = contest_match.number
            final = venue.records / f"{mid}.jsonl"
        else:
            final = venue.records / "challenges" / f"{mid}.jsonl"
        match = scheduled(challenge.id, deal, rotation, seed, bots, sides, names)
        await trio.to_thread.run_sync(self.book.seat, challenge.id, match, number, mid)
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = partial_path(final)
        # Never committed (the referee stopped before): played again from the start.
        partial.unlink(missing_ok=True)
        final.unlink(missing_ok=True)

        def late(seat: int) -> Exception:
            return _Ended(f"{bots[seat]} did not connect within the startup time")

        seats_of = [identities[bot] for bot in bots]
        timeout = venue.settings.qualify.startup_seconds
        sessions = await take_sessions(self.lobby, seats_of, timeout, late)
        try:
            async with (
                self.share.turn(),
                venue.slots.pinned(sessions, set(seats_of)),
                self._output(challenge, mid, bots, names),
                seated(sessions, self.lobby, names=bots) as seats,
            ):
                began = trio.current_time()  # its slot's time, not its wait for one
                outcome = await play_match(
                    venue.rules,
                    seats,
                    seed=seed,
                    match_id=mid,
                    record=partial,
                    live=self._live(challenge),
                    challenge=ChallengeMark(challenge.id, challenge.ranked),
                )
                seconds = trio.current_time() - began
        except RecordWriteError as error:
            raise _Ended(f"its record cannot be written: {error}") from None
        if outcome.result.termination == common_pb2.TERMINATION_ABORTED:  # never committed
            raise _Ended("a match was aborted (the referee is shutting down)")
        if contest_match is not None:
            committed = await trio.to_thread.run_sync(
                venue.contest.commit, contest_match, outcome, seconds
            )
            assert committed.record_path is not None
            record, digest = committed.record_path, _digest(committed.record_path)
            venue.on_ranked(committed)
        else:
            record, digest = await trio.to_thread.run_sync(commit_record, partial)
        rows = Rows.of(match, outcome.result, outcome.faults, outcome.luck)
        await trio.to_thread.run_sync(
            lambda: self.book.commit(challenge.id, deal, rotation, record, digest, rows, seconds)
        )

    def _output(
        self, challenge: Challenge, mid: str, bots: Sequence[str], names: tuple[str, str]
    ) -> AbstractAsyncContextManager[None]:
        """Each version's output during the match, kept in its own folder as a contest match's
        is (its log, and its lines by decision for its seat replay on the desk): the
        challenger's for its author, the opponent's for its own author alone, as in a ranked
        match (issue 45.4)."""
        versions = (VersionId(challenge.version), VersionId(challenge.opponent_version))
        players = [
            (vid, CHALLENGE_LOG, [seat for seat, bot in enumerate(bots) if bot == name])
            for vid, name in zip(versions, names, strict=True)
        ]
        live = self._live(challenge)
        return kept_output(self.store, players, mid, lambda: live.get(mid) if live else None)

    def _live(self, challenge: Challenge) -> LiveMatches | None:
        """Where the challenge's matches are live: a ranked one's among the contest's, which
        anyone may watch; an unranked one's apart (`unlisted`), as an author's testing of a
        version that may not be active yet is theirs alone (issue 45)."""
        return self.venue.live if challenge.ranked else self.unlisted


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
