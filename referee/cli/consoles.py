"""The consoles every `croupier` command prints to, its exit codes, the one line a user's mistake
gets instead of a traceback, and progress for long work.

Every command module imports it, so `croupier --help` does too: at load time it imports only
typer, rich's console and the standard library (tests/test_startup.py), anything else where used.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from referee.errors import CroupierError, leaves

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
        for mistake in leaves(mistakes):
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
