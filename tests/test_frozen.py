"""The fast state copies of referee/games/frozen.py give the values dataclasses would, and the
engines build their states by name."""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from referee.games import get_game
from referee.games.base import State, parse_options
from referee.games.frozen import evolver
from referee.games.textactoe import TexTacToeState
from referee.games.xactika import XactikaState
from referee.games.xeri import XeriState
from referee.games.xix import XixState
from tests.playouts import seeded_playout

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def states(game_id: str, options: dict[str, str]) -> list[State]:
    game = get_game(game_id)
    return seeded_playout(game, parse_options(game, options), random.Random(3)).states


@pytest.mark.parametrize(
    ("game_id", "options", "changes"),
    [
        ("xix", {}, {"scores": (0, 11), "leader": 1}),
        ("xeri", {"players": "4"}, {"plays": 47, "target": 151, "hands": ((), (), (), (3,))}),
        ("xactika", {"players": "3"}, {"call": 2, "trick": (4,)}),
        ("textactoe", {"players": "3", "jokers": "true"}, {"turns": 99, "pile": ()}),
    ],
)
def test_evolver_is_dataclasses_replace(
    game_id: str, options: dict[str, str], changes: dict[str, object]
) -> None:
    for state in states(game_id, options)[::7]:
        assert dataclasses.is_dataclass(state) and not isinstance(state, type)
        replace = evolver(type(state))
        assert replace(state) == dataclasses.replace(state) == state
        assert replace(state, **changes) == dataclasses.replace(state, **changes)


def test_evolver_resets_fields_init_does_not_take() -> None:
    state = states("xactika", {})[20]
    assert isinstance(state, XactikaState)
    state.legal_actions()  # cached in the state's `_legal`
    assert state._legal is not None
    assert evolver(XactikaState)(state)._legal is None


def test_evolver_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError, match="has no field colour"):
        evolver(XixState)(XixState(), colour=1)
    state = states("xactika", {})[5]
    assert isinstance(state, XactikaState)
    with pytest.raises(TypeError, match="has no field _legal"):
        evolver(XactikaState)(state, _legal=())


def test_evolves_build_the_same_states() -> None:
    from referee.games import textactoe, xactika, xeri, xix

    for module, cls, game_id, options in (
        (xix, XixState, "xix", {}),
        (xeri, XeriState, "xeri", {}),
        (xactika, XactikaState, "xactika", {"players": "3"}),
        (textactoe, TexTacToeState, "textactoe", {"players": "3"}),
    ):
        start, *later = states(game_id, options)
        for state in later:
            assert isinstance(state, cls)
            values = {f.name: getattr(state, f.name) for f in dataclasses.fields(cls) if f.init}
            assert module._evolve(start, **values) == cls(**values) == state


@pytest.mark.parametrize("cls", [XixState, XeriState, XactikaState, TexTacToeState])
def test_states_are_built_by_name(cls: type[DataclassInstance]) -> None:
    state = states(cls.__name__.removesuffix("State").lower(), {})[-1]
    assert isinstance(state, cls)
    values = [getattr(state, f.name) for f in dataclasses.fields(cls) if f.init]
    with pytest.raises(TypeError, match="positional argument"):
        cls(*values)
    with pytest.raises(TypeError, match="positional argument"):
        evolver(cls)(state, *values)


# A cached function: keywords would make lru_cache key the same call two ways.
POSITIONAL_ALLOWED = {"_side_entry"}


def test_no_call_in_the_engines_passes_more_than_four_arguments_by_position() -> None:
    games = Path(__file__).resolve().parent.parent / "referee" / "games"
    calls = []
    for path in sorted(games.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and len(node.args) > 4:
                name = ast.unparse(node.func)
                if name not in POSITIONAL_ALLOWED:
                    calls.append(f"{path.name}:{node.lineno} {name}")
    assert calls == []
