"""The largest settings that still mean something: times, match counts and concurrency.

Every entry point (CLI options, ladder and contest files) refuses a value past these at parse
time, with one line that names the bound and why, rather than failing at its first match or
growing memory without end. Each `*_problem` returns that line's reason, or None when the value
is within bounds; callers place it (a file's line and key, or an option's name).
"""

from __future__ import annotations

from collections.abc import Callable

from referee.errors import CroupierError
from referee.machine import cores, cpu_budget

#: The longest a decision's time (`move_ms`) or a seat's bank (`bank_ms`) may be: a day. The
#: protocol carries both, and the deadline `move_ms + bank_ms`, as uint32 milliseconds (at most
#: 49.7 days); a day each keeps their sum well inside, and no game's decision needs longer.
MAX_TIME_MS = 24 * 60 * 60 * 1000

#: The largest factor of a CPU clock's wall ceiling (referee.match.clock.SeatClock): a bot that
#: sleeps holds its match for that many times its allowed time at each decision, so past this
#: a stalled bot stalls a ladder for hours, for no bot's good.
MAX_CEILING_FACTOR = 100

#: The most matches a ladder's schedule holds: each is a row in its SQLite database and, while
#: the ladder runs, an entry in memory (about a kilobyte), so a million is ~1 GB at most.
MAX_LADDER_MATCHES = 1_000_000

#: The most matches `croupier match` plays in one series: it keeps every outcome in memory for
#: its table at the end; a longer series is a ladder's job (results in a database).
MAX_SERIES_MATCHES = 100_000

#: Matches at once per core at most. Each match at once needs its own bot processes (with
#: their sandboxes and cgroups, per slot); past this many per core every bot waits for a CPU
#: most of the time, so more only adds processes.
MATCHES_PER_CORE = 16


def time_problem(ms: int) -> str | None:
    """Why `ms` cannot be a move time or a bank, or None."""
    if ms < 0:
        return "expected at least 0"
    if ms > MAX_TIME_MS:
        return f"expected at most {MAX_TIME_MS} ms (a day; the protocol carries uint32 ms)"
    return None


def ceiling_problem(factor: int) -> str | None:
    """Why `factor` cannot be a CPU clock's wall ceiling factor, or None."""
    if factor < 1:
        return (
            "expected at least 1: a wall ceiling below the CPU budget would end a decision "
            "before a bot busy on one core could use its time"
        )
    if factor > MAX_CEILING_FACTOR:
        return (
            f"expected at most {MAX_CEILING_FACTOR} (a bot that sleeps holds its match that "
            "many times its allowed time at each decision)"
        )
    return None


def cpu_clock_problem(move_ms: int) -> str | None:
    """Why a CPU clock cannot go with a move time of `move_ms`, or None."""
    if move_ms == 0:
        return "a cpu clock needs a time limit (move_ms 0 means no limit at all)"
    return None


def shared_clock_problem(sessions: int) -> str | None:
    """Why a CPU clock cannot time bots whose one process plays `sessions` matches at once:
    the kernel counts the CPU time of a process, not of a match."""
    if sessions > 1:
        return (
            "a cpu clock needs one bot process per match at once: a process playing "
            f"{sessions} matches at once would be charged the CPU time of all of them"
        )
    return None


def ladder_matches_problem(count: int) -> str | None:
    """Why a schedule of `count` matches is refused, or None."""
    if count > MAX_LADDER_MATCHES:
        return (
            f"the schedule would hold {count:,} matches, more than the {MAX_LADDER_MATCHES:,} a "
            "ladder holds (its database and memory grow with each)"
        )
    return None


def series_matches_problem(count: int) -> str | None:
    """Why a series of `count` matches is refused, or None."""
    if count > MAX_SERIES_MATCHES:
        return (
            f"expected at most {MAX_SERIES_MATCHES:,} matches (a series keeps every outcome in "
            "memory; run a ladder for more)"
        )
    return None


def max_concurrency() -> int:
    """The most matches at once this machine can hold: MATCHES_PER_CORE per core."""
    return MATCHES_PER_CORE * cores()


def concurrency_problem(count: int, what: str = "matches at once") -> str | None:
    """Why `count` matches at once (or `what`, bounded alike) is refused here, or None."""
    if count < 1:
        return "expected at least 1"
    cap = max_concurrency()
    if count > cap:
        return (
            f"expected at most {cap} {what} on this machine ({MATCHES_PER_CORE} per "
            f"core, {cores()} cores: each needs its own bot processes)"
        )
    return None


def default_workers(concurrency: int) -> int:
    """How many referee processes play `concurrency` matches at once by default: one per core
    of `cpu_budget`, never more than the matches (a process with no match to play is waste)."""
    return max(1, min(cpu_budget(), concurrency))


def workers_problem(count: int) -> str | None:
    """Why `count` referee processes are refused on this machine, or None: each plays one
    match at once at least, so they are bounded as matches at once are."""
    return concurrency_problem(count, "referee processes")


def within(option: str, value: int, problem: Callable[[int], str | None]) -> int:
    """`value` of `option` if `problem` finds nothing wrong with it."""
    found = problem(value)
    if found:
        raise CroupierError(f"{option} {value!r}: {found}")
    return value


def worker_count(workers: int | None, concurrency: int) -> int:
    """--workers checked, or its default for `concurrency` matches at once (at most that)."""
    if workers is None:
        return default_workers(concurrency)
    return min(within("--workers", workers, workers_problem), concurrency)
