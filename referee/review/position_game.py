"""A position as a one-decision match: a Game whose every match is the next position of a
file, so that a bot plays it through the referee's own runner and protocol (MatchStart, one
ActionRequest with the position's observation, legal actions and events, MatchEnd), in any
language and in the sandbox.

Not an engine (it is never registered): its matches must be played one at a time, in order,
since each new_game hands out the next position. The seat's choice is the result's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import Message

from referee.games.base import Action, Chance, ChanceOutcome, Event, Game, Result
from referee.games.catalog import GameInfo
from referee.games.options import Options, OptionSpec
from referee.review.positions import Position


@dataclass(frozen=True, slots=True)
class PositionState:
    position: Position
    game: Game
    chosen: str | None = None

    @property
    def to_move(self) -> int | None:
        return None if self.chosen is not None else self.position.view.seat

    @property
    def events(self) -> tuple[Event, ...]:
        return ()

    def chance(self) -> Chance | None:
        return None

    def is_terminal(self) -> bool:
        return self.chosen is not None

    def legal_actions(self) -> Sequence[Action]:
        return [self.game.parse_action(text) for text in self.position.decision.legal]

    def apply(self, action: Action) -> PositionState:
        return PositionState(self.position, self.game, action.text)

    def apply_chance(self, outcome: ChanceOutcome) -> PositionState:
        raise AssertionError("a position has no chance node")

    def observation(self, seat: int) -> Message:
        shown = self.position.decision.observation
        return shown if seat == self.position.view.seat else type(shown)()

    def result(self) -> Result:
        seats = self.game.seat_count(self.position.view.options)
        return Result(scores=(0,) * seats, ranks=(1,) * seats, text=f"chose {self.chosen}")


class PositionGame:
    """The positions, handed out one a match in order, as the game they are of."""

    def __init__(self, positions: Sequence[Position]) -> None:
        self.positions = list(positions)
        self.game = positions[0].view.game
        self._next = 0

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def info(self) -> GameInfo:
        return self.game.info

    @property
    def title(self) -> str:
        return self.game.title

    @property
    def rules_version(self) -> str:
        return self.game.rules_version

    @property
    def option_specs(self) -> tuple[OptionSpec, ...]:
        return self.game.option_specs

    def seat_count(self, options: Options) -> int:
        return self.game.seat_count(options)

    def new_game(self, options: Options) -> PositionState:
        position = self.positions[self._next]
        self._next += 1
        return PositionState(position, self.game)

    def parse_action(self, text: str) -> Action:
        return self.game.parse_action(text)
