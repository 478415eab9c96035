"""`croupier serve`: a referee that bots connect to from anywhere, and that plays them.

Bots authenticate with a token from the contest's account store (or any token, on loopback
only); whoever is idle is seated, seats rotating as sessions come back. Spectators watch live
matches. With accounts (`--db`) the contest's hosted wing (referee.contest.hosted_wing) runs
beside it: uploads, their builds, and the hosted versions at play. On SIGINT or SIGTERM the
referee drains: health turns NOT_SERVING, no match starts, running matches get
`drain_seconds` to finish and are then aborted with their records closed.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import resource
import signal
from collections import Counter, deque
from collections.abc import Awaitable, Callable

import trio

from referee.contest.book import ContestBook
from referee.contest.config import ServeConfig
from referee.contest.hosted_wing import HostedWing
from referee.contest.pairing import Pacing, choose_table, rematch_wait, seat_order
from referee.contest.starts import Starts
from referee.contest.tokens import TokenStore
from referee.errors import RecordWriteError
from referee.ladder.view import Kind, Presence, RefereeView, Terms
from referee.local.limits import Limits
from referee.match.lobby import ANYONE, Lobby
from referee.match.runner import MatchOutcome
from referee.match.seating import play_match, seated
from referee.match.seeds import derive_seed
from referee.match.session import Session
from referee.match.spectators import LiveMatches
from referee.transport import ServerControl, serve

log = logging.getLogger("croupier.referee")

#: How often a running referee looks for revoked tokens.
REVOCATION_POLL_SECONDS = 0.5
#: How often a contest's matchmaking looks again with no session coming back (a bot that left
#: may have stopped holding the others up).
PACING_POLL_SECONDS = 1.0
#: After a table is given up because its record cannot be written (a full disk, no file
#: descriptor left), no table sits down for this long: bots are not seated faster than the
#: organiser can free what is missing, and the log says it once a table, not in a loop.
RECORD_FAILURE_PAUSE_SECONDS = 1.0


#: Below this soft limit of open files a referee warns: it keeps about one file open per match
#: (its record) besides its connections and its database.
FEW_OPEN_FILES = 4096


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit, and return the soft
    limit now. Many systems set 1,024 (systemd's default for services), and a referee holds a
    file per match: at 1,024, `serve` stopped at 957 matches at once with "too many open files"
    (bench/serve_capacity.py --open-files 1024). Raising a soft limit needs no privilege."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        with contextlib.suppress(ValueError, OSError):  # macOS caps it below an infinite hard
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


#: Runs beside a referee until cancelled; calls `task_status.started()` once it is ready.
Companion = Callable[..., Awaitable[None]]


async def serve_matches(
    config: ServeConfig,
    on_listening: Callable[[int], None],
    on_match: Callable[[MatchOutcome], None],
    stop: trio.Event | None = None,
    companion: Companion | None = None,
) -> None:
    """Serve until `config.matches` were played, or `stop` is set, or a SIGINT/SIGTERM.

    `companion(view, wing, task_status=...)`, if given, runs beside the referee on its loop (the
    web site) with a `RefereeView` and, in a contest with accounts, its hosted wing (the site's
    desk for authors; else None); the referee waits for it to start before it listens for bots, and
    cancels it when it stops (a contest that played its `config.matches` keeps it up until a
    SIGINT or SIGTERM, to show the final standings and the revealed seed)."""
    open_files = raise_open_files()
    if open_files != resource.RLIM_INFINITY and open_files < FEW_OPEN_FILES:
        log.warning(
            "few open files allowed: about one a match is needed (ulimit -n)",
            extra={"open_files": open_files},
        )
    accounts = TokenStore(config.tokens) if config.tokens is not None else None
    book = (
        ContestBook(config.tokens, config.game, config.options)
        if config.tokens is not None
        else None
    )
    referee = _NetworkContest(config, accounts, book, on_match)
    stop = stop if stop is not None else trio.Event()
    async with trio.open_nursery() as beside:
        if companion is not None:
            await beside.start(companion, referee.view, referee.wing)
        try:
            await referee.serve(on_listening, stop)
        finally:
            if book is not None:
                # A contest that played all its matches is over: reveal its seed. One that was
                # stopped may resume on the same database, so its seed stays secret.
                book.close(reveal=not stop.is_set() and config.matches is not None)
        if companion is not None and not stop.is_set():
            # Over, not stopped: the site stays up with the final standings and the revealed
            # seed until a SIGINT or SIGTERM.
            referee.view.notify()
            log.info("contest over: the web site stays up until SIGINT or SIGTERM")
            async with trio.open_nursery() as waiting:
                waiting.start_soon(_stop_on_signals, stop)
                await stop.wait()
                waiting.cancel_scope.cancel()
        beside.cancel_scope.cancel()


class _NetworkContest:
    """The network contest: its lobby, live matches, contest book, and the matches it plays;
    with accounts, its hosted wing (referee.contest.hosted_wing) beside it."""

    def __init__(
        self,
        config: ServeConfig,
        accounts: TokenStore | None,
        book: ContestBook | None,
        on_match: Callable[[MatchOutcome], None],
    ) -> None:
        self.config = config
        self.accounts = accounts
        self.book = book
        self.on_match = on_match
        self.lobby = Lobby(
            open_access=accounts is None,
            shared=True,
            authenticate=accounts.lookup if accounts is not None else None,
            explain_refusal=accounts.refusal if accounts is not None else None,
            games=frozenset({config.game.id}),
        )
        self.live = LiveMatches()
        self.pacing = Pacing(config.max_lead, config.reconnect_grace) if book is not None else None
        #: How long the last matches here took (seconds): how long a bot waits for a rematch.
        self.took: deque[float] = deque(maxlen=RECENT_MATCHES)
        self.control = ServerControl()
        self.seats = config.game.seat_count(config.options)
        planned = config.matches
        if planned is not None and book is not None:  # a total, over every run of it
            planned = max(0, planned - book.committed)
        #: The matches still to start, here and on a cluster.
        self.starts = Starts(planned)
        #: No table sits down before this (trio time): see RECORD_FAILURE_PAUSE_SECONDS.
        self.resume_at = -math.inf
        self.records = config.records
        if self.records is None and config.tokens is not None:
            self.records = config.tokens.with_name(config.tokens.stem + "-records")
        self.view = RefereeView(
            Kind.CONTEST,
            config.game,
            config.options,
            self.live,
            database=config.tokens,
            versions=config.version_store,
            planned=config.matches,
            connected=self.presence,
            terms=Terms(
                config.time_control,
                config.max_faults,
                config.reconnect_grace,
                config.max_matches_per_session,
                Limits() if config.version_store is not None else None,
            ),
        )
        #: The hosted bots: a contest with accounts (`--db`).
        self.wing: HostedWing | None = None
        if accounts is not None and book is not None and self.records is not None:
            self.wing = HostedWing(
                config,
                accounts,
                book,
                self.records,
                self.cluster_committed,
                self.live,
                self.challenge_ranked,
            )

    def cluster_committed(self, outcome: MatchOutcome) -> None:
        """A match of the hosted versions, played on the cluster, was committed."""
        self.view.notify()
        self.on_match(outcome)

    def challenge_ranked(self, outcome: MatchOutcome) -> None:
        """A ranked challenge's match was committed: the standings move, and the site with them."""
        assert self.book is not None
        self.book.refresh_ratings()
        self.view.notify()

    def presence(self) -> dict[str, Presence]:
        playing: Counter[str] = Counter()
        for bots in self.view.tables.values():
            playing.update(set(bots))
        return {
            bot: Presence(self.lobby.active(bot), playing[bot])
            for bot in sorted({*self.lobby.by_identity, *playing})
        }

    async def serve(self, on_listening: Callable[[int], None], stop: trio.Event) -> None:
        config = self.config
        wing = self.wing
        desk = wing.desk if wing is not None else None
        counter = wing.challenges.desk if wing is not None and wing.challenges else None
        async with (
            serve(
                self.lobby,
                config.settings,
                self.live,
                self.control,
                desk,
                self.accounts,
                counter,
            ) as port,
            trio.open_nursery() as aux,
        ):
            await aux.start(_stop_on_signals, stop)  # before anyone is told where it listens
            if wing is not None:
                await wing.start(aux, self.lobby, port)
            on_listening(port)
            if self.accounts is not None:
                aux.start_soon(_enforce_revocations, self.accounts, self.lobby, self.view.revoked)
            async with trio.open_nursery() as matches:
                if wing is not None and self.pacing is not None:
                    wing.play_on_cluster(matches, self.pacing, self.starts, self.view, stop)
                with trio.CancelScope() as matchmaking:
                    aux.start_soon(_cancel_when, stop, matchmaking)
                    aux.start_soon(_cancel_when, self.starts.over, matchmaking)
                    await self.matchmake(matches)
                if stop.is_set():
                    log.info("draining", extra={"seconds": config.drain_seconds})
                    await self.control.drain()
                    matches.cancel_scope.deadline = trio.current_time() + config.drain_seconds
            reason = "the referee is shutting down" if stop.is_set() else "the referee is done"
            self.lobby.end_all(reason)
            aux.cancel_scope.cancel()

    async def matchmake(self, matches: trio.Nursery) -> None:
        """Seat tables as bots become idle, until `config.matches` have started (here and on a
        cluster)."""
        idle: list[Session] = []
        #: When each idle session came back (trio time): a bot waits a little for an opponent
        #: it has met less often (referee.contest.pairing.REMATCH_WAIT_SECONDS).
        since: dict[int, float] = {}
        poll = PACING_POLL_SECONDS if self.pacing is not None else math.inf
        while not self.starts.over.is_set():
            while True:
                # Before each choice: a table may have been given up while this one waited.
                await trio.sleep_until(self.resume_at)
                while (session := self.lobby.take_nowait()) is not None:
                    idle.append(session)
                idle = [s for s in idle if self.lobby.wanted(s)]
                now = trio.current_time()
                since = {id(s): since.get(id(s), now) for s in idle}
                ratings = self.book.ratings if self.book is not None else {}
                meetings = self.book.meetings if self.book is not None else Counter()
                if self.pacing is not None:
                    here = [bot for bot, p in self.presence().items() if p.sessions or p.playing]
                    self.pacing.observe(here, trio.current_time())
                settled = self.book.settled if self.book is not None else frozenset()
                # A contest on a cluster: its hosted versions play there, never at these tables.
                elsewhere = self.wing.elsewhere() if self.wing is not None else frozenset()
                table = choose_table(
                    idle,
                    self.seats,
                    ratings,
                    meetings,
                    self.pacing,
                    settled,
                    elsewhere,
                    waited=functools.partial(_waited, since),
                    patience=rematch_wait(self.took),
                )
                if table is not None:
                    break
                with trio.move_on_after(poll):
                    idle.append(await self.lobby.take(ANYONE))
            index = self.starts.take()
            if index is None:
                return
            for session in table:
                idle.remove(session)
            if self.book is not None:  # each bot in the seat it has sat in least
                order = seat_order([s.identity for s in table], self.book.seated)
                table = [table[i] for i in order]
            if self.pacing is not None:
                self.pacing.seated(s.identity for s in table)
            matches.start_soon(self.play, index, table)

    async def play(self, index: int, sessions: list[Session]) -> None:
        pinned = self.wing.pinned(sessions) if self.wing is not None else contextlib.nullcontext()
        async with pinned:
            await self._play(index, sessions)

    async def _play(self, index: int, sessions: list[Session]) -> None:
        config = self.config
        bots = [s.identity for s in sessions]
        if self.book is not None:
            scheduled = await trio.to_thread.run_sync(self.book.seat, bots)
            match_id, seed = f"contest-{scheduled.number:05d}", scheduled.seed
        else:
            match_id, seed = f"{config.game.id}-{index:05d}", derive_seed(config.seed, index)
        path = self.records / f"{match_id}.jsonl" if self.records is not None else None
        names = [account_name(s) for s in sessions] if self.accounts is not None else None
        log.info("match started", extra={"match": match_id, "bots": [s.account for s in sessions]})
        started = trio.current_time()
        self.view.tables[match_id] = bots
        grace = config.reconnect_grace
        try:
            async with (
                (
                    self.wing.output(bots, match_id, lambda: self.live.get(match_id))
                    if self.wing is not None
                    else contextlib.nullcontext()
                ),
                seated(sessions, self.lobby, grace=grace, names=names, leave=self.release) as seats,
            ):
                outcome = await play_match(
                    config, seats, seed=seed, match_id=match_id, record=path, live=self.live
                )
        except RecordWriteError as error:
            self.give_up(match_id, error)
            return
        finally:
            del self.view.tables[match_id]
        if self.book is not None:
            seconds = trio.current_time() - started
            self.took.append(seconds)
            outcome = await trio.to_thread.run_sync(self.book.commit, scheduled, outcome, seconds)
            await trio.to_thread.run_sync(self.book.refresh_ratings)
            self.view.notify()
        log.info("match over", extra={"match": match_id, "result": outcome.result.text})
        self.on_match(outcome)

    def give_up(self, match_id: str, error: RecordWriteError) -> None:
        """A table whose record cannot be written ends there, and only it: the other matches
        play on, its bots go back to the lobby, and it is not committed (its schedule row stays
        without a result, as a match cut short by a stop does). Tables pause a moment."""
        log.error(
            "match given up",
            extra={"match": match_id, "why": f"its record cannot be written: {error}"},
        )
        self.resume_at = trio.current_time() + RECORD_FAILURE_PAUSE_SECONDS

    def release(self, session: Session) -> None:
        """Back to the lobby after a match, unless the session reached its match limit."""
        session.matches_played += 1
        limit = self.config.max_matches_per_session
        if limit is not None and session.matches_played >= limit:
            session.end(
                f"match limit: {limit} matches per session; open a new session to play on",
                "RESOURCE_EXHAUSTED",
            )
        else:
            self.lobby.give_back(session)


