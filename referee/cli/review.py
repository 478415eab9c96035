"""`croupier review`: the value of every action at each decision of one seat in a match record,
from that seat's view alone, and the grade of its choices."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.consoles import EXIT_CHECK_FAILED, console, errors, user_errors
from referee.errors import CroupierError
from referee.review.budgets import DEFAULT_BUDGET

if TYPE_CHECKING:
    from rich.table import Table

    from referee.review.review import DecisionReview


def review_command(
    record: Annotated[Path, typer.Argument(help="A match record (.jsonl).")],
    seat: Annotated[int, typer.Option(help="The seat whose decisions are reviewed.")],
    budget: Annotated[
        int, typer.Option(help="Playouts a decision (1..1,000,000), shared by its actions.")
    ] = DEFAULT_BUDGET,
    seed: Annotated[
        int, typer.Option(help="The review's seed: the same seed, the same review.")
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON, not a table.")] = False,
    workers: Annotated[
        int | None, typer.Option(help="Processes sharing the decisions (default: one per core).")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            help="Also write the seat's replay with the review on it: each decision's values as "
            "bars beside its step, the seat's expected margin along the match as a chart."
        ),
    ] = None,
) -> None:
    """Value each legal action of every decision of seat SEAT (mean final margin over sampled
    deals and playouts by the game's own policy, as the reference bots value it, with a 95%
    interval), from what the seat saw only; the chosen action's loss against the best, and its
    grade where the loss is significant (docs/review.md).

    Exit codes: 0 reviewed, 1 the record does not verify, 2 bad input (no such file, a seat out
    of range, a budget out of range).
    """
    from referee.review.review import review
    from referee.review.view import Unverified

    with user_errors():
        if not record.is_file():
            raise CroupierError(f"no such record {str(record)!r}")
        try:
            reviewed = review(record, seat, budget, seed, workers or os.cpu_count() or 1)
        except Unverified as error:
            errors.print(f"error: {error}", markup=False, highlight=False)
            raise typer.Exit(EXIT_CHECK_FAILED) from None
        if html is not None:
            _write_page(record, seat, reviewed, html)
    if as_json:
        print(
            json.dumps(
                {
                    "record": str(record),
                    "seat": seat,
                    "budget": budget,
                    "seed": seed,
                    "decisions": [d.to_json() for d in reviewed],
                },
                indent=1,
            )
        )
        return
    console.print(_table(reviewed))


def _write_page(record: Path, seat: int, reviewed: list[DecisionReview], out: Path) -> None:
    from referee import viewer
    from referee.review.marks import page_marks

    timeline = viewer.load(record)
    marks = page_marks(timeline, seat, reviewed)
    viewer.write_html(timeline, out, seat, seat_only=True, marks=marks)
    errors.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)


def _table(reviewed: list[DecisionReview]) -> Table:
    from rich.table import Table

    table = Table(title="decisions, valued by mean final margin (95% interval)")
    for column in ("#", "chosen", "value", "best", "value", "loss", "grade"):
        table.add_column(column, justify="right" if column in ("#", "value", "loss") else "left")
    for d in reviewed:
        if d.unsampled:
            table.add_row(str(d.decision), d.chosen, "", "", "", "", "not sampled")
            continue
        values = {v.text: v for v in d.values}
        chosen, best = values[d.chosen], values[d.best]
        table.add_row(
            str(d.decision),
            d.chosen,
            _value(chosen.mean, chosen.half_width),
            d.best,
            _value(best.mean, best.half_width),
            _value(d.loss, d.loss_half_width),
            d.grade.value if d.grade else "",
        )
    return table


def _value(mean: float, half: float) -> str:
    return f"{mean:+.1f} ± {half:.1f}" if half != float("inf") else f"{mean:+.1f}"
