"""Tex-Tac-Toe's grid: its positions and lines, which card may go on which, and the value of a
hand at the showdown (RULES.md 4.1-4.5; TTT-R2, TTT-R4, TTT-R6, TTT-R7, TTT-R10, TTT-R11).

The tables here are built once at import: the legal actions look up what a pattern of face-up
positions and the top cards allow rather than working it out at every decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Final

from referee.games.textactoe_poker import JOKER_DECK, POINTS, Category, HandValue, evaluate

GRID_SIZE: Final = 9
CENTRE: Final = 4
#: Rows, columns, diagonals: the line numbers 0..7 used in the protocol (RULES.md 4.1).
LINES: Final = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)


def matches(card: int, top: int) -> bool:
    """May `card` be played onto a face-up position whose top card is `top` (TTT-R2, TTT-R4)?"""
    if card >= 52 or top >= 52:
        return True  # TTT-R4: a joker goes on anything and anything goes on a joker
    return (card & 3) == (top & 3) or (card >> 2) == (top >> 2)


#: MATCHES[card][top]: `matches(card, top)` for every pair of cards (the jokers too).
MATCHES: Final = tuple(tuple(matches(card, top) for top in JOKER_DECK) for card in JOKER_DECK)


@dataclass(frozen=True, slots=True)
class Layout:
    """What a pattern of face-up positions decides: the face-down positions (ascending), the
    face-up ones, and whether some line is all face up (TTT-R6, TTT-R7)."""

    down: tuple[int, ...]
    up: tuple[int, ...]
    eligible: bool


#: Per `face_up` tuple: its layout (512 patterns, looked up at every turn's legal actions).
LAYOUTS: Final = {
    face_up: Layout(
        tuple(p for p in range(GRID_SIZE) if not face_up[p]),
        tuple(p for p in range(GRID_SIZE) if face_up[p]),
        any(face_up[a] and face_up[b] and face_up[c] for a, b, c in LINES),
    )
    for face_up in product((False, True), repeat=GRID_SIZE)
}


def best_line(committed: Sequence[int], grid: Sequence[tuple[int, ...]]) -> tuple[int, HandValue]:
    """The best eligible line for two committed cards and its hand value (TTT-R10).

    `grid` holds the stacks of face-up positions and () for the others (a line is eligible only
    when all three positions are face up, TTT-R7). Among lines of equal value the lowest-numbered
    line is chosen (a gap in the rules: it only decides which line a win clears).
    """
    return best_of_lines(committed, eligible_lines(grid))


def eligible_lines(grid: Sequence[tuple[int, ...]]) -> list[tuple[int, tuple[int, ...]]]:
    """(line number, its three top cards) of each line whose positions all hold a stack."""
    return [
        (number, (grid[a][-1], grid[b][-1], grid[c][-1]))
        for number, (a, b, c) in enumerate(LINES)
        if grid[a] and grid[b] and grid[c]
    ]


def best_of_lines(
    committed: Sequence[int], lines: list[tuple[int, tuple[int, ...]]]
) -> tuple[int, HandValue]:
    """best_line over `eligible_lines(grid)`: the first line of the greatest value."""
    best: tuple[int, HandValue] | None = None
    for number, tops in lines:
        value = evaluate((*committed, *tops))
        if best is None or value > best[1]:
            best = (number, value)
    assert best is not None, "a showdown needs an eligible line"
    return best


def hand_points(category: Category, challenged: bool, caller_won: bool) -> int:
    """The winner's points (TTT-R11, TTT-R17): high card is 1 once anyone challenged, and the
    caller's win is doubled if anyone challenged."""
    points = POINTS[category]
    if challenged:
        points = max(points, 1)
        if caller_won:
            points *= 2
    return points
