"""The review of one seat's decisions in a match record: each valued from the seat's view alone,
in a process pool (one task per decision), by referee.review.search.evaluate, as the reference
bots value theirs (the game's playout policy and redeal, issue 48.2): a decision's best action
is the one the reference's search would rate highest. (In Xeri the reference bot also keeps its
heuristic's choice unless the search confirms a better one, `Values.confirmed`; a review has no
such prior: it grades a loss only where its interval says the loss is real.)"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from referee.review.budgets import check_budget
from referee.review.grades import Grade, grade
from referee.review.search import ActionValue, Unsampled, evaluate
from referee.review.view import SeatView, view_of_record


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """Decision `decision` (0-based among the seat's) of the match: the values of its actions,
    the one chosen, its loss against the best (with its 95% half-width) and grade. `values` is
    empty where no determinization fitted the view (`unsampled`)."""

    decision: int
    chosen: str
    values: tuple[ActionValue, ...]
    best: str
    loss: float
    loss_half_width: float
    grade: Grade | None
    unsampled: bool = False

    def to_json(self) -> dict[str, object]:
        """As `--json` prints it: an interval of fewer than two samples (infinite) is null, since
        JSON has no Infinity."""
        data = asdict(self)
        data["grade"] = self.grade.value if self.grade else None
        data["loss_half_width"] = _finite(self.loss_half_width)
        data["values"] = [{**v, "half_width": _finite(v["half_width"])} for v in data["values"]]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DecisionReview:
        """One decision as `to_json` wrote it (`croupier review --json`'s), read back: what the
        contest site reads of the review it ran in a process of its own (issue 48.2)."""
        values = tuple(
            ActionValue(str(v["text"]), float(v["mean"]), _infinite(v["half_width"]))
            for v in data["values"]
        )
        return cls(
            int(data["decision"]),
            str(data["chosen"]),
            values,
            str(data["best"]),
            float(data["loss"]),
            _infinite(data["loss_half_width"]),
            Grade(data["grade"]) if data["grade"] else None,
            bool(data["unsampled"]),
        )


def review(
    path: Path, seat: int, budget: int, seed: int = 0, workers: int = 1
) -> list[DecisionReview]:
    """Every decision of seat `seat` in the record at `path`, reviewed. Raises CroupierError for
    a record that does not verify or a seat it does not have, ValueError for a budget out of
    range."""
    check_budget(budget)
    view = view_of_record(path, seat)
    tasks = [_task(view, k, budget, seed) for k in range(len(view.decisions))]
    if workers <= 1:
        return [_review_one(task) for task in tasks]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_review_one, tasks))


def reviews(
    path: Path, seat: int, budget: int, seed: int = 0, only: Sequence[int] | None = None
) -> Iterator[DecisionReview]:
    """The decisions (those numbered in `only`, if given) one by one in this process."""
    check_budget(budget)
    view = view_of_record(path, seat)
    for k in range(len(view.decisions)) if only is None else only:
        yield _review_one(_task(view, k, budget, seed))


_Task = tuple[SeatView, str, int, int]


def _task(view: SeatView, k: int, budget: int, seed: int) -> _Task:
    chosen = view.decisions[k].chosen
    assert chosen is not None
    return view.up_to(k), chosen, budget, seed


def _review_one(task: _Task) -> DecisionReview:
    view, chosen, budget, seed = task
    k = len(view.decisions) - 1
    full = view.decisions[k]
    try:
        values = evaluate(view, budget, seed)
    except Unsampled:
        return DecisionReview(k, chosen, (), "", 0.0, 0.0, None, unsampled=True)
    index = full.legal.index(chosen)
    loss, half = values.loss(index)
    best = values.actions[values.best].text
    return DecisionReview(
        k, chosen, values.actions, best, loss, half, grade(view.game.info, loss, half)
    )


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _infinite(value: float | None) -> float:
    """`_finite` undone: null is an interval of fewer than two samples."""
    return math.inf if value is None else float(value)
