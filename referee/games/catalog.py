"""What each game is, apart from its rules: its id, title, rules version and options.

`croupier games`, help texts and option checks read this catalogue without importing an engine
(its rules, lookup tables and protocol messages); each engine takes these from here, so they are
said once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from referee.games.options import OptionSpec


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as `croupier games` lists it; `rules_version` is written into every record."""

    id: str
    title: str
    rules_version: str
    option_specs: tuple[OptionSpec, ...] = ()

    def option(self, name: str) -> OptionSpec:
        """The spec of the option `name` (a catalogue's own, known to exist)."""
        return next(spec for spec in self.option_specs if spec.name == name)


XACTIKA: Final = GameInfo(
    "xactika",
    "Xactika",
    "xactika-1",
    (
        # XAC-R3: at most 10 players, as 8 * 10 = 80 < 81 cards.
        OptionSpec("players", 4, "number of players (XAC-R3)", minimum=2, maximum=10),
        OptionSpec(
            "rounds", 8, "rounds in the game, each one deal (XAC-R7)", minimum=1, maximum=100
        ),
    ),
)

XERI: Final = GameInfo(
    "xeri",
    "Xeri",
    "xeri-1",
    (
        OptionSpec("players", 2, "2 players, or 4 in two teams (XERI-R1)", choices=(2, 4)),
        OptionSpec(
            "rounds",
            4,
            "rounds in a game (XERI-R11); ignored under var_cumulative_151",
            minimum=1,
            maximum=100,
        ),
        OptionSpec("var_cut_reveal", False, "V1: show the deck's bottom card (XERI-R12)"),
        OptionSpec("var_lenient_pile", False, "V2: never redeal the initial pile (XERI-R13)"),
        OptionSpec(
            "var_no_last_xeri", False, "V3: the dealer's last card of a round makes no Xeri"
        ),
        OptionSpec("var_jack_xeri_25", False, "V4: a Jack Xeri is worth 25 instead of 20"),
        OptionSpec(
            "var_cumulative_151", False, "V5: race to 151 cumulative points (XERI-R14); no rounds"
        ),
    ),
)

#: No options: target 19 and stakes 3/5/8 are fixed.
XIX: Final = GameInfo("xix", "XIX", "xix-2.0")

TEXTACTOE: Final = GameInfo(
    "textactoe",
    "Tex-Tac-Toe",
    "textactoe-1",
    (
        OptionSpec("players", 2, "number of players (TTT-R17)", minimum=2, maximum=6),
        OptionSpec("jokers", False, "add the jokers X1 and X2 as wild cards (TTT-R4)"),
        OptionSpec(
            "max_turns_per_hand",
            100,
            "normal turns per hand after which play and discard are illegal (TTT-R5)",
            minimum=1,
            maximum=10_000,
        ),
    ),
)

#: Every game the referee runs, by id, in the order `croupier games` lists them.
CATALOG: Final[Mapping[str, GameInfo]] = MappingProxyType(
    {info.id: info for info in (XACTIKA, XERI, XIX, TEXTACTOE)}
)
