"""Game facts live on the Game (its catalogue entry): no module outside the engines and the
per-game views tests a game's id, so a new game means no edit to ladder, match or viewer."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import referee
from referee.games import get_game
from referee.games.base import parse_options
from referee.games.catalog import CATALOG
from referee.games.values import value_function
from referee.ladder.config import team_game
from referee.review.rollout import policy_for
from referee.viewer.games import VIEWS
from tests.playouts import seeded_playout

PACKAGE = Path(referee.__file__).parent
#: Where a game is named by its id on purpose: the engines and registry, and each game's view.
EXEMPT = (PACKAGE / "games", PACKAGE / "viewer" / "games")


def _is_game_id(node: ast.AST) -> bool:
    """A string literal that is a game's id, or a literal set, tuple, list or `frozenset(...)` /
    `set(...)` / `tuple(...)` call holding one."""
    if isinstance(node, ast.Constant):
        return node.value in CATALOG
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        return any(_is_game_id(element) for element in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in {"frozenset", "set", "tuple"} and any(map(_is_game_id, node.args))
    return False


def game_id_uses(source: str) -> Iterator[int]:
    """The lines of `source` that compare, match, look up or key something by a literal game
    id, or collect game ids into a set to test membership."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.expr | ast.pattern) and _names_a_game(node):
            yield node.lineno


def _names_a_game(node: ast.AST) -> bool:
    match node:
        case ast.Compare(left=left, comparators=comparators):
            return any(map(_is_game_id, [left, *comparators]))
        case ast.MatchValue(value=value) | ast.Subscript(slice=value):
            return _is_game_id(value)
        case ast.Dict(keys=keys):
            return any(key is not None and _is_game_id(key) for key in keys)
        case ast.Set():
            return _is_game_id(node)
        case ast.Call(func=ast.Name(id="dict"), keywords=keywords):
            return any(keyword.arg in CATALOG for keyword in keywords)
    return False


def test_the_check_finds_each_way_of_naming_a_game() -> None:
    source = """
if game.id == "xeri": pass
if "xactika" != game_id: pass
if game in ("xeri", "textactoe"): pass
if game in frozenset(["xix"]): pass
STANDARD = {"xeri", "textactoe"}
TITLES = {"xix": "XIX"}
TITLES = dict(textactoe="Tex-Tac-Toe")
title = TITLES["xactika"]
if event.WhichOneof("game") == "textactoe": pass
match game_id:
    case "xix" | "other": pass
"""
    assert sorted(set(game_id_uses(source))) == [*range(2, 11), 12]
    innocent = """
game = "xix"  # a default, not a test
if game.id == "xixx" or deck is Deck.XACTIKA: pass
wrapper = getattr(observation, game_id)
print("xeri")
"""
    assert list(game_id_uses(innocent)) == []


def test_no_module_outside_the_games_tests_a_game_id() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if not any(path.is_relative_to(exempt) for exempt in EXEMPT):
            source = path.read_text(encoding="utf-8")
            found += [f"{path.relative_to(PACKAGE.parent)}:{line}" for line in game_id_uses(source)]
    assert found == [], "name the fact on referee.games.catalog.GameInfo instead"


@pytest.mark.parametrize("game_id", sorted(CATALOG))
def test_each_engine_carries_its_catalogue_entry_and_its_view_draws_its_deck(game_id: str) -> None:
    game = get_game(game_id)
    assert game.info is CATALOG[game_id]
    said = (game.id, game.title, game.rules_version, game.option_specs)
    assert said == (game.info.id, game.info.title, game.info.rules_version, game.info.option_specs)
    assert VIEWS[game_id].deck is game.info.deck


@pytest.mark.parametrize("game_id", sorted(CATALOG))
def test_a_game_s_parts_are_found_by_its_catalogue_entry_alone(game_id: str) -> None:
    """Issue 43.5: the engine, the luck value and the view were found three ways (a match
    statement, a module name made from the id, a dict); the entry names each, and no module but
    the game's own (its engine's, value's and view's, named after it) imports its modules.
    The glyphs take Xactika's shape names from its engine: a fact of its deck, no part."""
    parts = CATALOG[game_id].parts
    assert type(get_game(game_id)).__module__ + ":" + type(get_game(game_id)).__name__ == (
        parts.engine
    )
    value = value_function(game_id)
    assert value is not None and value.module.__name__ == parts.value
    assert f"{type(VIEWS[game_id]).__module__}:{type(VIEWS[game_id]).__name__}" == parts.view
    assert parts.rollout is None or policy_for(game_id).__module__ == parts.rollout
    spelled = [
        f"{path.relative_to(PACKAGE)}"
        for path in PACKAGE.rglob("*.py")
        if not path.stem.startswith(game_id)
        and path.name not in {"catalog.py", "glyphs.py"}
        and f"referee.games.{game_id}" in path.read_text()
    ]
    assert spelled == [], "name the part on referee.games.catalog.Parts instead"


@pytest.mark.parametrize(
    ("game_id", "options", "sides"),
    [
        ("xeri", {"players": "4"}, ((0, 2), (1, 3))),  # XERI-R1: partners sit opposite
        ("xeri", {"players": "2"}, None),
        ("xactika", {"players": "4"}, None),
        ("textactoe", {"players": "4"}, None),
        ("xix", {}, None),
    ],
)
def test_teams_are_the_games_fact(
    game_id: str, options: dict[str, str], sides: tuple[tuple[int, ...], ...] | None
) -> None:
    game = get_game(game_id)
    parsed = parse_options(game, options)
    assert game.info.sides(game.seat_count(parsed)) == sides
    assert team_game(game, parsed) is (sides is not None)
    teams = seeded_playout(game, parsed, seed=3).states[-1].result().teams  # the engine's own
    if teams is None:
        assert sides is None
    else:
        played = tuple(
            tuple(s for s, team in enumerate(teams) if team == k) for k in sorted(set(teams))
        )
        assert played == sides
