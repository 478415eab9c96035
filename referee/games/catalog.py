"""What each game is, apart from its rules: its id, title, rules version, options and the facts
the rest of the referee asks about a game (its deck, its teams, its private fields).

`croupier games`, help texts, option checks, ladders, spectators and viewers read this catalogue
without importing an engine (its rules, lookup tables and protocol messages); each engine takes
these from here (`Game.info`), so they are said once, and a new game is a new entry here and no
test of its id anywhere else (as OpenSpiel's `GameType` describes a game to the code around it).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from referee.games.options import OptionSpec


class Deck(StrEnum):
    """The cards a game deals, which says how their text forms print and draw."""

    XIX = "xix"  # numbers 1..18
    XACTIKA = "xactika"  # four shape counts, "1321"
    STANDARD = "standard"  # rank and suit, "TD"; jokers "X1", "X2"


@dataclass(frozen=True, slots=True)
class Teams:
    """At `seats` players the game is played by teams: `sides[k]` the seats of team k. (A
    ladder seats two teams of two: referee.ladder.config reads teams as pairs of bots.)"""

    seats: int
    sides: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Parts:
    """Where a game's parts live, each `module:attribute` (imported only when first used, so a
    command that plays one game loads one engine): its engine class, its luck value module
    (referee.games.values), its view (referee.viewer.games), and its playouts' default policy
    for the reference bots' search (a module with `policy` and, where the game allows, `redeal`:
    referee.review.rollout). The one place the code around a game finds them
    (docs/adding-a-game.md)."""

    engine: str
    value: str | None = None
    view: str | None = None
    rollout: str | None = None


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game as `croupier games` lists it; `rules_version` is written into every record.

    `private_fields` names the observation fields (at any depth) that hold what only some seats
    may know: a spectator never sees them (referee.match.public). `teams` lists the seat counts at
    which the game is played by teams; at any other count each seat plays for itself.
    """

    id: str
    title: str
    rules_version: str
    _: KW_ONLY
    deck: Deck
    private_fields: frozenset[str]
    parts: Parts
    option_specs: tuple[OptionSpec, ...] = ()
    teams: tuple[Teams, ...] = ()
    #: Digests of earlier releases' value functions that give this release's luck corrections
    #: (referee.match.luck.same_corrections): they differ only because the sources a digest
    #: covers changed in their words, so records made under them still verify. One joins only
    #: with a record made under it in tests/data/luck-history/.
    earlier_values: frozenset[str] = frozenset()
    #: Points of final margin a choice must lose against the best action for `croupier review`
    #: to grade it an inaccuracy, a mistake, a blunder (referee.review.grades, docs/review.md).
    review_grades: tuple[float, float, float] = (1.0, 3.0, 6.0)

    def option(self, name: str) -> OptionSpec:
        """The spec of the option `name` (a catalogue's own, known to exist)."""
        return next(spec for spec in self.option_specs if spec.name == name)

    def sides(self, seats: int) -> tuple[tuple[int, ...], ...] | None:
        """The teams' seats at this seat count, or None if each seat plays for itself."""
        return next((teams.sides for teams in self.teams if teams.seats == seats), None)


XACTIKA: Final = GameInfo(
    "xactika",
    "Xactika",
    "xactika-1",
    deck=Deck.XACTIKA,
    private_fields=frozenset({"seat", "hand"}),
    parts=Parts(
        engine="referee.games.xactika:Xactika",
        value="referee.games.xactika_value",
        view="referee.viewer.games.xactika:XactikaView",
        rollout="referee.review.xactika_rollout",
    ),
    # Before the digest covered values.py and the engines' constants (issue 44.5).
    earlier_values=frozenset(
        {"xactika-hand-1:f5c85ddb1aecae7cf8597952491b23a1dee624634ae50b6a6750e85536e1455f"}
    ),
    review_grades=(1.0, 2.0, 4.0),  # a trick is a point, and an exact bid's bonus few more
    option_specs=(
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
    deck=Deck.STANDARD,
    private_fields=frozenset({"seat", "team", "hand"}),
    parts=Parts(
        engine="referee.games.xeri:Xeri",
        value="referee.games.xeri_value",
        view="referee.viewer.games.xeri:XeriView",
        rollout="referee.review.xeri_rollout",
    ),
    earlier_values=frozenset(
        {"xeri-deal-1:9b52db21d7fa4d5aeaa8ddebeedd2057aaf231da88ba09965e0fde2929929032"}
    ),
    option_specs=(
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
    teams=(Teams(4, ((0, 2), (1, 3))),),  # XERI-R1: partners sit opposite
)

#: No options: target 19 and stakes 3/5/8 are fixed.
#: Both players can know a strike-row card's value (`known_value`) and a spectator still may not.
XIX: Final = GameInfo(
    "xix",
    "XIX",
    "xix-2.0",
    deck=Deck.XIX,
    private_fields=frozenset({"seat", "hand", "known_value"}),
    parts=Parts(
        engine="referee.games.xix:Xix",
        value="referee.games.xix_value",
        view="referee.viewer.games.xix:XixView",
    ),
    earlier_values=frozenset(
        {"xix-hand-1:b4d3e5b8bf9f652ff2e95b3b471c227d3f7596cc4f787bd302aa9f3d17a0c604"}
    ),
)

TEXTACTOE: Final = GameInfo(
    "textactoe",
    "Tex-Tac-Toe",
    "textactoe-1",
    deck=Deck.STANDARD,
    private_fields=frozenset({"seat", "stash", "committed"}),
    parts=Parts(
        engine="referee.games.textactoe:TexTacToe",
        value="referee.games.textactoe_value",
        view="referee.viewer.games.textactoe:TexTacToeView",
        rollout="referee.review.textactoe_rollout",
    ),
    earlier_values=frozenset(
        {"textactoe-jokers-2:ead94cdfeeb2bab4846728519f82e024d3ddef5837755f49b1cef114cdc1d767"}
    ),
    option_specs=(
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


def load_part(where: str) -> object:
    """A part named `module:attribute` (the attribute), or `module` (the module itself)."""
    module, _, attribute = where.partition(":")
    found = importlib.import_module(module)
    return getattr(found, attribute) if attribute else found


#: Every game the referee runs, by id, in the order `croupier games` lists them.
CATALOG: Final[Mapping[str, GameInfo]] = MappingProxyType(
    {info.id: info for info in (XACTIKA, XERI, XIX, TEXTACTOE)}
)
