"""The Tex-Tac-Toe poker evaluator: every 5-card hand counted by category, the known count of
distinct hand values, worked cases with wild jokers (TTT-R4), and agreement with a slow
independent evaluator on random hands."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.textactoe_poker import (
    JOKER_DECK,
    JOKERS,
    STANDARD_DECK,
    Category,
    card_text,
    describe,
    evaluate,
    parse_card,
)
from tests import textactoe_reference as reference

# The known table of the 2,598,960 hands (e.g. Wikipedia "Poker probability").
KNOWN_COUNTS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108,
    Category.STRAIGHT: 10200,
    Category.THREE_OF_A_KIND: 54912,
    Category.TWO_PAIR: 123552,
    Category.PAIR: 1098240,
    Category.HIGH_CARD: 1302540,
}
# Distinct hand values (equivalence classes) per category: 7462 in all.
KNOWN_CLASSES = {
    Category.ROYAL_FLUSH: 1,
    Category.STRAIGHT_FLUSH: 9,
    Category.FOUR_OF_A_KIND: 156,
    Category.FULL_HOUSE: 156,
    Category.FLUSH: 1277,
    Category.STRAIGHT: 10,
    Category.THREE_OF_A_KIND: 858,
    Category.TWO_PAIR: 858,
    Category.PAIR: 2860,
    Category.HIGH_CARD: 1277,
}


# Hands with 0, 1 or 2 jokers equally often.
HANDS = st.integers(0, 2).flatmap(
    lambda wild: st.lists(
        st.sampled_from(STANDARD_DECK), min_size=5 - wild, max_size=5 - wild, unique=True
    ).map(lambda standard: [*standard, *JOKERS[:wild]])
)


def cards(text: str) -> list[int]:
    found = [parse_card(word) for word in text.split()]
    assert None not in found, text
    return [card for card in found if card is not None]


def value(text: str) -> tuple[Category, tuple[int, ...]]:
    return evaluate(cards(text))


def test_every_five_card_hand_by_category() -> None:
    counts: Counter[Category] = Counter()
    classes: set[tuple[Category, tuple[int, ...]]] = set()
    for hand in combinations(range(52), 5):
        hand_value = evaluate(hand)
        counts[hand_value[0]] += 1
        classes.add(hand_value)
    assert sum(counts.values()) == 2_598_960
    assert dict(counts) == KNOWN_COUNTS
    assert len(classes) == 7462
    assert Counter(category for category, _ in classes) == KNOWN_CLASSES


@pytest.mark.parametrize(
    ("hand", "category", "tiebreak"),
    [
        ("AS KS QS JS TS", Category.ROYAL_FLUSH, (14,)),
        ("9H KH QH JH TH", Category.STRAIGHT_FLUSH, (13,)),
        ("AD 2D 3D 4D 5D", Category.STRAIGHT_FLUSH, (5,)),  # ace low
        ("AD 2C 3D 4H 5S", Category.STRAIGHT, (5,)),
        ("TD JC QD KH AS", Category.STRAIGHT, (14,)),
        ("QD KC AD 2H 3S", Category.HIGH_CARD, (14, 13, 12, 3, 2)),  # no wrap-around
        ("7C 7D 7H 7S 2C", Category.FOUR_OF_A_KIND, (7, 2)),
        ("3C 3D 3H KS KC", Category.FULL_HOUSE, (3, 13)),
        ("2H 5H 9H JH KH", Category.FLUSH, (13, 11, 9, 5, 2)),
        ("8C 8D 8H AS 2C", Category.THREE_OF_A_KIND, (8, 14, 2)),
        ("8C 8D 5H 5S AC", Category.TWO_PAIR, (8, 5, 14)),
        ("8C 8D 5H 4S AC", Category.PAIR, (8, 14, 5, 4)),
        ("8C 9D 5H 4S AC", Category.HIGH_CARD, (14, 9, 8, 5, 4)),
    ],
)
def test_standard_hands(hand: str, category: Category, tiebreak: tuple[int, ...]) -> None:
    assert value(hand) == (category, tiebreak)


def test_comparisons() -> None:
    assert value("AD 2C 3D 4H 5S") < value("2D 3C 4D 5H 6S")  # the wheel is the lowest straight
    assert value("AS KS QS JS TS") > value("KS QS JS TS 9S")
    assert value("8C 8D 5H 5S AC") > value("8H 8S 5C 5D KC")  # the kicker decides
    assert value("8C 8D 5H 5S AC") == value("8H 8S 5C 5D AD")  # suits never break ties
    assert value("2C 2D 2H 3S 3C") > value("AC KC QC JC 9C")  # full house beats flush
    assert value("2C 3C 4C 5C 7C") > value("TD JC QD KH AS")  # flush beats straight


@pytest.mark.parametrize(
    ("hand", "category", "tiebreak"),
    [
        ("AS KS QS JS X1", Category.ROYAL_FLUSH, (14,)),
        ("X1 X2 AS KS QS", Category.ROYAL_FLUSH, (14,)),
        # Never five of a kind: the joker makes the best kicker instead.
        ("7C 7D 7H 7S X1", Category.FOUR_OF_A_KIND, (7, 14)),
        ("AC AD AH AS X2", Category.FOUR_OF_A_KIND, (14, 13)),
        ("9S 9H 9D X1 X2", Category.FOUR_OF_A_KIND, (9, 14)),
        ("2C 2D 3H 3S X1", Category.FULL_HOUSE, (3, 2)),
        ("5C 6D 8H 9S X1", Category.STRAIGHT, (9,)),
        ("2C 3D 4H 5S X1", Category.STRAIGHT, (6,)),  # 6-high beats the wheel
        ("2C 3D 4H X1 X2", Category.STRAIGHT, (6,)),
        ("2C 3C 4C X1 X2", Category.STRAIGHT_FLUSH, (6,)),
        # A duplicate of a real card is allowed: the ace of hearts twice makes the best flush.
        ("AH KH 3H 2H X1", Category.FLUSH, (14, 14, 13, 3, 2)),
        ("AH 7C X1 4D 9S", Category.PAIR, (14, 9, 7, 4)),
        ("AH AC X1 4D 9S", Category.THREE_OF_A_KIND, (14, 9, 4)),
    ],
)
def test_wild_jokers(hand: str, category: Category, tiebreak: tuple[int, ...]) -> None:
    assert value(hand) == (category, tiebreak)  # TTT-R4


def test_card_texts_round_trip() -> None:
    assert [card_text(card) for card in (0, 3, 4 * 8 + 1, 51, 52, 53)] == [
        "2C",
        "2S",
        "TD",
        "AS",
        "X1",
        "X2",
    ]
    assert all(parse_card(card_text(card)) == card for card in JOKER_DECK)
    assert parse_card("1C") is None
    assert describe(value("8C 8D 5H 5S AC")) == "two pair (8-5-A)"
    assert describe(value("AD 2C 3D 4H 5S")) == "straight (5)"


@settings(max_examples=200)
@given(HANDS)
def test_agrees_with_the_slow_reference(hand: list[int]) -> None:
    category, tiebreak = evaluate(hand)
    assert (int(category), tiebreak) == reference.value([card_text(card) for card in hand])


@settings(max_examples=100)
@given(HANDS, HANDS)
def test_order_agrees_with_the_reference(first: list[int], second: list[int]) -> None:
    ours = evaluate(first) > evaluate(second), evaluate(first) == evaluate(second)
    slow_first = reference.value([card_text(card) for card in first])
    slow_second = reference.value([card_text(card) for card in second])
    assert ours == (slow_first > slow_second, slow_first == slow_second)
