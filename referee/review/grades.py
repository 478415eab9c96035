"""Grades of a decision by the points (of final margin) its choice lost against the best action.

A grade is given only where the loss is significant: the lower end of its 95% interval is above
zero. The thresholds are per game, in points of that game's score (docs/review.md).
"""

from __future__ import annotations

from enum import StrEnum


class Grade(StrEnum):
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


#: Points lost at which a choice is an inaccuracy, a mistake, a blunder.
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "xix": (1.0, 3.0, 6.0),  # stakes are 3, 5 or 8; a game is to 19
    "xeri": (1.0, 3.0, 6.0),
    "xactika": (1.0, 2.0, 4.0),
    "textactoe": (1.0, 3.0, 6.0),
}


def grade(game: str, loss: float, half_width: float) -> Grade | None:
    """The grade of a choice that lost `loss` points (95% half-width `half_width`), if any."""
    if loss - half_width <= 0:
        return None
    inaccuracy, mistake, blunder = THRESHOLDS[game]
    if loss >= blunder:
        return Grade.BLUNDER
    if loss >= mistake:
        return Grade.MISTAKE
    if loss >= inaccuracy:
        return Grade.INACCURACY
    return None
