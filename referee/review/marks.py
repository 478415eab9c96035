"""A review as marks on the seat's replay page (issue 48.2): beside each reviewed decision's step,
the values of its actions as bars (the chosen and the best marked, the grade said), and along
the match the seat's expected margin, the chosen action's value at each decision, as a chart
(lichess's advantage chart). The page is the seat replay (its view alone), so the marks show
nothing the seat did not see, as the review itself computed nothing from it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from referee.review.review import DecisionReview
from referee.viewer.timeline import StepKind, Timeline

#: Decimal places of the values on the page: a point's hundredth is below any interval here.
PLACES = 2


def page_marks(
    timeline: Timeline, seat: int, reviewed: Sequence[DecisionReview]
) -> dict[int, dict[str, object]]:
    """Each reviewed decision's marks, by its step in `timeline` (the seat's Nth action step is
    its decision N - 1: the review counts the record's action lines where the seat was to move,
    as the timeline does)."""
    steps = [s.index for s in timeline.steps if s.kind is StepKind.ACTION and s.seat == seat]
    marks: dict[int, dict[str, object]] = {}
    for d in reviewed:
        marks[steps[d.decision]] = {
            "decision": d.decision + 1,
            "chosen": d.chosen,
            "best": d.best,
            "loss": _number(d.loss),
            "half": _number(d.loss_half_width),
            "grade": d.grade.value if d.grade else None,
            "unsampled": d.unsampled,
            "values": [[v.text, _number(v.mean), _number(v.half_width)] for v in d.values],
        }
    return marks


def _number(value: float) -> float | None:
    """A value as the page shows it; None where it is none (an interval of a single sample)."""
    return round(value, PLACES) if math.isfinite(value) else None
