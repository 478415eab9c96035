"""The checked path the referee always uses: every seat, index, text and chance outcome verified.

python-chess keeps `push` apart from `push_uci`; likewise the engines' `apply` trusts its input and
these functions raise `IllegalActionError` (legal in no way here) or `InvalidActionError`
(malformed) or `InvalidChanceError` instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from referee.errors import IllegalActionError, InvalidChanceError
from referee.games.base import Action, ChanceOutcome, Game, Pick, Shuffle, State


def apply_index(
    state: State, seat: int, index: int, legal: Sequence[Action] | None = None
) -> tuple[State, Action]:
    """Apply the seat's choice of `legal_actions()[index]`; returns the new state and the action.

    `legal` saves recomputing the list when the caller has it: it must be `state.legal_actions()`.
    """
    if state.is_terminal():
        raise IllegalActionError(f"seat {seat!r} cannot act: the game is over")
    if state.to_move != seat:
        raise IllegalActionError(f"seat {seat!r} is not to move (seat {state.to_move!r} is)")
    if legal is None:
        legal = state.legal_actions()
    if not 0 <= index < len(legal):
        raise IllegalActionError(
            f"action index {index!r} is out of range: seat {seat} has {len(legal)} legal actions"
        )
    action = legal[index]
    return state.apply(action), action


def apply_text(game: Game, state: State, seat: int, text: str) -> tuple[State, int]:
    """Apply an action given in text form; returns the new state and the action's index."""
    action = game.parse_action(text)
    if state.to_move != seat:
        raise IllegalActionError(
            f"seat {seat!r} is not to move (seat {state.to_move!r} is), action {text!r}"
        )
    legal = list(state.legal_actions())
    if action not in legal:
        raise IllegalActionError(f"action {text!r} is not legal for seat {seat} here")
    index = legal.index(action)
    return state.apply(action), index


def apply_chance(state: State, outcome: ChanceOutcome) -> State:
    """Resolve the pending chance node with `outcome`, after checking that it could occur."""
    node = state.chance()
    if node is None:
        raise InvalidChanceError(f"no chance node is pending; got outcome {outcome!r}")
    if isinstance(node, Shuffle):
        if not isinstance(outcome, tuple) or not _same_cards(outcome, node.cards):
            expected = len(node.cards)
            raise InvalidChanceError(
                f"bad deck {outcome!r} for {node.label!r}: "
                f"expected an order of these {expected} cards: {' '.join(node.cards)}"
            )
    elif isinstance(node, Pick) and (
        isinstance(outcome, (tuple, bool)) or not 0 <= outcome < node.count
    ):
        raise InvalidChanceError(
            f"bad outcome {outcome!r} for {node.label!r}: expected 0 to {node.count - 1}"
        )
    return state.apply_chance(outcome)


def _same_cards(deck: tuple[object, ...], cards: tuple[str, ...]) -> bool:
    """Is `deck` an order of `cards` (the same multiset)?"""
    distinct = _distinct(cards)
    if distinct is None:
        return Counter(deck) == Counter(cards)
    # With no card repeated, as many cards and the same set of them make an order.
    return len(deck) == len(cards) and distinct == set(deck)


@lru_cache(maxsize=64)
def _distinct(cards: tuple[str, ...]) -> frozenset[str] | None:
    """The set of `cards` if no card repeats (every game's deck), else None."""
    distinct = frozenset(cards)
    return distinct if len(distinct) == len(cards) else None


def check_deck(state: State, deck: tuple[str, ...]) -> None:
    """Check that `deck` can be the outcome of the first shuffle from `state`, past the picks
    that may come before it (a dealer drawn by lot): what a given deck replaces."""
    node = state.chance()
    while isinstance(node, Pick):
        state = state.apply_chance(0)
        node = state.chance()
    if node is None:
        raise InvalidChanceError("this game deals no cards before its first decision: no deck")
    apply_chance(state, deck)
