"""Time control: a budget per decision plus a bank drawn on for overage (kaggle-style).

Every rule of what time a bot pays for lives here: the budget and the bank (`SeatClock`), and a
decision's clock (`DecisionTimer`): the lag allowance, the forgiveness of a wait for a CPU, the CPU
floor and the moment the bot's time is up. The remote seat waits and reports what its transport
saw; the runner judges a decision from the `DecisionTime` the timer returns.

The budget is measured by one of two clocks (`ClockKind`): the wall clock, less the bot's wait
for a CPU where the kernel counts it, or the CPU clock, which charges only the CPU time the bot's
processes used, under a wall ceiling (`SeatClock.ceiling_seconds`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Protocol

import trio

from croupier.v1 import common_pb2
from referee.clock_kind import ClockKind
from referee.errors import CroupierError
from referee.machine import cores
from referee.match.bounds import ceiling_problem, cpu_clock_problem, time_problem, within

#: Under a CPU clock, a decision also ends once CEILING_FACTOR times its allowed time plus
#: CEILING_SLACK_SECONDS passed on the wall clock (`SeatClock.ceiling_seconds`). CPU time does
#: not run while a bot sleeps or blocks, so without a ceiling a bot could hold its match for
#: ever at no cost. Four times lets a bot that gets a quarter of a core (a host with three other
#: busy programs per core) still use its whole budget; the second covers what a short budget
#: cannot: waking a stopped bot, the scheduler's latency, a page fault or two.
DEFAULT_CEILING_FACTOR = 4
CEILING_SLACK_SECONDS = 1.0
#: The protocol carries the ceiling as uint32 ms: a longer one is sent as this.
_MAX_WIRE_MS = 2**32 - 1


@dataclass(frozen=True, slots=True)
class TimeControl:
    """`move_ms` per decision and a `bank_ms` reserve; move_ms 0 means no limit at all. The
    `clock` measures both; under a CPU clock `ceiling_factor` sets the wall ceiling."""

    move_ms: int = 1000
    bank_ms: int = 10_000
    clock: ClockKind = ClockKind.WALL
    ceiling_factor: int = DEFAULT_CEILING_FACTOR

    def __post_init__(self) -> None:
        # The last guard: every entry point checks at parse time, where it can name a line.
        for name, value in (("move_ms", self.move_ms), ("bank_ms", self.bank_ms)):
            problem = time_problem(value)
            if problem:
                raise CroupierError(f"{name} {value!r}: {problem}")
        problem = ceiling_problem(self.ceiling_factor)
        if problem:
            raise CroupierError(f"ceiling_factor {self.ceiling_factor!r}: {problem}")
        problem = cpu_clock_problem(self.move_ms) if self.clock is ClockKind.CPU else None
        if problem:
            raise CroupierError(f"clock {str(self.clock)!r}: {problem}")

    def to_proto(self) -> common_pb2.TimeControl:
        # An unlimited control leaves move_ms unset (the proto's "no limit"), never 0. A wall
        # clock leaves `clock` unset, as every referee before it did: its records do not change.
        cpu = self.clock is ClockKind.CPU
        return common_pb2.TimeControl(
            move_ms=None if self.unlimited else self.move_ms,
            bank_ms=self.bank_ms,
            clock=common_pb2.CLOCK_KIND_CPU if cpu else None,
            ceiling_factor=self.ceiling_factor if cpu else None,
        )

    @property
    def unlimited(self) -> bool:
        return self.move_ms == 0

    def for_seat(self, metered: bool) -> TimeControl:
        """The control a seat plays under: a CPU clock falls back to the wall clock for a seat
        whose bot's CPU time the referee cannot read (a bot it did not launch), which its
        MatchStart and the record's header then say (docs/ladders.md)."""
        if self.clock is ClockKind.CPU and not metered:
            return replace(self, clock=ClockKind.WALL)
        return self


