"""Typed game options with clear errors: each game declares `OptionSpec`s, users give text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeAlias

from referee.errors import CroupierError, InvalidOptionError

OptionValue: TypeAlias = int | bool

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: an int within [minimum, maximum] or a bool, with its default."""

    name: str
    default: OptionValue
    description: str
    minimum: int = 0
    maximum: int = 0
    #: For ints: the only values allowed, when not every value in the range is (e.g. 2 or 4).
    choices: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        return "bool" if isinstance(self.default, bool) else "int"

    def parse(self, game_id: str, text: str) -> OptionValue:
        where = f"option {self.name!r} of game {game_id!r}"
        if self.kind == "bool":
            lowered = text.strip().lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise InvalidOptionError(f"bad value {text!r} for {where}: expected true or false")
        try:
            value = int(text.strip())
        except ValueError:
            raise InvalidOptionError(
                f"bad value {text!r} for {where}: expected a whole number"
            ) from None
        if self.choices and value not in self.choices:
            allowed = " or ".join(map(str, self.choices))
            raise InvalidOptionError(f"bad value {value!r} for {where}: expected {allowed}")
        if not self.choices and not self.minimum <= value <= self.maximum:
            raise InvalidOptionError(
                f"bad value {value!r} for {where}: expected {self.minimum} to {self.maximum}"
            )
        return value


def format_value(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True, slots=True)
class Options(Mapping[str, OptionValue]):
    """A game's validated options, every one present (defaults filled in)."""

    pairs: tuple[tuple[str, OptionValue], ...] = ()

    @classmethod
    def parse(cls, game_id: str, specs: tuple[OptionSpec, ...], raw: Mapping[str, str]) -> Options:
        by_name = {spec.name: spec for spec in specs}
        for name in raw:
            if name not in by_name:
                known = ", ".join(sorted(by_name)) or "none"
                raise InvalidOptionError(
                    f"unknown option {name!r} for game {game_id!r} (its options: {known})"
                )
        return cls(
            tuple(
                (
                    spec.name,
                    spec.parse(game_id, raw[spec.name]) if spec.name in raw else spec.default,
                )
                for spec in specs
            )
        )

    def __getitem__(self, name: str) -> OptionValue:
        for key, value in self.pairs:
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def as_text(self) -> dict[str, str]:
        """The text form written to records and sent in MatchStart."""
        return {key: format_value(value) for key, value in self.pairs}

    def integer(self, name: str) -> int:
        value = self[name]
        assert isinstance(value, int)
        return int(value)


def option_pairs(pairs: Iterable[str], players: int | None = None) -> dict[str, str]:
    """Game options from `--option NAME=VALUE` texts (and the `--players N` shortcut)."""
    raw: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise CroupierError(f"bad option {pair!r}: expected NAME=VALUE")
        raw[name.strip()] = value.strip()
    if players is not None:
        raw["players"] = str(players)
    return raw
