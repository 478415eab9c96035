"""The engine API every game implements: games, states, actions, chance, events, results.

Engines are pure: no I/O, no clock, no randomness. Chance is explicit: a state at a chance node
describes it (`Shuffle`, `Pick`) and the caller supplies the outcome, so a record replays with no
seed at all. States are immutable; `apply` is the trusted path for search and tests, while the
referee always goes through `referee.games.checked`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from google.protobuf.message import Message

from referee.games.catalog import GameInfo
from referee.games.options import Options, OptionSpec


@dataclass(frozen=True, slots=True)
class Shuffle:
    """A chance node that shuffles `cards`; its outcome is a deck order, top to bottom."""

    cards: tuple[str, ...]
    label: str = "deal"


@dataclass(frozen=True, slots=True)
class Pick:
    """A chance node choosing uniformly among `count` possibilities; its outcome is 0..count-1."""

    count: int
    label: str


Chance: TypeAlias = Shuffle | Pick
ChanceOutcome: TypeAlias = tuple[str, ...] | int


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, with who may see it: `seats` None means every seat (public)."""

    text: str
    payload: Message
    seats: frozenset[int] | None = None

    def visible_to(self, seat: int) -> bool:
        return self.seats is None or seat in self.seats


@dataclass(frozen=True, slots=True)
class Result:
    """Final scores and ranks (1 is best, ties share a rank) per seat, plus team per seat if any."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    text: str
    teams: tuple[int, ...] | None = None


class Action(Protocol):
    """A game's action value: hashable, with a canonical text form and a typed protocol form."""

    @property
    def text(self) -> str: ...

    def to_proto(self) -> Message: ...


class State(Protocol):
    """An immutable game position."""

    @property
    def to_move(self) -> int | None:
        """The seat to act, or None at a chance node or the end."""
        ...

    @property
    def events(self) -> tuple[Event, ...]:
        """The events produced by the transition that led to this state."""
        ...

    def chance(self) -> Chance | None:
        """The chance node to resolve next, or None if a seat acts (or the game is over)."""
        ...

    def is_terminal(self) -> bool: ...

    def legal_actions(self) -> Sequence[Action]:
        """The actions of the seat to move, in a fixed order; never empty unless terminal."""
        ...

    def apply(self, action: Action) -> State:
        """Trusted: `action` must be one of `legal_actions()`."""
        ...

    def apply_chance(self, outcome: ChanceOutcome) -> State:
        """Trusted: `outcome` must be one that `chance()` can produce."""
        ...

    def observation(self, seat: int) -> Message:
        """Everything `seat` may know now, as the game's typed protocol message."""
        ...

    def result(self) -> Result:
        """Final scores and ranks; only once `is_terminal()`."""
        ...


class Game(Protocol):
    """A registered game: its id, rules version, options, and how to start and parse."""

    @property
    def id(self) -> str: ...

    @property
    def info(self) -> GameInfo:
        """Its catalogue entry: the facts code outside the engine asks about a game (its deck,
        teams, private fields), so that no code tests a game's id."""
        ...

    @property
    def title(self) -> str: ...

    @property
    def rules_version(self) -> str: ...

    @property
    def option_specs(self) -> tuple[OptionSpec, ...]: ...

    def seat_count(self, options: Options) -> int: ...

    def new_game(self, options: Options) -> State:
        """The state before the first chance node (usually the deal)."""
        ...

    def parse_action(self, text: str) -> Action:
        """The action with this text form; raises InvalidActionError if it is malformed."""
        ...


def parse_options(game: Game, raw: Mapping[str, str]) -> Options:
    """Validate text options (from the CLI, a ladder file or a record) against the game's specs."""
    return Options.parse(game.id, game.option_specs, raw)


def rank_by_score(scores: Sequence[int]) -> tuple[int, ...]:
    """Competition ranks, highest score first: scores (5, 9, 5) rank (2, 1, 2)."""
    return tuple(1 + sum(other > score for other in scores) for score in scores)
