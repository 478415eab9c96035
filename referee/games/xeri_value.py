"""Xeri's luck value (referee.games.values): the seat's expected final margin after a round's
deal, its cut (V1) and its pile redeals (XERI-R4), and after the first dealer is drawn (XERI-R2).

A round's shuffle fixes every card each side will be dealt in it (XERI-R3: the stock is dealt in
the same order, so stock card i goes to the side of seat dealer + 1 + i, whatever the seat count),
so V reads the whole round's deal, not only the first hands. Features, each the seat's side's
less the other side's:
  0. points so far (they cancel in a correction, but explain much of the margin);
  1. who deals this round: +1 if the seat's side does, -1 if not; 0 before the first dealer,
     and before the first deal, 0 too if the sides deal equally many rounds (4 of them, say);
  2. jacks the side is dealt this round (each captures a pile, XERI-R5);
  3. card points the side is dealt (XERI-R9): the fit finds them a cost, a point card held is
     a card that must be played onto the pile;
  4. card points on the initial pile, +1 for the side that plays first (left of the dealer);
  5. jacks in the round's last deal: the last capture also takes what is left (XERI-R8).
While the cut (V1) or a pile redeal is pending, the stock's order is not yet the one that will be
dealt, so it counts for nobody (its expectation, by symmetry) and the pile is empty.

With 4 seats a round has 2 deals, not 4, and partners play apart, so each seat count has its
own weights for features 1-5 (one WEIGHTS tuple: the other count's features are zeros).

Fitted by least squares on the first half of both runs pooled (heuristic self-play, default
options), then checked with each run's own figures:
  .venv/bin/python scripts/fit_values.py xeri --option players=2 --matches 3000
  .venv/bin/python scripts/fit_values.py xeri --option players=4 --matches 3000
2 players: 22070 rows, R^2 0.354; on the 1500 held-out matches seat 0's margin variance falls
from 2193 to 1866, 1.18x fewer matches. 4 players: 44428 rows, R^2 0.360; 2123 to 1855, 1.14x.
R^2 is mostly the points so far; the deal itself explains little of a round, whose points are
mostly decided in play and by Xeris (10 or 20 points each). Tried without a held-out gain beyond
noise: the side's rank duplicates (Xeri chances), a weight per rank plus TD and 2C, the first
hands' jacks apart from the rest. The variations (V1-V5) were not fitted apart: V stays unbiased
under them, and the same cards matter the same way.
"""

from __future__ import annotations

from typing import Final

from referee.games.base import State
from referee.games.xeri import CARD_POINTS, HAND_SIZE, IS_JACK, Phase, XeriState

NAME: Final = "xeri-deal-1"
WEIGHTS: Final = (
    1.0049,  # points so far
    # 2 players: dealer, jacks, card points, pile, last deal's jacks
    2.05,
    4.4378,
    -1.0204,
    0.8971,
    -0.0428,
    # 4 players: the same
    1.0902,
    5.7367,
    -1.5024,
    0.514,
    -1.0407,
)

_JACKS: Final = tuple(float(jack) for jack in IS_JACK)
_POINTS: Final = tuple(float(points) for points in CARD_POINTS)
_PLAY: Final = Phase.PLAY
_SHUFFLE: Final = Phase.SHUFFLE
_NONE: Final = (0.0,) * 5


def features(state: State, seat: int) -> tuple[float, ...]:
    assert isinstance(state, XeriState)
    side = seat & 1
    jack, point = _JACKS.__getitem__, _POINTS.__getitem__
    jacks = [0.0, 0.0]
    points = [0.0, 0.0]
    for holder, hand in enumerate(state.hands):
        jacks[holder & 1] += sum(map(jack, hand))
        points[holder & 1] += sum(map(point, hand))
    pile = last = 0.0
    first = (state.dealer + 1) & 1  # the side left of the dealer, which is dealt first
    if state.phase is _PLAY:
        stock = state.stock
        for offset in (0, 1):
            cards = stock[offset::2]
            jacks[first ^ offset] += sum(map(jack, cards))
            points[first ^ offset] += sum(map(point, cards))
        deal = HAND_SIZE * state.config.players
        if len(stock) >= deal:  # the round's last deal: its first card goes to `first` too
            rest = stock[len(stock) - deal :]
            last = sum(map(jack, rest[0::2])) - sum(map(jack, rest[1::2]))
            last = last if first == side else -last
        pile = sum(map(point, state.pile))
        pile = pile if first == side else -pile
    other = 1 - side
    dealer = 0.0 if state.round == 0 else (1.0 if state.dealer & 1 == side else -1.0)
    if state.phase is _SHUFFLE:
        # Before the round's deal (after the first dealer is drawn): the deal passes to the
        # other side each round (XERI-R2), so the side dealing this round deals one round more
        # than the other among the rest only if their number is odd (V5's is open: say it is).
        config = state.config
        if not config.cumulative_151 and (config.rounds - state.round) % 2:
            dealer = 0.0
    dealt = (dealer, jacks[side] - jacks[other], points[side] - points[other], pile, last)
    # Each seat count has its own weights (zeros stand for the other count's).
    return (
        float(state.points[side] - state.points[other]),
        *(dealt if state.config.players == 2 else _NONE),
        *(_NONE if state.config.players == 2 else dealt),
    )
