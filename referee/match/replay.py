"""Replaying records: verify one against the engine, and render it as text for a person.

Verification re-runs the engine on the recorded chance and actions (no seed, no RNG) and compares
every recorded outcome: the legal action at each index, every event and who saw it, the faults'
effect, and the result.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from croupier.v1 import common_pb2, record_pb2
from referee.errors import CroupierError
from referee.games import checked, get_game
from referee.games.base import ChanceOutcome, State, parse_options
from referee.match import protocol
from referee.match.glyphs import readable
from referee.match.records import read_all, read_to_show
from referee.match.runner import draw_chance


@dataclass
class Verification:
    """What `verify` found: `problems` is empty for a record that replays exactly."""

    path: Path
    problems: list[str] = field(default_factory=list)
    lines: int = 0
    #: Whether every chance outcome was drawn again from the match's seed and compared.
    chance_checked: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


class Replayer:
    """Re-runs a record's lines through the engine, checking every recorded outcome as it goes:
    the one replay path that `verify` and the viewers share. Raises CroupierError when the
    header does not fit this engine (another rules version, a wrong seat count)."""

    def __init__(self, header: record_pb2.RecordHeader, seed: int | None = None) -> None:
        self.game = get_game(header.game)
        #: With a seed, each chance outcome is drawn again as the referee drew it
        #: (referee.match.runner: random.Random(seed), the header's deck as the first shuffle)
        #: and must be the recorded one: an outcome no seat ever sees is checked too.
        self.rng = random.Random(seed) if seed is not None else None
        if header.rules_version != self.game.rules_version:
            raise CroupierError(
                f"record rules version {header.rules_version!r} differs from the engine's "
                f"{self.game.rules_version!r}"
            )
        options = parse_options(self.game, dict(header.options))
        self.names = [seat.name for seat in header.seats]
        if len(self.names) != self.game.seat_count(options):
            raise CroupierError(
                f"record has {len(self.names)} seats; {header.game!r} with these options "
                f"needs {self.game.seat_count(options)}"
            )
        self.state: State = self.game.new_game(options)
        self.deck_pending = tuple(header.deck) or None
        self.pending: deque[record_pb2.EventRecord] = deque()
        self.faults = [0] * len(self.names)
        self.retired = [False] * len(self.names)
        #: A result line was read: the record is complete, and nothing may follow it.
        self.finished = False

    def transition(self, state: State) -> None:
        self.state = state
        for event in state.events:
            seats = sorted(event.seats) if event.seats is not None else []
            self.pending.append(
                record_pb2.EventRecord(
                    event=protocol.event(self.game.id, event),
                    public=event.seats is None,
                    seats=seats,
                )
            )

    def line(self, record: record_pb2.Record) -> None:
        kind = record.WhichOneof("line")
        if self.finished:  # a duplicated result would otherwise verify (issue 24.5a)
            raise CroupierError(f"a {kind!r} line after the result")
        if kind == "event":
            if not self.pending:
                raise CroupierError(f"unexpected event {record.event.event.text!r}")
            expected = self.pending.popleft()
            if expected != record.event:
                raise CroupierError(
                    f"event {record.event.event.text!r} differs from the engine's "
                    f"{expected.event.text!r} (or its visibility)"
                )
            return
        if self.pending:
            raise CroupierError(f"missing event {self.pending[0].event.text!r}")
        if kind == "chance":
            self.chance(record.chance)
        elif kind == "action":
            self.action(record.action)
        elif kind == "fault":
            seat = record.fault.fault.seat
            if seat >= len(self.names):
                raise CroupierError(f"fault names seat {seat!r}, which does not exist")
            self.faults[seat] += 1
            self.retired[seat] = self.retired[seat] or record.fault.retired
        elif kind == "result":
            self.result(record.result.result)
            self.finished = True
        else:
            raise CroupierError(f"a second {kind!r} line")

    def chance(self, chance: record_pb2.ChanceRecord) -> None:
        outcome: ChanceOutcome
        node = self.state.chance()
        drawn = draw_chance(node, self.rng) if self.rng is not None and node is not None else None
        if chance.WhichOneof("outcome") == "deck":
            outcome = tuple(chance.deck.cards)
            if self.deck_pending is not None:
                if outcome != self.deck_pending:
                    raise CroupierError("the first deal differs from the header's deck")
                self.deck_pending = drawn = None  # given, not drawn (the RNG drew it all the same)
        else:
            outcome = chance.pick
        if drawn is not None and drawn != outcome:
            what = chance.label or "a chance outcome"
            raise CroupierError(f"{what} differs from what the match's seed draws")
        self.transition(checked.apply_chance(self.state, outcome))

    def action(self, action: record_pb2.ActionRecord) -> None:
        state, taken = checked.apply_index(self.state, action.seat, action.index)
        if taken.text != action.text:
            raise CroupierError(
                f"action {action.index} of seat {action.seat} is {taken.text!r}, "
                f"recorded as {action.text!r}"
            )
        self.transition(state)

    def result(self, result: common_pb2.Result) -> None:
        if result.termination == common_pb2.TERMINATION_ABORTED:
            return  # stopped early (a shutdown): every line before it was checked
        if not self.state.is_terminal():
            raise CroupierError("the result comes before the game is over")
        outcome = self.state.result()
        expected = protocol.result(outcome, self.names, self.faults, self.retired)
        if expected != result and any(self.retired):  # a record made before issue 17's text
            legacy = common_pb2.Result()
            legacy.CopyFrom(expected)
            legacy.text = protocol.legacy_result_text(outcome, self.retired)
            if legacy == result:
                return
        if expected != result:
            raise CroupierError(
                f"result {result.text!r} differs from the engine's {expected.text!r}"
            )


def verify(path: Path, seed: int | None = None) -> Verification:
    """Re-run the engine on a record and list every difference (none: the record verifies).
    Chance is drawn again from `seed`, else from the header's seed when it has one, and every
    outcome compared (docs/records.md, "From a seed to a deal")."""
    records, errors = read_all(path, strict=False)
    report = Verification(path, problems=list(errors), lines=len(records))
    if report.problems:
        return report
    header = records[0].header
    if seed is None and header.seed.strip().lstrip("-").isdigit():
        seed = int(header.seed)
    report.chance_checked = seed is not None
    try:
        replayer = Replayer(header, seed)
        for number, record in enumerate(records[1:], start=2):
            try:
                replayer.line(record)
            except CroupierError as error:
                report.problems.append(f"record {number}: {error}")
                return report
    except CroupierError as error:
        report.problems.append(f"header: {error}")
        return report
    if records[-1].WhichOneof("line") != "result":
        report.problems.append("the record ends before the result")
    return report


def decision_times(action: record_pb2.ActionRecord) -> str:
    """A decision's recorded times, e.g. ` · 12 ms, cpu 3 ms`: wall time far above CPU time on
    a timeout tells a starved bot from a slow one. Empty when nothing was measured."""
    cpu = action.cpu_ms if action.HasField("cpu_ms") else None
    starved = action.starved_ms if action.HasField("starved_ms") else 0
    if not action.elapsed_ms and cpu is None and not action.lag_ms and not starved:
        return ""
    parts = [f"{action.elapsed_ms} ms"]
    if cpu is not None:
        parts.append(f"cpu {cpu} ms")
    if starved:
        parts.append(f"waited {starved} ms for a CPU (not charged)")
    if action.lag_ms:
        parts.append(f"referee lag {action.lag_ms} ms")
    return " · " + ", ".join(parts)


def render(
    path: Path, seat: int | None = None, warn: Callable[[str], None] | None = None
) -> Iterator[str]:
    """The record as text lines: omniscient, or exactly what `seat` saw (its events and actions).
    What cannot be read (a truncated tail, a bad line) is skipped and passed to `warn`; a file
    with no header raises RecordError."""
    records, problems = read_to_show(path)
    for problem in problems:
        if warn is not None:
            warn(problem)
    header = records[0].header
    names = [s.name for s in header.seats]
    if seat is not None and not 0 <= seat < len(names):
        raise CroupierError(f"seat {seat!r} does not exist: this match has {len(names)} seats")
    options = ", ".join(f"{k}={v}" for k, v in sorted(header.options.items())) or "default options"
    yield f"{header.game} ({header.rules_version}), match {header.match_id}, {options}"
    yield "seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(names))
    if seat is not None:
        yield f"as seen by seat {seat} ({names[seat]})"
    restating: int | None = None  # the seat whose action line was just printed
    for record in records[1:]:
        kind = record.WhichOneof("line")
        if kind == "event":
            line = record.event
            text = readable(header.game, line.event.text)
            said, restating = restating, None
            if said is not None and line.event.text.startswith(f"seat {said} "):
                continue  # the action's own event says again what its line said: once is enough
            if seat is None:
                who = "" if line.public else " [seat " + ",".join(map(str, line.seats)) + " only]"
                yield f"  {text}{who}"
            elif line.public or seat in line.seats:
                yield f"  {text}"
        elif kind == "chance" and seat is None:
            chance = record.chance
            if chance.WhichOneof("outcome") == "deck":
                deck = readable(header.game, " ".join(chance.deck.cards))
                yield f"chance {chance.label}: {deck}"
            else:
                yield f"chance {chance.label}: {chance.pick}"
        elif kind == "action" and seat in (None, record.action.seat):
            action = record.action
            note = " (played by the referee)" if action.defaulted else ""
            times = decision_times(action)
            text = readable(header.game, action.text)
            yield f"seat {action.seat} {names[action.seat]}: {text}{note}{times}"
            restating = action.seat
        elif kind == "fault" and (seat is None or seat == record.fault.fault.seat):
            fault = record.fault.fault
            reason = common_pb2.FaultReason.Name(fault.reason)
            retired = " - retired" if record.fault.retired else ""
            yield f"fault seat {fault.seat}: {reason} {fault.detail}{retired}"
        elif kind == "result":
            result = record.result.result
            yield f"result: {result.text}"
            for s in result.seats:
                yield f"  seat {s.seat} {s.name}: score {s.score}, rank {s.rank}, faults {s.faults}"
