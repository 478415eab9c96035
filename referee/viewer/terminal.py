"""The table model drawn with rich: cards as coloured chips, one row per seat, the piles below.

Pure functions from `Table` to rich renderables, used by the stepper (`referee.viewer.stepper`)
and testable without a terminal.
"""

from __future__ import annotations

from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from referee.viewer.glyphs import SHAPES, SUITS
from referee.viewer.model import Card, Deck, Layout, Pile, SeatBox, Table

_SUITS = {suit: (glyph, "red" if suit in "DH" else "black") for suit, glyph in SUITS.items()}
_SHAPES = tuple(zip(SHAPES, ("red3", "blue3", "green4", "dark_orange3"), strict=True))
_WIDTH = {Deck.XIX: 2, Deck.STANDARD: 2, Deck.XACTIKA: 8}
_FACE = "on grey93"
_DOWN = "on grey66"
_BACK = "grey70 on blue"
_MARK = "on yellow1"
_PAD = " "


def card_text(card: Card, deck: Deck) -> Text:
    """One card as a chip: its face, a back, or a known face-down card (grey)."""
    if not card.text:
        return Text(_PAD + "·" * _WIDTH[deck] + _PAD, style=_BACK)
    ground = _MARK if card.mark else (_DOWN if card.down else _FACE)
    face = Text(_PAD, style=ground)
    if deck is Deck.XACTIKA and len(card.text) == 4:
        for digit, (glyph, colour) in zip(card.text, _SHAPES, strict=True):
            face.append(digit, style=f"bold black {ground}")
            face.append(glyph, style=f"{colour} {ground}")
    elif deck is Deck.STANDARD and card.text[-1] in _SUITS:
        glyph, colour = _SUITS[card.text[-1]]
        face.append(card.text[0] + glyph, style=f"bold {colour} {ground}")
    elif deck is Deck.STANDARD:  # a joker, "X1"
        face.append("★" + card.text[1:], style=f"bold magenta {ground}")
    else:
        face.append(card.text.rjust(_WIDTH[deck]), style=f"bold black {ground}")
    face.append(_PAD, style=ground)
    if card.down:
        face.stylize("italic")
    return face


def cards_text(cards: tuple[Card, ...], deck: Deck) -> Columns:
    """Cards side by side, wrapping between cards (never inside one)."""
    return Columns([card_text(card, deck) for card in cards], padding=(0, 1))


def pile_renderable(pile: Pile, deck: Deck) -> RenderableType:
    label = Text(pile.label, style="bold")
    if pile.note:
        label.append(f"  {pile.note}", style="dim")
    if pile.layout is Layout.GRID:
        grid = RichTable(show_header=False, show_lines=True, padding=(0, 1))
        for _ in range(3):
            grid.add_column(justify="center")
        cells = [_stack(stack, deck) for stack in pile.stacks]
        for row in range(0, len(cells), 3):
            grid.add_row(*cells[row : row + 3])
        return Group(label, grid)
    if not pile.cards:
        return label
    if not any(card.note for card in pile.cards):
        return Group(label, cards_text(pile.cards, deck))
    noted = RichTable.grid(padding=(0, 1))
    for _ in pile.cards:
        noted.add_column(justify="center")
    noted.add_row(*(card_text(card, deck) for card in pile.cards))
    noted.add_row(*(Text(card.note, style="dim") for card in pile.cards))
    return Group(label, noted)


def _stack(stack: tuple[Card, ...], deck: Deck) -> RenderableType:
    if not stack:
        return Text("empty", style="dim")
    return cards_text(stack, deck)


def seats_renderable(table: Table) -> RichTable:
    seats = RichTable(show_edge=False, pad_edge=False, expand=False, header_style="dim")
    for column in ("", "seat", "score", "", "hand"):
        seats.add_column(column, no_wrap=column != "hand")
    for box in table.seats:
        seats.add_row(*_seat_row(box, table.deck))
    return seats


def _seat_row(box: SeatBox, deck: Deck) -> tuple[RenderableType, ...]:
    turn = Text("▶", style="bold green") if box.to_move else Text("")
    who = Text(f"{box.seat} {box.name}", style="bold cyan" if box.viewer else "")
    if box.viewer:
        who.append(" (you)", style="cyan")
    items: list[RenderableType] = [card_text(card, deck) for card in box.hand]
    for pile in box.piles:
        items.append(Text(f"{pile.label}:", style="dim"))
        items += [card_text(card, deck) for card in pile.cards]
    hand = Columns(items, padding=(0, 1)) if items else Text("-", style="dim")
    return turn, who, Text(box.score), Text(", ".join(box.facts), style="dim"), hand


def table_renderable(table: Table) -> RenderableType:
    """The whole table: status, seats, then the piles in the middle."""
    parts: list[RenderableType] = [
        Text(table.status, style="bold"),
        Text(""),
        seats_renderable(table),
    ]
    for pile in table.piles:
        parts += [Text(""), pile_renderable(pile, table.deck)]
    return Group(*parts)
