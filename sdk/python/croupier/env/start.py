"""Start a match at any recorded decision (issue 47.4): the record's own deal and seed, its
actions replayed through the referee's match up to decision K, so the seat to move there sees
exactly what it saw in the recorded match (the same ActionRequest, its events included)."""

from __future__ import annotations

from pathlib import Path

from croupier.env.table import Table
from croupier.v1 import record_pb2, referee_pb2
from referee.match.clock import TimeControl
from referee.match.records import read_all
from referee.match.replay import verify
from referee.match.requests import SeatQueues

#: A replayed decision: the seat and the request it was sent.
Replayed = tuple[int, referee_pb2.ActionRequest]


def from_record(
    table: Table,
    path: Path,
    decision: int,
    seat: int | None = None,
    *,
    record_to: Path | None = None,
) -> tuple[SeatQueues, list[Replayed]]:
    """The match of the record at `path`, played up to its decision `decision` (0-based, every
    seat's decisions counted); `seat`, if given, must be the seat to move there. Raises
    ValueError for a record that does not verify, is of another game, options or rules version,
    has faults (the runner skips a retired seat), or for a decision or seat it does not have.
    Returns the match and the decisions replayed, each with its request (for the seats' bots to
    see their events)."""
    lines, problems = read_all(path, strict=False)
    if problems or not lines or lines[0].WhichOneof("line") != "header":
        raise ValueError(f"record {str(path)!r} does not read: {(problems or ['no header'])[0]}")
    header = lines[0].header
    game = table.game
    if header.game != game.id or header.rules_version != game.rules_version:
        raise ValueError(
            f"record {str(path)!r} is of {header.game!r} rules {header.rules_version!r}, "
            f"not {game.id!r} rules {game.rules_version!r}"
        )
    if dict(header.options) != table.options.as_text():
        raise ValueError(
            f"record {str(path)!r} has options {dict(header.options)!r}, "
            f"not {table.options.as_text()!r}"
        )
    report = verify(path)
    if not report.ok:
        raise ValueError(f"record {str(path)!r} does not verify: {report.problems[0]}")
    if any(line.WhichOneof("line") == "fault" for line in lines):
        raise ValueError(
            f"record {str(path)!r} has faults: it cannot be replayed decision by decision"
        )
    actions = [line.action for line in lines if line.WhichOneof("line") == "action"]
    if not 0 <= decision < len(actions):
        raise ValueError(
            f"decision {decision!r} is past the record's {len(actions)} decisions "
            f"(0..{len(actions) - 1})"
        )
    acting = actions[decision].seat
    if seat is not None and seat != acting:
        moved = any(action.seat == seat for action in actions)
        what = "moves at another one" if moved else "never moved in it"
        raise ValueError(f"seat {seat!r} {what}: decision {decision!r} is seat {acting}'s")
    match = header_match(table, header, tuple(header.deck) or None, record_to)
    replayed: list[Replayed] = []
    for action in actions[:decision]:
        assert match.request is not None and match.seat == action.seat
        replayed.append((match.seat, match.request))
        match.answer(action.index)
    assert match.seat == acting
    return match, replayed


def header_match(
    table: Table,
    header: record_pb2.RecordHeader,
    deck: tuple[str, ...] | None,
    record_to: Path | None = None,
) -> SeatQueues:
    """A new match as the record's header has it (seed, names, time control), with `deck` as
    its first shuffle."""
    control = header.time_control
    return table.match(
        int(header.seed),
        [s.name for s in header.seats],
        time_control=TimeControl(move_ms=control.move_ms, bank_ms=control.bank_ms),
        match_id=header.match_id,
        deck=deck,
        record=record_to,
    )
