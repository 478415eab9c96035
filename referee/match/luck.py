"""Luck corrections, the chance half of AIVAT: at every chance node, each seat is credited
E[V after chance] less V after the outcome that happened, V being its game's fixed value function
(referee.games.values). The sum over a match is zero in expectation whatever V is, so the
corrected margin (margin + correction) stays an unbiased estimate of a bot's edge while the luck
that V explains drops out of its variance.

The expectation is exact over a pick (every outcome is tried) and, over a shuffle, the mean of
`SAMPLES` deck orders drawn by a generator seeded from the match seed and the node's number: the
samples are independent of the outcome that happened, so the estimate stays unbiased, and the
same seed gives the same correction to the last bit (`croupier replay --verify` recomputes it).
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import inspect
import random
from functools import cache
from pathlib import Path
from types import ModuleType

from referee.games import values
from referee.games.base import ChanceOutcome, Pick, Shuffle, State
from referee.games.values import LinearValue, value_function

#: Deck orders per shuffle for its expectation. Its sampling noise adds 1/SAMPLES of V's own
#: variance over deals, which is itself a fraction of the margin's: on Xeri (2 seats, 500 held-out
#: matches, scripts/fit_values.py) 64 orders removed 1.15x of the variance, 16 1.16x, 8 1.14x,
#: while each order costs a whole `apply_chance` (bench/luck_cost.py).
SAMPLES = 16
#: Corrections are kept to this many decimals, so that a record's text form states them exactly.
DECIMALS = 6


def value_sources(game_id: str) -> tuple[str, ...]:
    """The modules whose source decides a game's corrections: its value module, the module that
    evaluates V (referee.games.values: scaling V there scales every correction) and this meter.
    Empty for a game without a value function."""
    value = value_function(game_id)
    if value is None:
        return ()
    return (value.module.__name__, values.__name__, __name__)


def _constants(module: ModuleType) -> list[str]:
    """The plain values the value module takes from other modules (an engine's card points, its
    hand size): V depends on them as on its own weights, though their modules are not hashed
    whole (an engine's fix elsewhere would then void every ladder's commitment)."""
    out = []
    for name, thing in sorted(vars(module).items()):
        if name.startswith("__") or inspect.ismodule(thing) or inspect.isfunction(thing):
            continue
        home = getattr(thing, "__module__", None) if inspect.isclass(thing) else None
        if inspect.isclass(thing):
            if home != module.__name__ and issubclass(thing, enum.Enum):
                out.append(f"{name}={[(m.name, m.value) for m in thing]!r}")
            continue
        if isinstance(thing, int | float | str | bytes | tuple | frozenset | list | dict | set):
            out.append(f"{name}={_stable(thing)}")
    return out


def _stable(thing: object) -> str:
    """A repr that does not depend on hash order (sets)."""
    if isinstance(thing, set | frozenset):
        return "{" + ", ".join(sorted(_stable(x) for x in thing)) + "}"
    if isinstance(thing, dict):
        items = sorted((_stable(k), _stable(v)) for k, v in thing.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(thing, tuple | list):
        return "(" + ", ".join(_stable(x) for x in thing) + ")"
    return repr(thing)


@cache
def value_digest(game_id: str) -> str | None:
    """The name and SHA-256 of everything that decides a game's corrections (`value_sources`'
    source, then the constants its value module imports), e.g. `xix-hand-1:9f2c...`; None for a
    game without a value function. A ladder or contest commits to it at its start, so nobody can
    tune V once results are in: changing any of it changes the digest (issue 44)."""
    value = value_function(game_id)
    if value is None:
        return None
    digest = hashlib.sha256()
    for name in value_sources(game_id):
        source = Path(str(importlib.import_module(name).__file__)).read_bytes()
        digest.update(len(source).to_bytes(8, "big") + source)
    constants = "\n".join(_constants(value.module)).encode()
    digest.update(len(constants).to_bytes(8, "big") + constants)
    return f"{value.name}:{digest.hexdigest()}"


def _outcomes(node: Shuffle | Pick, seed: int, number: int) -> list[ChanceOutcome]:
    if isinstance(node, Pick):
        return list(range(node.count))
    key = hashlib.sha256(f"croupier luck {seed} {number}".encode()).digest()
    rng = random.Random(int.from_bytes(key[:8], "big"))
    return [tuple(rng.sample(node.cards, len(node.cards))) for _ in range(SAMPLES)]


class LuckMeter:
    """Sums each seat's correction over a match's chance nodes, in the order they come."""

    def __init__(self, value: LinearValue, seed: int, seats: int, digest: str = "") -> None:
        self.value = value
        #: What the record's result line names as the maker of its corrections.
        self.digest = digest
        self.seed = seed
        self.totals = [0.0] * seats
        self.nodes = 0

    @classmethod
    def for_game(cls, game_id: str, seed: int, seats: int) -> LuckMeter | None:
        value, digest = value_function(game_id), value_digest(game_id)
        return None if value is None or digest is None else cls(value, seed, seats, digest)

    def chance(self, before: State, after: State) -> None:
        """Credit every seat for the chance node resolved from `before` to `after`."""
        node = before.chance()
        assert node is not None
        samples = [before.apply_chance(o) for o in _outcomes(node, self.seed, self.nodes)]
        self.nodes += 1
        value = self.value
        for seat in range(len(self.totals)):
            expected = sum(value(s, seat) for s in samples) / len(samples)
            self.totals[seat] += expected - value(after, seat)

    def corrections(self) -> tuple[float, ...]:
        return tuple(round(total, DECIMALS) + 0.0 for total in self.totals)


__all__ = ["DECIMALS", "SAMPLES", "LuckMeter", "value_digest", "value_sources"]
