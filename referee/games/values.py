"""Luck values: for each game a fixed function V(state, seat) that the referee evaluates after
every chance outcome (referee.match.luck turns it into a per-seat correction, AIVAT's chance half).

V estimates the seat's final *margin* (its points less the mean of the other sides' points,
`margins`) from a state. Each game's V is linear, `WEIGHTS . features(state, seat)`, and lives
beside its engine in `<game>_value.py`, which the game's catalogue entry names;
`scripts/fit_values.py` fits the weights by least squares on heuristic self-play and prints them,
and the module keeps them as constants. Any V keeps the corrected score unbiased; a better one
removes more luck. Changing a value module changes its digest (referee.match.luck.value_digest),
which ladders and contests commit to at their start.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Protocol, cast

from referee.games.base import State
from referee.games.catalog import CATALOG


class ValueModule(Protocol):
    """What a `<game>_value` module holds."""

    NAME: str  # e.g. "xix-hand-1": bump the number when the features or weights change
    WEIGHTS: tuple[float, ...]

    def features(self, state: State, seat: int) -> Sequence[float]: ...


@dataclass(frozen=True, slots=True)
class LinearValue:
    """A game's V: its features' dot product with the fitted weights."""

    module: ModuleType

    @property
    def name(self) -> str:
        return cast(ValueModule, self.module).NAME

    def __call__(self, state: State, seat: int) -> float:
        module = cast(ValueModule, self.module)
        return sum(w * f for w, f in zip(module.WEIGHTS, module.features(state, seat), strict=True))


@cache
def value_function(game_id: str) -> LinearValue | None:
    """The game's V (its catalogue entry's `Parts.value`), or None for a game without one (its
    matches carry no correction)."""
    info = CATALOG.get(game_id)
    if info is None or info.parts.value is None:
        return None
    return LinearValue(importlib.import_module(info.parts.value))


def margins(scores: Sequence[float], teams: Sequence[int] | None) -> tuple[float, ...]:
    """Each seat's margin: its side's points less the mean points of the other sides. A side is a
    team (its score is the team's, shared by its seats) or a seat alone."""
    sides = list(teams) if teams is not None else list(range(len(scores)))
    side_score: dict[int, float] = {}
    for side, score in zip(sides, scores, strict=True):
        side_score.setdefault(side, score)
    if len(side_score) < 2:
        return tuple(0.0 for _ in scores)
    total = sum(side_score.values())
    others = len(side_score) - 1
    return tuple(side_score[side] - (total - side_score[side]) / others for side in sides)
