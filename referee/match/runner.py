"""The match runner: drives one match between seats, with clocks, faults and a record.

It resolves chance with the match's seeded RNG (or a given deck), asks the seat to move for each
decision inside a cancel scope from that seat's clock, applies the answer through the checked path,
sends each seat the events it may see, and writes the record as it goes. A bot's fault is a result,
never an exception: the runner records it, plays the default action (the first legal one), and
retires the seat after `max_faults`, or at once when its bot is gone for good (one fault for the
loss).
"""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import trio

from croupier.v1 import common_pb2, game_pb2, record_pb2, referee_pb2
from referee.clock_kind import ClockKind
from referee.games import checked
from referee.games.base import Action, ChanceOutcome, Event, Game, Pick, Shuffle, State
from referee.games.options import Options
from referee.match import protocol, wire
from referee.match.clock import DecisionTime, DecisionTimer, SeatClock, TimeControl
from referee.match.computer import this_computer
from referee.match.luck import LuckMeter
from referee.match.public import public_observation
from referee.match.records import (
    SCHEMA_VERSION,
    ChallengeMark,
    RecordWriter,
    action_line,
    event_line,
)
from referee.match.seats import (
    Seat,
    SeatFault,
    bounds_itself,
    cause_of_silence,
    metered,
    pinned_cores,
)
from referee.match.spectators import LiveMatch, LiveMatches
from referee.match.wire import WireRequest
from referee.version import VERSION


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Everything that decides a match apart from the bots' choices."""

    game: Game
    options: Options
    seed: int
    match_id: str
    deck: tuple[str, ...] | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    max_faults: int = 3
    #: The challenge the match is played for (referee.challenges.runner), named in its record.
    challenge: ChallengeMark | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """How one decision went: the action index and the times the record keeps."""

    index: int
    defaulted: bool
    #: Wall time charged to the bot: from its request leaving to its reply arriving.
    elapsed_ms: int = 0
    #: The referee's own lag around it (never charged): asking to sending, arrival to use.
    lag_ms: int = 0
    #: The bot's process tree's CPU time meanwhile, where known.
    cpu_ms: int | None = None
    #: Of its wall time, how long it waited for a CPU (not charged), where known.
    starved_ms: int | None = None


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    match_id: str
    result: common_pb2.Result
    faults: tuple[common_pb2.Fault, ...]
    record_path: Path | None
    #: Each seat's luck correction (referee.match.luck), empty for a game with no value
    #: function or a match that did not finish.
    luck: tuple[float, ...] = ()
    #: Which decision of the match (1-based: the record's action lines, in order) each fault's
    #: request was, by its request id, which is the process's counter and tells an author
    #: nothing ("request 19349" in a contest that has run a while).
    decisions: Mapping[int, int] = field(default_factory=dict)


log = logging.getLogger("croupier.referee")

#: How long an aborted match may take to send its seats their MatchEnd, all seats together (a
#: remote seat only queues it, so this bounds a stuck seat, not the network).
ABORT_NOTICE_SECONDS = 1.0

#: Request ids are unique in the process, so they are unique within every bot session too.
_request_ids = itertools.count(1)


def draw_chance(node: Shuffle | Pick, rng: random.Random) -> ChanceOutcome:
    """The referee's only source of chance: a seeded RNG, never global randomness."""
    if isinstance(node, Shuffle):
        return tuple(rng.sample(node.cards, len(node.cards)))
    return rng.randrange(node.count)


@dataclass(slots=True, eq=False)
class EncodedEvent:
    """An event as the protocol's message, as an ActionRequest's field (for every seat that
    sees it), and as its record line (made when first recorded): one for all events of the same
    value (`event` is the first of them)."""

    event: Event
    message: game_pb2.Event
    field: bytes
    line: str | None = None

    def record_line(self) -> str:
        if self.line is None:
            seats = sorted(self.event.seats) if self.event.seats is not None else None
            self.line = event_line(self.message, seats)
        return self.line


