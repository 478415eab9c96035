"""`croupier ladder`: run a ladder from its TOML file, show or export its standings, verify it.

Exit codes as everywhere: 0 success; 1 a check failed (`verify`); 2 bad input (a bad ladder file,
a database of another ladder, a bot that cannot start).

`ladder run --web HOST:PORT` serves the ladder's web site from the same process (referee.web);
its live display is `ladder_display`.
"""

from __future__ import annotations

import contextlib
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.consoles import EXIT_CHECK_FAILED, console, errors, progress, user_errors
from referee.cli.epilog import DONE, epilog
from referee.cli.ladder_run import EXIT_INTERRUPTED, run_command
from referee.errors import CroupierError
from referee.text import plural, printable

#: The most bots whose head-to-head matrix the standings table prints: wider, a terminal wraps
#: it past reading (the CSV, the JSON, the report and the site have every pair).
MATRIX_BOTS = 16

if TYPE_CHECKING:
    pass

ladder_app = typer.Typer(
    name="ladder",
    help="Ladders: many matches among launched bots, rated, in one SQLite file that survives "
    "any interruption (see docs/ladders.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


ladder_app.command(
    "run",
    epilog=epilog(
        [
            "croupier ladder run examples/ladders/xix.toml          (run, or resume)",
            "croupier ladder run examples/ladders/xix.toml --database ab.sqlite "
            "--sprt 0 50 0.05 0.05",
            "croupier ladder run LADDER.toml --cluster tcp://127.0.0.1:8786",
            "croupier ladder run examples/ladders/xix.toml --web 127.0.0.1:8080   "
            "(and its web site)",
        ],
        {
            **DONE,
            0: "the ladder is complete (or the SPRT decided); with --web, once Ctrl-C or "
            "SIGTERM ends its site",
            EXIT_INTERRUPTED: "interrupted (Ctrl-C) while it ran: what finished is kept; run "
            "it again",
        },
    ),
)(run_command)


Database = Annotated[Path, typer.Argument(help="A ladder database (SQLite).")]
Format = Annotated[
    OutputFormat, typer.Option("--format", help="table for people; json or csv to export.")
]
Everything = Annotated[
    bool,
    typer.Option(
        "--all",
        help="A contest's whole field: also the rows of hosted versions their accounts no "
        "longer play (retired), ranked with the rest. Without it, each account's active "
        "version and the bots that connect by themselves, ranked among themselves.",
    ),
]
Versions = Annotated[
    Path | None,
    typer.Option(
        "--versions",
        help="A contest's folder of hosted versions (default: versions/ beside the database).",
    ),
]
HeadToHead = Annotated[
    bool,
    typer.Option(
        "--head-to-head",
        help="With --format csv: one row per pair of bots that met (score, its 95% "
        "interval, margin) instead of one per bot. The table shows the matrix under the "
        f"standings up to {MATRIX_BOTS} bots, with this flag however many; the JSON holds "
        "it as head_to_head either way.",
    ),
]
Reference = Annotated[
    str | None,
    typer.Option(
        "--reference",
        metavar="BOT",
        help="Show ratings as differences from BOT's (0), each interval that of the "
        "difference: a gauntlet's view, which a newcomer does not widen.",
    ),
]


@ladder_app.command(
    "standings",
    epilog=epilog(
        [
            "croupier ladder standings ladder-out/xix/ladder.sqlite",
            "croupier ladder standings ladder-out/xix/ladder.sqlite --format csv > xix.csv",
            "croupier ladder standings contest.db --all",
            "croupier ladder standings ladder-out/xix/ladder.sqlite --format csv --head-to-head",
        ],
        DONE,
    ),
)
def standings_command(
    database: Database,
    format: Format = OutputFormat.TABLE,
    everything: Everything = False,
    versions: Versions = None,
    head_to_head: HeadToHead = False,
    reference: Reference = None,
) -> None:
    """Print a ladder's or a contest's standings (finished or still running), and its
    head-to-head matrix: each bot's score against each other, marked where Holm's test over
    all pairs finds it uneven."""
    from referee.contest.tokens import read_teams, revoked_accounts
    from referee.hosted import current
    from referee.hosted.store import beside, read_listing
    from referee.ladder import standings_of
    from referee.ratings.head_to_head import LEGEND
    from referee.ratings.standings import (
        footer,
        head_to_head_csv,
        head_to_head_table,
        margin_table,
        table,
        to_csv,
    )
    from referee.results.database import reporting_store_failures

    with user_errors(), reporting_store_failures(database):
        if versions is not None and not versions.is_dir():
            raise CroupierError(f"no versions folder {str(versions)!r}")
        standings = standings_of(database, reference=reference)
        listing = read_listing(versions or beside(database))
    shown = current.shown(standings, listing, everything=everything)
    retired = current.split(standings, listing).retired
    teams = read_teams(database)
    if format is OutputFormat.JSON:
        data = current.to_dict(standings, listing, everything=everything, teams=teams)
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    elif format is OutputFormat.CSV:
        sys.stdout.write(head_to_head_csv(shown) if head_to_head else to_csv(shown))
    else:
        accounts = revoked_accounts(database)
        who = current.entrants((row.bot for row in shown.rows), listing)
        revoked = frozenset(bot for bot, one in who.items() if one.account in accounts)
        marked = frozenset(row.bot for row in retired)
        console.print(table(shown, revoked=revoked, retired=marked))
        if (margins := margin_table(shown, revoked=revoked, retired=marked)) is not None:
            console.print(margins)
        matrix = head_to_head_table(shown)
        wide = matrix is not None and len(shown.rows) > MATRIX_BOTS and not head_to_head
        if matrix is not None and not wide:
            console.print(matrix)
        lines = footer(shown)
        if wide:  # a terminal cannot show it: say where it is
            lines.insert(0, f"head-to-head of {len(shown.rows)} bots: --head-to-head shows it")
        elif matrix is not None:
            lines.insert(0, LEGEND)
        if retired and not everything:
            hidden = plural(len(retired), "retired hosted version")
            lines.insert(0, f"{hidden} not shown: --all shows them")
        lines += team_lines({one.account for one in who.values()}, teams)
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def team_lines(accounts: set[str], teams: dict[str, tuple[str, ...]]) -> list[str]:
    """A line for each team shown with more members than its leader of its own name: its
    members, leader first, made printable (a member's name is any printable text)."""
    return [
        printable(f"team {account}: {', '.join(teams[account])}")
        for account in sorted(accounts)
        if teams.get(account, (account,)) != (account,)
    ]


@ladder_app.command(
    "verify",
    epilog=epilog(
        ["croupier ladder verify ladder-out/xix/ladder.sqlite"],
        {0: "everything checks out", 1: "a problem was found (each is printed)", 2: DONE[2]},
    ),
)
def verify_command(
    database: Annotated[Path, typer.Argument(help="A ladder database (SQLite).")],
    replay: Annotated[bool, typer.Option(help="Also re-run the engine on every record.")] = True,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes replaying (default: one per CPU).")
    ] = None,
    cache: Annotated[
        bool,
        typer.Option(
            help="Skip the replay of a record whose exact bytes (SHA-256) this croupier version "
            "already replayed without a problem, as noted in your own cache "
            "($XDG_CACHE_HOME/croupier/replayed.sqlite); every record is still read, hashed "
            "and checked. --no-cache replays every record."
        ),
    ] = True,
) -> None:
    """Check the revealed seed against its SHA-256, every deal's seed, every record's hash and
    (with --replay) every record; exit 1 on any problem."""
    from referee.challenges.verify import challenge_checks
    from referee.ladder import verify_ladder
    from referee.ladder.verify import default_cache
    from referee.results.database import reporting_store_failures

    with user_errors(), reporting_store_failures(database), progress("verifying") as done:
        check = verify_ladder(
            database,
            replay=replay,
            on_record=done,
            workers=workers,
            cache=default_cache() if cache else None,
            beside=lambda replay: challenge_checks(database, replay),
        )
    for problem in check.problems:
        errors.print(problem, markup=False, highlight=False, soft_wrap=True)
    seed = "seed and deals checked" if check.seed_checked else "seed not revealed yet"
    cached = check.records_cached
    before = f" ({cached} unchanged since an earlier replay)" if cached else ""
    replayed = f", {check.records_verified} replayed{before}" if replay else ""
    console.print(
        f"{plural(check.matches, 'match', 'matches')}: records hashed{replayed}; {seed}; "
        f"{plural(len(check.problems), 'problem')}",
        markup=False,
        highlight=False,
    )
    if not check.ok:
        raise typer.Exit(EXIT_CHECK_FAILED)


