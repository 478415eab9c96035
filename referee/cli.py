"""The `croupier` command line: one sub-command per noun; each parses, calls the library, prints.

Exit codes: 0 success; 1 a check failed (a record did not verify); 2 bad input (an unknown game, a
bad option, an unreadable record, a bad argument).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from referee import transport, viewer
from referee.cli_cluster import cluster_app
from referee.cli_contest import serve_command, token_app, watch_command
from referee.cli_ladder import ladder_app
from referee.cli_support import (
    EXIT_CHECK_FAILED,
    console,
    errors,
    option_pairs,
    user_errors,
)
from referee.clock import TimeControl
from referee.doctor import doctor
from referee.errors import CroupierError
from referee.games import GAMES, get_game
from referee.games.base import parse_options
from referee.match import MatchOutcome
from referee.replay import render, verify
from referee.series import SeriesConfig, Standing, play_series

app = typer.Typer(
    name="croupier",
    help=__doc__,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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


def _deck(text: str | None) -> tuple[str, ...] | None:
    return tuple(text.replace(",", " ").split()) if text else None


@app.command()
def match(
    game: Annotated[str, typer.Argument(help="Game id (see `croupier games`).")],
    bot: Annotated[
        list[str],
        typer.Option(help="A bot's command line; repeat per seat (cycled when fewer than seats)."),
    ],
    games: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 1,
    seed: Annotated[int, typer.Option(help="Series seed; each match's seed derives from it.")] = 0,
    deck: Annotated[
        str | None, typer.Option(help="Deck order for the first deal, top first, e.g. '18 1 17 …'.")
    ] = None,
    records: Annotated[
        Path | None, typer.Option(help="Folder for the match records (and bot logs).")
    ] = None,
    move_ms: Annotated[
        int, typer.Option(min=0, help="Time per decision, ms (0: no limit).")
    ] = 1000,
    bank_ms: Annotated[int, typer.Option(min=0, help="Time bank for overage, ms.")] = 10_000,
    players: Annotated[int | None, typer.Option(help="Shortcut for --option players=N.")] = None,
    option: Annotated[
        list[str] | None, typer.Option(help="A game option NAME=VALUE; repeatable.")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches played at once.")] = 1,
    max_faults: Annotated[int, typer.Option(min=1, help="Faults before a seat is retired.")] = 3,
) -> None:
    """Serve on a loopback port, launch the bots, play the matches, print the results."""
    with user_errors():
        chosen = get_game(game)
        config = SeriesConfig(
            game=chosen,
            options=parse_options(chosen, option_pairs(option or [], players)),
            commands=tuple(bot),
            matches=games,
            seed=seed,
            deck=_deck(deck),
            records=records,
            time_control=TimeControl(move_ms=move_ms, bank_ms=bank_ms),
            concurrency=concurrency,
            max_faults=max_faults,
        )
        standings, outcomes = _run_series(config)
    _print_standings(config, standings, outcomes)


def _run_series(config: SeriesConfig) -> tuple[list[Standing], list[MatchOutcome]]:
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=errors,
        transient=True,
    ) as progress:
        task = progress.add_task(f"{config.game.id} matches", total=config.matches)
        return transport.run(play_series, config, lambda _: progress.advance(task))


def _print_standings(
    config: SeriesConfig, standings: list[Standing], outcomes: list[MatchOutcome]
) -> None:
    table = Table(title=f"{config.game.id}: {len(outcomes)} matches over gRPC")
    for column in ("bot", "matches", "wins", "win rate", "avg rank", "points", "faults"):
        table.add_column(column, justify="left" if column in {"bot", "faults"} else "right")
    for standing in sorted(standings, key=lambda s: (-s.wins, s.average_rank)):
        faults = ", ".join(f"{reason} {n}" for reason, n in sorted(standing.faults.items()))
        table.add_row(
            standing.label,
            str(standing.matches),
            str(standing.wins),
            f"{standing.wins / max(standing.matches, 1):.0%}",
            f"{standing.average_rank:.2f}",
            str(standing.points),
            faults or "-",
        )
    console.print(table)
    if config.records is not None:
        console.print(f"records: {config.records}/", markup=False, highlight=False)


@app.command()
def replay(
    records: Annotated[
        list[Path], typer.Argument(help="Match records (.jsonl); several only with --verify.")
    ],
    seat: Annotated[
        int | None, typer.Option(help="Show only what this seat saw (default: everything).")
    ] = None,
    check: Annotated[
        bool,
        typer.Option("--verify", help="Re-run the engine on the record; exit 1 on any difference."),
    ] = False,
    plain: Annotated[
        bool, typer.Option("--plain", help="Print text lines (the default off a terminal).")
    ] = False,
    html: Annotated[
        Path | None, typer.Option(help="Write a self-contained HTML viewer to this file.")
    ] = None,
) -> None:
    """Step through a match record (a terminal viewer), print it, write its HTML viewer, or
    verify it (exit 1 if it does not replay exactly)."""
    with user_errors():
        if check:
            _verify(records)
            return
        if len(records) != 1:
            raise CroupierError(f"give one record to show, not {len(records)} (or use --verify)")
        if html is not None:
            out = viewer.write_viewer(records[0], html, seat)
            console.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)
            return
        if not plain and sys.stdin.isatty() and sys.stdout.isatty():
            viewer.step_through(records[0], seat)
            return
        for line in render(records[0], seat):
            console.print(line, markup=False, highlight=False)


def _verify(records: list[Path]) -> None:
    failed = 0
    for record in records:
        report = verify(record)
        failed += not report.ok
        for problem in report.problems:
            errors.print(f"{record}: {problem}", markup=False, highlight=False)
    console.print(f"{len(records) - failed} of {len(records)} records verified", markup=False)
    if failed:
        raise typer.Exit(EXIT_CHECK_FAILED)


app.command("doctor")(doctor)
app.command("serve")(serve_command)
app.command("watch")(watch_command)
app.add_typer(token_app, name="token")
app.add_typer(ladder_app, name="ladder")
app.add_typer(cluster_app, name="cluster")


def main() -> None:
    app()
