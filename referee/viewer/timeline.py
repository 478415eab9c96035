"""A match record re-run through the engine, kept as a list of steps that viewers move along.

The record's chance and action lines are replayed with the same checks as `croupier replay
--verify` (no seed, no RNG), so every step holds the engine's own state. From it a view asks for
the omniscient table or one seat's table: a seat's table is built from `state.observation(seat)`
and the events that seat was sent, nothing else, so it shows exactly what that seat could see.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from google.protobuf.message import Message

from croupier.v1 import common_pb2, record_pb2
from referee.errors import CroupierError
from referee.games.base import State
from referee.match.records import read_to_show
from referee.match.replay import Replayer
from referee.viewer.decision_log import DecisionLog
from referee.viewer.games import Context, GameView, Position, view_for
from referee.viewer.glyphs import readable
from referee.viewer.model import SeatBox, Table
from referee.viewer.plain import decision_times


class StepKind(StrEnum):
    START = "start"  # before the first chance node
    CHANCE = "chance"  # the referee resolved chance (a shuffle, a pick)
    ACTION = "action"  # a seat acted (or the referee for it)


@dataclass(frozen=True, slots=True)
class Shown:
    """An event as recorded: its text, its game payload (e.g. a XixEvent), who saw it."""

    text: str
    payload: Message
    seats: frozenset[int] | None  # None: every seat

    def visible_to(self, viewer: int | None) -> bool:
        return viewer is None or self.seats is None or viewer in self.seats


@dataclass(frozen=True, slots=True)
class Step:
    """One chance outcome or one action, with the state after it and the events it produced."""

    index: int
    kind: StepKind
    state: State
    seat: int | None = None  # the seat that acted
    text: str = ""  # the action's text, or the chance's label and outcome
    defaulted: bool = False
    elapsed_ms: int = 0
    #: The bot's CPU time for the decision (None: not recorded).
    cpu_ms: int | None = None
    #: The decision's recorded times as the replay shows them (see decision_times).
    times: str = ""
    faults: tuple[record_pb2.FaultRecord, ...] = ()  # the faults just before this action
    events: tuple[Shown, ...] = ()
    fault_counts: tuple[int, ...] = ()  # per seat, up to and including this step
    retired: tuple[bool, ...] = ()


@dataclass
class Timeline:
    """A whole match as steps; `problems` lists what stopped the replay early (if anything)."""

    path: Path
    header: record_pb2.RecordHeader
    view: GameView
    names: tuple[str, ...]
    steps: list[Step]
    positions: list[Position]
    result: common_pb2.Result | None
    problems: list[str] = field(default_factory=list)

    @property
    def game(self) -> str:
        return self.header.game

    @property
    def seats(self) -> int:
        return len(self.names)

    def views(self) -> list[int | None]:
        """Every view: the omniscient one (None), then each seat's."""
        return [None, *range(self.seats)]

    def view_name(self, viewer: int | None) -> str:
        if viewer is None:
            return "everything"
        return f"seat {viewer} ({self.names[viewer]})"

    def log_steps(self, log: DecisionLog | None) -> dict[int, list[str]]:
        """A seat's log lines by step: decision N is the Nth action step; 0, before the first,
        the match's start (step 0). The one mapping of the HTML replay and the stepper."""
        if log is None:
            return {}
        actions = [step.index for step in self.steps if step.kind is StepKind.ACTION]
        found = {0: log.lines[0]} if 0 in log.lines else {}
        for decision, lines in log.lines.items():
            if 0 < decision <= len(actions):
                found[actions[decision - 1]] = lines
        return found

    def check_viewer(self, viewer: int | None) -> None:
        if viewer is not None and not 0 <= viewer < self.seats:
            raise CroupierError(
                f"seat {viewer!r} does not exist: this match has {self.seats} seats"
            )

    def observation(self, index: int, seat: int) -> Message:
        """What the engine says `seat` may know after step `index` (a game observation)."""
        return self.steps[index].state.observation(seat)

    def events(self, index: int, viewer: int | None) -> list[Shown]:
        return [event for event in self.steps[index].events if event.visible_to(viewer)]

    def table(self, index: int, viewer: int | None) -> Table:
        """The table after step `index` as `viewer` sees it (None: omniscient)."""
        step = self.steps[index]
        seats = range(self.seats) if viewer is None else (viewer,)
        return self._table(step, viewer, {seat: step.state.observation(seat) for seat in seats})

    def tables(self, index: int) -> list[Table]:
        """The table after step `index` in every view, in `views()` order."""
        step = self.steps[index]
        every = {seat: step.state.observation(seat) for seat in range(self.seats)}
        return [
            self._table(step, viewer, every if viewer is None else {viewer: every[viewer]})
            for viewer in self.views()
        ]

    def _table(self, step: Step, viewer: int | None, observations: dict[int, Message]) -> Table:
        # A seat's view gets its own observation only, and never the engine's state.
        state = step.state if viewer is None else None
        context = Context(
            names=self.names,
            viewer=viewer,
            observations=observations,
            state=state,
            events=tuple(e.payload for e in step.events if e.visible_to(viewer)),
        )
        table = self.view.table(context)
        if not any(step.fault_counts):  # most steps: no table to copy (a report builds many)
            return table
        return replace(table, seats=tuple(self._faults(box, step, viewer) for box in table.seats))

    @staticmethod
    def _faults(box: SeatBox, step: Step, viewer: int | None) -> SeatBox:
        # A seat is told its own faults only (MatchEnd carries them), so a seat's view shows no
        # one else's.
        if not step.fault_counts or viewer not in (None, box.seat):
            return box
        facts = list(box.facts)
        if step.fault_counts[box.seat]:
            facts.append(f"faults {step.fault_counts[box.seat]}")
        if step.retired[box.seat]:
            facts.append("retired")
        return box._replace(facts=tuple(facts))

    def caption(self, index: int, viewer: int | None) -> list[str]:
        """What happened at step `index`, as `viewer` saw it: the action, faults, events, result;
        cards as people read them (Xactika's `1313` as `1●3■1▲3★`)."""
        step = self.steps[index]
        lines: list[str] = []
        events = [event.text for event in self.events(index, viewer)]
        if step.kind is StepKind.START:
            lines.append("the match begins: " + ", ".join(self._seat_names()))
        elif step.kind is StepKind.CHANCE:
            if viewer is None:
                lines.append(f"chance: {step.text}")
        else:
            assert step.seat is not None
            for fault in step.faults:
                if viewer in (None, fault.fault.seat):
                    reason = common_pb2.FaultReason.Name(fault.fault.reason)
                    reason = reason.removeprefix("FAULT_REASON_").lower().replace("_", " ")
                    retired = ", retired" if fault.retired else ""
                    lines.append(f"fault of seat {fault.fault.seat}: {reason}{retired}")
            if viewer in (None, step.seat):
                note = " (played by the referee)" if step.defaulted else ""
                note += step.times
                said = _echo(step, events[0]) if events else None
                if said is not None:  # the event tells the action: one line, not two
                    events.pop(0)
                lines.append(f"seat {step.seat} {self.names[step.seat]}: {said or step.text}{note}")
        lines += events
        if index == len(self.steps) - 1 and self.result is not None:
            lines.append(f"result: {self.result.text}")
        return [readable(self.game, line) for line in lines]

    def _seat_names(self) -> Iterator[str]:
        for seat, name in enumerate(self.names):
            yield f"seat {seat} {name}"

    # --- moving around --------------------------------------------------------------------------

    def next_segment(self, index: int, major: bool, forward: bool) -> int:
        """The first step of the next (or the current or previous) trick, or round if `major`."""

        def key(i: int) -> tuple[int, ...]:
            p = self.positions[i]
            return (p.major,) if major else (p.major, p.minor)

        starts = [i for i in range(len(self.steps)) if i == 0 or key(i) != key(i - 1)]
        if forward:
            return next((i for i in starts if i > index), len(self.steps) - 1)
        return next((i for i in reversed(starts) if i < index), 0)

    def find(self, major: int, minor: int | None = None) -> int | None:
        """The first step of round `major` (and trick `minor`), or None if there is none."""
        for i, position in enumerate(self.positions):
            if position.major == major and (minor is None or position.minor == minor):
                return i
        return None


