"""Time control: a budget per decision plus a bank drawn on for overage (kaggle-style)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from croupier.v1 import common_pb2


@dataclass(frozen=True, slots=True)
class TimeControl:
    """`move_ms` per decision and a `bank_ms` reserve; move_ms 0 means no limit at all."""

    move_ms: int = 1000
    bank_ms: int = 10_000

    def to_proto(self) -> common_pb2.TimeControl:
        return common_pb2.TimeControl(move_ms=self.move_ms, bank_ms=self.bank_ms)

    @property
    def unlimited(self) -> bool:
        return self.move_ms == 0


@dataclass(slots=True)
class SeatClock:
    """One seat's clock in one match. The referee measures, at its side, from sending a request."""

    control: TimeControl
    bank_ms: float

    @classmethod
    def start(cls, control: TimeControl) -> SeatClock:
        return cls(control, float(control.bank_ms))

    def budget_seconds(self) -> float:
        """How long the seat may take for the next decision (inf when unlimited)."""
        if self.control.unlimited:
            return math.inf
        return (self.control.move_ms + self.bank_ms) / 1000

    def charge(self, elapsed_ms: float) -> bool:
        """Charge a decision's time; False when it overran the budget (the bank is then empty)."""
        if self.control.unlimited:
            return True
        overage = elapsed_ms - self.control.move_ms
        if overage <= 0:
            return True
        if overage > self.bank_ms:
            self.bank_ms = 0.0
            return False
        self.bank_ms -= overage
        return True

    def to_proto(self) -> common_pb2.Clock:
        bank = int(self.bank_ms)
        return common_pb2.Clock(
            move_ms=self.control.move_ms,
            bank_ms=bank,
            deadline_ms=self.control.move_ms + bank,
        )
