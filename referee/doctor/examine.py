"""The bot doctor: a conformance check a bot author runs before a contest.

`croupier doctor --game G -- CMD...` launches the bot as a contest does (CROUPIER_ADDRESS,
CROUPIER_TOKEN and CROUPIER_SESSIONS, 2 by default, in its environment; through the supervisor
a ladder runs its bots with, referee.local.launcher), serves it a referee on a
loopback port, seats it against in-process random bots in every seat in turn, drops its
connection in the middle of a match to see it come back, seats its sessions together in one
match (a bot that handles only one session would stall a ladder), and finally says Goodbye.
Each check passes or fails with advice; a check that an earlier failure makes impossible is
skipped, which fails the run too. The checks run as `STEPS`, a list of step functions over the
doctor's state (`_Doctor`: the lobby, the bot's process, what it played), which `examine` takes.

The reconnect: while the bot's second request of a match is pending, the doctor ends its stream
with UNAVAILABLE, as a network drop would. The seat waits (up to the connect timeout, which is
added to that match's bank so the wait cannot time the bot out); the bot passes when a new
session with the same token takes the seat back (MatchStart again, then the pending request)
and finishes the match, whether it reconnected by itself or exited and was restarted, as the
contest launcher restarts a bot; the report says which (a remote bot has no launcher).
"""

from __future__ import annotations

import math
import os
import shlex
import statistics
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from croupier.bots import RandomBot
from croupier.v1 import common_pb2, referee_pb2
from referee import transport
from referee.doctor.checks import (
    EXITED_ADVICE,
    LOST_ADVICE,
    Check,
    CheckName,
    DoctorConfig,
    DoctorReport,
    Status,
)
from referee.local.bot_root import bot_paths
from referee.local.launcher import BotProcess, LaunchError, log_tail, supervise
from referee.local.sandbox import (
    Sandbox,
    check_bwrap,
    refusals,
    socket_folder,
)
from referee.match.bounds import MAX_TIME_MS
from referee.match.clock import DecisionTimer, TimeControl
from referee.match.lobby import PROTOCOL_VERSION, Lobby
from referee.match.remote_seat import CRASH_GRACE_SECONDS, RemoteSeat
from referee.match.runner import MatchOutcome
from referee.match.seating import play_match, seated
from referee.match.seats import InProcessSeat, Seat
from referee.match.seeds import derive_seed
from referee.match.session import Ending, Session, protocol_of
from referee.match.wire import WireRequest
from referee.text import plural
from referee.transport import ServerSettings

#: A bot that keeps exiting is restarted at most this often in one doctor run.
MAX_RESTARTS = 10
#: How long the doctor watches a session after MatchEnd to see whether the bot hangs up.
HANG_UP_WATCH_SECONDS = 0.5
#: The bot's request (1-based, within the reconnect match) during which its connection drops.
DROP_AT_REQUEST = 2
DROP_REASON = "the doctor dropped the connection to see the bot reconnect"

_PROTOCOL_REASONS = frozenset(
    {
        common_pb2.FAULT_REASON_MALFORMED_MESSAGE,
        common_pb2.FAULT_REASON_WRONG_REQUEST,
        common_pb2.FAULT_REASON_OUT_OF_TURN,
    }
)
_LOST_REASONS = frozenset({common_pb2.FAULT_REASON_CRASHED, common_pb2.FAULT_REASON_DISCONNECTED})


class _WatchingLobby(Lobby):
    """A lobby that also remembers every token presented, so a refused bot can be told why."""

    def __init__(self) -> None:
        super().__init__()
        self.presented: list[str] = []
        self.first_attempt = trio.Event()
        self._trio_token = trio.lowlevel.current_trio_token()

    def identity(self, token: str, door: str = "") -> str | None:
        # Called by the transport on the asyncio side: only plain Python here, then hop to trio.
        self.presented.append(token)
        self._trio_token.run_sync_soon(self.first_attempt.set)
        return super().identity(token, door)


