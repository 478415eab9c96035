"""`croupier ladder run`: the options (applied and checked by referee.ladder.overrides), the
live display, the optional web site, and the resume line an interrupted run prints."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.bot_limits import LIMIT_HELP, SANDBOX_HELP, limit_pairs
from referee.cli.consoles import console, errors, user_errors
from referee.cli.options import WORKERS_HELP, CeilingFactor
from referee.cli.resume import given_again
from referee.cli.web_settings import web_settings
from referee.clock_kind import ClockKind
from referee.errors import CroupierError

if TYPE_CHECKING:
    from referee.cli.ladder_display import Display
    from referee.ladder import Sprt, Summary
    from referee.ladder.config import LadderConfig
    from referee.ladder.venue import Venue
    from referee.web import WebSettings

#: The shell's code for a run stopped by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


class SprtOn(StrEnum):
    """What `--sprt` tests (referee.ratings.fits.SPRT_ON)."""

    SCORE = "score"
    MARGIN = "margin"
    CORRECTED = "corrected"


LadderFile = Annotated[Path, typer.Argument(help="The ladder file (TOML); see docs/ladders.md.")]
SprtBounds = Annotated[
    tuple[float, float, float, float] | None,
    typer.Option(
        metavar="ELO0 ELO1 ALPHA BETA",
        help="A-against-B test of the first bot against the second: stop as soon as the "
        "SPRT accepts elo <= ELO0 or elo >= ELO1 (error rates ALPHA, BETA).",
    ),
]
SprtTests = Annotated[
    SprtOn,
    typer.Option(
        help="What the SPRT tests: the match score (ELO0, ELO1 in Elo), or the mean point "
        "margin, raw or corrected for luck (ELO0, ELO1 in points).",
    ),
]
Database = Annotated[
    Path | None,
    typer.Option(
        help="Use this database instead of the file's `database` (its records then go to "
        "DATABASE's folder, `<name>-records`, unless --records says where)."
    ),
]
Records = Annotated[
    Path | None, typer.Option(help="Put records here instead of the file's `records`.")
]
Concurrency = Annotated[
    int | None, typer.Option(min=1, help="Matches at once (overrides `concurrency`).")
]
Workers = Annotated[
    int | None,
    typer.Option(
        help=WORKERS_HELP + ' Not with --cluster. The default is 1 with launch = "shared" '
        "(one process per bot); given, each worker launches its own.",
        show_default=False,
    ),
]
Live = Annotated[
    bool, typer.Option(help="Show the progress bar and live standings (on a terminal).")
]
Cluster = Annotated[
    str | None,
    typer.Option(
        metavar="tcp://SCHEDULER:8786",
        help="Play the matches on this Dask cluster (overrides [cluster] scheduler).",
    ),
]
Sandbox = Annotated[
    bool | None, typer.Option(help=SANDBOX_HELP + " Overrides the file's `sandbox`.")
]
Limit = Annotated[list[str] | None, typer.Option(help=LIMIT_HELP + " Overrides the file's limits.")]
Clock = Annotated[
    ClockKind | None,
    typer.Option(
        help="What measures a bot's time (overrides [time_control] clock): wall, or cpu "
        "(the CPU time its processes used, however busy the machine; docs/ladders.md)."
    ),
]
Web = Annotated[
    str | None,
    typer.Option(
        metavar="HOST:PORT",
        help="Also serve the ladder's web site here, from this process: live standings, "
        "matches to watch as they are played (public view), bot pages, replays, records, "
        "the seed once revealed (port 0: any free port). Off loopback it needs --tls-cert "
        "and --tls-key (or --insecure). On a Dask cluster: no live matches, the rest as "
        "here.",
    ),
]
KeepWeb = Annotated[
    bool,
    typer.Option(
        help="With --web: once the ladder is over, keep its site up (final standings, "
        "revealed seed) until Ctrl-C or SIGTERM, then exit 0. --no-keep-web exits at once."
    ),
]
TlsCert = Annotated[
    Path | None, typer.Option(help="PEM certificate chain: the web site speaks HTTPS.")
]
TlsKey = Annotated[Path | None, typer.Option(help="PEM private key for --tls-cert.")]
Insecure = Annotated[
    bool, typer.Option(help="Allow a plaintext web site on an address other than loopback.")
]


def run_command(
    ctx: typer.Context,
    ladder: LadderFile,
    sprt: SprtBounds = None,
    sprt_on: SprtTests = SprtOn.SCORE,
    database: Database = None,
    records: Records = None,
    concurrency: Concurrency = None,
    workers: Workers = None,
    live: Live = True,
    cluster: Cluster = None,
    sandbox: Sandbox = None,
    limit: Limit = None,
    clock: Clock = None,
    ceiling_factor: CeilingFactor = None,
    web: Web = None,
    keep_web: KeepWeb = True,
    tls_cert: TlsCert = None,
    tls_key: TlsKey = None,
    insecure: Insecure = False,
) -> None:
    """Run a ladder, or resume it from its database; print the standings and reveal the seed.

    With --web the ladder's web site is served while it runs and, unless --no-keep-web, after
    it ends until Ctrl-C (see docs/ladders.md, "The web site").
    """
    from referee.cli.ladder_display import Display
    from referee.cluster import on_cluster, venue_for
    from referee.ladder import Sprt, load
    from referee.ladder.overrides import LadderOverrides
    from referee.ladder.process_venue import ProcessVenue

    with user_errors():
        if web is None and (tls_cert is not None or tls_key is not None or insecure):
            raise CroupierError("--tls-cert, --tls-key and --insecure are for --web's site")
        site = web_settings(web, tls_cert, tls_key, insecure) if web is not None else None
        overrides = LadderOverrides(
            database=database,
            records=records,
            concurrency=concurrency,
            workers=workers,
            sandbox=sandbox,
            limits=limit_pairs(limit or []),
            clock=clock,
            ceiling_factor=ceiling_factor,
        )
        config = on_cluster(overrides.applied(load(ladder)), cluster)
        processes = overrides.processes(config)
        if config.placement.cluster is not None and config.placement.cluster.scheduler:
            where = f"on the Dask cluster at {config.placement.cluster.scheduler}"
            console.print(where, markup=False, highlight=False, soft_wrap=True)
        elif processes > 1:
            console.print(
                f"{processes} referee processes for {config.placement.concurrency} matches at once",
                markup=False,
                highlight=False,
            )
        test = Sprt(*sprt, on=str(sprt_on)) if sprt is not None else None
        display = Display(live and errors.is_terminal, sprt=test is not None)
        venue = venue_for(config) if processes == 1 else ProcessVenue(processes)
        _run(ctx, config, test, display, venue, site, keep_web)


def _run(
    ctx: typer.Context,
    config: LadderConfig,
    test: Sprt | None,
    display: Display,
    venue: Venue | None,
    site: WebSettings | None,
    keep_web: bool,
) -> None:
    """Play the ladder (with its site), print its standings; on Ctrl-C, how to resume."""
    from referee import transport
    from referee.ladder import run_ladder
    from referee.results.database import reporting_store_failures
    from referee.web import run_ladder_with_site

    over: list[Summary] = []

    def site_listening(url: str) -> None:
        console.print(f"ladder web site on {url}", markup=False, highlight=False)

    def site_stays(summary: Summary) -> None:
        over.append(summary)
        display.stop()
        print_summary(summary, config)
        console.print(
            "ladder over: its web site stays up until Ctrl-C", markup=False, highlight=False
        )

    try:
        with reporting_store_failures(config.placement.database):
            if site is None:
                summary = transport.run(run_ladder, config, test, display, venue)
            else:
                stays = site_stays if keep_web else None
                summary = transport.run(
                    run_ladder_with_site, site, site_listening, config, test, display, venue, stays
                )
    except KeyboardInterrupt:
        if over:  # Ctrl-C while the site stayed up after the ladder: done
            return
        display.stop()
        errors.print(
            "interrupted: every finished match is in the database "
            f"({display.done} of {display.total} in {str(config.placement.database)!r}); "
            f"resume with: {given_again(ctx)}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        display.stop()
    if not over:
        print_summary(summary, config)


def print_summary(summary: Summary, config: LadderConfig) -> None:
    from referee.ratings.standings import footer, margin_table, table

    console.print(table(summary.standings))
    if (margins := margin_table(summary.standings)) is not None:
        console.print(margins)
    for line in footer(summary.standings):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"database: {config.placement.database}", markup=False, highlight=False, soft_wrap=True
    )
    console.print(
        f"records: {config.placement.records}/", markup=False, highlight=False, soft_wrap=True
    )
