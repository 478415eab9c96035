"""What every `croupier` sub-command shares: the consoles, exit codes and user-error handling.

Every command module imports it, so `croupier --help` does too: at load time it imports only
typer, rich's console and the standard library (tests/test_startup.py), anything else where used.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from referee.errors import CroupierError

if TYPE_CHECKING:
    from referee.match.clock import TimeControl
    from referee.web import WebSettings

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

#: The width tables get off a terminal (a pipe, a file) unless COLUMNS says otherwise: wide
#: enough that no cell is cut; text lines are never wrapped there.
PIPE_WIDTH = 1000


def _console(*, stderr: bool) -> Console:
    """A console that wraps for a person at a terminal and never for a program reading a pipe."""
    made = Console(stderr=stderr, soft_wrap=True)
    if not made.is_terminal and "COLUMNS" not in os.environ:
        made.width = PIPE_WIDTH
    return made


console = _console(stderr=False)
errors = _console(stderr=True)


#: What a command cannot do for the user's sake: their mistake (a CroupierError), or a file or
#: folder the system refuses (missing, a directory, permission denied, disk full): one line each.
_USER_ERRORS = (CroupierError, OSError)


@contextmanager
def user_errors() -> Iterator[None]:
    """A user's mistake, or a path the system refuses, prints one line and exits 2, never a
    traceback."""
    try:
        yield
    except _USER_ERRORS as error:
        errors.print(f"error: {describe(error)}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BaseExceptionGroup as group:  # from a trio nursery
        mistakes, others = group.split(_USER_ERRORS)
        if mistakes is None or others is not None:
            raise
        said: set[str] = set()  # several tasks may fail alike (two seats of one bad bot)
        for mistake in _leaves(mistakes):
            line = f"error: {describe(mistake)}"
            if line not in said:
                said.add(line)
                errors.print(line, markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def describe(error: BaseException) -> str:
    """One line for the user: an OSError names its path and the system's reason."""
    if isinstance(error, OSError) and error.strerror:
        reason = error.strerror[0].lower() + error.strerror[1:]
        if error.filename is not None:
            return f"{str(error.filename)!r}: {reason}"
        return reason
    return str(error)


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            yield from _leaves(error)
        else:
            yield error


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


#: Without a terminal, a progress line at least this often (seconds), and at every tenth.
PROGRESS_SECONDS = 30.0


