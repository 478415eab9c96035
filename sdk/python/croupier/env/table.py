"""A table: one game at one set of options, and the referee's match on it, decision by decision.

Shared by the PettingZoo and Gymnasium environments and the policy bot, so that all three see a
game the same way. It needs neither PettingZoo nor Gymnasium.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from croupier.env.encoding import Encoder, deck, encoder
from referee.games import get_game
from referee.games.base import Game, Shuffle, parse_options
from referee.games.options import Options
from referee.match.clock import TimeControl
from referee.match.requests import SeatName, SeatQueues
from referee.match.runner import MatchConfig

#: The match id an environment's match has unless told: a bot may read it, so it is fixed.
MATCH_ID = "env"


@dataclass(frozen=True, slots=True)
class Table:
    game: Game
    options: Options
    seats: int
    encoder: Encoder

    @classmethod
    def of(cls, game_id: str, options: Mapping[str, object]) -> Table:
        """The table for `game_id` with its options (values in any form their text parses)."""
        game = get_game(game_id)
        parsed = parse_options(game, {name: _text(value) for name, value in options.items()})
        seats = game.seat_count(parsed)
        cards = deck(game.id, parsed.as_text())
        return cls(game, parsed, seats, encoder(game.id, seats, cards))

    def match(
        self,
        seed: int,
        names: Sequence[str],
        *,
        time_control: TimeControl | None = None,
        match_id: str = MATCH_ID,
        deck: tuple[str, ...] | None = None,
        record: Path | None = None,
    ) -> SeatQueues:
        """The referee's match with this seed, between seats so named, started."""
        config = MatchConfig(
            game=self.game,
            options=self.options,
            seed=seed,
            match_id=match_id,
            deck=deck,
            time_control=time_control or TimeControl(),
        )
        return SeatQueues(config, [SeatName(name) for name in names], record)


def first_deck(game: Game, options: Options) -> tuple[str, ...]:
    """The cards the game's first shuffle deals (picks before it take their first outcome)."""
    state = game.new_game(options)
    while True:
        node = state.chance()
        if isinstance(node, Shuffle):
            return tuple(str(card) for card in node.cards)
        if node is None:
            raise ValueError(f"game {game.id!r} deals no cards before its first decision")
        state = state.apply_chance(0)


def new_seed() -> int:
    """A seed for a match no caller seeded (the referee's seeds are 63-bit)."""
    return random.SystemRandom().randrange(1 << 63)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
