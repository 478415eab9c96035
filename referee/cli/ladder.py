"""`croupier ladder`: run a ladder from its TOML file, show or export its standings, verify it.

Exit codes as everywhere: 0 success; 1 a check failed (`verify`); 2 bad input (a bad ladder file,
a database of another ladder, a bot that cannot start).

`ladder run --web HOST:PORT` serves the ladder's web site from the same process (referee.web);
its live display is `ladder_display`.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.bot_limits import LIMIT_HELP, SANDBOX_HELP, limit_pairs
from referee.cli.consoles import EXIT_CHECK_FAILED, console, errors, progress, user_errors
from referee.cli.epilog import DONE, epilog
from referee.cli.options import WORKERS_HELP, CeilingFactor, within, worker_count
from referee.cli.web_settings import web_settings
from referee.clock_kind import ClockKind
from referee.errors import CroupierError
from referee.text import plural

#: The most bots whose head-to-head matrix the standings table prints: wider, a terminal wraps
#: it past reading (the CSV, the JSON, the report and the site have every pair).
MATRIX_BOTS = 16

if TYPE_CHECKING:
    from referee.ladder import Summary
    from referee.ladder.config import LadderConfig

ladder_app = typer.Typer(
    name="ladder",
    help="Ladders: many matches among launched bots, rated, in one SQLite file that survives "
    "any interruption (see docs/ladders.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


#: The shell's code for a run stopped by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"
    CSV = "csv"


class SprtOn(StrEnum):
    """What `--sprt` tests (referee.ladder.ratings.SPRT_ON)."""

    SCORE = "score"
    MARGIN = "margin"
    CORRECTED = "corrected"


@ladder_app.command(
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
)
def run_command(
    ladder: Annotated[Path, typer.Argument(help="The ladder file (TOML); see docs/ladders.md.")],
    sprt: Annotated[
        tuple[float, float, float, float] | None,
        typer.Option(
            metavar="ELO0 ELO1 ALPHA BETA",
            help="A-against-B test of the first bot against the second: stop as soon as the "
            "SPRT accepts elo <= ELO0 or elo >= ELO1 (error rates ALPHA, BETA).",
        ),
    ] = None,
    sprt_on: Annotated[
        SprtOn,
        typer.Option(
            help="What the SPRT tests: the match score (ELO0, ELO1 in Elo), or the mean point "
            "margin, raw or corrected for luck (ELO0, ELO1 in points).",
        ),
    ] = SprtOn.SCORE,
    database: Annotated[
        Path | None,
        typer.Option(
            help="Use this database instead of the file's `database` (its records then go to "
            "DATABASE's folder, `<name>-records`, unless --records says where)."
        ),
    ] = None,
    records: Annotated[
        Path | None, typer.Option(help="Put records here instead of the file's `records`.")
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="Matches at once (overrides `concurrency`).")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help=WORKERS_HELP + ' Not with --cluster. The default is 1 with launch = "shared" '
            "(one process per bot); given, each worker launches its own.",
            show_default=False,
        ),
    ] = None,
    live: Annotated[
        bool, typer.Option(help="Show the progress bar and live standings (on a terminal).")
    ] = True,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://SCHEDULER:8786",
            help="Play the matches on this Dask cluster (overrides [cluster] scheduler).",
        ),
    ] = None,
    sandbox: Annotated[
        bool | None, typer.Option(help=SANDBOX_HELP + " Overrides the file's `sandbox`.")
    ] = None,
    limit: Annotated[
        list[str] | None, typer.Option(help=LIMIT_HELP + " Overrides the file's limits.")
    ] = None,
    clock: Annotated[
        ClockKind | None,
        typer.Option(
            help="What measures a bot's time (overrides [time_control] clock): wall, or cpu "
            "(the CPU time its processes used, however busy the machine; docs/ladders.md)."
        ),
    ] = None,
    ceiling_factor: CeilingFactor = None,
    web: Annotated[
        str | None,
        typer.Option(
            metavar="HOST:PORT",
            help="Also serve the ladder's web site here, from this process: live standings, "
            "matches to watch as they are played (public view), bot pages, replays, records, "
            "the seed once revealed (port 0: any free port). Off loopback it needs --tls-cert "
            "and --tls-key (or --insecure). On a Dask cluster: no live matches, the rest as "
            "here.",
        ),
    ] = None,
    keep_web: Annotated[
        bool,
        typer.Option(
            help="With --web: once the ladder is over, keep its site up (final standings, "
            "revealed seed) until Ctrl-C or SIGTERM, then exit 0. --no-keep-web exits at once."
        ),
    ] = True,
    tls_cert: Annotated[
        Path | None, typer.Option(help="PEM certificate chain: the web site speaks HTTPS.")
    ] = None,
    tls_key: Annotated[Path | None, typer.Option(help="PEM private key for --tls-cert.")] = None,
    insecure: Annotated[
        bool, typer.Option(help="Allow a plaintext web site on an address other than loopback.")
    ] = False,
) -> None:
    """Run a ladder, or resume it from its database; print the standings and reveal the seed.

    With --web the ladder's web site is served while it runs and, unless --no-keep-web, after
    it ends until Ctrl-C (see docs/ladders.md, "The web site").
    """
    from referee import transport
    from referee.cli.ladder_display import Display
    from referee.cluster import on_cluster, venue_for
    from referee.ladder import Sprt, load, run_ladder
    from referee.ladder.config import Launch, clocked
    from referee.ladder.store import reporting_store_failures
    from referee.ladder.workers import WorkerVenue
    from referee.match.bounds import concurrency_problem
    from referee.web import run_ladder_with_site

    with user_errors():
        if web is None and (tls_cert is not None or tls_key is not None or insecure):
            raise CroupierError("--tls-cert, --tls-key and --insecure are for --web's site")
        site = web_settings(web, tls_cert, tls_key, insecure) if web is not None else None
        if concurrency is not None:
            within("--concurrency", concurrency, concurrency_problem)
        config = load(ladder)
        config = replace(
            config,
            database=database if database is not None else config.database,
            records=records_for(records, database, config.records),
            concurrency=concurrency if concurrency is not None else config.concurrency,
            sandbox=sandbox if sandbox is not None else config.sandbox,
        )
        if clock is not None or ceiling_factor is not None:
            config = clocked(config, clock or config.time_control.clock, ceiling_factor)
        if limit:
            overrides = limit_pairs(limit)
            bots = tuple(
                replace(bot, limits=bot.limits.merged(overrides, "--limit")) for bot in config.bots
            )
            config = replace(config, bots=bots)
        config = on_cluster(config, cluster)
        processes = 1
        if config.cluster is not None and config.cluster.scheduler:
            if workers is not None:
                raise CroupierError(
                    "--workers is for this machine's cores: on a Dask cluster the workers' "
                    "threads decide how many matches run at once (drop --workers, or play "
                    "here: no --cluster nor [cluster] scheduler)"
                )
            where = f"on the Dask cluster at {config.cluster.scheduler}"
            console.print(where, markup=False, highlight=False, soft_wrap=True)
        else:
            workers = workers if workers is not None else config.workers  # the flag wins
            if workers is not None or config.launch is not Launch.SHARED:
                # by default, launch = "shared" (one process per bot) keeps every match here
                processes = worker_count(workers, config.concurrency)
        if processes > 1:
            console.print(
                f"{processes} referee processes for {config.concurrency} matches at once",
                markup=False,
                highlight=False,
            )
        test = Sprt(*sprt, on=str(sprt_on)) if sprt is not None else None
        display = Display(live and errors.is_terminal, sprt=test is not None)
        over: list[Summary] = []

        def site_listening(url: str) -> None:
            console.print(f"ladder web site on {url}", markup=False, highlight=False)

        def site_stays(summary: Summary) -> None:
            over.append(summary)
            display.stop()
            _print_summary(summary, config)
            console.print(
                "ladder over: its web site stays up until Ctrl-C", markup=False, highlight=False
            )

        try:
            with reporting_store_failures(config.database):
                venue = venue_for(config) if processes == 1 else WorkerVenue(processes)
                if site is None:
                    summary = transport.run(run_ladder, config, test, display, venue)
                else:
                    summary = transport.run(
                        run_ladder_with_site,
                        site,
                        site_listening,
                        config,
                        test,
                        display,
                        venue,
                        site_stays if keep_web else None,
                    )
        except KeyboardInterrupt:
            if over:  # Ctrl-C while the site stayed up after the ladder: done
                return
            display.stop()
            again = ["croupier", "ladder", "run", str(ladder)]
            given: dict[str, object] = {"--database": database, "--records": records}
            given |= {"--cluster": cluster, "--concurrency": concurrency, "--workers": workers}
            given |= {"--web": web, "--tls-cert": tls_cert, "--tls-key": tls_key}
            again += [part for flag, value in given.items() if value for part in (flag, str(value))]
            again += [part for pair in limit or [] for part in ("--limit", pair)]
            again += ["--sprt", *(f"{value:g}" for value in sprt)] if sprt else []
            again += ["--sprt-on", str(sprt_on)] if sprt and sprt_on is not SprtOn.SCORE else []
            switches = {"--insecure": insecure, "--no-live": not live}
            switches |= {"--no-keep-web": web is not None and not keep_web}
            switches |= {"--sandbox": sandbox is True, "--no-sandbox": sandbox is False}
            again += [flag for flag, on in switches.items() if on]
            errors.print(
                "interrupted: every finished match is in the database "
                f"({display.done} of {display.total} in {str(config.database)!r}); resume with: "
                f"{shlex.join(again)}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(EXIT_INTERRUPTED) from None
        finally:
            display.stop()
    if not over:
        _print_summary(summary, config)


def _print_summary(summary: Summary, config: LadderConfig) -> None:
    from referee.ladder.standings import footer, margin_table, table

    console.print(table(summary.standings))
    if (margins := margin_table(summary.standings)) is not None:
        console.print(margins)
    for line in footer(summary.standings):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print(f"database: {config.database}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"records: {config.records}/", markup=False, highlight=False, soft_wrap=True)


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
    database: Annotated[Path, typer.Argument(help="A ladder database (SQLite).")],
    format: Annotated[
        OutputFormat, typer.Option("--format", help="table for people; json or csv to export.")
    ] = OutputFormat.TABLE,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="A contest's whole field: also the rows of hosted versions their accounts no "
            "longer play (retired), ranked with the rest. Without it, each account's active "
            "version and the bots that connect by themselves, ranked among themselves.",
        ),
    ] = False,
    versions: Annotated[
        Path | None,
        typer.Option(
            "--versions",
            help="A contest's folder of hosted versions (default: versions/ beside the database).",
        ),
    ] = None,
    head_to_head: Annotated[
        bool,
        typer.Option(
            "--head-to-head",
            help="With --format csv: one row per pair of bots that met (score, its 95% "
            "interval, margin) instead of one per bot. The table shows the matrix under the "
            f"standings up to {MATRIX_BOTS} bots, with this flag however many; the JSON holds "
            "it as head_to_head either way.",
        ),
    ] = False,
    reference: Annotated[
        str | None,
        typer.Option(
            "--reference",
            metavar="BOT",
            help="Show ratings as differences from BOT's (0), each interval that of the "
            "difference: a gauntlet's view, which a newcomer does not widen.",
        ),
    ] = None,
) -> None:
    """Print a ladder's or a contest's standings (finished or still running), and its
    head-to-head matrix: each bot's score against each other, marked where Holm's test over
    all pairs finds it uneven."""
    from referee.contest.tokens import revoked_accounts
    from referee.hosted import current
    from referee.hosted.store import beside, read_listing
    from referee.ladder import standings_of
    from referee.ladder.head_to_head import LEGEND
    from referee.ladder.standings import (
        footer,
        head_to_head_csv,
        head_to_head_table,
        margin_table,
        table,
        to_csv,
    )
    from referee.ladder.store import reporting_store_failures

    with user_errors(), reporting_store_failures(database):
        if versions is not None and not versions.is_dir():
            raise CroupierError(f"no versions folder {str(versions)!r}")
        standings = standings_of(database, reference=reference)
        listing = read_listing(versions or beside(database))
    shown = current.shown(standings, listing, everything=everything)
    retired = current.split(standings, listing).retired
    if format is OutputFormat.JSON:
        data = current.to_dict(standings, listing, everything=everything)
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
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)


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
    from referee.ladder import verify_ladder
    from referee.ladder.store import reporting_store_failures
    from referee.ladder.verify import default_cache

    with user_errors(), reporting_store_failures(database), progress("verifying") as done:
        check = verify_ladder(
            database,
            replay=replay,
            on_record=done,
            workers=workers,
            cache=default_cache() if cache else None,
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
    from referee.ladder.report import write_report
    from referee.ladder.store import reporting_store_failures

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


def records_for(records: Path | None, database: Path | None, configured: Path) -> Path:
    """Where a run's records go: --records, else beside a --database of its own (each database
    its own folder: two sharing one would overwrite each other's records), else the file's."""
    if records is not None:
        return records
    if database is not None:
        return database.with_name(f"{database.stem}-records")
    return configured
