"""What every `croupier` sub-command shares: the consoles, exit codes and user-error handling."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from referee.errors import CroupierError

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

console = Console()
errors = Console(stderr=True, soft_wrap=True)


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
        for mistake in _leaves(mistakes):
            errors.print(f"error: {describe(mistake)}", markup=False, highlight=False)
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
