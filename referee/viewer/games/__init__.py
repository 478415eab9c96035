"""Each game's view: how its observations become the table model (`referee.viewer.model`):
`xix`, `xactika`, `xeri` and `textactoe`, each implementing `base`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from referee.viewer.games.base import Context, GameView, GenericView, Position
from referee.viewer.games.textactoe import TexTacToeView
from referee.viewer.games.xactika import XactikaView
from referee.viewer.games.xeri import XeriView
from referee.viewer.games.xix import XixView

VIEWS: Mapping[str, GameView] = MappingProxyType(
    {"xix": XixView(), "xactika": XactikaView(), "xeri": XeriView(), "textactoe": TexTacToeView()}
)

__all__ = ["VIEWS", "Context", "GameView", "GenericView", "Position", "view_for"]


def view_for(game_id: str) -> GameView:
    """The view of a game (a generic one for a game that has none yet)."""
    return VIEWS.get(game_id, GenericView())
