"""`croupier games` and `croupier match`: the games on offer, and matches among launched bots."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.bot_limits import LIMIT_HELP, SANDBOX_HELP, limit_pairs, sandboxed
from referee.cli.consoles import console, errors, progress, user_errors
from referee.cli.options import BankMs, CeilingFactor, Clock, Workers
from referee.cli.seeds import Seed, announce_luck, announce_seed, reveal_seed
from referee.clock_kind import ClockKind
from referee.text import plural

if TYPE_CHECKING:
    from referee.local.series import SeriesConfig, Standing
    from referee.match.runner import MatchOutcome


def games() -> None:
    """List the games and their options."""
    from rich.table import Table

    from referee.games.catalog import CATALOG  # what the games are, without their engines

    table = Table(title="games")
    for column in ("game", "title", "rules", "options"):
        table.add_column(column)
    for game in CATALOG.values():
        options = "\n".join(
            f"{spec.name} ({spec.kind}, default {spec.default}): {spec.description}"
            for spec in game.option_specs
        )
        table.add_row(game.id, game.title, game.rules_version, options or "none")
    console.print(table)


def _deck(text: str | None) -> tuple[str, ...] | None:
    return tuple(text.replace(",", " ").split()) if text else None


Deck = Annotated[
    str | None,
    typer.Option(
        help="Deck order for the first shuffle, top first, e.g. '18 1 17 ...' (a record's "
        "first deck line replays its deal)."
    ),
]
Records = Annotated[Path | None, typer.Option(help="Folder for the match records (and bot logs).")]
MoveMsOrNoLimit = Annotated[int, typer.Option(min=0, help="Time per decision, ms (0: no limit).")]
Oversubscribe = Annotated[
    bool,
    typer.Option(
        help="Play more matches at once than the cap of 16 per core (bots that mostly wait "
        "on I/O): their clocks then time bots that share the cores."
    ),
]


def match(
    game: Annotated[str, typer.Argument(help="Game id (see `croupier games`).")],
    bot: Annotated[
        list[str],
        typer.Option(
            metavar="CMD",
            help="A bot's command line; repeat per seat (cycled when fewer than seats).",
        ),
    ],
    games: Annotated[int, typer.Option(min=1, help="How many matches to play.")] = 1,
    seed: Seed = None,
    deck: Deck = None,
    records: Records = None,
    move_ms: MoveMsOrNoLimit = 1000,
    bank_ms: BankMs = 10_000,
    clock: Clock = ClockKind.WALL,
    ceiling_factor: CeilingFactor = None,
    players: Annotated[int | None, typer.Option(help="Shortcut for --option players=N.")] = None,
    option: Annotated[
        list[str] | None, typer.Option(metavar="NAME=VALUE", help="A game option; repeatable.")
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches played at once.")] = 1,
    oversubscribe: Oversubscribe = False,
    workers: Workers = None,
    max_faults: Annotated[int, typer.Option(min=1, help="Faults before a seat is retired.")] = 3,
    sandbox: Annotated[bool | None, typer.Option(help=SANDBOX_HELP)] = None,
    limit: Annotated[list[str] | None, typer.Option(help=LIMIT_HELP)] = None,
) -> None:
    """Serve on a loopback port, launch the bots, play the matches, print the results."""
    from referee.match.bounds import concurrency_problem

    def _capped(count: int) -> str | None:
        found = concurrency_problem(count)
        return f"{found}; --oversubscribe plays more anyway" if found else None

    from referee.games import get_game
    from referee.games.base import parse_options
    from referee.games.options import option_pairs
    from referee.local.limits import Limits
    from referee.local.series import SeriesConfig
    from referee.local.workers import shares
    from referee.match.bounds import (
        series_matches_problem,
        shared_clock_problem,
        within,
        worker_count,
    )
    from referee.match.clock import checked_time_control

    with user_errors():
        within("--games", games, series_matches_problem)
        if not oversubscribe:
            within("--concurrency", concurrency, _capped)
        control = checked_time_control(move_ms, bank_ms, clock, ceiling_factor)
        processes = worker_count(workers, concurrency)
        if clock is ClockKind.CPU:  # one process per bot for all the matches of a referee
            within("--concurrency", max(shares(concurrency, processes)), shared_clock_problem)
        chosen = get_game(game)
        master = announce_seed(seed)
        announce_luck(chosen.id)
        config = SeriesConfig(
            game=chosen,
            options=parse_options(chosen, option_pairs(option or [], players)),
            commands=tuple(bot),
            matches=games,
            seed=master,
            deck=_deck(deck),
            records=records,
            time_control=control,
            concurrency=concurrency,
            max_faults=max_faults,
            sandbox=sandboxed(sandbox),
            limits=Limits().merged(limit_pairs(limit or []), "--limit"),
            workers=processes,
        )
        standings, outcomes = _run_series(config)
    _print_standings(config, standings, outcomes)
    reveal_seed(master, given=seed is not None)


def _run_series(config: SeriesConfig) -> tuple[list[Standing], list[MatchOutcome]]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from referee import transport
    from referee.local.series import play_series

    if not errors.is_terminal:
        # In a pipe or a CI log a bar draws nothing: a line at every tenth of the matches and
        # at least every PROGRESS_SECONDS instead (it was silent for minutes).
        with progress(f"{config.game.id} matches") as done:
            played = itertools.count(1)
            return transport.run(play_series, config, lambda _: done(next(played), config.matches))
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=errors,
        transient=True,
    ) as bar:
        task = bar.add_task(f"{config.game.id} matches", total=config.matches)
        return transport.run(play_series, config, lambda _: bar.advance(task))


#: Under a table where bots of one name are told apart (series.py appends the bot's number).
SUFFIX_LEGEND = (
    "name#N: the bot launched N-th, from 0 (the --bot options cycle over the seats); it sat "
    "in seat N in the first match, then the seats rotate (with --records, its log is "
    "logs/*-PROGRAM-botN.log)"
)


def _print_standings(
    config: SeriesConfig, standings: list[Standing], outcomes: list[MatchOutcome]
) -> None:
    from rich.table import Table

    table = Table(title=f"{config.game.id}: {plural(len(outcomes), 'match', 'matches')} over gRPC")
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
    if any("#" in standing.label for standing in standings):
        table.caption = SUFFIX_LEGEND
    console.print(table)
    if config.records is not None:
        console.print(f"records: {config.records}/", markup=False, highlight=False)
