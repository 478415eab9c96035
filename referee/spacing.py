"""Spacing out a job whose cost grows with a running ladder or contest.

Reading every result and refitting the ratings takes longer with every match committed; run
every few seconds, it would in time take most of the referee's one interpreter (a worker thread
still holds the GIL). A `Spacing` runs such a job at most every `least` seconds, and, once it
is slow, only as often as keeps it within `share` of the time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The share of the time a growing job may take.
SHARE = 0.05


@dataclass
class Spacing:
    """When a job may run again, from when it last began and how long it took (seconds on any
    one clock, given by the caller)."""

    least: float
    share: float = SHARE
    began: float = -math.inf
    took: float = 0.0

    def gap(self, least: float | None = None) -> float:
        """The seconds from one start to the next: `least` (this spacing's own by default), or
        more once the job is slow."""
        return max(self.least if least is None else least, self.took / self.share)

    def due(self, now: float, least: float | None = None) -> bool:
        return now - self.began >= self.gap(least)

    def next_at(self, least: float | None = None) -> float:
        return self.began + self.gap(least)

    def ran(self, began: float, ended: float) -> None:
        self.began, self.took = began, ended - began