#: Each event encoded, by the engine's Event object (kept, so that its id, the key, is not
#: reused while the entry lives): engines share the Event of a common move, so most of a
#: match's events are encoded once per process. Encoding one was about half the referee's own
#: work per decision. Shared messages: callers copy, never mutate them.
_encoded: dict[int, tuple[Event, EncodedEvent]] = {}
_ENCODED_MAX = 1024
#: The same by the event's value, for the events an engine makes afresh (a card played, a trick
#: taken): most of them happened before, in this match or another. The game, the text, who sees
#: it and the payload's type and encoding say the message, so its field and its line.
_by_value: dict[tuple[str, str, frozenset[int] | None, type, bytes], EncodedEvent] = {}
_BY_VALUE_MAX = 4096


def encoded_event(game_id: str, event: Event) -> EncodedEvent:
    """The event encoded (see EncodedEvent), once a process while the engine shares it, or
    while events of its value keep coming."""
    known = _encoded.get(id(event))
    if known is not None and known[0] is event:
        return known[1]
    payload = event.payload
    key = (game_id, event.text, event.seats, type(payload), payload.SerializeToString())
    entry = _by_value.get(key)
    if entry is None:
        message = protocol.event(game_id, event)
        entry = EncodedEvent(
            event, message, wire.length_delimited(wire.EVENT, message.SerializeToString())
        )
        if len(_by_value) >= _BY_VALUE_MAX:
            _by_value.clear()  # the common ones come back at once; deals never repeat
        _by_value[key] = entry
    if len(_encoded) >= _ENCODED_MAX:
        _encoded.clear()  # the shared ones come back at once; fresh ones never repeat
    _encoded[id(event)] = (event, entry)
    return entry


def _chance_record(node: Shuffle | Pick, outcome: ChanceOutcome) -> record_pb2.Record:
    if isinstance(outcome, tuple):
        chance = record_pb2.ChanceRecord(deck=record_pb2.Deck(cards=outcome), label=node.label)
    else:
        chance = record_pb2.ChanceRecord(pick=outcome, label=node.label)
    return record_pb2.Record(chance=chance)


def _overran(clock: SeatClock, spent: DecisionTime) -> str:
    """A timeout's detail: the budget the bot overran, by its clock."""
    if clock.control.clock is ClockKind.CPU:
        return (
            f"used {spent.charged_ms:.0f} ms of CPU, more than the {spent.allowed_ms:.0f} ms "
            f"allowed (move {clock.control.move_ms} ms plus bank, cpu clock)"
        )
    return f"no reply within {spent.allowed_ms:.0f} ms (move {clock.control.move_ms} ms plus bank)"