#: Matches whose length sets the rematch wait (referee.contest.pairing.rematch_wait).
RECENT_MATCHES = 32


def _waited(since: dict[int, float], session: Session) -> float:
    """How long `session` has been idle, `since` holding when each idle session came back."""
    return trio.current_time() - since[id(session)]


def account_name(session: Session) -> str:
    """A contest's name for a seat: the account, which a bot cannot choose, and beside it the
    bot's own Hello.name if that differs ("alice (random)"), never instead of it."""
    if session.hello.name and session.name != session.account:
        return f"{session.account} ({session.name})"
    return session.account


async def _stop_on_signals(
    stop: trio.Event, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            stop.set()
            return


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _enforce_revocations(store: TokenStore, lobby: Lobby, enforced: set[str]) -> None:
    """A revoked team's sessions end at once, mid-match too (its seats then fault), and so do
    a revoked member's token's, the team's others playing on. `enforced` (the revoked teams) is
    kept up to date for the referee's companions."""
    while True:
        revoked = await trio.to_thread.run_sync(store.revoked)
        for name in revoked - enforced:
            log.info("token revoked", extra={"bot": name})
            lobby.revoke(name, "token revoked")
        enforced.clear()
        enforced.update(revoked)
        # One member's token (removed from the team, or replaced): their sessions alone.
        tokens = await trio.to_thread.run_sync(store.revoked_tokens)
        if ended := lobby.revoke_tokens(tokens):
            log.info("member token revoked", extra={"sessions": ended})
        await trio.sleep(REVOCATION_POLL_SECONDS)
