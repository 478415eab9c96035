"""Grades of a decision by the points (of final margin) its choice lost against the best action.

A grade is given only where the loss is significant: the lower end of its 95% interval is above
zero. The thresholds are per game, in points of that game's score (docs/review.md).
"""

from __future__ import annotations

from enum import StrEnum

from referee.games.catalog import GameInfo


class Grade(StrEnum):
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


def grade(game: GameInfo, loss: float, half_width: float) -> Grade | None:
    """The grade of a choice that lost `loss` points (95% half-width `half_width`), if any, by
    the game's thresholds (GameInfo.review_grades)."""
    if loss - half_width <= 0:
        return None
    inaccuracy, mistake, blunder = game.review_grades
    if loss >= blunder:
        return Grade.BLUNDER
    if loss >= mistake:
        return Grade.MISTAKE
    if loss >= inaccuracy:
        return Grade.INACCURACY
    return None
