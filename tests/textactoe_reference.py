"""A slow, independent poker evaluator for the Tex-Tac-Toe tests: card texts in, no tables, and
jokers tried as every one of the 52 standard cards (duplicates allowed, TTT-R4)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

RANKS = "23456789TJQKA"
SUITS = "CDHS"
STANDARD = [rank + suit for rank in RANKS for suit in SUITS]
# Category numbers as in the rules' table, weakest first.
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL = range(
    10
)
POINTS = [0, 1, 2, 5, 25, 50, 70, 150, 500, 1000]
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

Value = tuple[int, tuple[int, ...]]


def _standard_value(cards: Sequence[str]) -> Value:
    ranks = sorted((RANKS.index(card[0]) + 2 for card in cards), reverse=True)
    flush = len({card[1] for card in cards}) == 1
    distinct = sorted(set(ranks))
    high = 0
    if len(distinct) == 5 and distinct[4] - distinct[0] == 4:
        high = distinct[4]
    if distinct == [2, 3, 4, 5, 14]:
        high = 5
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    pattern = [count for count, _ in groups]
    key = tuple(rank for _, rank in groups)
    if high and flush:
        return (ROYAL, (14,)) if high == 14 else (STRAIGHT_FLUSH, (high,))
    if pattern == [4, 1]:
        return QUADS, key
    if pattern == [3, 2]:
        return FULL_HOUSE, key
    if flush:
        return FLUSH, tuple(ranks)
    if high:
        return STRAIGHT, (high,)
    if pattern == [3, 1, 1]:
        return TRIPS, key
    if pattern == [2, 2, 1]:
        return TWO_PAIR, key
    if pattern == [2, 1, 1, 1]:
        return PAIR, key
    return HIGH_CARD, key


def value(cards: Sequence[str]) -> Value:
    """The value of five card texts; each joker becomes its best standard card, never making
    five of a kind."""
    real = [card for card in cards if not card.startswith("X")]
    wild = len(cards) - len(real)
    if not wild:
        return _standard_value(real)
    best: Value | None = None
    for extra in product(STANDARD, repeat=wild):
        hand = [*real, *extra]
        if len({card[0] for card in hand}) == 1:
            continue
        candidate = _standard_value(hand)
        if best is None or candidate > best:
            best = candidate
    assert best is not None
    return best


def best_line(committed: Sequence[str], tops: Sequence[str | None]) -> tuple[int, Value]:
    """The best line (lowest number among equals) over lines whose three tops are all known."""
    found: tuple[int, Value] | None = None
    for number, line in enumerate(LINES):
        cards = [tops[p] for p in line]
        if any(card is None for card in cards):
            continue
        candidate = value([*committed, *(card for card in cards if card is not None)])
        if found is None or candidate > found[1]:
            found = (number, candidate)
    assert found is not None
    return found
