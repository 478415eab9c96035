"""Xeri's playouts (referee.review.rollout): a greedy policy that sees every hand, the redeal
of the cards a seat has not seen, and the heuristic as the search's prior."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Final

from referee.games.base import Action, State
from referee.games.xeri import CARD_POINTS, IS_JACK, RANK_OF, XERI_POINTS, XeriAction, XeriState
from referee.review.rollout import EXPLORE

#: The reference bot keeps the heuristic's card unless its search confirms a better one.
PRIOR: Final = True
#: A captured card's share of the 3 points for most cards (XERI-R9), as the heuristic counts.
CARD_WEIGHT: Final = 0.12
#: What a jack held back for a bigger pile is worth while its round has cards to come.
JACK_KEEP: Final = 2.5


def policy(state: State, rng: random.Random) -> Action:
    """Take the capture worth most (a Xeri first); else play the card that hands the next seat,
    whose hand it sees, the least (XERI-R5, XERI-R6)."""
    assert isinstance(state, XeriState)
    legal = state.legal_actions()
    if rng.random() < EXPLORE:
        return rng.choice(legal)
    seat = state.to_move_seat
    pile = state.pile
    jack_xeri = state.config.jack_xeri_points
    last = not state.stock and len(state.hands[seat]) <= 2
    on_pile = sum(CARD_POINTS[c] for c in pile) + CARD_WEIGHT * len(pile)
    top = RANK_OF[pile[-1]] if pile else -1
    taker = state.hands[(seat + 1) % state.config.players]
    taker_ranks = {RANK_OF[c] for c in taker}
    taker_jack = any(IS_JACK[c] for c in taker)

    def worth(action: XeriAction) -> float:
        card = action.card
        rank = RANK_OF[card]
        jack = IS_JACK[card]
        own = CARD_POINTS[card] + CARD_WEIGHT
        if pile and (rank == top or jack):
            gain = on_pile + own + 1.0
            if len(pile) == 1 and rank == top:
                gain += jack_xeri if jack else XERI_POINTS
            elif jack and not last:
                gain -= JACK_KEEP  # a jack spent on a small pile is a jack lost for a big one
            return gain
        loss = own + (JACK_KEEP if jack else 0.0)
        if rank in taker_ranks or taker_jack:  # the pile is not empty once it is played
            loss += on_pile + own
            if not pile and rank in taker_ranks:
                loss += jack_xeri if jack else XERI_POINTS
        return -loss

    scores = [worth(a) for a in legal]
    best = max(scores)
    return rng.choice([a for a, s in zip(legal, scores, strict=True) if s == best])


def redeal(state: State, seat: int, rng: random.Random) -> State:
    """The other hands and the stock dealt again from the cards among them, but a bottom card
    shown (V1, XERI-R12), which stays where it is. Outside play the state is left alone."""
    assert isinstance(state, XeriState)
    if state.to_move is None:
        return state
    shown = state.bottom
    hands = state.hands
    pool = [c for i, hand in enumerate(hands) if i != seat for c in hand if c != shown]
    stock = state.stock
    keep_last = bool(stock) and stock[-1] == shown
    pool.extend(stock[:-1] if keep_last else stock)
    rng.shuffle(pool)
    dealt: list[tuple[int, ...]] = []
    for i, hand in enumerate(hands):
        if i == seat:
            dealt.append(hand)
            continue
        fresh = [c for c in hand if c == shown]
        while len(fresh) < len(hand):
            fresh.append(pool.pop())
        dealt.append(tuple(sorted(fresh)))
    redealt = (*pool, shown) if keep_last else tuple(pool)
    return replace(state, hands=tuple(dealt), stock=redealt)
