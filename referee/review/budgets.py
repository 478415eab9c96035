"""The playouts a decision's review may spend: the defaults and the bounds (light: the CLI reads
them to print its help)."""

from __future__ import annotations

from referee.errors import CroupierError

#: Playouts a decision unless told: an XIX match's review takes under a minute on 2 cores
#: (bench/review_speed.py, docs/review.md).
DEFAULT_BUDGET = 400
#: At least one playout; at most a day's worth.
MAX_BUDGET = 1_000_000


def check_budget(budget: int) -> None:
    """Raise CroupierError, naming it, for a budget out of range."""
    if not 1 <= budget <= MAX_BUDGET:
        raise CroupierError(
            f"budget {budget!r} is out of range 1..{MAX_BUDGET:,} playouts a decision"
        )
