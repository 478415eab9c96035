"""What every `croupier` sub-command shares: the consoles, exit codes and user-error handling."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from referee.errors import CroupierError
from referee.match.seeds import commitment, new_master_seed

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

console = Console()
errors = Console(stderr=True, soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """A user's mistake prints one line and exits 2, never a traceback."""
    try:
        yield
    except CroupierError as error:
        errors.print(f"error: {error}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BaseExceptionGroup as group:  # from a trio nursery
        mistakes, others = group.split(CroupierError)
        if mistakes is None or others is not None:
            raise
        for mistake in _leaves(mistakes):
            errors.print(f"error: {mistake}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _leaves(group: BaseExceptionGroup[CroupierError]) -> Iterator[BaseException]:
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


def announce_seed(given: str | None, out: Console = console) -> str:
    """The run's master seed: the one given (a reproducible run, said so), else a fresh secret one
    from the OS whose SHA-256 is printed now, so the seed revealed at the end can be checked."""
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
    if given:
        return [f"master seed (given, reproducible): {master}"]
    return [f"master seed sha256: {commitment(master)}", f"master seed: {master}"]


#: The sandbox switch, alike in `croupier match`, `ladder run` and `doctor`.
SANDBOX_HELP = (
    "Run each bot in the bubblewrap sandbox (no network, read-only system, limits); on by "
    "default on Linux. --no-sandbox trusts the bots: see docs/bots.md."
)
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
