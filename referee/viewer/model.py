"""The table model: what a viewer draws at one step of a match, in one view, for any game.

Each game's module (`referee.viewer.games`) turns observations into this model once; the terminal
stepper and the HTML viewer only draw it, so both show the same thing and neither knows a rule.
Every value is plain data that becomes JSON with `to_json`. Cards, piles and seat boxes are
named tuples, not dataclasses: a report dedupes millions of them by hash, and a tuple's hash and
equality run in C (a dataclass's in Python, a third of a page's time).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from referee.games.catalog import Deck as Deck  # re-exported: a table draws its game's deck


class Layout(StrEnum):
    """How a pile's cards are laid out."""

    ROW = "row"  # side by side, in order
    GRID = "grid"  # three columns of stacks (Tex-Tac-Toe); each stack base first


class Card(NamedTuple):
    """One card as this view shows it.

    `text` empty: a face-down card the view cannot see (a back). `down`: face down on the table
    although this view knows it (a peek, the referee's omniscience). `note` is a short label
    under the card (who played it, "slid"); `mark` flags the card that matters now (the trick's
    winner, the last card played).
    """

    text: str = ""
    down: bool = False
    note: str = ""
    mark: bool = False

    def to_json(self) -> dict[str, Any]:
        return _card_json(self)


@functools.lru_cache(maxsize=8192)
def _card_json(card: Card) -> dict[str, Any]:
    """A card's JSON, made once per distinct card (a report writes millions; the same dict is
    shared, and never changed, by every list that holds it)."""
    data: dict[str, Any] = {"t": card.text}
    if card.down:
        data["d"] = 1
    if card.note:
        data["n"] = card.note
    if card.mark:
        data["m"] = 1
    return data


BACK = Card()
"""A card nobody in this view can see."""


def backs(count: int) -> tuple[Card, ...]:
    return (BACK,) * count


class Pile(NamedTuple):
    """A labelled group of cards: a trick, the Xeri pile, the strike row, the Tex-Tac-Toe grid.

    With `Layout.GRID`, `stacks` holds the nine positions' stacks (base first) and `cards` is
    unused; an empty stack is an empty position.
    """

    label: str
    cards: tuple[Card, ...] = ()
    layout: Layout = Layout.ROW
    stacks: tuple[tuple[Card, ...], ...] = ()
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": self.label}
        if self.layout is Layout.GRID:
            data["layout"] = self.layout.value
            data["stacks"] = [[card.to_json() for card in stack] for stack in self.stacks]
        else:
            data["cards"] = [card.to_json() for card in self.cards]
        if self.note:
            data["note"] = self.note
        return data


class SeatBox(NamedTuple):
    """One seat at the table: its name, score, facts (bid, strikes, team...), hand and piles."""

    seat: int
    name: str
    score: str
    hand: tuple[Card, ...] = ()
    facts: tuple[str, ...] = ()
    piles: tuple[Pile, ...] = ()
    to_move: bool = False
    viewer: bool = False  # the seat whose view this is

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "seat": self.seat,
            "name": self.name,
            "score": self.score,
            "hand": [card.to_json() for card in self.hand],
        }
        if self.facts:
            data["facts"] = list(self.facts)
        if self.piles:
            data["piles"] = [pile.to_json() for pile in self.piles]
        if self.to_move:
            data["move"] = 1
        if self.viewer:
            data["me"] = 1
        return data


@dataclass(frozen=True, slots=True)
class Table:
    """Everything drawn for one step in one view: a status line, the seats, the middle piles."""

    deck: Deck
    status: str
    seats: tuple[SeatBox, ...]
    piles: tuple[Pile, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "seats": [seat.to_json() for seat in self.seats],
            "piles": [pile.to_json() for pile in self.piles],
        }

    def cards(self) -> list[Card]:
        """Every card drawn, backs included (tests check what a view reveals)."""
        found: list[Card] = []
        for pile in (*self.piles, *(p for seat in self.seats for p in seat.piles)):
            found += pile.cards
            for stack in pile.stacks:
                found += stack
        for seat in self.seats:
            found += seat.hand
        return found
