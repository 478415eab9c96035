"""Xactika's luck value (referee.games.values, issue 28.4): how a deal and the first dealer move a
seat's expected final margin.

A round scores an exact bid (+bid) or -1 per trick off, so a hand is lucky when it takes tricks
*and* its taker can tell how many. After a deal the referee sees every hand, and for each card
counts the cards of the other hands that would beat it on its best call (same call, face value at
least its own, XAC-R6). The features, each the seat's value less the mean of the other seats'
(the margin's own form, so one weight vector serves every player count):

0. the score margin so far (no luck in it: it only sharpens the fit);
1. rounds still to be dealt by the seat, 2. by its right-hand neighbour (the seat leads them);
3. the seat deals this round (bids last under the hook, XAC-R4), 4. its right-hand neighbour does
   (the seat leads the first trick);
5. sure tricks: cards that no card in another hand beats on one of their calls;
6. |bid - sure|, the bid being what the SDK's heuristic would bid (1.4 times its cards' summed
   lead chances, threats counted among all 80 other cards);
7. |that estimate - likely tricks|, likely tricks weighing each card 0.4 per card that beats it;
8. the bid when it equals the sure tricks (a bid likely made), else 0.

Before a deal (and after the first-dealer pick) only 0-2 are nonzero. WEIGHTS were fitted with
`scripts/fit_values.py xactika --option players=4 --matches 300` (R^2 0.403 on the 150 fitting
matches, most of it from feature 0); the held-out variance of seat 0's margin, module's weights:

- 4 players: 1.06x fewer matches on matches 150-299 (47.38 raw, 44.79 corrected), 1.05x on
  250-499 (`--matches 500`: 41.90, 39.90; a refit on 250 matches did no better, 1.05x);
- 2 players (`--matches 400`): 1.02x (206.72, 202.08); its own refit 1.04x;
- 6 players (`--matches 200`): 1.07x (21.82, 20.45); its own refit 1.08x.

So one weight vector serves 2-10 players about as well as per-count ones. The gain is small
because a round's points hang mostly on the play after the bids, not on the deal: the deal's
features explain about 5% of the variance of a round's margin.

A features() call costs about 12 µs of CPU for 2 to 10 players, as the luck meter calls it (64
deals, every seat; a deal's hands are scored once for all seats, see `_rows`).
"""

from __future__ import annotations

from typing import Final

from referee.games.base import State
from referee.games.xactika import (
    CARD_CALLS,
    CARDS,
    FACE,
    HAND_SIZE,
    MATCHES,
    MAX_PLAYERS,
    Phase,
    XactikaState,
)

NAME: Final = "xactika-hand-1"
WEIGHTS: Final = (0.9852, 0.6514, -0.0802, 0.2847, -0.3003, 0.3168, -0.0498, -0.1578, -0.0109)

_BIT: Final = tuple(1 << card for card in CARDS)
#: _THREATS[card]: per call the card shows, the cards that would beat it on its own lead (they
#: match the call with at least its face value), as a bit mask.
_THREATS: Final = tuple(
    tuple(
        sum(_BIT[other] for other in MATCHES[call] if other != card and FACE[other] >= FACE[card])
        for call in CARD_CALLS[card]
    )
    for card in CARDS
)


def _estimates(players: int) -> tuple[float, ...]:
    """Per card, what the SDK's heuristic bot counts it for in its bid (1.4 times its best lead
    chance), with the threats counted among all 80 other cards rather than the unseen ones."""
    share = HAND_SIZE * (players - 1) / (len(CARDS) - HAND_SIZE)
    return tuple(
        1.4 * max((1.0 - share) ** threats.bit_count() for threats in _THREATS[card])
        for card in CARDS
    )


_ESTIMATES: Final = tuple(_estimates(max(players, 2)) for players in range(MAX_PLAYERS + 1))
_TRUE_DECAY: Final = 0.4


def _hand(hand: tuple[int, ...], others: int, estimates: tuple[float, ...]) -> tuple[float, ...]:
    """(sure, |bid - sure|, |estimate - likely|, bid if it looks made): `sure` counts the cards no
    card of `others` (a mask) beats on one of their calls, `likely` weighs each card by 0.4 per
    beating card, and the bid is the heuristic's estimate rounded."""
    sure = 0
    likely = estimate = 0.0
    for card in hand:
        a, b, c, d = _THREATS[card]
        least = min((a & others).bit_count(), (b & others).bit_count())
        least = min(least, (c & others).bit_count(), (d & others).bit_count())
        if least == 0:
            sure += 1
        likely += _TRUE_DECAY**least
        estimate += estimates[card]
    bid = round(estimate)
    off = abs(bid - sure)
    return (float(sure), float(off), abs(estimate - likely), float(bid) if off < 1 else 0.0)


#: The hands' rows of the states seen last, by id (the state is kept, so its id is not reused): the
#: luck meter asks for every seat of the same deal, and a row needs the other hands.
_MEMO: Final[dict[int, tuple[XactikaState, tuple[tuple[float, ...], ...]]]] = {}
_MEMO_SIZE: Final = 512


def _rows(state: XactikaState) -> tuple[tuple[float, ...], ...]:
    """Each seat's `_hand` row for the dealt hands."""
    memo = _MEMO.get(id(state))
    if memo is not None and memo[0] is state:
        return memo[1]
    masks = [sum(_BIT[c] for c in hand) for hand in state.hands]
    every = sum(masks)
    estimates = _ESTIMATES[state.table.players]
    rows = tuple(_hand(h, every & ~m, estimates) for h, m in zip(state.hands, masks, strict=True))
    if len(_MEMO) >= _MEMO_SIZE:
        _MEMO.clear()
    _MEMO[id(state)] = (state, rows)
    return rows


def _relative(values: list[float], seat: int) -> float:
    n = len(values)
    return values[seat] - (sum(values) - values[seat]) / (n - 1)


def features(state: State, seat: int) -> tuple[float, ...]:
    assert isinstance(state, XactikaState)
    t = state.table
    n = t.players
    scores = t.scores or (0,) * n
    margin = _relative([float(s) for s in scores], seat)
    # Rounds still to deal and who deals them: the dealer bids last under the hook (XAC-R4), its
    # left neighbour leads the first trick.
    dealt = state.phase is Phase.BID or state.phase is Phase.PLAY
    start = (t.dealer + 1) % n if dealt else t.dealer
    deals = [0.0] * n
    for k in range(max(t.rounds - t.round, 0)):
        deals[(start + k) % n] += 1.0
    future = (_relative(deals, seat), _relative(deals, (seat - 1) % n))
    if state.phase is not Phase.BID or not state.hands:
        return (margin, *future, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    rows = _rows(state)
    dealer = [0.0] * n
    dealer[t.dealer] = 1.0
    return (
        margin,
        *future,
        _relative(dealer, seat),
        _relative(dealer, (seat - 1) % n),
        *(_relative([row[k] for row in rows], seat) for k in range(4)),
    )
