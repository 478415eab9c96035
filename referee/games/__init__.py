"""The game registry: every game the referee runs, by id.

Each game is a pure state machine (`base`: the engine API; `checked`: the path the referee always
uses; `frozen`: fast copies of the engines' immutable states). May import: `referee.errors`, the
generated `croupier.v1` messages and the standard library's pure parts; never an event loop, grpc,
a clock, randomness or files (`make lint` checks it).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from referee.errors import UnknownGameError
from referee.games.base import Game
from referee.games.textactoe import TexTacToe
from referee.games.xactika import Xactika
from referee.games.xeri import Xeri
from referee.games.xix import Xix

GAMES: Mapping[str, Game] = MappingProxyType(
    {game.id: game for game in (Xactika(), Xeri(), Xix(), TexTacToe())}
)


def get_game(game_id: str) -> Game:
    """The registered game with this id; raises UnknownGameError naming the known ones."""
    try:
        return GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {game_id!r} (known games: {known})") from None
