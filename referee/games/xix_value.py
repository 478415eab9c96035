"""XIX's luck value (referee.games.values): a placeholder to be fitted."""

from __future__ import annotations

from typing import Final

from referee.games.base import State
from referee.games.xix import XixState

NAME: Final = "xix-hand-0"
WEIGHTS: Final = (0.175, -1.8874)


def features(state: State, seat: int) -> tuple[float, ...]:
    assert isinstance(state, XixState)
    other = 1 - seat
    return (
        float(sum(state.hands[seat]) - sum(state.hands[other])),
        1.0 if state.to_move_seat == seat else -1.0 if state.to_move_seat == other else 0.0,
    )
