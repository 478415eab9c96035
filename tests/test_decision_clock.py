"""A decision's clock (referee.match.clock.DecisionTimer) and the remote seat that feeds it.

The timer holds every timing rule and gives the runner one immutable result; the remote seat keeps
only whether its bot is there (`RemoteSeat.state`). The seats here play over real in-memory
sessions and a real Lobby, as the transport would feed them, on trio's real clock.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
import trio

from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import (
    LAG_ALLOWANCE_SECONDS,
    DecisionTimer,
    SeatClock,
    TimeControl,
)
from referee.match.lobby import Lobby
from referee.match.remote_seat import Gone, Lost, Playing, RemoteSeat
from referee.match.seats import SeatFault, bounds_itself
from referee.match.session import Session
from referee.match.wire import WireRequest


async def test_the_runners_deadline_is_the_budget_and_moves_out_for_a_transport() -> None:
    clock = SeatClock.start(TimeControl(move_ms=100, bank_ms=50))
    timer = DecisionTimer.start(clock)
    assert timer.scope.deadline == pytest.approx(trio.current_time() + 0.15)
    timer.measure_at_transport()
    assert timer.scope.deadline == pytest.approx(trio.current_time() + 0.15 + LAG_ALLOWANCE_SECONDS)
    assert timer.allowed_ms == 150


async def test_a_reply_never_arrives_before_its_request_left_and_time_runs_from_there() -> None:
    timer = DecisionTimer.start(SeatClock.start(TimeControl(move_ms=100, bank_ms=0)))
    timer.measure_at_transport()
    assert timer.arrival(1.0) == 1.0  # nothing left yet: the stamp stands
    timer.left()
    sent = timer.sent
    assert sent is not None
    timer.left()  # the same request sent again (a reconnect) does not restart the clock
    assert timer.sent == sent
    assert timer.arrival(sent - 5) == sent
    assert not timer.is_up()
    assert 0 < timer.seconds_left() <= 0.1
    await trio.sleep(0.12)
    assert timer.is_up()


async def test_the_result_is_immutable_and_says_when_the_referees_lag_ended_it() -> None:
    """A bot measured at the transport whose request never left had no time at all: charged
    nothing, and a decision that ended so was the referee's lag, not the bot's clock."""
    timer = DecisionTimer.start(SeatClock.start(TimeControl(move_ms=100, bank_ms=0)))
    timer.measure_at_transport()
    await trio.sleep(0.02)
    spent = timer.result()
    assert spent.charged_ms == 0 and spent.cut_by_lag and spent.allowed_ms == 100
    assert spent.lag_ms >= 20
    with pytest.raises(dataclasses.FrozenInstanceError):
        spent.charged_ms = 1.0  # type: ignore[misc]
    # An in-process seat is charged what the runner saw, and its decisions are never the lag's.
    local = DecisionTimer.start(SeatClock.start(TimeControl(move_ms=100, bank_ms=0)))
    await trio.sleep(0.02)
    mine = local.result()
    assert mine.charged_ms >= 20 and not mine.cut_by_lag and mine.lag_ms == 0


def _session(sent: list[referee_pb2.RefereeMessage]) -> Session:
    """A session whose messages are kept as the bot would read them."""

    def send(message: referee_pb2.RefereeMessage | WireRequest) -> None:
        if isinstance(message, WireRequest):
            message = referee_pb2.RefereeMessage.FromString(message.data)
        sent.append(message)

    return Session(
        identity="bot",
        hello=referee_pb2.Hello(name="bot", version="1"),
        send=send,
        finish=lambda _: None,
    )


def _request(clock: SeatClock) -> WireRequest:
    return WireRequest.of(
        referee_pb2.ActionRequest(match_id="m", request_id=7, clock=clock.to_proto())
    )


async def _started(session: Session, lobby: Lobby, grace: float) -> RemoteSeat:
    lobby.admit("bot")
    lobby.open(session)
    seat = RemoteSeat(await lobby.take("bot"), lobby, grace)
    await seat.start(referee_pb2.MatchStart(match_id="m"))
    return seat


async def _decide(
    seat: RemoteSeat, control: TimeControl, *, in_scope: bool = False
) -> tuple[int | None, DecisionTimer]:
    """One decision as the runner waits for it: a remote seat keeps within the runner's
    deadline itself (seats.bounds_itself), unless the runner cannot tell (`in_scope`: a seat
    that wraps it, as the doctor's does), which then waits in the timer's scope as well."""
    assert bounds_itself(seat)
    clock = SeatClock.start(control)
    timer = DecisionTimer.start(clock)
    index: int | None = None
    if in_scope:
        with timer.scope:
            index = await seat.act(_request(clock), timer)
    else:
        index = await seat.act(_request(clock), timer)
    return index, timer


async def test_a_bot_that_comes_back_takes_its_seat_and_request_again() -> None:
    lobby = Lobby()
    old_sent: list[referee_pb2.RefereeMessage] = []
    new_sent: list[referee_pb2.RefereeMessage] = []
    old = _session(old_sent)
    seat = await _started(old, lobby, grace=5.0)
    assert isinstance(seat.state, Playing)
    old.close("the connection dropped")
    new = _session(new_sent)

    async def come_back() -> None:
        while not isinstance(seat.state, Gone):
            await trio.sleep(0.005)
        await trio.sleep(0.05)
        lobby.open(new)  # offered to the seat, not pooled
        other = _session([])
        lobby.open(other)  # the bot's second session goes to the pool, not to the seat
        assert lobby.take_nowait("bot") is other
        reply = referee_pb2.BotMessage(
            action_reply=referee_pb2.ActionReply(match_id="m", request_id=7, action_index=2)
        )
        raw = reply.SerializeToString()
        new.deliver(raw, new.arriving())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(come_back)
        index, _ = await _decide(seat, TimeControl(move_ms=5000, bank_ms=0))
    assert index == 2
    assert isinstance(seat.state, Playing) and seat.session is new
    kinds = [message.WhichOneof("kind") for message in new_sent]
    assert kinds == ["match_start", "action_request"]
    assert new_sent[1].action_request.clock.deadline_ms < 5000  # what is left of its clock


async def test_a_loss_costs_one_fault_or_two_when_the_clock_ran_out_meanwhile() -> None:
    """The connection drops while the bot thinks: at its deadline the seat says why (charged
    once, then a repeat that is not recorded). At the next decision, whose request cannot
    leave, the seat waits one budget for the bot, then gives it up for good."""
    lobby = Lobby()
    old = _session([])
    old.send = old.leaving  # as the transport does when it hands a message to gRPC
    seat = await _started(old, lobby, grace=30.0)
    control = TimeControl(move_ms=100, bank_ms=0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_close_soon, old)
        started = time.perf_counter()
        index, timer = await _decide(seat, control)
    assert index is None and 0.1 <= time.perf_counter() - started < 0.1 + LAG_ALLOWANCE_SECONDS
    assert not timer.result().cut_by_lag  # the bot's own clock ran out
    first = seat.cause
    assert first is not None and not first.repeat and not first.final
    assert first.reason == common_pb2.FAULT_REASON_DISCONNECTED
    assert isinstance(seat.state, Gone) and seat.state.charged
    again = seat.cause
    assert again is not None and again.repeat
    with pytest.raises(SeatFault) as lost:
        await _decide(seat, control)
    assert lost.value.final and not lost.value.repeat
    assert isinstance(seat.state, Lost)


async def _close_soon(session: Session) -> None:
    await trio.sleep(0.02)
    session.close("the connection dropped")


async def test_a_bot_that_is_gone_for_good_is_lost_and_faults_at_once() -> None:
    old = _session([])
    seat = await _started(old, Lobby(), grace=0.0)
    old.exit_detail = "exit code 3"
    old.process_exited.set()
    old.close("the connection dropped")
    with pytest.raises(SeatFault) as lost:
        await _decide(seat, TimeControl(move_ms=5000, bank_ms=0))
    assert lost.value.final and lost.value.reason == common_pb2.FAULT_REASON_CRASHED
    assert isinstance(seat.state, Lost) and seat.state.fault is lost.value
    with trio.fail_after(0.5), pytest.raises(SeatFault) as again:
        await _decide(seat, TimeControl(move_ms=5000, bank_ms=0))
    assert again.value is lost.value


@pytest.mark.parametrize("in_scope", [False, True])
async def test_a_bot_that_never_answers_is_cut_off_at_its_deadline(in_scope: bool) -> None:
    """A request that left and got no reply: the seat's wait ends once the bot's time is up
    (its one cancel scope, or the runner's as well), with no index, charged its budget, and a
    reply that comes after is dropped as late."""
    session = _session([])
    session.send = session.leaving  # the transport hands it to gRPC: the bot's time runs
    seat = await _started(session, Lobby(), grace=0.0)
    started = time.perf_counter()
    index, timer = await _decide(seat, TimeControl(move_ms=100, bank_ms=0), in_scope=in_scope)
    waited = time.perf_counter() - started
    assert index is None and 0.1 <= waited < 0.1 + LAG_ALLOWANCE_SECONDS
    spent = timer.result()
    assert spent.charged_ms >= 100 and not spent.cut_by_lag
    assert 7 in session.expired and seat.cause is None
    late = referee_pb2.BotMessage(action_reply=referee_pb2.ActionReply(match_id="m", request_id=7))
    assert session.is_late(late.SerializeToString())


async def test_a_request_that_never_leaves_ends_at_the_runners_deadline() -> None:
    """The referee's own lag: a request its transport never sent leaves the bot no time to
    run out, so the seat's wait ends at the runner's deadline (the budget and
    LAG_ALLOWANCE_SECONDS), with no index, nothing charged, and the lag to blame."""
    session = _session([])
    seat = await _started(session, Lobby(), grace=0.0)
    started = time.perf_counter()
    index, timer = await _decide(seat, TimeControl(move_ms=100, bank_ms=0))
    waited = time.perf_counter() - started
    assert index is None and 0.1 + LAG_ALLOWANCE_SECONDS <= waited < 0.6 + LAG_ALLOWANCE_SECONDS
    spent = timer.result()
    assert spent.charged_ms == 0 and spent.cut_by_lag
    assert 7 in session.expired


async def test_a_reply_in_time_is_taken_in_one_wait() -> None:
    """The common decision: the reply comes while the bot's time runs, and is the index."""
    session = _session([])
    seat = await _started(session, Lobby(), grace=0.0)

    def answer(message: referee_pb2.RefereeMessage | WireRequest) -> None:
        session.leaving(message)
        if isinstance(message, WireRequest):
            reply = referee_pb2.ActionReply(
                match_id="m", request_id=message.request_id, action_index=1
            )
            raw = referee_pb2.BotMessage(action_reply=reply).SerializeToString()
            session.deliver(raw, session.arriving())

    session.send = answer
    index, timer = await _decide(seat, TimeControl(move_ms=1000, bank_ms=0))
    assert index == 1 and not session.expired and session.unread == 0
    assert timer.result().charged_ms < 1000
