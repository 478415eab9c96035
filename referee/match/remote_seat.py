"""The remote seat: a bot that plays over its session, as the runner's `Seat`.

It sends requests and waits for replies; what time the bot pays for, and when its time is up, is
the decision's clock (`referee.match.clock.DecisionTimer`), which the seat feeds with what it
learns (the bot's process counts, whether a message is still on its way) and ends when it is up.
The runner judges. The seat keeps one thing of its own: whether its bot is there (`SeatState`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Protocol, TypeAlias

import trio

from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import DecisionTimer
from referee.match.launched import LaunchedBot
from referee.match.seats import SeatFault
from referee.match.session import Closed, Inbound, Session, decode
from referee.match.wire import WireRequest

#: How long a seat whose stream closed waits to learn whether its process died (a crash) rather
#: than only its connection (a disconnect). 0.5 s was too short on a loaded machine, where the
#: stream closes seconds before the process is seen to exit (issue 50).
CRASH_GRACE_SECONDS = 2.0

#: How long a seat waits for the launcher to say how a process it knows has exited ended (the
#: launcher reads the cgroup's counters and the log first): a crash is never called a disconnect.
EXIT_CAUSE_SECONDS = 30.0

#: How often a seat waiting for a process's exit looks again.
EXIT_POLL_SECONDS = 0.05

#: How often a seat whose bot's time is up looks whether the transport's loop has polled.
POLL_WAIT_SECONDS = 0.001


@dataclass(frozen=True, slots=True)
class Playing:
    """The bot is on its session, as far as the seat knows."""


@dataclass(frozen=True, slots=True)
class Gone:
    """The bot's session closed (`closed`, at trio time `at`): a reconnect may still make up
    for it. The grace periods count from `at`, across decisions, since the clock may cut a
    wait short. `charged`: the loss was charged its one fault already."""

    closed: Closed
    at: float
    charged: bool = False


@dataclass(frozen=True, slots=True)
class Lost:
    """The bot left for good, with this fault: every later request faults with it at once."""

    fault: SeatFault


#: Whether a remote seat's bot is there: playing, gone (and maybe coming back), or lost.
SeatState: TypeAlias = Playing | Gone | Lost


class SeatsInPlay(Protocol):
    """Where a seat in play is listed, so that its bot's new session finds it (a Lobby)."""

    def enlist(self, seat: RemoteSeat) -> None: ...

    def release(self, seat: RemoteSeat) -> None: ...


class _TimeUp(Exception):
    """The bot's time is up (`_end_if_up`): its seat's wait ends with no reply."""


