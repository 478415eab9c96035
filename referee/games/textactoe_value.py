"""Tex-Tac-Toe's luck value (referee.games.values, issue 28.4): how the deal and the first player
move a seat's expected final margin.

A game has two chance nodes, both at its start (TTT-R1): the shuffle, then the pick of the first
player, which also decides who gets which dealt stash. Everything after is decided by the deck's
order and the play: a game of a dozen hands is not foreseen from its deal by a cheap function.
One feature pays: the jokers in the seat's stash (TTT-R4: wild) less the mean of the other
seats'. Tried and dropped, as they predicted nothing on held-out matches (their weights changed
sign from one fit to the next): both jokers in one stash, pairs in the stash, its ranks, its
most cards of one suit, going first, and the best poker hand of two stash cards with a line of
the (referee-visible) grid. Without jokers V is therefore zero, and so is every correction: the
luck is there, but the deal does not show it.

Before the pick every seat is equally likely to get each stash, so the mean over the pick of the
feature is zero: V is zero there too, and the shuffle carries no correction of its own (the
deal's luck is all credited, exactly, at the pick). Fitted on heuristic self-play:

`scripts/fit_values.py textactoe --option jokers=true --matches 1000` gives WEIGHTS (R^2 0.041
over all 500 fitting matches' chance nodes, half of them the shuffle's zero rows; the feature
alone explains about 11% of a two-player margin's variance). Held-out variance of seat 0's
margin:

- 2 players, jokers: 1.13x fewer matches (500 held-out: 68423 raw, 60403 corrected);
- 3 players, jokers (`--matches 400`): 1.10x (112615, 102103); its own refit 1.11x;
- 4 players, jokers (`--matches 300`): 1.02x (89514, 87614); its own refit 1.02x;
- without jokers (2 to 4 players): 1.00x, as V is zero. The dropped features' refits made the
  held-out variance worse there: 0.95x with two players (`--matches 800`), 0.94x with four
  (`--matches 300`).

A features() call costs about 1 µs of CPU.
"""

from __future__ import annotations

from typing import Final

from referee.games.base import State
from referee.games.textactoe import TexTacToeState
from referee.games.textactoe_poker import JOKERS

NAME: Final = "textactoe-jokers-2"
WEIGHTS: Final = (159.1869,)
_ZERO: Final = (0.0,)


def features(state: State, seat: int) -> tuple[float, ...]:
    assert isinstance(state, TexTacToeState)
    if not state.scores:
        # Before the first player is picked each seat is equally likely to get any of the dealt
        # stashes (TTT-R1): the mean over the pick of the relative feature is zero, so V is zero
        # here and the shuffle carries no correction of its own.
        return _ZERO
    jokers = [sum(1 for card in stash if card >= JOKERS[0]) for stash in state.stashes]
    own = jokers[seat]
    return (own - (sum(jokers) - own) / (state.players - 1),)
