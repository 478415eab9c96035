"""Cards and 5-card poker hand values for Tex-Tac-Toe (RULES.md 4.1, 4.5, TTT-R4).

A card is an int: `rank * 4 + suit` for the 52 standard cards (rank 0 is a 2, 12 an ace; suits
C D H S are 0..3), 52 and 53 for the jokers X1 and X2. Sorting cards sorts them by rank, so the
canonical order of a set of cards is ascending ints (2C 2D ... AS X1 X2).

A hand value is `(Category, tiebreak)`: tuples compare so that the better hand is the greater one
and equal hands (suits never break ties) are equal. Tiebreak ranks run 2..14 (ace 14); a straight's
tiebreak is its high card, 5 for the ace-low A-2-3-4-5. Standard hands take a fast path: two tables
keyed by the five ranks, one for suited hands and one for the rest, each filled when first used.
A joker stands for any standard card, duplicates allowed, but never makes five of a kind (TTT-R4):
the value is the best such assignment.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Final, TypeAlias

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"
JOKERS: Final = (52, 53)
STANDARD_DECK: Final = tuple(range(52))
JOKER_DECK: Final = (*STANDARD_DECK, *JOKERS)
_ACE: Final = 12


class Category(IntEnum):
    """Poker hand categories, weakest first (RULES.md 4.5)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


#: The seed's scoring table (RULES.md 4.5); TTT-R11 adjusts high card and doubling.
POINTS: Final = {
    Category.HIGH_CARD: 0,
    Category.PAIR: 1,
    Category.TWO_PAIR: 2,
    Category.THREE_OF_A_KIND: 5,
    Category.STRAIGHT: 25,
    Category.FLUSH: 50,
    Category.FULL_HOUSE: 70,
    Category.FOUR_OF_A_KIND: 150,
    Category.STRAIGHT_FLUSH: 500,
    Category.ROYAL_FLUSH: 1000,
}

HandValue: TypeAlias = tuple[Category, tuple[int, ...]]


def card_text(card: int) -> str:
    """`TD`, `2C`, `AS`; the jokers are `X1` and `X2`."""
    if card >= 52:
        return f"X{card - 51}"
    return RANKS[card >> 2] + SUITS[card & 3]


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(card) for card in cards)


def card_texts(cards: Iterable[int]) -> list[str]:
    """Each card's text, for a protocol message's repeated field."""
    return [card_text(card) for card in cards]


_BY_TEXT: Final = {card_text(card): card for card in JOKER_DECK}


def parse_card(text: str) -> int | None:
    """The card with this text form (upper case), or None if there is none."""
    return _BY_TEXT.get(text)


def _value(ranks: tuple[int, ...], suited: bool) -> HandValue:
    """The value of five ranks (ascending, 0..12, at most four alike), all one suit or not.

    Works for any such multiset, so that a joker's duplicate of a real card is valued correctly:
    e.g. suited A A K 3 2 is a flush, and it beats suited A K Q 3 2.
    """
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    order = tuple(rank + 2 for rank, _ in groups)
    straight_high = 0
    if len(counts) == 5:
        if ranks[4] - ranks[0] == 4:
            straight_high = ranks[4] + 2
        elif ranks == (0, 1, 2, 3, _ACE):  # the ace plays low only here: A-2-3-4-5
            straight_high = 5
    if straight_high and suited:
        if straight_high == 14:
            return Category.ROYAL_FLUSH, (14,)
        return Category.STRAIGHT_FLUSH, (straight_high,)
    if shape == (4, 1):
        return Category.FOUR_OF_A_KIND, order
    if shape == (3, 2):
        return Category.FULL_HOUSE, order
    if suited:
        return Category.FLUSH, tuple(rank + 2 for rank in reversed(ranks))
    if straight_high:
        return Category.STRAIGHT, (straight_high,)
    if shape == (3, 1, 1):
        return Category.THREE_OF_A_KIND, order
    if shape == (2, 2, 1):
        return Category.TWO_PAIR, order
    if shape == (2, 1, 1, 1):
        return Category.PAIR, order
    return Category.HIGH_CARD, order


class _Table(dict[tuple[int, ...], HandValue]):
    """Hand values by five ascending ranks, all one suit or not: filled at its first lookup, so
    importing the engine costs nothing, and then a plain dict's lookup (no call on the hot path)."""

    __slots__ = ("suited",)

    def __init__(self, *, suited: bool) -> None:
        super().__init__()
        self.suited = suited

    def __missing__(self, ranks: tuple[int, ...]) -> HandValue:
        if self:
            raise KeyError(ranks)  # not five ranks of a hand: the table is full
        for each in combinations_with_replacement(range(13), 5):
            if each[0] != each[4]:  # five of a kind does not exist (TTT-R4)
                self[each] = _value(each, self.suited)
        return self[ranks]


_PLAIN: Final = _Table(suited=False)
_SUITED: Final = _Table(suited=True)


def evaluate(cards: Iterable[int]) -> HandValue:
    """The value of a 5-card hand; jokers (52, 53) are wild (TTT-R4)."""
    a, b, c, d, e = sorted(cards)
    if e < 52:
        key = (a >> 2, b >> 2, c >> 2, d >> 2, e >> 2)
        suit = a & 3
        if b & 3 == suit and c & 3 == suit and d & 3 == suit and e & 3 == suit:
            return _SUITED[key]
        return _PLAIN[key]
    return _evaluate_wild((a, b, c, d, e))


def _evaluate_wild(cards: tuple[int, ...]) -> HandValue:
    real = [card for card in cards if card < 52]
    wild = len(cards) - len(real)
    # With the real cards all one suit (or none), the jokers take that suit too: a suited value
    # is never worse than the unsuited one of the same ranks. Otherwise no flush is possible and
    # only the jokers' ranks matter.
    table = _SUITED if len({card & 3 for card in real}) <= 1 else _PLAIN
    real_ranks = [card >> 2 for card in real]
    best: HandValue | None = None
    for extra in combinations_with_replacement(range(13), wild):
        key = tuple(sorted((*real_ranks, *extra)))
        if key[0] == key[4]:
            continue  # never five of a kind (TTT-R4)
        value = table[key]
        if best is None or value > best:
            best = value
    assert best is not None
    return best


_NAMES: Final = {
    Category.HIGH_CARD: "high card",
    Category.PAIR: "pair",
    Category.TWO_PAIR: "two pair",
    Category.THREE_OF_A_KIND: "three of a kind",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full house",
    Category.FOUR_OF_A_KIND: "four of a kind",
    Category.STRAIGHT_FLUSH: "straight flush",
    Category.ROYAL_FLUSH: "royal flush",
}


def category_name(category: Category) -> str:
    return _NAMES[category]


def describe(value: HandValue) -> str:
    """E.g. `two pair (K-7-3)`: the category and its tiebreak ranks, most important first."""
    category, tiebreak = value
    return f"{_NAMES[category]} ({'-'.join(RANKS[rank - 2] for rank in tiebreak)})"
