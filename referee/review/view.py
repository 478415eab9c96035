"""A seat's view of a match: what it was sent at each of its decisions, and nothing else.

A review values a decision from this alone, and a reference bot builds the same view from its
requests, so what either computes cannot depend on a card the seat did not see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from google.protobuf.message import Message

from croupier.v1 import game_pb2, referee_pb2
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import Game, State, parse_options
from referee.games.options import Options
from referee.match import protocol
from referee.match.records import read_all
from referee.match.replay import verify


class Unverified(CroupierError):
    """The record does not verify: nothing in it is reviewed."""


@dataclass(frozen=True, slots=True)
class SeatDecision:
    """One decision of the seat: the events it was sent since its previous one (oldest first),
    its observation, its legal actions' texts, and the text it chose (None: not yet)."""

    events: tuple[game_pb2.Event, ...]
    observation: Message
    legal: tuple[str, ...]
    chosen: str | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    game: Game
    options: Options
    seat: int
    decisions: tuple[SeatDecision, ...]

    def up_to(self, decision: int) -> SeatView:
        """The view at its decision `decision` (0-based), the choice there not yet made."""
        mine = self.decisions[: decision + 1]
        return replace(self, decisions=(*mine[:-1], replace(mine[-1], chosen=None)))


def from_request(game_id: str, request: referee_pb2.ActionRequest) -> SeatDecision:
    """The decision a request asks for, as its seat saw it."""
    return SeatDecision(
        events=tuple(request.events),
        observation=getattr(request.observation, game_id),
        legal=tuple(action.text for action in request.legal_actions),
    )


def view_of_record(path: Path, seat: int) -> SeatView:
    """Seat `seat`'s view of every one of its decisions in the record at `path`. Raises
    CroupierError for a record that does not verify (with verify's reason), of another rules
    version, or a seat it does not have."""
    report = verify(path)
    if not report.ok:
        raise Unverified(f"record {str(path)!r} does not verify: {report.problems[0]}")
    lines, _ = read_all(path, strict=True)
    header = lines[0].header
    game = get_game(header.game)
    options = parse_options(game, dict(header.options))
    seats = game.seat_count(options)
    if not 0 <= seat < seats:
        raise CroupierError(f"seat {seat!r} is out of range 0..{seats - 1} for this record")
    state = game.new_game(options)
    pending: list[game_pb2.Event] = []
    decisions: list[SeatDecision] = []
    for line in lines[1:]:
        kind = line.WhichOneof("line")
        if kind == "chance":
            chance = line.chance
            outcome = tuple(chance.deck.cards) if chance.HasField("deck") else chance.pick
            state = state.apply_chance(outcome)
        elif kind == "action":
            legal = state.legal_actions()
            if state.to_move == seat:
                texts = tuple(action.text for action in legal)
                decisions.append(
                    SeatDecision(tuple(pending), state.observation(seat), texts, line.action.text)
                )
                pending = []
            state = state.apply(legal[line.action.index])
        else:
            continue
        pending.extend(_visible(game.id, state, seat))
    return SeatView(game, options, seat, tuple(decisions))


def _visible(game_id: str, state: State, seat: int) -> Sequence[game_pb2.Event]:
    return [protocol.event(game_id, e) for e in state.events if e.visible_to(seat)]
