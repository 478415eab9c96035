"""`croupier positions`: decisions from real matches as a bot's regression tests."""

from __future__ import annotations

import json
import os
import shlex
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.bot_limits import SANDBOX_HELP, sandboxed
from referee.cli.consoles import console, errors, user_errors
from referee.cli.doctor import Command
from referee.cli.epilog import DONE, epilog
from referee.cli.options import BankMs, MoveMs
from referee.errors import CroupierError
from referee.review.budgets import DEFAULT_BUDGET

positions_app = typer.Typer(
    help="Positions from real matches as tests: extract them, test a bot on them.",
    no_args_is_help=True,
)


@positions_app.command(
    "extract",
    epilog=epilog(
        ["croupier positions extract out/*.jsonl --seat 1 --costly -o positions.jsonl"],
        {0: "written", 1: "a record does not verify", 2: DONE[2]},
    ),
)
def extract_command(
    records: Annotated[list[Path], typer.Argument(help="Match records (.jsonl).")],
    seat: Annotated[int, typer.Option(help="The seat whose decisions become positions.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The positions file to write.")],
    costly: Annotated[
        bool, typer.Option("--costly", help="Only the decisions graded (a significant loss).")
    ] = False,
    budget: Annotated[int, typer.Option(help="The reference's playouts a decision.")] = (
        DEFAULT_BUDGET
    ),
    workers: Annotated[int | None, typer.Option(help="Processes (default: one per core).")] = None,
) -> None:
    """Write seat SEAT's decisions of the records (the seat's view up to each, the reference's
    value of every legal action) to a JSONL file, one position a line. Exit codes: 0 written,
    1 a record does not verify, 2 bad input."""
    from referee.review.positions import extract

    with user_errors():
        for record in records:
            if not record.is_file():
                raise CroupierError(f"no such record {str(record)!r}")
        with out.open("w", encoding="utf-8") as file:
            count = extract(
                records, seat, budget, file, costly=costly, workers=workers or os.cpu_count() or 1
            )
    errors.print(f"{count} positions written to {out}", markup=False, highlight=False)


@positions_app.command(
    "test",
    epilog=epilog(
        ["croupier positions test positions.jsonl -- python examples/python/xix_heuristic.py"],
        {0: "every position played (faults included)", 2: DONE[2]},
    ),
)
def run_command(
    file: Annotated[Path, typer.Argument(help="A positions file (croupier positions extract).")],
    command: Command,
    move_ms: MoveMs = 2000,
    bank_ms: BankMs = 0,
    sandbox: Annotated[bool | None, typer.Option(help=SANDBOX_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON, not a table.")] = False,
) -> None:
    """Run the bot on every position, each a one-decision match through the referee's
    protocol, and report the points it loses against the reference's best, per position and in
    all. A bot that crashes or faults on a position loses that position (the referee plays its
    first legal action); the rest go on. Exit codes: 0 tested, 2 bad input (a position that is
    not one of the engine's, a bot that cannot start)."""
    from rich.table import Table

    from referee import transport
    from referee.doctor.checks import parse_command
    from referee.match.clock import checked_time_control
    from referee.review.position_runs import run_positions
    from referee.review.positions import positions_file

    with user_errors():
        positions = positions_file(file)
        argv = parse_command(command)
        control = checked_time_control(move_ms, bank_ms)
        run = partial(run_positions, time_control=control, sandbox=sandboxed(sandbox))
        results = transport.run(run, positions, shlex.join(argv))
    total = sum(r.lost for r in results)
    if as_json:
        rows = [
            {"source": r.source, "chosen": r.chosen, "lost": r.lost, "fault": r.fault}
            for r in results
        ]
        print(
            json.dumps(
                {"positions": rows, "lost": total, "faults": sum(bool(r.fault) for r in results)}
            )
        )
        return
    table = Table(
        title=f"points lost against the reference: {total:.1f} in {len(results)} positions"
    )
    for column in ("position", "chosen", "lost", "fault"):
        table.add_column(column, justify="right" if column == "lost" else "left")
    for r in results:
        table.add_row(r.source, r.chosen, f"{r.lost:.1f}", r.fault)
    console.print(table)
