"""Each game's view: how its observations become the table model (`referee.viewer.model`):
`xix`, `xactika`, `xeri` and `textactoe`, each implementing `base`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import cast

from referee.games.catalog import CATALOG, GameInfo, load_part
from referee.viewer.games.base import Context, GameView, GenericView, Position


def _view(info: GameInfo) -> GameView:
    view = load_part(info.parts.view) if info.parts.view is not None else GenericView
    assert callable(view), info.id
    return cast(GameView, view())


#: Each catalogued game's view, by id (its entry's `Parts.view`; a generic one where none).
VIEWS: Mapping[str, GameView] = MappingProxyType({i.id: _view(i) for i in CATALOG.values()})

__all__ = ["VIEWS", "Context", "GameView", "GenericView", "Position", "view_for"]


def view_for(game_id: str) -> GameView:
    """The view of a game (a generic one for a game that has none yet)."""
    return VIEWS.get(game_id, GenericView())
