"""Options several commands share, declared once. What they mean is checked in the library
(referee.match.bounds, referee.match.clock.checked_time_control, referee.games.options), which a
contest file and a library caller go through too."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.clock_kind import ClockKind

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


#: What --workers does, for every command that has it.
WORKERS_HELP = (
    "Referee processes that share the matches at once (--concurrency), each with its own "
    "server and bots, so that refereeing uses more than one core (one referee uses one at "
    "most). Default: one per core this process may use (its CPU affinity, fewer under a "
    "cgroup CPU quota), at most one per match at once; 1 plays every match in this process."
)
Workers = Annotated[int | None, typer.Option(help=WORKERS_HELP, show_default=False)]