@dataclass(slots=True)
class SeatClock:
    """One seat's clock in one match. The referee measures, at its side, from sending a request."""

    control: TimeControl
    bank_ms: float
    #: `to_proto()` encoded, and the whole ms of bank it was encoded for (see `encoded`).
    _encoded: tuple[int, bytes] = field(default=(-1, b""), repr=False, compare=False)

    @classmethod
    def start(cls, control: TimeControl) -> SeatClock:
        return cls(control, float(control.bank_ms))

    @property
    def allowed_ms(self) -> float:
        """The move time plus what is left of the bank (unbounded when unlimited: see
        `budget_seconds`)."""
        return self.control.move_ms + self.bank_ms

    def budget_seconds(self) -> float:
        """How long the seat may take for the next decision (inf when unlimited): wall seconds,
        or CPU seconds under a CPU clock."""
        if self.control.unlimited:
            return math.inf
        return self.allowed_ms / 1000

    def ceiling_seconds(self) -> float:
        """Under a CPU clock, the most wall seconds the next decision may take, whatever CPU it
        used (see DEFAULT_CEILING_FACTOR); inf under the wall clock."""
        if self.control.clock is not ClockKind.CPU or self.control.unlimited:
            return math.inf
        return self.control.ceiling_factor * self.budget_seconds() + CEILING_SLACK_SECONDS

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

    def encoded(self) -> bytes:
        """`to_proto()` serialized: encoded again only when the bank's whole ms change (a
        request carries it at every decision, and most decisions leave the bank as it was)."""
        bank, data = self._encoded
        if bank != int(self.bank_ms):
            bank, data = int(self.bank_ms), self.to_proto().SerializeToString()
            self._encoded = (bank, data)
        return data

    def to_proto(self) -> common_pb2.Clock:
        bank = int(self.bank_ms)
        if self.control.unlimited:  # no deadline: move_ms and deadline_ms stay unset
            return common_pb2.Clock(bank_ms=bank)
        ceiling = self.ceiling_seconds()
        return common_pb2.Clock(
            move_ms=self.control.move_ms,
            bank_ms=bank,
            deadline_ms=self.control.move_ms + bank,
            ceiling_ms=min(_MAX_WIRE_MS, int(ceiling * 1000)) if ceiling < math.inf else None,
        )


#: The most a decision's deadline moves for the referee's own lag and for the time the bot waited
#: for a CPU (see `DecisionTimer`): a referee that is stuck longer than this, or a machine so
#: loaded that a bot waits longer, still ends the decision, so no match stalls for ever.
LAG_ALLOWANCE_SECONDS = 1.0
#: The least a starved bot's deadline moves at a time: a bot starved only a little is not
#: checked again and again.
STARVED_STEP_SECONDS = 0.001
#: Under a CPU clock, the least time between two reads of a bot's CPU count while it thinks.
CPU_POLL_SECONDS = 0.001


