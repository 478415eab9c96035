"""Default policies for playouts (issue 48.1): the move a playout makes for every seat, and
the redeal that turns one determinization into many.

A uniformly random playout values a Xeri card by luck alone: the capture, the Xeri and the
card handed to the next seat are what a round's points hang on, and a random opponent takes
them by chance, so every action looks alike (the reference lost to the heuristic, 48.1). A
playout runs on a determinized state, a full deal, so a game's greedy policy may read every
hand: it is the perfect-information opponent that playout search assumes. Games without a
policy of their own play uniformly; the engines stay as they are, the policies live beside the
search, each in the module its catalogue entry names (`Parts.rollout`, with `policy` and maybe
`redeal`).

A determinization costs some hundred playouts (referee.review.determinize replays the match),
so a few per decision leave the search guessing the other hands from a handful of deals, while
a heuristic counts the odds exactly. Where a game's hidden cards are only where they lie now
(every Xeri card played is shown, XERI-R5), dealing the cards the seat has not seen again at
random gives another state it cannot tell from the true one, at the cost of a shuffle: such a
game's module has a `redeal`, and its search plays each playout on a fresh redeal of one
determinization. A module may also set `PRIOR` (see `heuristic_prior`), scale a decision's
budget (`budget_for`) and end a playout early (`settled_for`: Xactika's rounds score apart, so
its playouts stop at the round's end).

Where everything a seat was shown pins the hidden cards down but for a deal (Xactika: every
action is public; Tex-Tac-Toe: but for the cards an opponent discards face down), building a
history forward through the engine with random deals and repairing it rarely succeeds (issue
48.1): such a game's module has a `history`, the whole history built from the view (the deal
dealt to fit what each seat was seen to hold), which referee.review.determinize replays through
the engine to check before trying its generic walk.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Final, TypeAlias

from referee.games.base import Action, State
from referee.games.catalog import CATALOG

if TYPE_CHECKING:
    from referee.review.view import SeatView

#: A default policy: the action the seat to move takes in a playout (a legal one).
Policy = Callable[[State, random.Random], Action]
#: A redeal: the state with the cards `seat` has not seen dealt again, where they may lie.
Redeal = Callable[[State, int, random.Random], State]

#: A playout's horizon: True once the state's margin already says what the decision changes (the
#: playout stops there, and its value is the margin so far).
Settled = Callable[[State], bool]

#: A step of a history: a shuffle's deck, a pick's number, or an action's text.
Step: TypeAlias = tuple[str, tuple[str, ...] | int | str]
#: A game's own sampler: a history (referee.review.determinize replays its steps) that fits the
#: view, to be checked by a replay; None where it found none.
Historian: TypeAlias = "Callable[[SeatView, random.Random], list[Step] | None]"

#: The share of a greedy policy's moves that are uniformly random instead, so that the
#: playouts of one state differ.
EXPLORE: Final = 0.1


def uniform(state: State, rng: random.Random) -> Action:
    return rng.choice(state.legal_actions())


@cache
def policy_for(game_id: str) -> Policy:
    """The game's default policy for playouts (uniform where it has none)."""
    module = _module(game_id)
    policy: Policy = uniform if module is None else module.policy
    return policy


@cache
def redeal_for(game_id: str) -> Redeal | None:
    """The game's redeal of what a seat has not seen, or None where it has none."""
    module = _module(game_id)
    redeal: Redeal | None = None if module is None else getattr(module, "redeal", None)
    return redeal


@cache
def settled_for(game_id: str) -> Settled | None:
    """The game's playout horizon, or None where playouts run to the end of the match."""
    module = _module(game_id)
    settled: Settled | None = None if module is None else getattr(module, "settled", None)
    return settled


@cache
def historian_for(game_id: str) -> Historian | None:
    """The game's own history sampler, or None where the generic walk is the only one."""
    module = _module(game_id)
    historian: Historian | None = None if module is None else getattr(module, "history", None)
    return historian


def heuristic_prior(game_id: str, legal: tuple[str, ...] = ()) -> bool:
    """Whether the reference bot keeps the game's heuristic's choice among `legal` (a
    decision's actions) unless its search confirms a better one (`PRIOR` in the game's module,
    or its `prior(legal)`; search.Values.confirmed). Xeri's does: its playouts see a few points
    of difference through many of noise; Xactika's in trick play, not at the bid. XIX's search,
    unaided, wins 96.7% of its matches against the heuristic at budget 400 (docs/review.md);
    under the prior it won 68.3% (issue 48.1), so a game without the word searches alone."""
    module = _module(game_id)
    if module is None:
        return False
    prior = getattr(module, "prior", None)
    return bool(prior(legal)) if prior is not None else bool(getattr(module, "PRIOR", False))


def budget_for(game_id: str, legal: tuple[str, ...], budget: int) -> int:
    """The playouts a decision among `legal` gets from a bot's `budget`: the game module's
    `budget(legal, budget)` where it has one (Xactika's bid gets more), else `budget`."""
    module = _module(game_id)
    scale = None if module is None else getattr(module, "budget", None)
    return budget if scale is None else int(scale(legal, budget))


@cache
def _module(game_id: str) -> ModuleType | None:
    info = CATALOG.get(game_id)
    if info is None or info.parts.rollout is None:
        return None
    return importlib.import_module(info.parts.rollout)