@ladder_app.command(
    "report",
    epilog=epilog(
        ["croupier ladder report ladder-out/xix/ladder.sqlite --html ladder-out/xix/report"],
        {**DONE, EXIT_INTERRUPTED: "interrupted (Ctrl-C): the pages written are kept"},
    ),
)
def report_command(
    database: Annotated[Path, typer.Argument(help="A ladder database (SQLite).")],
    html: Annotated[
        Path,
        typer.Option(
            "--html",
            metavar="OUT_DIR",
            help="Write index.html (standings, ratings over time, every match) and a replay "
            "viewer per match under OUT_DIR/matches/.",
        ),
    ],
    workers: Annotated[
        int | None, typer.Option(min=1, help="Processes building pages (default: one per CPU).")
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Rebuild every match page, not just new ones.")
    ] = False,
) -> None:
    """Write a ladder's report as web pages that work offline (finished or still running);
    again into the same OUT_DIR, only new or changed matches get their page built."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from referee.contest.tokens import revoked_accounts
    from referee.results.database import reporting_store_failures
    from referee.web.report import write_report

    bar = Progress(TextColumn("[bold]report"), BarColumn(), MofNCompleteColumn(), console=errors)
    task = bar.add_task("report", total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    with (
        user_errors(),
        reporting_store_failures(database),
        bar if errors.is_terminal else contextlib.nullcontext(),
    ):
        try:
            report = write_report(
                database,
                html,
                workers=workers,
                force=force,
                progress=progress,
                revoked=revoked_accounts(database),
            )
        except KeyboardInterrupt:
            errors.print("interrupted: the pages written so far are kept", markup=False)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    for problem in report.problems:
        errors.print(f"warning: {problem}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{report.index}: {plural(report.matches, 'match', 'matches')}; "
        f"{plural(report.pages_written, 'match page')} written, "
        f"{report.pages_kept} kept; {plural(report.index_pages, 'index page')}; "
        f"{report.seconds:.1f} s",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