@dataclass
class _Played:
    """One match the bot played, as the doctor saw it."""

    index: int
    seat: int
    session_id: str
    outcome: MatchOutcome
    replies_ms: list[float]
    hung_up: bool = False
    recovered_after: float | None = None

    def faults(self, reasons: frozenset[int] | None = None) -> list[common_pb2.Fault]:
        return [
            f
            for f in self.outcome.faults
            if f.seat == self.seat and (reasons is None or f.reason in reasons)
        ]


class _TimedSeat:
    """A remote seat that notes how long each answered decision took and, with `drop_at`, drops
    the bot's connection (UNAVAILABLE) as that decision's request goes out."""

    def __init__(
        self, inner: RemoteSeat, replies_ms: list[float], drop_at: int | None = None
    ) -> None:
        self.inner = inner
        self.replies_ms = replies_ms
        self.drop_at = drop_at
        self.requests = 0
        #: Seconds from the drop to the bot's answer to the pending request, once it answered.
        self.recovered_after: float | None = None

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def version(self) -> str:
        return self.inner.version

    @property
    def cores(self) -> tuple[int, ...]:
        return self.inner.cores

    async def start(self, start: referee_pb2.MatchStart) -> None:
        await self.inner.start(start)

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        await self.inner.end(end)

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        self.requests += 1
        started = trio.current_time()
        if self.requests == self.drop_at:
            self.inner.session.finish(Ending(DROP_REASON, "UNAVAILABLE"))
            index = await self.inner.act(request, timer)
            self.recovered_after = trio.current_time() - started
            return index
        index = await self.inner.act(request, timer)
        self.replies_ms.append((trio.current_time() - started) * 1000)
        return index


async def _first(timeout: float, *waits: Callable[[], Awaitable[object]]) -> bool:
    """Wait until the first of `waits` returns (the others are cancelled); False on timeout."""
    with trio.move_on_after(timeout):
        async with trio.open_nursery() as nursery:

            async def one(wait: Callable[[], Awaitable[object]]) -> None:
                await wait()
                nursery.cancel_scope.cancel()

            for wait in waits:
                nursery.start_soon(one, wait)
        return True
    return False