class CpuMeter(Protocol):
    """The counts of a launched bot's processes (referee.match.launched.LaunchedBot)."""

    def cpu_seconds(self) -> float | None: ...

    def starved_seconds(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class DecisionTime:
    """How one decision's time went, read once its wait is over: what the runner judges."""

    #: The bot's budget when it was asked (move time plus bank), in ms.
    allowed_ms: float
    #: Time charged to the bot: from its request leaving to its reply arriving, less its wait
    #: for a CPU, never less than the CPU time it used (within its budget); under a CPU clock,
    #: the CPU time it used.
    charged_ms: float
    #: The referee's own lag around it (never charged): asking to sending, arrival to use.
    lag_ms: int
    #: The bot's process tree's CPU time meanwhile, where known.
    cpu_ms: int | None
    #: Of its wall time, how long it waited for a CPU (not charged), where known.
    starved_ms: int | None
    #: The bot's time was measured at the transport and was not up: if no reply came, the
    #: referee's own lag past LAG_ALLOWANCE_SECONDS ended the decision, not the bot's clock.
    cut_by_lag: bool
    #: Under a CPU clock, the decision's wall ceiling in ms (inf under the wall clock), and
    #: whether the bot's wall time reached it before its reply arrived (a timeout).
    ceiling_ms: float = math.inf
    over_ceiling: bool = False


@dataclass(slots=True, eq=False)
class DecisionTimer:
    """One decision's clock: every rule of what time a bot pays for, and when its time is up.

    The runner starts it (`start`) and waits inside `scope`, whose deadline (`deadline`) is the
    bot's budget, or leaves that wait to a seat that keeps within `deadline` itself
    (referee.match.seats.bounds_itself); it reads the verdict's figures from `result()` once the
    wait is over. A seat whose bot is behind a transport says so (`measure_at_transport`): the
    transport then stamps when the request left (`left`) and the earliest its reply can have
    arrived (`arrival`), and the time before the one and after the other is the referee's own
    lag (its loop busy with other matches), never charged; the runner's deadline moves out by
    LAG_ALLOWANCE_SECONDS to allow for it, and the seat ends the wait itself when `is_up()`
    says so (`expire`). Stamps are `time.perf_counter()` seconds because the transport stamps
    them outside trio.

    Where the kernel counts the time the bot's processes waited for a CPU (`count_from`:
    another program, or other bots, busy on the cores), that wait is not charged either: the
    deadline moves out by it, and the bot is charged the time it had, `wall - starved`, but
    never less than the CPU time it used (so that a bot cannot earn time by starving itself with
    more busy threads than cores). That CPU floor holds wherever the CPU time is known, so a bot
    also earns nothing by keeping the referee's own loop off the cores while it thinks.

    Under a CPU clock (a finite `ceiling`) the bot is charged the CPU time its process tree used
    from `count_from` to `count_to`, and nothing else: its time is up once that reaches its
    budget, or once `ceiling` wall seconds passed from the request leaving, whichever comes
    first. A wait for a CPU is no CPU time, so nothing is forgiven; the ceiling is generous
    instead. The runner's deadline is then the ceiling.
    """

    #: Seconds the bot may take (inf when unlimited), and the same in ms for the verdict.
    budget: float
    allowed_ms: float = math.inf
    #: When the runner asked (trio time), and the trio time its wait ends at the latest.
    started: float = 0.0
    deadline: float = math.inf
    sent: float | None = None
    arrived: float | None = None
    #: The bot's process tree's CPU seconds before the request and after the reply, if known.
    cpu_before: float | None = None
    cpu_after: float | None = None
    #: The bot's count of seconds waiting for a CPU before the request and after the reply.
    starved_before: float | None = None
    starved_after: float | None = None
    #: True once a seat took on stamping `sent` and `arrived` (see `measure_at_transport`).
    stamped: bool = False
    #: Seconds the bot's deadline moved out so far for its wait for a CPU (see `is_up`).
    forgiven: float = 0.0
    #: Where the bot's counts are read (see `count_from`).
    meter: CpuMeter | None = None
    #: Under a CPU clock, the wall seconds the bot may take at most; inf under the wall clock.
    ceiling: float = math.inf
    #: The runner's wait as a cancel scope, made when first asked for (see `scope`).
    _scope: trio.CancelScope | None = None

    @classmethod
    def start(cls, clock: SeatClock) -> DecisionTimer:
        """The clock of a decision asked now, with the seat's budget (call inside trio)."""
        now = trio.current_time()
        budget = clock.budget_seconds()
        ceiling = clock.ceiling_seconds()
        bound = budget if ceiling == math.inf else ceiling
        return cls(
            budget=budget,
            allowed_ms=clock.allowed_ms,
            started=now,
            deadline=now + bound,
            ceiling=ceiling,
        )

    @property
    def scope(self) -> trio.CancelScope:
        """The runner's wait: a cancel scope whose deadline is `deadline`, which `expire`
        cancels. Made only when asked for: a seat that keeps within `deadline` itself waits
        in a scope of its own, and a cancel scope costs more than anything else the runner
        does at a decision but the engine's work."""
        if self._scope is None:
            self._scope = trio.CancelScope(deadline=self.deadline)
        return self._scope

    @property
    def on_cpu(self) -> bool:
        """Whether the bot's time is its CPU time (a CPU clock), not the wall clock's."""
        return self.ceiling < math.inf

    def measure_at_transport(self) -> None:
        """Called by a seat whose transport stamps `left` and `arrival`: the runner's deadline
        moves out by LAG_ALLOWANCE_SECONDS, and the seat keeps the bot to `is_up` within it."""
        self.stamped = True
        self.deadline += LAG_ALLOWANCE_SECONDS
        if self._scope is not None:
            self._scope.deadline = self.deadline

    def left(self) -> None:
        """The transport handed the request to gRPC: the bot's time starts (the first time)."""
        if self.sent is None:
            self.sent = time.perf_counter()

    def arrival(self, stamp: float) -> float:
        """The earliest a reply arriving at the transport can have come: `stamp`, but never
        before its request left."""
        return stamp if self.sent is None else max(stamp, self.sent)

    def answered(self, arrived: float) -> None:
        """The seat read the bot's reply, which arrived at the transport at `arrived` (the
        stamp `arrival` returned): the bot's time stops there."""
        self.arrived = arrived

    def count_from(self, meter: CpuMeter | None) -> None:
        """Before the request: read the bot's CPU and starved counts, where it has a `meter`."""
        self.meter = meter
        if meter is not None:
            self.cpu_before = meter.cpu_seconds()
            self.starved_before = meter.starved_seconds()

    def count_to(self) -> None:
        """After the reply (or the wait's end): read the bot's counts again."""
        if self.meter is not None:
            self.cpu_after = self.meter.cpu_seconds()
            self.starved_after = self.meter.starved_seconds()

    def seconds_left(self) -> float:
        """Seconds until the bot's time is up as it stands: its budget from when the request
        left (or from now while it has not left yet), moved out by what was forgiven. Under a
        CPU clock, the soonest its CPU budget could run out (its threads busy on every core),
        at least CPU_POLL_SECONDS while any is left, or its ceiling if sooner."""
        if not self.on_cpu:
            return self._due() - time.perf_counter()
        now = time.perf_counter()
        wall_left = (self.sent if self.sent is not None else now) + self.ceiling - now
        used = self._cpu_now()
        if used is None:
            return wall_left
        if used >= self.budget:
            return 0.0
        return min(wall_left, max(CPU_POLL_SECONDS, (self.budget - used) / cores()))

    def catch_up(self, clock: common_pb2.Clock) -> None:
        """Take off a request's `clock` what the bot used of it so far (to send the request
        again after a reconnect): wall time, or CPU time and the ceiling's wall time."""
        wall_ms = round((trio.current_time() - self.started) * 1000)
        used_ms = wall_ms
        if self.on_cpu:
            used_ms = round((self._cpu_now() or 0.0) * 1000)
            if clock.HasField("ceiling_ms"):
                clock.ceiling_ms = max(0, clock.ceiling_ms - wall_ms)
        if clock.HasField("deadline_ms"):
            clock.deadline_ms = max(0, clock.deadline_ms - used_ms)

    def is_up(self) -> bool:
        """Whether the bot's time is up now. If the bot waited for a CPU for part of it, its
        deadline moves out instead (then not up), by at least STARVED_STEP_SECONDS a time.
        Under a CPU clock: its CPU time reached its budget, or its wall time the ceiling."""
        if self.on_cpu:
            if self.sent is not None and time.perf_counter() - self.sent >= self.ceiling:
                return True
            used = self._cpu_now()
            return used is not None and used >= self.budget
        if time.perf_counter() < self._due():
            return False
        return not self._forgive_starving()

    def expire(self) -> None:
        """The bot's time is up and nothing of it is on its way: end the runner's wait (the
        runner then records the timeout, or the cause that came first). A seat that waits in
        a scope of its own ends that wait as well."""
        if self._scope is not None:
            self._scope.cancel()

    def result(self) -> DecisionTime:
        """The decision's figures, once the runner's wait is over."""
        total = trio.current_time() - self.started
        if self.ceiling == math.inf and self.cpu_after is None and self.starved_after is None:
            return self._wall_result(total)
        charged = self.charged(total)
        starved = self.starved_seconds() if self.starved_after is not None else None
        cpu = self.cpu_seconds()
        over_ceiling = self.on_cpu and self.sent is not None and self._wall() >= self.ceiling
        if self.on_cpu:  # the bot's time is not wall time: the lag is what its turn was not
            lag = total - (self._wall() if self.sent is not None else 0.0)
        else:
            lag = total - charged - (starved or 0.0)
        return DecisionTime(
            allowed_ms=self.allowed_ms,
            charged_ms=charged * 1000,
            lag_ms=max(0, round(lag * 1000)),
            cpu_ms=None if cpu is None else round(cpu * 1000),
            starved_ms=None if starved is None else round(starved * 1000),
            cut_by_lag=self.stamped and charged * 1000 < self.allowed_ms and not over_ceiling,
            ceiling_ms=self.ceiling * 1000,
            over_ceiling=over_ceiling,
        )

    def _wall_result(self, total: float) -> DecisionTime:
        """`result` under the wall clock with no counts read (a bot the referee did not
        launch, or no cgroup): the same figures, by the short way, as most decisions are."""
        sent = self.sent
        if sent is None:
            charged = 0.0 if self.stamped else total
        else:
            end = self.arrived if self.arrived is not None else time.perf_counter()
            charged = max(0.0, min(total, end - sent))
        charged_ms = charged * 1000
        lag_ms = max(0, round((total - charged) * 1000))
        cut_by_lag = self.stamped and charged_ms < self.allowed_ms
        return DecisionTime(self.allowed_ms, charged_ms, lag_ms, None, None, cut_by_lag)

    def charged(self, elapsed: float) -> float:
        """Seconds to charge the bot, given the `elapsed` seconds the runner saw (the bound)."""
        if self.sent is None:  # never left: a stamping seat's bot had no time at all
            return 0.0 if self.stamped else elapsed
        cpu = self.cpu_seconds()
        if self.on_cpu and cpu is not None:
            return cpu  # all of it, even past the wall time (threads on several cores)
        wall = self._wall()
        had = wall - self.starved_seconds(wall)
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
            wall = self._wall()
        starved = self.starved_after - self.starved_before
        return _forgiven(wall, starved, self.cpu_seconds())

    def cpu_seconds(self) -> float | None:
        return self._cpu(self.cpu_after)

    def _wall(self) -> float:
        """Wall seconds from the request leaving to the reply arriving (or now), once sent."""
        assert self.sent is not None
        end = self.arrived if self.arrived is not None else time.perf_counter()
        return end - self.sent

    def _cpu_now(self) -> float | None:
        """CPU seconds the bot used since `count_from`, read now."""
        return None if self.meter is None else self._cpu(self.meter.cpu_seconds())

    def _due(self) -> float:
        start = self.sent if self.sent is not None else time.perf_counter()
        return start + self.budget + self.forgiven

    def _forgive_starving(self) -> bool:
        """At the deadline: True if it moved out because the bot waited for a CPU for part of
        its time (then `is_up` is asked again at the new deadline)."""
        meter = self.meter
        if self.sent is None or meter is None or self.starved_before is None:
            return False
        starved_now = meter.starved_seconds()
        if starved_now is None:
            return False
        wall = time.perf_counter() - self.sent
        forgiven = _forgiven(
            wall, starved_now - self.starved_before, self._cpu(meter.cpu_seconds())
        )
        if forgiven < self.forgiven + STARVED_STEP_SECONDS:
            return False
        self.forgiven = forgiven
        return True

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


def checked_time_control(
    move_ms: int,
    bank_ms: int,
    clock: ClockKind = ClockKind.WALL,
    ceiling_factor: int | None = None,
) -> TimeControl:
    """--move-ms, --bank-ms, --clock and --ceiling-factor (or a file's keys of those names) as a
    time control, each refused past what it can mean (referee.match.bounds)."""
    if ceiling_factor is not None and clock is not ClockKind.CPU:
        raise CroupierError("--ceiling-factor is for --clock cpu (the wall clock has no ceiling)")
    problem = cpu_clock_problem(move_ms) if clock is ClockKind.CPU else None
    if problem:
        raise CroupierError(f"--clock cpu with --move-ms {move_ms!r}: {problem}")
    return TimeControl(
        move_ms=within("--move-ms", move_ms, time_problem),
        bank_ms=within("--bank-ms", bank_ms, time_problem),
        clock=clock,
        ceiling_factor=within(
            "--ceiling-factor",
            DEFAULT_CEILING_FACTOR if ceiling_factor is None else ceiling_factor,
            ceiling_problem,
        ),
    )