class RemoteSeat:
    """A seat played by a bot over its session. Implements `referee.match.seats.Seat`.

    With a `lobby` and a `grace` period, a bot that loses its connection may come back with the
    same token within `grace` seconds: it gets the MatchStart again and the pending request, with
    what is left of its clock (which kept running). `session` is then the new session.
    """

    #: It keeps its waits within the runner's deadline itself (see seats.bounds_itself).
    bounds_its_wait = True

    def __init__(
        self, session: Session, lobby: SeatsInPlay | None = None, grace: float = 0.0
    ) -> None:
        self.session = session
        self.name = session.name
        self.version = session.hello.version
        self.lobby = lobby
        self.grace = grace
        self.state: SeatState = Playing()
        self._start: referee_pb2.MatchStart | None = None
        #: A new session of the bot, offered while its own is closed, until the seat takes it
        #: (at most one: more are the bot's other sessions), and the event that says it came.
        self._comeback: Session | None = None
        self._came_back = trio.Event()

    def offer(self, session: Session) -> bool:
        """A new session of this seat's bot: taken if the seat lost its own and may wait."""
        if self.grace <= 0 or not self.session.closed.is_set() or self._comeback is not None:
            return False
        self._comeback = session
        self._came_back.set()
        return True

    @property
    def meter(self) -> LaunchedBot | None:
        """The bot's launched process, if its CPU time can be read (see seats.metered)."""
        process = self.session.process
        return process if process is not None and process.cpu_seconds() is not None else None

    async def start(self, start: referee_pb2.MatchStart) -> None:
        self._start = start
        if self.lobby is not None and self.grace > 0:
            self.lobby.enlist(self)
        self.session.send(referee_pb2.RefereeMessage(match_start=start))
        if self.session.process is not None:
            self.session.process.idle()

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        if self.lobby is not None:
            self.lobby.release(self)
        if self.session.process is not None:
            self.session.process.release()  # between matches the bot may do as it likes
        comeback = self._take_comeback()
        if comeback is not None:
            # The bot came back after its last decision: it is simply free for the next match.
            self.session = comeback
            return
        self.session.send(referee_pb2.RefereeMessage(match_end=end))

    @property
    def cores(self) -> tuple[int, ...]:
        """The cores the bot's launched process is pinned to (see seats.pinned_cores)."""
        process = self.session.process
        return process.cores() if process is not None else ()

    @property
    def cause(self) -> SeatFault | None:
        """Why the pending request is still unanswered, if the bot was lost before its clock ran
        out: the runner records this rather than a timeout (see seats.cause_of_silence). Read
        once a decision: the first read of a loss charges it."""
        state = self.state
        if not isinstance(state, Gone):
            return None
        return self._cause_of_loss(
            state, final=not self._may_come_back(state) and self._known(state)
        )

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        """Send the request and wait for the reply. The bot's time runs from when the transport
        sends the request to when the reply arrives there (`timer`); this seat ends the wait
        when the timer says the time is up, and keeps every wait within the runner's deadline
        (`timer.deadline`), which bounds the referee's lag around it: None when the wait ended
        so (see seats.bounds_itself)."""
        if isinstance(self.state, Lost):
            raise self.state.fault
        timer.measure_at_transport()
        if isinstance(self.state, Playing):
            self._lost_connection(self._check_out_of_turn())
        process = self.session.process
        if process is not None:  # (a timer with no meter counts nothing: `count_to` neither)
            timer.count_from(process)
            process.to_move()
        try:
            self.session.timer = timer
            if isinstance(self.state, Gone):
                with trio.CancelScope(deadline=timer.deadline):
                    if not await self._reconnect(request, timer):
                        raise await self._lose()
                    return await self._reply_slowly(request, timer, None, timed_out=False)
                return None  # the runner's deadline
            self.session.send(request)
            return await self._reply(request, timer)
        except _TimeUp:
            return None
        finally:
            if process is not None:
                process.moved()
            timer.count_to()
            self.session.timer = None

    async def _reply(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        """The first wait for the reply, the decision's one cancel scope as a rule: until the
        bot's deadline or the runner's, whichever comes first. Anything else (a late reply to
        drop, a lost connection, a deadline that was not the bot's last) waits on in
        `_reply_slowly`, within the runner's deadline."""
        item: Inbound | None = None
        timed_out = False
        try:
            with trio.CancelScope(deadline=min(self._due(timer), timer.deadline)):
                item = await self.session.receive()
            if item is None:
                timed_out = True
                if trio.current_time() >= timer.deadline:
                    self.session.expire(request.request_id)
                    return None  # the runner's deadline
            elif not isinstance(item, Closed):
                raw, arrived = item
                reply = self._parse_reply(raw, request)
                if reply is not None:
                    timer.answered(arrived)
                    return reply.action_index
                item = None  # a late reply to a request that already timed out: wait on
        except BaseException:
            self.session.expire(request.request_id)
            raise
        closed = item if isinstance(item, Closed) else None
        with trio.CancelScope(deadline=timer.deadline):
            return await self._reply_slowly(request, timer, closed, timed_out=timed_out)
        return None  # the runner's deadline (the request expired in `_reply_slowly`)

    async def _reply_slowly(
        self, request: WireRequest, timer: DecisionTimer, item: Closed | None, *, timed_out: bool
    ) -> int:
        """Wait for the reply, from a first wait that ended `timed_out` (the bot's deadline as
        it stood), or with `item` (a lost connection) or nothing yet: run by the caller within
        the runner's deadline."""
        answered = False
        try:
            if timed_out:
                await self._end_if_up(timer)
            while True:
                with trio.move_on_at(self._due(timer)):
                    got = item if item is not None else await self.session.receive()
                    item = None
                    if isinstance(got, Closed):
                        self._lost_connection(got)
                        if await self._reconnect(request, timer):
                            continue
                        answered = True
                        raise await self._lose()
                    raw, arrived = got
                    reply = self._parse_reply(raw, request)
                    if reply is None:
                        continue  # a late reply to a request that already timed out
                    answered = True
                    timer.answered(arrived)
                    return reply.action_index
                await self._end_if_up(timer)
        finally:
            if not answered:  # cancelled by the seat's clock
                self.session.expire(request.request_id)

    async def _end_if_up(self, timer: DecisionTimer) -> None:
        """End the decision (`_TimeUp`) if the bot's time is up and nothing of it is on its
        way; the transport's loop first polls twice more, so that a reply already in is seen."""
        if self._on_its_way() or not timer.is_up():
            return
        mark = self.session.polls()
        while mark is not None and not self._on_its_way():
            count = self.session.polls()
            if count is None or count >= mark + 2:
                break
            await trio.sleep(POLL_WAIT_SECONDS)
        if not self._on_its_way():
            timer.expire()
            raise _TimeUp

    def _on_its_way(self) -> bool:
        """A message of the bot reached the transport and not yet this seat."""
        return self.session.arrivals > self.session.taken

    def _due(self, timer: DecisionTimer) -> float:
        """The bot's deadline in trio's time; none while a message of the bot is on its way
        from the transport (the runner's deadline still bounds the wait)."""
        if self._on_its_way():
            return math.inf
        return trio.current_time() + timer.seconds_left()

    def _lost_connection(self, closed: Closed | None) -> None:
        """Remember the loss and when it happened (see `Gone`)."""
        if closed is not None:
            self.state = Gone(closed, trio.current_time())

    def _take_comeback(self) -> Session | None:
        """The session that came back, if one did; the next may come back after it."""
        session, self._comeback = self._comeback, None
        self._came_back = trio.Event()
        return session

    async def _reconnect(self, request: WireRequest, timer: DecisionTimer) -> bool:
        """Wait for the bot to come back; True once the pending request went to it again."""
        state = self.state
        assert isinstance(state, Gone)
        if not self._may_come_back(state):
            return False
        with trio.move_on_at(min(state.at + self.grace, self._due(timer))):
            await self._came_back.wait()
        if not self._came_back.is_set():
            await self._end_if_up(timer)
        session = self._take_comeback()
        if session is None:
            return False
        self.session, self.state = session, Playing()
        session.timer = timer
        session.send(referee_pb2.RefereeMessage(match_start=self._start))
        again = referee_pb2.ActionRequest()
        again.CopyFrom(request.message)
        timer.catch_up(again.clock)
        session.send(WireRequest.of(again))
        return True

    def _check_out_of_turn(self) -> Closed | None:
        """Replies that arrived while nothing was asked are faults (unless late for a timeout)."""
        while self.session.unread:
            try:
                raw = self.session.receive_nowait()
            except trio.WouldBlock:
                return None
            if isinstance(raw, Closed):
                return raw
            if self.session.is_late(raw[0]):
                continue
            message = decode(raw[0])
            dropped, self.session.dropped = self.session.dropped, 0
            more = f" ({dropped} more dropped over the queue limit)" if dropped else ""
            if message is not None and message.WhichOneof("kind") == "action_reply":
                raise SeatFault(
                    common_pb2.FAULT_REASON_OUT_OF_TURN,
                    f"reply to request {message.action_reply.request_id} arrived when no "
                    f"request was pending{more}",
                )
            raise SeatFault(
                common_pb2.FAULT_REASON_MALFORMED_MESSAGE,
                f"unexpected message between requests{more}",
            )
        return None

    def _may_come_back(self, state: Gone) -> bool:
        """Whether a new session of the bot may still take this seat back (a reconnect grace)."""
        gone_for_good = state.closed.final or self.lobby is None or self.grace <= 0
        return not gone_for_good and self._start is not None

    def _known(self, state: Gone) -> bool:
        """Whether the loss is known to be a crash or a disconnect: a launched bot's process
        has CRASH_GRACE_SECONDS to be seen exiting, and once it has exited its launcher has
        EXIT_CAUSE_SECONDS to say how."""
        process = self.session.process
        if process is None or self.session.process_exited.is_set():
            return True
        waited = trio.current_time() - state.at
        return waited >= (EXIT_CAUSE_SECONDS if process.ended() else CRASH_GRACE_SECONDS)

    async def _lose(self) -> SeatFault:
        """The bot is not coming back: a crash if its process exited, else a disconnect."""
        state = self.state
        assert isinstance(state, Gone)
        while not self._known(state):
            with trio.move_on_after(EXIT_POLL_SECONDS):
                await self.session.process_exited.wait()
        fault = self._cause_of_loss(state, final=True)
        self.state = Lost(fault)
        return fault

    def _cause_of_loss(self, state: Gone, *, final: bool) -> SeatFault:
        """The loss's fault: a `repeat` once the loss was charged, while the bot may still come
        back; the `final` one is charged too, as it retires the seat saying how the bot left."""
        repeat = state.charged and not final
        self.state = replace(state, charged=True)
        if self.session.process_exited.is_set():
            detail = f"bot process exited: {self.session.exit_detail}"
            reason = self.session.exit_reason  # crashed, or a sandbox limit
        else:
            reason, detail = common_pb2.FAULT_REASON_DISCONNECTED, state.closed.detail
        return SeatFault(reason, detail, final=final, repeat=repeat)

    def _parse_reply(self, raw: bytes, request: WireRequest) -> referee_pb2.ActionReply | None:
        message = decode(raw)
        if message is None or message.WhichOneof("kind") != "action_reply":
            what = "undecodable bytes" if message is None else "a message that is not ActionReply"
            raise SeatFault(
                common_pb2.FAULT_REASON_MALFORMED_MESSAGE, f"expected ActionReply, got {what}"
            )
        reply = message.action_reply
        if reply.request_id != request.request_id:
            if reply.request_id in self.session.expired:
                return None
            if reply.request_id < request.request_id:  # ids only grow: an earlier request
                raise SeatFault(
                    common_pb2.FAULT_REASON_OUT_OF_TURN,
                    f"a reply to request {reply.request_id}, which is no longer pending",
                )
            raise SeatFault(
                common_pb2.FAULT_REASON_WRONG_REQUEST,
                f"reply names request {reply.request_id}, pending is {request.request_id}",
            )
        if reply.match_id != request.match_id:
            raise SeatFault(
                common_pb2.FAULT_REASON_WRONG_REQUEST,
                f"reply names match {reply.match_id!r}, pending is {request.match_id!r}",
            )
        if not reply.HasField("action_index"):
            if self.session.protocol < 2:  # version 1's stubs leave a chosen 0 off the wire
                reply.action_index = 0
            else:  # unset is not 0: never play a move for it
                raise SeatFault(
                    common_pb2.FAULT_REASON_MALFORMED_MESSAGE,
                    f"reply to request {reply.request_id!r} has no action_index",
                )
        return reply
