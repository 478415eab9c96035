"""Options several commands share, declared and checked once: game options (`--option
NAME=VALUE`), the time control, values held to what they can mean (referee.match.bounds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from referee.clock_kind import ClockKind
from referee.errors import CroupierError

if TYPE_CHECKING:
    from referee.match.clock import TimeControl


def option_pairs(pairs: list[str], players: int | None) -> dict[str, str]:
    """Game options from `--option NAME=VALUE` (and the `--players N` shortcut)."""
    raw: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise CroupierError(f"bad option {pair!r}: expected NAME=VALUE")
        raw[name.strip()] = value.strip()
    if players is not None:
        raw["players"] = str(players)
    return raw


#: Options several commands share, declared once.
MoveMs = Annotated[int, typer.Option(min=0, help="Time per decision, ms.")]
BankMs = Annotated[int, typer.Option(min=0, help="Time bank for overage, ms.")]


Clock = Annotated[
    ClockKind,
    typer.Option(
        help="What measures a bot's time: wall, or cpu (the CPU time its processes used, "
        "however busy the machine, under a wall ceiling; docs/ladders.md)."
    ),
]
CeilingFactor = Annotated[
    int | None,
    typer.Option(
        help="With --clock cpu: a decision also ends after this many times its allowed time, "
        "plus a second, on the wall clock (a bot that sleeps costs no CPU)."
    ),
]


def time_control(
    move_ms: int,
    bank_ms: int,
    clock: ClockKind = ClockKind.WALL,
    ceiling_factor: int | None = None,
) -> TimeControl:
    """--move-ms, --bank-ms, --clock and --ceiling-factor as a time control, each refused past
    what it can mean."""
    from referee.match.bounds import ceiling_problem, cpu_clock_problem, time_problem
    from referee.match.clock import DEFAULT_CEILING_FACTOR, TimeControl

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


def within(option: str, value: int, problem: Callable[[int], str | None]) -> int:
    """`value` of `option` if `problem` finds nothing wrong with it (referee.match.bounds)."""
    found = problem(value)
    if found:
        raise CroupierError(f"{option} {value!r}: {found}")
    return value


#: What --workers does, for every command that has it.
WORKERS_HELP = (
    "Referee processes that share the matches at once (--concurrency), each with its own "
    "server and bots, so that refereeing uses more than one core (one referee uses one at "
    "most). Default: one per core this process may use (its CPU affinity, fewer under a "
    "cgroup CPU quota), at most one per match at once; 1 plays every match in this process."
)
Workers = Annotated[int | None, typer.Option(help=WORKERS_HELP, show_default=False)]


def worker_count(workers: int | None, concurrency: int) -> int:
    """--workers checked, or its default for `concurrency` matches at once (at most that)."""
    from referee.match.bounds import default_workers, workers_problem

    if workers is None:
        return default_workers(concurrency)
    return min(within("--workers", workers, workers_problem), concurrency)
