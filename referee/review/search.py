"""Determinized Monte Carlo: the value of each legal action of the seat to move, from its view.

Each determinization (referee.review.determinize) is played out a few times after every legal
action with the same seeded default policy (common random numbers: the actions of one sample
are compared on the same luck), to the end of the match. An action's value is its mean final
margin (the seat's score less the best other side's), with a 95% interval.

The policy and the redeal are the game's own (referee.review.rollout: Xeri's greedy play on
fresh redeals, Xactika's and Tex-Tac-Toe's heuristic play, uniform for XIX), found here and
nowhere else, so that the reference bots and `croupier review` (its positions too) value an
action the same way (issue 48.2): a review's best action is the one the reference's search
would find. `VALUATION` names this way; a review kept by an older one is not served again.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from referee.games.base import Pick, Result, State
from referee.review.budgets import check_budget
from referee.review.determinize import Unsampled, history
from referee.review.rollout import Policy, Settled, Step, policy_for, redeal_for, settled_for
from referee.review.view import SeatView

__all__ = [
    "VALUATION",
    "ActionValue",
    "Unsampled",
    "Values",
    "check_budget",
    "evaluate",
    "margin",
]

#: The way `evaluate` values actions, numbered: 1 was uniform playouts for the review (its
#: policies for the reference bots alone), 2 each game's policy and redeal for both, 3 Xactika's
#: playouts to the round's end on deals whose other hands make their bids. Raise it when a
#: change alters the values a fixed seed gives: it is in the name of a kept review.
VALUATION: Final = 3


@dataclass(frozen=True, slots=True)
class ActionValue:
    text: str
    mean: float
    half_width: float  # of the 95% interval of the mean


@dataclass(frozen=True, slots=True)
class Values:
    """The values of a decision's legal actions, and the margins behind them (sample by action)."""

    actions: tuple[ActionValue, ...]
    margins: tuple[tuple[float, ...], ...]

    @property
    def best(self) -> int:
        return max(range(len(self.actions)), key=lambda i: self.actions[i].mean)

    def loss(self, chosen: int) -> tuple[float, float]:
        """The chosen action's loss against the best, and the 95% half-width of that paired
        difference."""
        best = self.best
        diffs = [row[best] - row[chosen] for row in self.margins]
        return _mean(diffs), _half_width(diffs)

    def confirmed(self, prior: int) -> int:
        """The action best on the even rows if the odd rows confirm that it beats `prior` (the
        95% interval of their paired difference lies above zero), else `prior`. Testing on the
        rows that chose it would favour the luckiest of several actions (issue 48.1)."""
        choose, test = self.margins[::2], self.margins[1::2]
        if not test:
            return prior
        best = max(range(len(self.actions)), key=lambda i: _mean([row[i] for row in choose]))
        diffs = [row[best] - row[prior] for row in test]
        return best if _mean(diffs) > _half_width(diffs) else prior


#: Playouts per action on one determinization: a sample costs some hundred playouts (it replays
#: the match, repairing it), so each is played out several times (their mean is one row).
PLAYOUTS_PER_SAMPLE = 4


def evaluate(
    view: SeatView,
    budget: int,
    seed: int,
    deadline: float | None = None,
    particles: list[list[Step]] | None = None,
) -> Values:
    """The values of the legal actions at the view's last decision, within `budget` playouts
    divided among the actions, all drawn from `seed` and the view alone. With a `deadline`
    (time.monotonic()), no sample is begun after it (one at least is made). With `particles`
    (a bot's, kept from its previous decision), sample k continues history k and leaves its new
    history there. The game's policy moves every seat in the playouts; where the game has a
    redeal, one determinization is enough and each row is one playout of every action on a
    fresh redeal of it; where it has a horizon, a playout stops there and the margin then is
    the value (Xactika's round's end: referee.review.rollout). Raises Unsampled where no
    determinization fits the view."""
    check_budget(budget)
    game_id = view.game.id
    policy, redeal, settled = policy_for(game_id), redeal_for(game_id), settled_for(game_id)
    legal = view.decisions[-1].legal
    per_action = max(1, budget // len(legal))
    repeats = min(PLAYOUTS_PER_SAMPLE, per_action)
    count = max(1, per_action // repeats)
    if redeal is not None:
        repeats, count = 1, per_action
    rows: list[tuple[float, ...]] = []
    sampled: State | None = None
    for k in range(count):
        if rows and deadline is not None and time.monotonic() > deadline:
            break
        rng = random.Random(f"{seed}:{len(view.decisions)}:{k}")
        if sampled is None or redeal is None:
            start = particles[k] if particles is not None and k < len(particles) else None
            try:
                sampled, steps = history(view, rng, start)
            except Unsampled:
                continue
            if particles is not None:
                particles[k : k + 1] = [steps]
        state = sampled if redeal is None else redeal(sampled, view.seat, rng)
        actions = {action.text: action for action in state.legal_actions()}
        lucks = [rng.randrange(1 << 62) for _ in range(repeats)]
        rows.append(
            tuple(
                _mean(
                    [
                        _playout(
                            state.apply(actions[t]), view.seat, policy, random.Random(luck), settled
                        )
                        for luck in lucks
                    ]
                )
                for t in legal
            )
        )
    if not rows:
        raise Unsampled(f"no determinization of decision {len(view.decisions) - 1} in {count}")
    columns = list(zip(*rows, strict=True))
    values = tuple(
        ActionValue(text, _mean(column), _half_width(column))
        for text, column in zip(legal, columns, strict=True)
    )
    return Values(values, tuple(rows))


def _playout(
    state: State, seat: int, policy: Policy, rng: random.Random, settled: Settled | None = None
) -> float:
    while not state.is_terminal():
        if settled is not None and settled(state):
            break
        node = state.chance()
        if node is None:
            state = state.apply(policy(state, rng))
        elif isinstance(node, Pick):
            state = state.apply_chance(rng.randrange(node.count))
        else:
            state = state.apply_chance(tuple(rng.sample(node.cards, len(node.cards))))
    return margin(state.result(), seat)


def margin(result: Result, seat: int) -> float:
    """The seat's (its team's) score less the best other side's."""
    teams = result.teams or tuple(range(len(result.scores)))
    others = [s for i, s in enumerate(result.scores) if teams[i] != teams[seat]]
    return float(result.scores[seat] - max(others))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _half_width(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return math.inf
    mean = _mean(values)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return 1.96 * math.sqrt(variance / n)
