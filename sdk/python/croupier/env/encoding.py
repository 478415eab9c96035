"""The fixed-size numeric encoding of a seat's observation, and the action mask.

Built from the `ActionRequest` alone (what the referee sends the seat), so it can hold nothing
the seat may not see. The layout follows the game's observation message (its .proto, field
order), one rule per kind of field:

- a number or enum: one slot, its value (an unset `optional` field: -1); a bool: 0 or 1;
- a card (a string field, or one of a game's card-valued number fields, `CARD_NUMBERS`): a
  one-hot over the game's deck in its text order (plus a last slot for "none"); a repeated card
  field: a count per card (a multi-hot: order is not kept);
- any other repeated number: one slot per seat (the per-seat lists), zero-padded;
- a repeated message: `MESSAGE_SLOTS[game][field]` copies of its encoding (else one per seat),
  zero-padded;
- a deprecated field is left out (it repeats a newer one).

The action space is the position in the referee's list of legal actions, `ACTIONS[game]` wide:
the engine lists them in a fixed order for a rules version (see `Game.rules_version`), and the
mask is 1 for the first `len(legal_actions)` positions. Both are versioned with the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from croupier.v1 import game_pb2, referee_pb2

#: The most legal actions a decision can have, per game (the action space's width).
ACTIONS: dict[str, int] = {"xix": 30, "xeri": 6, "xactika": 32, "textactoe": 64}
#: Number fields that hold cards (XIX's cards are the numbers 1..18).
CARD_NUMBERS: dict[str, frozenset[str]] = {
    "xix": frozenset({"hand", "trick", "played", "draft_pool", "known_value"}),
}
#: How many of a repeated message field are encoded, per game.
MESSAGE_SLOTS: dict[str, dict[str, int]] = {
    "xix": {"strike_row": 5},
    "xeri": {"sides": 2},
    "textactoe": {"grid": 9},
}

#: The observation space's bounds: no number in an observation comes near (scores, counts).
BOUND = 1e6

Vector = npt.NDArray[np.float32]
_Writer = Callable[[Message, list[float], int], None]


@dataclass(frozen=True, slots=True)
class Encoder:
    """The encoding of one game at one table (seat count and deck)."""

    game: str
    size: int
    actions: int
    _write: _Writer

    def encode(self, request: referee_pb2.ActionRequest) -> Vector:
        """The request's observation as `size` float32 numbers."""
        out = [0.0] * self.size  # a list, then one array: faster than item by item
        self._write(getattr(request.observation, self.game), out, 0)
        return np.array(out, dtype=np.float32)

    def mask(self, request: referee_pb2.ActionRequest) -> npt.NDArray[np.int8]:
        """1 at each position of a legal action, 0 elsewhere."""
        count = len(request.legal_actions)
        if count > self.actions:
            raise ValueError(f"{count!r} legal actions, more than {self.game!r}'s {self.actions}")
        mask = np.zeros(self.actions, dtype=np.int8)
        mask[:count] = 1
        return mask


_RANKS = "23456789TJQKA"
_SUITS = "CDHS"


def deck(game: str, options: Mapping[str, str]) -> tuple[str, ...]:
    """The cards `game` deals with these options (a MatchStart's), as their text forms: the
    SDK's own copy of the catalogue's decks, so that a bot needs no referee (a test holds it to
    the engines' first shuffle)."""
    if game == "xix":
        return ()  # XIX's cards are numbers (CARD_NUMBERS)
    if game == "xactika":
        return tuple(f"{a}{b}{c}{d}" for a, b, c, d in product("123", repeat=4))
    cards = tuple(rank + suit for rank in _RANKS for suit in _SUITS)
    if options.get("jokers") == "true":  # TTT-R4
        cards += ("X1", "X2")
    return cards


def encoder(game: str, seats: int, deck: Sequence[str]) -> Encoder:
    """The encoder for `game` at `seats` seats with `deck` (the cards its first shuffle deals)."""
    message = cast(Descriptor, game_pb2.Observation.DESCRIPTOR.fields_by_name[game].message_type)
    cards = {card: i for i, card in enumerate(sorted(deck))}
    size, write = _plan(game, message, seats, cards)
    return Encoder(game, size, ACTIONS[game], write)


def _plan(game: str, message: Descriptor, seats: int, cards: dict[str, int]) -> tuple[int, _Writer]:
    """A message's size and writer: one writer per field, each at its offset, in field order."""
    parts: list[_Writer] = []
    offset = 0
    for field in message.fields:
        if field.GetOptions().deprecated:
            continue
        width, part = _field(game, field, offset, seats, cards)
        parts.append(part)
        offset += width

    def write(value: Message, out: list[float], base: int) -> None:
        for part in parts:
            part(value, out, base)

    return offset, write


def _field(
    game: str, field: FieldDescriptor, at: int, seats: int, cards: dict[str, int]
) -> tuple[int, _Writer]:
    """The width of one field and its writer, which writes at `base + at`."""
    name = field.name
    is_card = field.type == FieldDescriptor.TYPE_STRING or name in CARD_NUMBERS.get(game, ())
    index: dict[Any, int] = cards
    if field.type != FieldDescriptor.TYPE_STRING:
        index = {card: card - 1 for card in range(1, 19)}  # XIX: the cards 1..18
    width = len(index)
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        slots = MESSAGE_SLOTS.get(game, {}).get(name, seats) if field.is_repeated else 1
        size, inner = _plan(game, cast(Descriptor, field.message_type), seats, cards)
        if field.is_repeated:

            def repeated_message(value: Message, out: list[float], base: int) -> None:
                items = getattr(value, name)
                if len(items) > slots:
                    raise ValueError(f"{len(items)} {name!r} entries, more than {slots} encoded")
                for k, item in enumerate(items):
                    inner(item, out, base + at + k * size)

            return slots * size, repeated_message
        return size, lambda value, out, base: inner(getattr(value, name), out, base + at)
    if is_card and field.is_repeated:

        def card_set(value: Message, out: list[float], base: int) -> None:
            start = base + at
            for card in getattr(value, name):
                out[start + index[card]] += 1

        return width, card_set
    if is_card:
        optional = field.has_presence

        def one_card(value: Message, out: list[float], base: int) -> None:
            card = getattr(value, name)
            if (optional and not value.HasField(name)) or card == "":
                out[base + at + width] = 1
            else:
                out[base + at + index[card]] = 1

        return width + 1, one_card
    if field.is_repeated:

        def per_seat(value: Message, out: list[float], base: int) -> None:
            items = getattr(value, name)
            if len(items) > seats:
                raise ValueError(f"{len(items)} {name!r} entries, more than {seats} encoded")
            start = base + at
            out[start : start + len(items)] = items

        return seats, per_seat
    if field.has_presence and field.containing_oneof is None:

        def optional_number(value: Message, out: list[float], base: int) -> None:
            out[base + at] = getattr(value, name) if value.HasField(name) else -1

        return 1, optional_number

    def number(value: Message, out: list[float], base: int) -> None:
        out[base + at] = getattr(value, name)

    return 1, number
