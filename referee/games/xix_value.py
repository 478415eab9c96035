"""XIX's luck value (referee.games.values): the seat's expected final margin from the deal and
the first leader, the game's only chance (XIX-R1, XIX-R2).

Features, each the seat's less the opponent's:
  0. the sum of the hand's card values (high cards take most tricks);
  1. how many low cards (1-4) the hand holds: they take a trick only against their complement
     to 19, and the fit finds them worse than their face value says;
  2. how many middle cards (8-11) it holds: the fit values them above their face value;
  3. who leads first: +1 if the seat leads, -1 if the opponent does, 0 before the pick.

Fitted with `.venv/bin/python scripts/fit_values.py xix --matches 6000` (heuristic self-play,
least squares on the first 3000 matches, 12000 rows): R^2 0.134; on the 3000 held-out matches
seat 0's margin variance falls from 151.0 to 130.0, 1.16x fewer matches for the same precision.
Hand-strength features beyond these (each card's own weight, sorted per-card strengths, pairwise
trick counts between the hands, the strike row) fitted no better on held-out matches: the deal
decides only the first exchange of a game that usually runs several.
"""

from __future__ import annotations

from typing import Final

from referee.games.base import State
from referee.games.xix import Phase, XixState

NAME: Final = "xix-hand-1"
WEIGHTS: Final = (0.1959, -0.4692, 0.4009, -1.3673)

#: Per card value: is it low (1-4), is it in the middle (8-11).
_LOW: Final = tuple(1 <= card <= 4 for card in range(19))
_MIDDLE: Final = tuple(8 <= card <= 11 for card in range(19))


def features(state: State, seat: int) -> tuple[float, ...]:
    assert isinstance(state, XixState)
    other = 1 - seat
    mine, theirs = state.hands[seat], state.hands[other]
    low, middle = _LOW.__getitem__, _MIDDLE.__getitem__
    leader = state.to_move_seat if state.phase is Phase.PLAY else -1  # none before the pick
    return (
        float(sum(mine) - sum(theirs)),
        float(sum(map(low, mine)) - sum(map(low, theirs))),
        float(sum(map(middle, mine)) - sum(map(middle, theirs))),
        1.0 if leader == seat else -1.0 if leader == other else 0.0,
    )
