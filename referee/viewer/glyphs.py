"""Cards as people read them: Xactika's `1313` as `1●3■1▲3★`, a standard card `TD` as `T♦`.

The record and the protocol keep the canonical text forms (any language can parse them); what
prints for a person (`croupier replay --plain`, `croupier watch`, the terminal stepper) uses these.
"""

from __future__ import annotations

import re

from referee.games.catalog import CATALOG, Deck
from referee.games.xactika import SHAPES as SHAPE_NAMES

#: Xactika's shapes (ball, cube, cone, star), in the order of a card code's digits.
SHAPES = ("●", "■", "▲", "★")
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

_XACTIKA_CARD = re.compile(r"\b([123])([123])([123])([123])\b")
_XACTIKA_CALL = re.compile(r"\b([1-3])(" + "|".join(SHAPE_NAMES) + r")\b")
_STANDARD_CARD = re.compile(r"\b([2-9TJQKA])([CDHS])\b")


def xactika_card(code: str) -> str:
    return "".join(digit + shape for digit, shape in zip(code, SHAPES, strict=True))


def readable(game: str, text: str) -> str:
    """`text` (an action's or event's) with every card in it in its glyph form, as the game's deck
    prints; an unknown game's `text` as it is."""
    deck = CATALOG[game].deck if game in CATALOG else None
    if deck is Deck.XACTIKA:
        text = _XACTIKA_CARD.sub(lambda m: xactika_card(m.group(0)), text)
        return _XACTIKA_CALL.sub(lambda m: m.group(1) + SHAPES[SHAPE_NAMES.index(m.group(2))], text)
    if deck is Deck.STANDARD:
        return _STANDARD_CARD.sub(lambda m: m.group(1) + SUITS[m.group(2)], text)
    return text