class _Doctor:
    def __init__(self, config: DoctorConfig, steps: Sequence[Step]) -> None:
        self.config = config
        self.steps = steps
        self.lobby = _WatchingLobby()
        self.token = f"doctor-{os.urandom(8).hex()}"
        self.lobby.admit(self.token)
        config.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = config.workdir / "bot.log"
        self.log_path.write_bytes(b"")
        self.sandbox = Sandbox(
            enabled=config.sandbox,
            secrets=(config.workdir, *config.secrets),
            runtime=config.runtime,
        )
        self.bot = BotProcess(
            command=shlex.join(config.argv),
            token=self.token,
            log_path=self.log_path,
            sessions=config.sessions,
            max_restarts=0,  # until the bot has connected (see _run)
            env=dict(config.env),
            limits=config.limits,
            sandbox=self.sandbox,
            cwd=config.cwd,
            own_folder=config.cwd is not None,
            confined=config.confined,
        )
        #: Set when the doctor is done with the bot (Goodbye): it is not restarted after that.
        self.stopping = trio.Event()
        #: Set when the bot's process has exited and will not be restarted.
        self.gone = trio.Event()
        #: Why the bot's first process could not start.
        self.launch_error = ""
        self.checks: dict[CheckName, Check] = {}
        self.played: list[_Played] = []
        self.session: Session | None = None
        self.refused: list[str] = []
        self.sandboxed = False
        #: The bot's own folders the sandbox showed it (its folder, a script named outside it).
        self.shown: tuple[Path, ...] = ()

    def note(self, name: CheckName, status: Status, detail: str, hint: str = "") -> None:
        self.checks[name] = Check(name, status, detail, hint)

    def report(self) -> DoctorReport:
        checks = [
            self.checks.get(name, Check(name, Status.SKIP, "not run: an earlier check failed"))
            for name in CheckName
        ]
        shown = () if self.config.confined else self.shown  # a hosted version: its folder
        return DoctorReport(checks, self.log_path, self.refused, self.sandboxed, shown)

    async def next_session(self, timeout: float) -> Session | None:
        """The bot's next idle session, or None if it does not come (or its process is gone)."""
        found: list[Session] = []

        async def take() -> None:
            found.append(await self.lobby.take(self.token))

        await _first(timeout, take, self.gone.wait)
        return found[0] if found else None

    def exit_detail(self) -> str:
        if self.bot.exit_codes:
            return f"the process exited with code {self.bot.exit_codes[-1]}"
        return "the process is still running"

    async def keep_running(
        self, address: str, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """The bot under the launcher's supervisor, as a ladder runs it, until the doctor is
        done with it; `gone` once its process is over for good. The goodbye check times the
        bot's exit, so the supervisor waits for it without end (cancelled, it kills the bot)."""
        try:
            await supervise(
                self.bot,
                address,
                self.lobby,
                self.stopping,
                exit_grace=math.inf,
                task_status=task_status,
            )
        except LaunchError as error:  # it cannot start, or keeps exiting: the checks say so
            self.launch_error = error.problem
            if self.bot.pid is None:  # its first process never started
                task_status.started()
        finally:
            self.gone.set()

    async def run(self, nursery: trio.Nursery) -> None:
        with socket_folder() as folder:
            self.sandbox = self.bot.sandbox = replace(self.sandbox, socket_dir=folder)
            await self._run(nursery)
            self.note_sandbox()

    def note_sandbox(self) -> None:
        """What the bot asked for that the sandbox refused, from its output."""
        started = self.checks.get(CheckName.STARTS)
        if self.sandbox.enabled and started is not None and started.status is Status.PASS:
            self.sandboxed = True
            config = self.config
            here = (config.cwd or Path.cwd()).resolve()
            own = config.cwd is not None or config.confined
            self.shown = tuple(bot_paths(config.argv, here, own=own, confined=config.confined))
            self.refused = refusals(log_tail(self.log_path, 400), self.shown)

    async def _run(self, nursery: trio.Nursery) -> None:
        settings = ServerSettings(grace_seconds=0)
        async with transport.serve(self.lobby, settings) as port:
            await nursery.start(self.keep_running, f"127.0.0.1:{port}")
            for step in self.steps:
                if not await step.run(self):
                    return

    def passed(self, name: CheckName) -> bool:
        check = self.checks.get(name)
        return check is not None and check.status is Status.PASS

    async def connect(self) -> bool:
        config = self.config
        launched = trio.current_time()
        if not await _first(config.connect_timeout, self.lobby.first_attempt.wait, self.gone.wait):
            self.note(
                CheckName.CONNECTS,
                Status.FAIL,
                f"no Play call within {config.connect_timeout:g} s; {self.exit_detail()}",
            )
            return False
        if not self.lobby.presented:
            self.note(
                CheckName.CONNECTS,
                Status.FAIL,
                f"{self.exit_detail()} before calling Play",
                EXITED_ADVICE,
            )
            return False
        self.note(
            CheckName.CONNECTS,
            Status.PASS,
            f"a Play call arrived {trio.current_time() - launched:.2f} s after launch",
        )
        left = max(config.connect_timeout - (trio.current_time() - launched), 0.1)
        session = await self.next_session(left)
        if session is None:
            wrong = [token for token in self.lobby.presented if token != self.token]
            if wrong:
                shown = repr(wrong[0]) if wrong[0] else "no 'authorization: Bearer' metadata"
                detail = f"refused: the bot presented {shown}, not CROUPIER_TOKEN"
            else:
                detail = "the token was right, but no Hello came as the stream's first message"
            self.note(CheckName.AUTHENTICATES, Status.FAIL, f"{detail}; {self.exit_detail()}")
            return False
        self.session = session
        self.note(
            CheckName.AUTHENTICATES,
            Status.PASS,
            f"token accepted and Hello received: session {session.id}",
        )
        self.check_hello(session.hello)
        return True

    def check_hello(self, hello: referee_pb2.Hello) -> None:
        game = self.config.game.id
        name = repr(hello.name) if hello.name else "no name (shown as 'bot')"
        plays = ", ".join(hello.games) if hello.games else "any game"
        detail = f"name {name}, version {hello.version!r}, plays {plays}"
        protocol = protocol_of(hello)
        older = ""
        if protocol < PROTOCOL_VERSION:  # served, with that version's meaning; say so
            declared = protocol if hello.HasField("protocol_version") else "unset"
            older = (
                f"; speaks protocol version {protocol} (Hello.protocol_version {declared}): "
                f"served as such, but set it to {PROTOCOL_VERSION} (docs/bots.md, 'Protocol "
                "versions')"
            )
        listed = self.config.declared
        undeclared = [other for other in hello.games if listed and other not in listed]
        if hello.games and game not in hello.games:
            self.note(CheckName.HELLO, Status.FAIL, f"{detail}: not {game!r}{older}")
        elif undeclared:
            self.note(
                CheckName.HELLO,
                Status.FAIL,
                f"{detail}: {undeclared[0]!r} is not among the games bot.toml declares "
                f"({', '.join(listed)}){older}",
                "declare in bot.toml's games every game Hello.games names, or leave "
                "Hello.games empty",
            )
        else:
            self.note(CheckName.HELLO, Status.PASS, detail + older)

    async def play_one(self, index: int, session: Session, *, drop: bool = False) -> _Played:
        """One match with the bot in seat `index % seats`; with `drop`, its connection drops in
        the middle, and it has the connect timeout, as extra bank too, to take its seat back."""
        config = self.config
        seats = config.game.seat_count(config.options)
        seat = index % seats
        replies: list[float] = []
        players = self.random_players(index)
        control = config.time_control
        grace = 0.0
        if drop:
            grace = config.connect_timeout
            # The wait for the bot (and for news of its process) must not time it out.
            extra = round((grace + CRASH_GRACE_SECONDS + 1) * 1000)
            control = TimeControl(control.move_ms, min(control.bank_ms + extra, MAX_TIME_MS))
        # The doctor keeps the session for its next match (a bot plays them all on one).
        async with seated([session], self.lobby, grace=grace, leave=_kept) as (remote,):
            timed = _TimedSeat(remote, replies, DROP_AT_REQUEST if drop else None)
            players[seat] = timed
            outcome = await self.play_match(index, players, control)
        if drop:  # the session that took the seat back waits for the next match
            await self.settle(remote.session)
            self.lobby.give_back(remote.session)
        played = _Played(index, seat, remote.session.id, outcome, replies)
        played.recovered_after = timed.recovered_after
        return played

    def random_players(self, index: int) -> list[Seat]:
        """Random bots in every seat of match `index`, for the bot's sessions to replace."""
        config = self.config
        return [
            InProcessSeat(RandomBot(seed=derive_seed(config.seed, index) + other), "random")
            for other in range(config.game.seat_count(config.options))
        ]

    async def play_match(
        self, index: int, players: list[Seat], control: TimeControl | None = None
    ) -> MatchOutcome:
        """Match `index` among `players`, its record in the doctor's folder."""
        match_id = f"{self.config.game.id}-doctor-{index:02d}"
        return await play_match(
            self.config,
            players,
            seed=derive_seed(self.config.seed, index),
            match_id=match_id,
            record=self.config.workdir / f"{match_id}.jsonl",
            time_control=control,
        )

    async def watch_hang_up(self, session: Session) -> None:
        with trio.move_on_after(HANG_UP_WATCH_SECONDS):
            await session.closed.wait()

    async def settle(self, session: Session) -> None:
        """A bot that hung up after match 1 is watched after every match, so that no later check
        is handed a session about to close (which would blame the bot for a crash by chance)."""
        if self.played and self.played[0].hung_up:
            await self.watch_hang_up(session)

    async def play_matches(self) -> None:
        config = self.config
        count = config.match_count()
        session = self.session
        assert session is not None
        for index in range(count):
            if index > 0 and session.closed.is_set():  # else keep to the one session
                found = await self.next_session(config.connect_timeout)
                if found is None:
                    break
                session = found
            played = await self.play_one(index, session)
            if index == 0:
                await self.watch_hang_up(session)
                played.hung_up = session.closed.is_set()
            else:
                await self.settle(session)
            self.played.append(played)
        self.lobby.give_back(session)
        self.session = session
        self.check_cycle()
        self.check_several(count)

    def check_cycle(self) -> None:
        first = self.played[0]
        lost = first.faults(_LOST_REASONS)
        if lost:
            detail = f"lost in match 1: {_describe(first, lost[0])}"
            self.note(CheckName.MATCH_CYCLE, Status.FAIL, detail, LOST_ADVICE)
            return
        if first.hung_up:
            detail = f"the bot closed its session right after MatchEnd; {self.exit_detail()}"
        else:
            decisions = len(first.replies_ms)
            self.note(
                CheckName.MATCH_CYCLE,
                Status.PASS,
                f"match 1 went from MatchStart through {decisions} decisions to MatchEnd, "
                "and the session stayed open",
            )
            return
        self.note(CheckName.MATCH_CYCLE, Status.FAIL, detail)

    def check_several(self, count: int) -> None:
        played = self.played
        seats = ", ".join(str(p.seat) for p in played)
        sessions = sorted({p.session_id for p in played})
        problems = [
            f"lost in match {p.index + 1}: {_describe(p, lost[0])}"
            for p in played
            if (lost := p.faults(_LOST_REASONS))
        ]
        hint = LOST_ADVICE if problems else ""
        if len(played) < count:
            problems.append(
                f"only {len(played)} of {count} matches were played: the bot did not come back "
                f"within {self.config.connect_timeout:g} s ({self.exit_detail()})"
            )
        if len(sessions) > 1:
            problems.append(
                f"it needed {len(sessions)} sessions for {plural(len(played), 'match', 'matches')}"
            )
        if problems:
            self.note(CheckName.SEVERAL_MATCHES, Status.FAIL, "; ".join(problems), hint)
        else:
            self.note(
                CheckName.SEVERAL_MATCHES,
                Status.PASS,
                f"{plural(len(played), 'match', 'matches')} on one session, in seats {seats}",
            )

    async def reconnect(self) -> None:
        session = await self.next_session(self.config.connect_timeout)
        if session is None:
            return  # the bot is gone: "several matches" says why
        restarts = self.bot.restarts
        exits = len(self.bot.exit_codes)
        played = await self.play_one(len(self.played), session, drop=True)
        if played.recovered_after is None:
            faults = played.faults()
            why = _describe(played, faults[0]) if faults else "the match ended before the drop"
            self.note(
                CheckName.RECONNECT,
                Status.FAIL,
                "the bot did not take its seat back and answer the request pending at the drop "
                f"(given {self.config.connect_timeout:g} s); its first fault in that match: "
                f"{why}; {self.exit_detail()}",
            )
            return  # what follows the drop is no evidence about time or legality
        self.played.append(played)
        restarted = self.bot.restarts > restarts
        if restarted:
            how = (
                "the bot did not reconnect by itself: it exited "
                f"(code {self.bot.exit_codes[exits]}), the doctor restarted it, and it"
            )
        else:
            how = "the bot reconnected by itself and"
        lost = played.faults(_LOST_REASONS)
        if lost:
            self.note(
                CheckName.RECONNECT,
                Status.FAIL,
                f"{how} answered the pending request, but was lost later: "
                f"{_describe(played, lost[0])}",
                LOST_ADVICE,
            )
            return
        after = (
            "; a ladder and `croupier match` restart a bot so, but against `croupier serve` "
            "nothing does: reconnect in the bot (both SDKs do) or have your supervisor "
            "restart it within the reconnect grace"
            if restarted
            else ""
        )
        self.note(
            CheckName.RECONNECT,
            Status.PASS,
            f"dropped during request {DROP_AT_REQUEST} of a match: {how} answered the pending "
            f"request {played.recovered_after:.2f} s later, then finished the match{after}",
        )

    async def several_sessions(self) -> None:
        """CROUPIER_SESSIONS sessions open at once, seated together in one match."""
        config = self.config
        wanted = config.sessions
        sessions: list[Session] = []
        waited = trio.current_time()
        while len(sessions) < wanted:
            left = config.connect_timeout - (trio.current_time() - waited)
            found = await self.next_session(max(left, 0.1)) if left > 0 else None
            if found is None:
                break
            if found not in sessions:
                sessions.append(found)
        for session in sessions:
            self.lobby.give_back(session)
        if len(sessions) < wanted:
            self.note(
                CheckName.SESSIONS,
                Status.FAIL,
                f"only {len(sessions)} of CROUPIER_SESSIONS={wanted} sessions were open at once "
                f"within {config.connect_timeout:g} s; {self.exit_detail()}",
            )
            return
        taken = [await self.lobby.take(self.token) for _ in sessions]
        seats = config.game.seat_count(config.options)
        index = len(self.played) + 1
        players = self.random_players(index)
        async with seated(taken[:seats], self.lobby) as remote:
            players[: len(remote)] = remote
            outcome = await self.play_match(index, players)
        for session in taken[seats:]:
            self.lobby.give_back(session)
        lost = [f for f in outcome.faults if f.seat < len(remote) and f.reason in _LOST_REASONS]
        if lost:
            detail = (
                f"{len(remote)} sessions in one match, but one was lost: "
                f"{_describe(_Played(index, 0, '', outcome, []), lost[0])}"
            )
            self.note(CheckName.SESSIONS, Status.FAIL, detail, LOST_ADVICE)
            # Give a restarted bot its chance to come back, so that Goodbye can still be checked.
            if (back := await self.next_session(config.connect_timeout)) is not None:
                self.lobby.give_back(back)
            return
        in_seats = ", ".join(str(seat) for seat in range(len(remote)))
        self.note(
            CheckName.SESSIONS,
            Status.PASS,
            f"{wanted} sessions open at once (CROUPIER_SESSIONS={wanted}); in seats {in_seats} of "
            "one match they played it to the end",
        )

    async def goodbye(self) -> None:
        self.stopping.set()
        if self.lobby.active(self.token) == 0:
            self.note(CheckName.GOODBYE, Status.SKIP, "the bot has no open session to end")
            return
        said = trio.current_time()
        self.lobby.end_all("the doctor is done")
        with trio.move_on_after(self.config.goodbye_grace):
            await self.gone.wait()
        if not self.gone.is_set():
            self.note(
                CheckName.GOODBYE,
                Status.FAIL,
                f"still running {self.config.goodbye_grace:g} s after Goodbye; a contest kills it",
            )
            return
        code = self.bot.exit_codes[-1]
        took = trio.current_time() - said
        status = Status.PASS if code == 0 else Status.FAIL
        self.note(CheckName.GOODBYE, status, f"exited with code {code}, {took:.2f} s after Goodbye")

    def finish_stats(self) -> None:
        """Time, legality and protocol, over every decision of every match played."""
        if not self.played:
            return
        replies = [ms for p in self.played for ms in p.replies_ms]
        faults = [(p, f) for p in self.played for f in p.faults()]
        self.check_time(replies, faults)
        illegal = [pf for pf in faults if pf[1].reason == common_pb2.FAULT_REASON_ILLEGAL_ACTION]
        decisions = len(replies) + len(faults)
        if illegal:
            self.note(
                CheckName.LEGAL_ACTIONS,
                Status.FAIL,
                f"{len(illegal)} of {decisions} replies named no legal action, e.g. "
                f"{_describe(*illegal[0])}",
            )
        else:
            self.note(
                CheckName.LEGAL_ACTIONS, Status.PASS, f"{decisions} decisions, every index legal"
            )
        wrong = [pf for pf in faults if pf[1].reason in _PROTOCOL_REASONS]
        if wrong:
            self.note(
                CheckName.PROTOCOL,
                Status.FAIL,
                f"{len(wrong)} bad replies, e.g. {_describe(*wrong[0])}",
            )
        else:
            self.note(
                CheckName.PROTOCOL,
                Status.PASS,
                "one well-formed ActionReply per request, naming its match and request",
            )

    def check_time(
        self, replies: list[float], faults: list[tuple[_Played, common_pb2.Fault]]
    ) -> None:
        control = self.config.time_control
        late = [pf for pf in faults if pf[1].reason == common_pb2.FAULT_REASON_TIMEOUT]
        if late:
            decisions = len(replies) + len(faults)
            self.note(
                CheckName.TIME,
                Status.FAIL,
                f"{len(late)} of {decisions} decisions timed out, e.g. {_describe(*late[0])}",
            )
            return
        if not replies:
            self.note(CheckName.TIME, Status.SKIP, "the bot answered no request to time")
            return
        slowest, median = max(replies), statistics.median(replies)
        limit = (
            "no time limit (move 0 ms)"
            if control.unlimited
            else f"a budget of {control.move_ms} ms per decision plus a {control.bank_ms} ms bank"
        )
        self.note(
            CheckName.TIME,
            Status.PASS,
            f"{len(replies)} replies, median {median:.1f} ms, slowest {slowest:.1f} ms, "
            f"against {limit}",
        )


def _kept(session: Session) -> None:
    """After a match, the doctor keeps the session: it plays the next match on it too."""


def _describe(played: _Played, fault: common_pb2.Fault) -> str:
    """A fault as its author reads it: where in which match, as the records number them (the
    request id is the referee's own counter: "request 19349" in a contest's qualification)."""
    reason = common_pb2.FaultReason.Name(fault.reason).removeprefix("FAULT_REASON_").lower()
    match = f"match {played.index + 1}"
    decision = played.outcome.decisions.get(fault.request_id)
    where = f"decision {decision} of {match}" if decision is not None else match
    return f"{reason}: {fault.detail} ({where})"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the examination: the checks it notes, and how. `run` returns False when no
    step after it can run (their checks are then skipped, which fails the run)."""

    checks: tuple[CheckName, ...]
    run: Callable[[_Doctor], Awaitable[bool]]


async def _starts(doctor: _Doctor) -> bool:
    if doctor.bot.pid is None:
        doctor.note(CheckName.STARTS, Status.FAIL, f"cannot start: {doctor.launch_error}")
        return False
    doctor.note(CheckName.STARTS, Status.PASS, f"process {doctor.bot.pid} started")
    return True


async def _connects(doctor: _Doctor) -> bool:
    return await doctor.connect()


async def _plays(doctor: _Doctor) -> bool:
    doctor.bot.max_restarts = MAX_RESTARTS  # from now on, as the contest launcher does
    await doctor.play_matches()
    return True


async def _reconnects(doctor: _Doctor) -> bool:
    if len(doctor.played) == doctor.config.match_count():  # else the bot is gone already
        await doctor.reconnect()
    return True


async def _sessions(doctor: _Doctor) -> bool:
    if doctor.passed(CheckName.RECONNECT):  # a bot that cannot come back cannot be counted
        await doctor.several_sessions()
    return True


async def _goodbye(doctor: _Doctor) -> bool:
    await doctor.goodbye()
    return True


#: Every step, in the order they run (the time, legality and protocol checks are made after
#: them, over every decision of every match played).
STEPS: tuple[Step, ...] = (
    Step((CheckName.STARTS,), _starts),
    Step((CheckName.CONNECTS, CheckName.AUTHENTICATES, CheckName.HELLO), _connects),
    Step((CheckName.MATCH_CYCLE, CheckName.SEVERAL_MATCHES), _plays),
    Step((CheckName.RECONNECT,), _reconnects),
    Step((CheckName.SESSIONS,), _sessions),
    Step((CheckName.GOODBYE,), _goodbye),
)


async def examine(config: DoctorConfig, steps: Sequence[Step] = STEPS) -> DoctorReport:
    """Run `steps` (by default every check) on the bot; never raises for the bot's mistakes,
    only for ours. A check of no step given is reported skipped."""
    if config.sandbox:
        check_bwrap()  # a clear error (how to install it) before anything starts
    doctor = _Doctor(config, steps)
    async with trio.open_nursery() as nursery:
        try:
            await doctor.run(nursery)
        finally:
            nursery.cancel_scope.cancel()  # the bot's process group is killed
    doctor.finish_stats()
    return doctor.report()