class _Match:
    """The state of one running match; `run_match` is its only entry point."""

    def __init__(
        self,
        config: MatchConfig,
        seats: Sequence[Seat],
        writer: RecordWriter | None,
        live: LiveMatches | None,
    ) -> None:
        self.config = config
        self.game = config.game
        self.seats = seats
        self.writer = writer
        self.rng = random.Random(config.seed)
        # A CPU clock times a seat by wall where its bot's CPU time cannot be read.
        self.clocks = [SeatClock.start(config.time_control.for_seat(metered(s))) for s in seats]
        #: Which seats keep their waits within the runner's deadline themselves.
        self.bounded = [bounds_itself(s) for s in seats]
        self.fault_counts = [0] * len(seats)
        self.retired = [False] * len(seats)
        self.faults: list[common_pb2.Fault] = []
        #: Decisions so far in the match, and which one each fault's request was (by its id).
        self.decision_count = 0
        self.fault_decisions: dict[int, int] = {}
        self.deck_pending = config.deck
        self.pending: list[list[EncodedEvent]] = [[] for _ in seats]
        self.live_matches = live
        self.live: LiveMatch | None = None
        self.luck = LuckMeter.for_game(self.game.id, config.seed, len(seats))

    def write(self, record: record_pb2.Record) -> None:
        if self.writer is not None:
            self.writer.write(record)

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def header(self) -> record_pb2.Record:
        config = self.config
        return record_pb2.Record(
            header=record_pb2.RecordHeader(
                schema_version=SCHEMA_VERSION,
                match_id=config.match_id,
                game=self.game.id,
                rules_version=self.game.rules_version,
                options=config.options.as_text(),
                seats=[
                    record_pb2.RecordSeat(
                        name=s.name,
                        version=s.version,
                        cores=pinned_cores(s),
                        clock=self.fallback(i),
                    )
                    for i, s in enumerate(self.seats)
                ],
                time_control=config.time_control.to_proto(),
                seed=str(config.seed),
                deck=config.deck or (),
                software_version=VERSION,
                started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                computer=this_computer().to_proto(),
                challenge=config.challenge.to_proto() if config.challenge is not None else None,
            )
        )

    def fallback(self, seat: int) -> common_pb2.ClockKind | None:
        """The record's note for a seat timed by another clock than the match's (by wall, under
        a CPU clock it could not read), else None."""
        if self.clocks[seat].control.clock is self.config.time_control.clock:
            return None
        return common_pb2.CLOCK_KIND_WALL

    def publish(self, state: State) -> None:
        """Record every event of the last transition and queue it for the seats that may see it:
        each seat gets its queue with its next request, or with the match's end."""
        for event in state.events:
            encoded = encoded_event(self.game.id, event)
            if self.writer is not None:
                self.writer.write_line(encoded.record_line())
            seats = event.seats
            for seat_index, pending in enumerate(self.pending):
                if seats is None or seat_index in seats:
                    pending.append(encoded)
            if seats is None and self.live is not None:
                self.live.publish(encoded.message)
        if self.live is not None:
            count = len(self.seats)
            self.live.step(lambda: public_observation(self.game.id, state, count))

    def resolve_chance(self, state: State) -> State:
        """The given deck, if any, is the first shuffle's outcome; the seeded RNG does the rest.
        The RNG still draws that shuffle, so a record's deck and seed replay its whole match."""
        node = state.chance()
        assert node is not None
        outcome = draw_chance(node, self.rng)
        if isinstance(node, Shuffle) and self.deck_pending is not None:
            outcome, self.deck_pending = self.deck_pending, None
        after = checked.apply_chance(state, outcome)
        if self.luck is not None:
            self.luck.chance(state, after)
        self.write(_chance_record(node, outcome))
        self.publish(after)
        return after

    def fault(
        self,
        seat: int,
        reason: common_pb2.FaultReason,
        detail: str,
        request_id: int,
        *,
        final: bool = False,
    ) -> None:
        """Record a fault; the seat retires at `max_faults`, or at once when its bot is gone
        for good (`final`)."""
        fault = common_pb2.Fault(seat=seat, reason=reason, detail=detail, request_id=request_id)
        self.faults.append(fault)
        self.fault_decisions[request_id] = self.decision_count
        self.fault_counts[seat] += 1
        retire = final or self.fault_counts[seat] >= self.config.max_faults
        self.retired[seat] = self.retired[seat] or retire
        self.write(record_pb2.Record(fault=record_pb2.FaultRecord(fault=fault, retired=retire)))
        log.info(
            "fault",
            extra={
                "match": self.config.match_id,
                "seat": seat,
                "bot": self.seats[seat].name,
                "reason": common_pb2.FaultReason.Name(reason),
                "detail": detail,
                "retired": retire,
            },
        )

    def request(self, state: State, seat: int, legal: Sequence[Action]) -> WireRequest:
        """The seat's request for this decision: its observation, the legal actions, its clock
        and the events it has not seen yet (which it now has), assembled from their encodings
        (referee.match.wire). Every line before it is on file."""
        game_id = self.game.id
        request = wire.action_request(
            self.config.match_id,
            next(_request_ids),
            wire.observation_bytes(game_id, state.observation(seat).SerializeToString()),
            protocol.legal_action_fields(game_id, legal),
            self.clocks[seat].encoded(),
            [event.field for event in self.pending[seat]],
            self.decision_count,
        )
        self.pending[seat] = []
        self.flush()
        return request

    async def decide(self, seat: int, request: WireRequest) -> Decision:
        """Ask the seat for an action index and judge the answer. When the bot's time is up,
        and what it is charged, is its `DecisionTimer`'s to say (referee.match.clock); the
        verdict (a timeout, an illegal index, the cause a seat offers) is made here."""
        clock = self.clocks[seat]
        request_id = request.request_id
        legal_count = request.legal_count
        if self.live is not None:
            self.live.asked(seat, clock.bank_ms, decision=self.decision_count)
        index: int | None = None
        failure: SeatFault | None = None
        timer = DecisionTimer.start(clock)
        player = self.seats[seat]
        try:
            if self.bounded[seat]:  # the seat's own wait is the decision's one cancel scope
                index = await player.act(request, timer)
            else:
                with timer.scope:
                    index = await player.act(request, timer)
        except SeatFault as error:
            failure = error
        if failure is None and index is None:  # cut off by the clock: the bot may have gone first
            failure = cause_of_silence(self.seats[seat])
        spent = timer.result()
        if failure is None and not clock.charge(spent.charged_ms):
            failure = SeatFault(common_pb2.FAULT_REASON_TIMEOUT, _overran(clock, spent))
        elif failure is None and spent.over_ceiling:
            detail = (
                f"no reply within the wall ceiling of {spent.ceiling_ms:.0f} ms (cpu clock: "
                f"{spent.charged_ms:.0f} ms of CPU used of {spent.allowed_ms:.0f} ms allowed)"
            )
            failure = SeatFault(common_pb2.FAULT_REASON_TIMEOUT, detail)
        if self.live is not None:
            self.live.answered(seat, clock.bank_ms)
        if failure is None and index is not None and not 0 <= index < legal_count:
            failure = SeatFault(
                common_pb2.FAULT_REASON_ILLEGAL_ACTION,
                f"action index {index!r} is out of range 0..{legal_count - 1}",
            )
        times = (round(spent.charged_ms), spent.lag_ms, spent.cpu_ms, spent.starved_ms)
        if failure is not None or index is None:
            if failure is None and spent.cut_by_lag:  # the bot still had time
                detail = f"no reply: the referee's own lag of {spent.lag_ms} ms ended the decision"
                failure = SeatFault(common_pb2.FAULT_REASON_TIMEOUT, detail)
            failure = failure or SeatFault(common_pb2.FAULT_REASON_TIMEOUT, "no reply")
            if not failure.repeat:  # a loss is charged once, not at every decision it costs
                self.fault(seat, failure.reason, failure.detail, request_id, final=failure.final)
            return Decision(0, True, *times)
        return Decision(index, False, *times)

    def open(self) -> list[referee_pb2.MatchStart]:
        """Write the record's header and return each seat's MatchStart, seat order."""
        config = self.config
        self.write(self.header())
        self.flush()
        start = referee_pb2.MatchStart(
            match_id=config.match_id,
            game=self.game.id,
            rules_version=self.game.rules_version,
            options=config.options.as_text(),
            seat_names=[seat.name for seat in self.seats],
            time_control=config.time_control.to_proto(),
        )
        if self.live_matches is not None:
            self.live = self.live_matches.open(start, [clock.bank_ms for clock in self.clocks])
        starts = []
        for seat_index in range(len(self.seats)):
            mine = referee_pb2.MatchStart()
            mine.CopyFrom(start)
            mine.seat = seat_index
            mine.time_control.CopyFrom(self.clocks[seat_index].control.to_proto())
            starts.append(mine)
        return starts

    async def run(self) -> MatchOutcome:
        names = [seat.name for seat in self.seats]
        for client, start in zip(self.seats, self.open(), strict=True):
            await client.start(start)
        try:
            state = await self.play()
        except BaseException:  # cancelled (shutdown), a record that cannot be written, our bug
            await self.abort(names)
            raise
        outcome, ends = self.close(state)
        for seat, end in zip(self.seats, ends, strict=True):
            await seat.end(end)
        return outcome

    def close(self, state: State) -> tuple[MatchOutcome, list[referee_pb2.MatchEnd]]:
        """Record the result of a finished match; its outcome and each seat's MatchEnd."""
        names = [seat.name for seat in self.seats]
        result = protocol.result(state.result(), names, self.fault_counts, self.retired)
        luck = self.luck.corrections() if self.luck is not None else ()
        self.finish(result, luck)
        ends = [self.match_end(seat, result) for seat in range(len(self.seats))]
        path = self.writer.path if self.writer is not None else None
        outcome = MatchOutcome(
            self.config.match_id, result, tuple(self.faults), path, luck, self.fault_decisions
        )
        return outcome, ends

    async def play(self) -> State:
        """Drive `steps`, asking each decision's seat through its `Seat`."""
        steps = self.steps()
        try:
            seat, request = next(steps)
            while True:
                seat, request = steps.send(await self.decide(seat, request))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def steps(self) -> Generator[tuple[int, WireRequest], Decision, State]:
        """The match as a generator: it yields each decision's seat and request and is sent
        the decision; it returns the final state. The runner's `play` and an in-process
        driver (referee.match.requests) both drive this one loop, so their matches are one."""
        state: State = self.game.new_game(self.config.options)
        while not state.is_terminal():
            seat = state.to_move
            if seat is None:
                state = self.resolve_chance(state)
                continue
            legal = state.legal_actions()
            self.decision_count += 1  # as the record counts actions, a retired seat's too
            if self.retired[seat]:
                decision = Decision(0, True)
            else:
                decision = yield seat, self.request(state, seat, legal)
            state, action = checked.apply_index(state, seat, decision.index, legal)
            if self.writer is not None:
                self.writer.write_line(
                    action_line(
                        seat,
                        decision.index,
                        protocol.action_text(self.game.id, action),
                        decision.elapsed_ms,
                        decision.defaulted,
                        decision.lag_ms,
                        decision.cpu_ms,
                        decision.starved_ms,
                    )
                )
            self.publish(state)
        return state

    def finish(self, result: common_pb2.Result, luck: Sequence[float] = ()) -> None:
        value = self.luck.digest if luck and self.luck is not None else ""
        line = record_pb2.ResultRecord(result=result, luck=luck, luck_value=value)
        self.write(record_pb2.Record(result=line))
        if self.live is not None and self.live_matches is not None:
            end = referee_pb2.MatchEnd(match_id=self.config.match_id, result=result)
            self.live.finish(end)
            self.live_matches.close(self.config.match_id)

    def match_end(self, seat: int, result: common_pb2.Result) -> referee_pb2.MatchEnd:
        """The seat's MatchEnd: the result, its faults and the events it has not seen."""
        return referee_pb2.MatchEnd(
            match_id=self.config.match_id,
            result=result,
            faults=[f for f in self.faults if f.seat == seat],
            events=[event.message for event in self.pending[seat]],
        )

    async def end_seat(self, seat: int, result: common_pb2.Result) -> None:
        """Send the seat its MatchEnd."""
        await self.seats[seat].end(self.match_end(seat, result))

    async def abort(self, names: Sequence[str]) -> None:
        """The match stops before its end: the record closes with an aborted result, and each
        seat still gets its MatchEnd, best effort: at once for all seats, shielded from the
        cancellation that may have stopped the match, within ABORT_NOTICE_SECONDS in all, so a
        stuck seat delays neither the others nor the abort. The error that stopped the match
        is the caller's to raise again."""
        result = protocol.aborted_result(names, self.fault_counts, self.retired)
        try:
            self.finish(result)
        finally:
            with trio.move_on_after(ABORT_NOTICE_SECONDS, shield=True):
                async with trio.open_nursery() as nursery:
                    for seat in range(len(self.seats)):
                        nursery.start_soon(self.tell_aborted, seat, result)

    async def tell_aborted(self, seat: int, result: common_pb2.Result) -> None:
        """`end_seat` for an aborted match: a seat that cannot be told is logged, not raised."""
        try:
            await self.end_seat(seat, result)
        except Exception as error:  # a broken stream must not hide why the match stopped
            log.warning(
                "match end not sent",
                extra={"match": self.config.match_id, "seat": seat, "detail": repr(error)},
            )


async def run_match(
    config: MatchConfig,
    seats: Sequence[Seat],
    record_path: Path | None = None,
    live: LiveMatches | None = None,
) -> MatchOutcome:
    """Play one match to its end and return the result; writes the record if given a path, and
    shows the match's public events to spectators through `live` if given."""
    expected = config.game.seat_count(config.options)
    if len(seats) != expected:
        raise ValueError(f"game {config.game.id!r} needs {expected} seats, got {len(seats)}")
    if record_path is None:
        return await _Match(config, seats, None, live).run()
    with RecordWriter(record_path) as writer:
        return await _Match(config, seats, writer, live).run()
