"""The game registry: every game the referee runs, by id.

The engines: `xix`, `xactika`, `xeri`, `textactoe` (with `textactoe_grid`, `textactoe_poker`,
`textactoe_events`); each game's luck value in `xix_value`, `xactika_value`, `xeri_value`,
`textactoe_value`, registered in `values`; `options`: typed game options.

Each game is a pure state machine (`base`: the engine API; `checked`: the path the referee always
uses; `frozen`: fast copies of the engines' immutable states). `catalog` says what each game is
(title, rules version, options, deck, teams, private fields) without its engine; an engine module,
with its lookup tables and protocol messages, is imported when its game is first asked for, so a
command that plays one game loads one engine and `croupier games` loads none. May import:
`referee.errors`, the generated `croupier.v1` messages and the standard library's pure parts;
never an event loop, grpc, a clock, randomness or files (`make lint` checks it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, cast

from referee.errors import UnknownGameError
from referee.games.catalog import CATALOG, load_part

if TYPE_CHECKING:
    from referee.games.base import Game


@functools.cache
def _engine(game_id: str) -> Game:
    """The engine of a catalogued game, made once (its module, named by the catalogue's
    `Parts.engine`, is imported here on first use)."""
    engine = load_part(CATALOG[game_id].parts.engine)
    assert callable(engine), game_id
    return cast("Game", engine())


class _Engines(Mapping[str, "Game"]):
    """The catalogue's games as engines, each imported when first looked up."""

    def __getitem__(self, game_id: str) -> Game:
        if game_id not in CATALOG:
            raise KeyError(game_id)
        return _engine(game_id)

    def __iter__(self) -> Iterator[str]:
        return iter(CATALOG)

    def __len__(self) -> int:
        return len(CATALOG)


GAMES: Mapping[str, Game] = _Engines()


def get_game(game_id: str) -> Game:
    """The registered game with this id; raises UnknownGameError naming the known ones."""
    if game_id not in CATALOG:
        known = ", ".join(sorted(CATALOG))
        raise UnknownGameError(f"unknown game {game_id!r} (known games: {known})")
    return _engine(game_id)