class Pace:
    """When to print a progress line where no live bar can be drawn (a pipe, --no-live): at
    every tenth of the work and at least every PROGRESS_SECONDS, so long work is never silent."""

    def __init__(self) -> None:
        self.shown = 0
        self.next_line = time.monotonic() + PROGRESS_SECONDS

    def due(self, done: int, total: int) -> bool:
        if total <= 1:
            return False  # one piece of work says its result, not its progress
        now = time.monotonic()
        step = max(1, total // 10)
        if done > self.shown and (
            done == total or done // step > self.shown // step or now >= self.next_line
        ):
            self.shown = done
            self.next_line = now + PROGRESS_SECONDS
            return True
        return False


@contextmanager
def progress(what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr while the block runs (on a terminal), else a line now and then;
    yields `done(count, total)` to call as work finishes."""
    if errors.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(
            TextColumn(what), BarColumn(), MofNCompleteColumn(), console=errors, transient=True
        ) as bar:
            task = bar.add_task(what, total=None)
            yield lambda count, total: bar.update(task, completed=count, total=total)
        return
    pace = Pace()

    def line(count: int, total: int) -> None:
        if pace.due(count, total):
            errors.print(f"{what}: {count} of {total}", markup=False, highlight=False)

    yield line


def epilog(examples: list[str], exits: dict[int, str]) -> str:
    """The end of a command's --help: examples to copy, then its exit codes. (`\\b` keeps click
    from rewrapping a paragraph.)"""
    lines = ["\b", "Examples:", *(f"  {example}" for example in examples)]
    codes = ["\b", "Exit codes:", *(f"  {code}  {meaning}" for code, meaning in exits.items())]
    return "\n".join(lines) + "\n\n" + "\n".join(codes)


#: The exit codes most commands share.
DONE = {0: "done", 2: "bad input (a path, port, option or file that cannot be used)"}


_SEAT = re.compile(r"\bseat (\d+)\b")


def named(text: str, names: list[str]) -> str:
    """`seat 1` as `seat 1 (alice)`: a spectator reads bots, not seat numbers."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return f"{match.group(0)} ({names[seat]})" if seat < len(names) else match.group(0)

    return _SEAT.sub(name, text)


def announce_seed(given: str | None, out: Console = console) -> str:
    """The run's master seed: the one given (a reproducible run, said so), else a fresh secret one
    from the OS whose SHA-256 is printed now, so the seed revealed at the end can be checked."""
    from referee.match.seeds import commitment, new_master_seed

    if given is not None:
        out.print(
            f"master seed (given, reproducible): {given}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return given
    master = new_master_seed()
    out.print(
        f"master seed sha256: {commitment(master)}", markup=False, highlight=False, soft_wrap=True
    )
    return master


def reveal_seed(master: str, *, given: bool, out: Console = console) -> None:
    """At the end of a run, reveal the master seed drawn at its start (a given one is known)."""
    if not given:
        out.print(f"master seed: {master}", markup=False, highlight=False, soft_wrap=True)


def seed_lines(master: str, *, given: bool) -> list[str]:
    """A finished run's seed lines, for a report printed once at the end (`croupier doctor`)."""
    from referee.match.seeds import commitment

    if given:
        return [f"master seed (given, reproducible): {master}"]
    return [f"master seed sha256: {commitment(master)}", f"master seed: {master}"]


#: The sandbox switch, alike in `croupier match`, `ladder run` and `doctor`.
SANDBOX_HELP = (
    "Run each bot in the bubblewrap sandbox (no network, read-only system, limits); on by "
    "default on Linux. --no-sandbox trusts the bots: see docs/bots.md."
)


def sandboxed(chosen: bool | None) -> bool:
    """--sandbox or --no-sandbox, else the platform's default (left out of the option's own
    default, which --help would have to load the sandbox to show)."""
    from referee.local.sandbox import default_enabled

    return default_enabled() if chosen is None else chosen


LIMIT_HELP = (
    "A limit for every bot, NAME=VALUE (0: none); repeatable. Names: memory_mb, processes, "
    "disk_mb, open_files, cpu_seconds; see docs/bots.md for the defaults."
)


def limit_pairs(pairs: list[str]) -> dict[str, int]:
    """`--limit NAME=VALUE` options as a table for Limits.merged."""
    table: dict[str, int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not value.strip().isdigit():
            raise CroupierError(f"expected --limit NAME=NUMBER, got {pair!r}")
        table[name.strip()] = int(value)
    return table


#: Options several commands share, declared once.
MoveMs = Annotated[int, typer.Option(min=0, help="Time per decision, ms.")]
BankMs = Annotated[int, typer.Option(min=0, help="Time bank for overage, ms.")]
Seed = Annotated[
    str | None,
    typer.Option(
        help="Master seed, for a reproducible run (default: a fresh secret one, revealed at "
        "the end); each match's seed is keyed by it."
    ),
]


def time_control(move_ms: int, bank_ms: int) -> TimeControl:
    """--move-ms and --bank-ms as a time control, each refused past what it can mean."""
    from referee.match.bounds import time_problem
    from referee.match.clock import TimeControl

    return TimeControl(
        move_ms=within("--move-ms", move_ms, time_problem),
        bank_ms=within("--bank-ms", bank_ms, time_problem),
    )


def within(option: str, value: int, problem: Callable[[int], str | None]) -> int:
    """`value` of `option` if `problem` finds nothing wrong with it (referee.match.bounds)."""
    found = problem(value)
    if found:
        raise CroupierError(f"{option} {value!r}: {found}")
    return value


#: Addresses a server may listen on in plaintext without --insecure.
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def web_settings(
    address: str, tls_cert: Path | None, tls_key: Path | None, insecure: bool
) -> WebSettings:
    """--web HOST:PORT, refused off loopback without TLS (unless --insecure), as the referee."""
    from referee.web import WebSettings

    host, colon, port_text = address.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise CroupierError(f"--web wants HOST:PORT, got {address!r}")
    if (tls_cert is None) != (tls_key is None):
        raise CroupierError("give both --tls-cert and --tls-key, or neither")
    for path in (tls_cert, tls_key):
        if path is not None and not path.is_file():
            raise CroupierError(f"no such file {str(path)!r}")
    if tls_cert is None and host not in LOOPBACK and not insecure:
        raise CroupierError(
            f"refusing a plaintext web site on {host!r}: give --tls-cert/--tls-key (or --insecure)"
        )
    return WebSettings(host=host, port=int(port_text), tls_cert=tls_cert, tls_key=tls_key)
