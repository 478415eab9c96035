"""The fast state copies of referee/games/frozen.py give the values dataclasses would."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.games import get_game
from referee.games.base import State, parse_options
from referee.games.frozen import replacer
from referee.games.textactoe import TexTacToeState
from referee.games.xactika import XactikaState
from referee.games.xeri import XeriState
from referee.games.xix import XixState
from tests.playouts import seeded_playout


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
def test_replacer_is_dataclasses_replace(
    game_id: str, options: dict[str, str], changes: dict[str, object]
) -> None:
    for state in states(game_id, options)[::7]:
        assert dataclasses.is_dataclass(state) and not isinstance(state, type)
        replace = replacer(type(state))
        assert replace(state) == dataclasses.replace(state) == state
        assert replace(state, **changes) == dataclasses.replace(state, **changes)


def test_replacer_resets_fields_init_does_not_take() -> None:
    state = states("xactika", {})[20]
    assert isinstance(state, XactikaState)
    state.legal_actions()  # cached in the state's `_legal`
    assert state._legal is not None
    assert replacer(XactikaState)(state)._legal is None


def test_replacer_rejects_unknown_fields() -> None:
    with pytest.raises(TypeError, match="has no field colour"):
        replacer(XixState)(XixState(), colour=1)
    state = states("xactika", {})[5]
    assert isinstance(state, XactikaState)
    with pytest.raises(TypeError, match="has no field _legal"):
        replacer(XactikaState)(state, _legal=())


def test_fast_constructors_build_the_same_states() -> None:
    from referee.games import textactoe, xeri, xix

    for module, cls, game_id, options in (
        (xix, XixState, "xix", {}),
        (xeri, XeriState, "xeri", {}),
        (textactoe, TexTacToeState, "textactoe", {"players": "3"}),
    ):
        for state in states(game_id, options):
            assert isinstance(state, cls)
            values = [getattr(state, f.name) for f in dataclasses.fields(cls)]
            assert module._state(*values) == cls(*values) == state
