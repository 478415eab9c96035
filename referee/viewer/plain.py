"""A record as plain text for a person (`croupier replay --plain`): omniscient or as one seat
saw it, cards as glyphs, each decision with its recorded times (and, given the seat's log, the
lines it logged during it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from croupier.v1 import common_pb2, record_pb2
from referee.errors import CroupierError
from referee.match.computer import played_on
from referee.match.records import ChallengeMark, read_to_show
from referee.text import printable
from referee.viewer.decision_log import read_decision_log
from referee.viewer.glyphs import readable


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


#: How a line of the bot's log starts, under its decision: never mistaken for the record's.
LOG_MARK = "  log | "


def render(
    path: Path,
    seat: int | None = None,
    warn: Callable[[str], None] | None = None,
    log: Path | None = None,
) -> Iterator[str]:
    """The record as text lines: omniscient, or exactly what `seat` saw (its events and actions),
    with `seat`'s `log` (referee.viewer.decision_log) under its decisions, control characters
    escaped. What cannot be read (a truncated tail, a bad line) is skipped and passed to `warn`;
    a file with no header raises RecordError, a log that is none CroupierError."""
    records, problems = read_to_show(path)
    header = records[0].header
    names = [s.name for s in header.seats]
    if seat is not None and not 0 <= seat < len(names):
        raise CroupierError(f"seat {seat!r} does not exist: this match has {len(names)} seats")
    logged: dict[int, list[str]] = {}
    if log is not None:
        if seat is None:
            raise CroupierError("--log is one seat's log: give --seat too")
        movers = [r.action.seat for r in records[1:] if r.WhichOneof("line") == "action"]
        decisions = read_decision_log(log, header.match_id, seat, movers)
        logged = decisions.lines
        problems += decisions.problems()
    for problem in problems:
        if warn is not None:
            warn(problem)
    options = ", ".join(f"{k}={v}" for k, v in sorted(header.options.items())) or "default options"
    mark = ChallengeMark.of(header)
    played_for = f", {mark}" if mark is not None else ""  # issue 45.5
    yield f"{header.game} ({header.rules_version}), match {header.match_id}{played_for}, {options}"
    yield "seats: " + ", ".join(f"{i}={name}" for i, name in enumerate(names))
    where = played_on(header)
    if where:
        yield where
    if seat is not None:
        yield f"as seen by seat {seat} ({names[seat]})"
    for logged_line in logged.get(0, ()):
        yield LOG_MARK + printable(logged_line)
    restating: int | None = None  # the seat whose action line was just printed
    decision = 0
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
            decision += 1
            action = record.action
            note = " (played by the referee)" if action.defaulted else ""
            times = decision_times(action)
            text = readable(header.game, action.text)
            yield f"seat {action.seat} {names[action.seat]}: {text}{note}{times}"
            for logged_line in logged.get(decision, ()):
                yield LOG_MARK + printable(logged_line)
            restating = action.seat
        elif kind == "action":
            decision += 1
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
