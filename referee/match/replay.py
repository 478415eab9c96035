"""Replaying records: re-run one through the engine (`Replayer`, which the viewers share) and
verify it. Rendering a record for a person is the viewer's (referee.viewer.plain).

Verification re-runs the engine on the recorded chance and actions (no seed, no RNG) and compares
every recorded outcome: the legal action at each index, every event and who saw it, the faults'
effect, and the result.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from croupier.v1 import common_pb2, record_pb2
from referee.errors import CroupierError
from referee.games import checked, get_game
from referee.games.base import ChanceOutcome, State, parse_options
from referee.match import protocol
from referee.match.luck import LuckMeter
from referee.match.luck_history import same_corrections
from referee.match.records import read_all
from referee.match.runner import draw_chance


@dataclass
class Verification:
    """What `verify` found: `problems` is empty for a record that replays exactly."""

    path: Path
    problems: list[str] = field(default_factory=list)
    lines: int = 0
    #: Whether every chance outcome was drawn again from the match's seed and compared.
    chance_checked: bool = False
    #: Whether the seats' luck corrections were computed again and compared (schema 2 records
    #: of a game with a value function).
    luck_checked: bool = False

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
                f"record rules version {clipped(header.rules_version)} differs from the engine's "
                f"{self.game.rules_version!r}"
            )
        options = parse_options(self.game, dict(header.options))
        self.names = [seat.name for seat in header.seats]
        if len(self.names) != self.game.seat_count(options):
            raise CroupierError(
                f"record has {len(self.names)} seats; {clipped(header.game)} with these options "
                f"needs {self.game.seat_count(options)}"
            )
        self.state: State = self.game.new_game(options)
        #: Schema 2 records carry the seats' luck corrections: they are computed again here.
        self.luck = (
            LuckMeter.for_game(self.game.id, int(header.seed), len(self.names))
            if header.schema_version >= 2 and header.seed.strip().lstrip("-").isdigit()
            else None
        )
        self.luck_recorded = header.schema_version >= 2
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
                raise CroupierError(f"unexpected event {clipped(record.event.event.text)}")
            expected = self.pending.popleft()
            if expected != record.event:
                raise CroupierError(
                    f"event {clipped(record.event.event.text)} differs from the engine's "
                    f"{clipped(expected.event.text)} (or its visibility)"
                )
            return
        if self.pending:
            raise CroupierError(f"missing event {clipped(self.pending[0].event.text)}")
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
            self.check_luck(record.result)
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
        after = checked.apply_chance(self.state, outcome)
        if self.luck is not None:
            self.luck.chance(self.state, after)
        self.transition(after)

    def action(self, action: record_pb2.ActionRecord) -> None:
        state, taken = checked.apply_index(self.state, action.seat, action.index)
        if taken.text != action.text:
            raise CroupierError(
                f"action {action.index} of seat {action.seat} is {taken.text!r}, "
                f"recorded as {clipped(action.text)}"
            )
        self.transition(state)

    def result(self, result: common_pb2.Result) -> None:
        if result.termination == common_pb2.TERMINATION_ABORTED:
            # Stopped early (a shutdown): no winner, no score, only the faults so far.
            expected = protocol.aborted_result(self.names, self.faults, self.retired)
            if result != expected:
                raise CroupierError(
                    f"an aborted result {clipped(result.text)} with scores or ranks, or "
                    "faults that differ from the record's: an aborted match has none"
                )
            return
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
                f"result {clipped(result.text)} differs from the engine's {expected.text!r}"
            )

    def check_luck(self, line: record_pb2.ResultRecord) -> None:
        """A schema 2 record's luck corrections must be what this referee's value function
        gives; one made by another value function (its digest differs, and no earlier release's
        with the same corrections has it: referee.match.luck_history) does not verify. A schema
        1 record and an aborted match carry none."""
        if not self.luck_recorded or line.result.termination == common_pb2.TERMINATION_ABORTED:
            if line.luck or line.luck_value:
                why = "schema 1 has none" if not self.luck_recorded else "an aborted match has none"
                raise CroupierError(f"luck corrections in the result line, where {why}")
            return
        if self.luck is None:
            if line.luck or line.luck_value:
                raise CroupierError(
                    "luck corrections this referee cannot compute again (no value function for "
                    "the game, or no seed in the header)"
                )
            return
        if line.luck_value != self.luck.digest and not same_corrections(
            self.game.id, line.luck_value
        ):
            raise CroupierError(
                "luck corrections made by value function "
                f"{clipped(line.luck_value or 'none')}, not this referee's {self.luck.digest!r}"
            )
        expected = self.luck.corrections()
        if len(line.luck) != len(expected) or not all(  # (NaN is no number within any bound)
            abs(a - b) <= 1e-9 for a, b in zip(line.luck, expected, strict=False)
        ):
            raise CroupierError(
                f"luck corrections {clipped(str(list(line.luck)))} differ from the value "
                f"function's {list(expected)}"
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
    aborted = records[-1].result.result.termination == common_pb2.TERMINATION_ABORTED
    report.luck_checked = replayer.luck is not None and bool(records[-1].result.luck)
    report.luck_checked = report.luck_checked and not aborted
    return report


#: The most of a record's own text (an event's, an action's) a problem quotes: a line of a
#: record may be megabytes long, and a problem is one line of a report.
QUOTED_CHARS = 80


def clipped(text: str) -> str:
    """`text` quoted (repr), cut to QUOTED_CHARS with its full length said."""
    if len(text) <= QUOTED_CHARS:
        return repr(text)
    return f"{text[:QUOTED_CHARS]!r}... ({len(text):,} characters)"
