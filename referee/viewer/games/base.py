"""What every game's view implements, and the context it builds a table from.

A game's view builds a seat's table from that seat's observation and the events it was sent; only
the omniscient view also gets the engine's state, for what no seat sees (the XIX strike row, the
Tex-Tac-Toe face-down grid, the stock). A game with no view of its own gets `GenericView`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, TypeVar

from google.protobuf.message import Message

from referee.games.base import State
from referee.text import plural
from referee.viewer.model import BACK, Deck, SeatBox, Table

M = TypeVar("M", bound=Message)

#: The `viewer` of a spectator's table: no seat's hand, built from the public observation (what
#: every seat agrees on, referee.match.public), which `observations` holds under this key.
SPECTATOR = -1


@dataclass(frozen=True, slots=True)
class Context:
    """What one view may use at one step.

    `observations` holds the viewer's observation only, or every seat's in the omniscient view
    (`viewer` None), which alone also gets `state`; a spectator's (`viewer` SPECTATOR) holds the
    public observation. `events` are this step's event payloads (e.g.
    XixEvent) that the viewer saw.
    """

    names: tuple[str, ...]
    viewer: int | None
    observations: Mapping[int, Message]
    state: State | None
    events: tuple[Message, ...]

    @property
    def public(self) -> Message:
        """An observation to read public facts from: the viewer's, or seat 0's."""
        return self.observations[0 if self.viewer is None else self.viewer]

    def sees_hand(self, seat: int) -> bool:
        return self.viewer is None or self.viewer == seat

    def events_of(self, kind: str, message_type: type[M]) -> list[M]:
        """This step's visible events of one kind: the game event's oneof case (e.g. "played")
        and its message type."""
        found = []
        for event in self.events:
            if event.WhichOneof("kind") == kind:
                value = getattr(event, kind)
                assert isinstance(value, message_type)
                found.append(value)
        return found


@dataclass(frozen=True, slots=True)
class Position:
    """Where a step is in the match, for jumping: round (major) and trick (minor), and a label."""

    major: int
    minor: int
    label: str


class GameView(Protocol):
    """How one game is drawn."""

    @property
    def deck(self) -> Deck: ...

    @property
    def major(self) -> str:
        """What a major segment is called ("round", "exchange", "hand")."""
        ...

    @property
    def minor(self) -> str:
        """What a minor segment is called ("trick", "deal", "turn")."""
        ...

    def position(self, observation: Message) -> Position:
        """The step's position, from public facts only (so every view agrees)."""
        ...

    def table(self, context: Context) -> Table: ...


@dataclass(frozen=True, slots=True)
class GenericView:
    """For a game with no view of its own yet: the seats and the observation's text."""

    deck: Deck = Deck.STANDARD
    major: str = "round"
    minor: str = "step"

    def position(self, observation: Message) -> Position:
        return Position(1, 0, "")

    def table(self, context: Context) -> Table:
        seats = tuple(
            SeatBox(seat, name, score="", hand=(BACK,), viewer=seat == context.viewer)
            for seat, name in enumerate(context.names)
        )
        text = " ".join(str(context.public).split())
        return Table(self.deck, text[:200], seats)


def points(count: int) -> str:
    """ "1 point", "-3 points"."""
    return plural(count, "point")
