"""The `croupier` command line: one sub-command per noun; each parses, calls the library, prints.

Exit codes: 0 success; 1 a check failed (a record did not verify); 2 bad input (an unknown game, a
bad option, an unreadable record, a bad argument).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from referee.errors import CroupierError
from referee.games import GAMES
from referee.replay import render, verify

EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

app = typer.Typer(
    name="croupier",
    help=__doc__,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
errors = Console(stderr=True, soft_wrap=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """A user's mistake prints one line and exits 2, never a traceback."""
    try:
        yield
    except CroupierError as error:
        errors.print(f"error: {error}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@app.command()
def games() -> None:
    """List the games and their options."""
    table = Table(title="games")
    for column in ("game", "title", "rules", "options"):
        table.add_column(column)
    for game in GAMES.values():
        options = "\n".join(
            f"{spec.name} ({spec.kind}, default {spec.default}): {spec.description}"
            for spec in game.option_specs
        )
        table.add_row(game.id, game.title, game.rules_version, options or "none")
    console.print(table)


@app.command()
def replay(
    record: Annotated[Path, typer.Argument(help="A match record (.jsonl).")],
    seat: Annotated[
        int | None, typer.Option(help="Show only what this seat saw (default: everything).")
    ] = None,
    check: Annotated[
        bool,
        typer.Option("--verify", help="Re-run the engine on the record; exit 1 on any difference."),
    ] = False,
) -> None:
    """Print a match record, or verify it (exit 1 if it does not replay exactly)."""
    with user_errors():
        _replay(record, seat, check=check)


def _replay(record: Path, seat: int | None, *, check: bool) -> None:
    if check:
        report = verify(record)
        if not report.ok:
            for problem in report.problems:
                errors.print(f"{record}: {problem}", markup=False, highlight=False)
            raise typer.Exit(EXIT_CHECK_FAILED)
        console.print(f"{record}: verified ({report.lines} lines)", markup=False, highlight=False)
        return
    for line in render(record, seat):
        console.print(line, markup=False, highlight=False)


def main() -> None:
    app()