def _echo(step: Step, event: str) -> str | None:
    """What `event` says the acting seat did, if it is the step's action told again (`seat 0
    bids 3` after the action `bid 3`): its text after the seat, else None."""
    told = event.removeprefix(f"seat {step.seat} ")
    verb = step.text.split(" ", 1)[0]
    if told == event or not verb or not told.startswith(verb):
        return None
    return told


def load(path: Path) -> Timeline:
    """Replay a record into a timeline. An unreadable record raises RecordError; a record that
    stops replaying (truncated, or not what the engine does) keeps its steps up to there and
    lists the problem in `problems`."""
    records, errors = read_to_show(path)
    header = records[0].header
    replayer = Replayer(header)  # checks the game, rules version and seat count
    view = view_for(header.game)
    names = tuple(replayer.names)
    problems = list(errors)
    steps = [
        Step(
            0,
            StepKind.START,
            replayer.state,
            fault_counts=(0,) * len(names),
            retired=(False,) * len(names),
        )
    ]
    faults: list[record_pb2.FaultRecord] = []
    events: list[Shown] = []
    result: common_pb2.Result | None = None

    def close_step() -> None:
        if events:
            steps[-1] = replace(steps[-1], events=(*steps[-1].events, *events))
            events.clear()

    for number, record in enumerate(records[1:], start=2):
        kind = record.WhichOneof("line")
        try:
            replayer.line(record)
        except CroupierError as error:
            problems.append(f"record line {number}: {error}")
            break
        if kind == "event":
            line = record.event
            payload = getattr(line.event, line.event.WhichOneof("game") or "")
            seats = None if line.public else frozenset(line.seats)
            events.append(Shown(line.event.text, payload, seats))
            continue
        close_step()
        if kind == "fault":
            faults.append(record.fault)
        elif kind == "result":
            result = record.result.result
        elif kind in ("chance", "action"):
            step = _step(len(steps), record, replayer, tuple(faults))
            faults.clear()
            steps.append(step)
    close_step()
    if result is None and not problems:
        problems.append("the record ends before the result")
    positions = [view.position(step.state.observation(0)) for step in steps]
    return Timeline(path, header, view, names, steps, positions, result, problems)


def _step(
    index: int,
    record: record_pb2.Record,
    replayer: Replayer,
    faults: tuple[record_pb2.FaultRecord, ...],
) -> Step:
    counts = tuple(replayer.faults)
    retired = tuple(replayer.retired)
    if record.WhichOneof("line") == "chance":
        chance = record.chance
        if chance.WhichOneof("outcome") == "deck":
            text = f"{chance.label}: {' '.join(chance.deck.cards)}"
        else:
            text = f"{chance.label}: {chance.pick}"
        return Step(
            index, StepKind.CHANCE, replayer.state, text=text, fault_counts=counts, retired=retired
        )
    action = record.action
    return Step(
        index,
        StepKind.ACTION,
        replayer.state,
        seat=action.seat,
        text=action.text,
        defaulted=action.defaulted,
        elapsed_ms=action.elapsed_ms,
        cpu_ms=action.cpu_ms if action.HasField("cpu_ms") else None,
        times=decision_times(action),
        faults=faults,
        fault_counts=counts,
        retired=retired,
    )
