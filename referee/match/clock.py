"""Time control: a budget per decision plus a bank drawn on for overage (kaggle-style)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import trio

from croupier.v1 import common_pb2
from referee.errors import CroupierError
from referee.match.bounds import time_problem


@dataclass(frozen=True, slots=True)
class TimeControl:
    """`move_ms` per decision and a `bank_ms` reserve; move_ms 0 means no limit at all."""

    move_ms: int = 1000
    bank_ms: int = 10_000

    def __post_init__(self) -> None:
        # The last guard: every entry point checks at parse time, where it can name a line.
        for name, value in (("move_ms", self.move_ms), ("bank_ms", self.bank_ms)):
            problem = time_problem(value)
            if problem:
                raise CroupierError(f"{name} {value!r}: {problem}")

    def to_proto(self) -> common_pb2.TimeControl:
        # An unlimited control leaves move_ms unset (the proto's "no limit"), never 0.
        return common_pb2.TimeControl(
            move_ms=None if self.unlimited else self.move_ms, bank_ms=self.bank_ms
        )

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
        if self.control.unlimited:  # no deadline: move_ms and deadline_ms stay unset
            return common_pb2.Clock(bank_ms=bank)
        return common_pb2.Clock(
            move_ms=self.control.move_ms,
            bank_ms=bank,
            deadline_ms=self.control.move_ms + bank,
        )


#: The most a decision's deadline moves for the referee's own lag and for the time the bot waited
#: for a CPU (see `Stopwatch`): a referee that is stuck longer than this, or a machine so loaded
#: that a bot waits longer, still ends the decision, so no match stalls for ever.
LAG_ALLOWANCE_SECONDS = 1.0
#: The least a starved bot's deadline moves at a time: a bot starved only a little is not
#: checked again and again.
STARVED_STEP_SECONDS = 0.001


@dataclass(slots=True, eq=False)
class Stopwatch:
    """One decision's times, so that a bot is charged only for the time it had.

    The runner asks at `asked`. A seat whose bot is behind a transport stamps `sent` when the
    transport hands the request to gRPC and `arrived` when the reply came in there; the time
    before `sent` and after `arrived` is the referee's own lag (its loop busy with other
    matches), never charged to the bot. Stamps are `time.perf_counter()` seconds because the
    transport stamps them outside trio; `scope` is the runner's cancel scope around the decision.

    Where the kernel counts the time the bot's processes waited for a CPU (another program, or
    other bots, busy on the cores), that wait is not charged either: the bot is charged the
    time it had, `wall - starved`, but never less than the CPU time it used (so that a bot
    cannot earn time by starving itself with more busy threads than cores). That CPU floor
    holds wherever the CPU time is known, so a bot also earns nothing by keeping the referee's
    own loop off the cores while it thinks.
    """

    budget: float
    scope: trio.CancelScope
    asked: float = field(default_factory=time.perf_counter)
    sent: float | None = None
    arrived: float | None = None
    #: The bot's process tree's CPU seconds before the request and after the reply, if known.
    cpu_before: float | None = None
    cpu_after: float | None = None
    #: The bot's count of seconds waiting for a CPU before the request and after the reply.
    starved_before: float | None = None
    starved_after: float | None = None
    #: True once a seat took on stamping `sent` and `arrived` (see `allow_lag`).
    stamped: bool = False
    #: Seconds the bot's deadline moved out so far for its wait for a CPU (see `starved`).
    forgiven: float = 0.0

    def allow_lag(self) -> None:
        """Called by a seat that stamps `sent` and `arrived`: the runner's deadline moves out by
        LAG_ALLOWANCE_SECONDS, and the seat keeps the bot to `due()` within it."""
        self.stamped = True
        self.scope.deadline += LAG_ALLOWANCE_SECONDS

    def due(self) -> float:
        """When the bot's time is up (perf_counter seconds): its budget from when the request
        left, or from now while it has not left yet."""
        start = self.sent if self.sent is not None else time.perf_counter()
        return start + self.budget + self.forgiven

    def starved(self, starved_now: float | None, cpu_now: float | None) -> bool:
        """At the deadline, given the bot's counts now: True if it moved out because the bot
        waited for a CPU for part of its time (then the seat waits on to the new `due()`)."""
        if self.sent is None or starved_now is None or self.starved_before is None:
            return False
        wall = time.perf_counter() - self.sent
        forgiven = _forgiven(wall, starved_now - self.starved_before, self._cpu(cpu_now))
        if forgiven < self.forgiven + STARVED_STEP_SECONDS:
            return False
        self.forgiven = forgiven
        return True

    def charged(self, elapsed: float) -> float:
        """Seconds to charge the bot, given the `elapsed` seconds the runner saw (the bound)."""
        if self.sent is None:  # never left: a stamping seat's bot had no time at all
            return 0.0 if self.stamped else elapsed
        end = self.arrived if self.arrived is not None else time.perf_counter()
        wall = end - self.sent
        had = wall - self.starved_seconds(wall)
        cpu = self.cpu_seconds()
        if cpu is not None:
            # The CPU time the bot used on its turn is time it had, however late the referee's
            # loop saw the reply (a loop kept off the cores, by load or by a bot that hogs
            # them, bounds the arrival only by the poll before). Capped at the budget, so that
            # what the loop could not see never makes a timeout on its own.
            had = max(had, min(cpu, self.budget))
        return max(0.0, min(elapsed, had))

    def starved_seconds(self, wall: float | None = None) -> float:
        """Of the bot's wall time (from the request leaving to the reply arriving), the part it
        waited for a CPU and is not charged; 0 where unknown."""
        if self.starved_before is None or self.starved_after is None or self.sent is None:
            return 0.0
        if wall is None:
            end = self.arrived if self.arrived is not None else time.perf_counter()
            wall = end - self.sent
        starved = self.starved_after - self.starved_before
        return _forgiven(wall, starved, self.cpu_seconds())

    def cpu_seconds(self) -> float | None:
        return self._cpu(self.cpu_after)

    def _cpu(self, cpu_now: float | None) -> float | None:
        if self.cpu_before is None or cpu_now is None:
            return None
        return max(0.0, cpu_now - self.cpu_before)


def _forgiven(wall: float, starved: float, cpu: float | None) -> float:
    """The part of `wall` not charged for `starved` seconds of waiting for a CPU: what is
    charged, `wall - starved`, is never less than the CPU time used (nor more than `wall`)."""
    had = wall - max(0.0, starved)
    if cpu is not None:
        had = max(had, min(wall, cpu))
    return max(0.0, wall - max(0.0, had))
