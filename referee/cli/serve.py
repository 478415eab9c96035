"""`croupier serve`: the options, laid over a contest file's (referee.contest.settings checks
them all together), and what the referee prints while it runs."""

from __future__ import annotations

import dataclasses
import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.consoles import console, user_errors
from referee.cli.options import BankMs, CeilingFactor, Clock, MoveMs
from referee.cli.seeds import announce_seed, reveal_seed
from referee.clock_kind import ClockKind
from referee.review.budgets import DEFAULT_BUDGET, MAX_BUDGET
from referee.text import named

if TYPE_CHECKING:
    from referee.contest.config import ServeConfig
    from referee.contest.settings import ServeSettings
    from referee.match.runner import MatchOutcome

_HOSTED = "With --db: "
ContestFile = Annotated[
    Path | None,
    typer.Argument(help="A contest file (TOML) with these settings; see docs/contest.md."),
]
Game = Annotated[
    str | None,
    typer.Option(help="Game id to play (see `croupier games`) [the database's, else xix]."),
]
Host = Annotated[str, typer.Option(help="Address to listen on.")]
Port = Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")]
Db = Annotated[
    Path | None,
    typer.Option("--db", help="Accounts database (croupier token add); default: any token."),
]
Versions = Annotated[
    Path | None,
    typer.Option(
        help=_HOSTED + "the folder of hosted bots' versions (default: versions/ beside the "
        "database)."
    ),
]
Runtime = Annotated[
    Path | None,
    typer.Option(
        help=_HOSTED + "a folder every hosted bot's build and run sees read-only, as "
        "CROUPIER_RUNTIME (the protos, the SDKs, a virtualenv); see docs/bots.md."
    ),
]
PerHour = Annotated[
    int | None, typer.Option(min=1, help=_HOSTED + "uploads an account may begin in an hour [20].")
]
UploadMb = Annotated[
    int | None, typer.Option(min=1, help=_HOSTED + "an upload's largest size, MiB [64].")
]
Kept = Annotated[
    int | None,
    typer.Option(min=1, help=_HOSTED + "versions an account may keep, withdrawn ones aside [50]."),
]
Slots = Annotated[
    int | None,
    typer.Option(
        min=1,
        help=_HOSTED + "matches with hosted bots at once, each on cores of its own "
        "[the cores / the seats].",
    ),
]
Cluster = Annotated[
    str | None,
    typer.Option(
        metavar="tcp://HOST:PORT",
        help=_HOSTED + "a Dask scheduler whose workers play the hosted bots against each "
        "other (network bots play here); see docs/contest.md.",
    ),
]
Freeze = Annotated[
    bool,
    typer.Option(
        help=_HOSTED + "refuse uploads and withdrawals (FAILED_PRECONDITION); the active "
        "versions play on, and authors may still list them and read their logs."
    ),
]
TlsCert = Annotated[Path | None, typer.Option(help="PEM certificate chain for TLS.")]
TlsKey = Annotated[Path | None, typer.Option(help="PEM private key for TLS.")]
Insecure = Annotated[bool, typer.Option(help="Allow plaintext on an address other than loopback.")]
Records = Annotated[Path | None, typer.Option(help="Folder for the match records.")]
Matches = Annotated[
    int | None, typer.Option(min=1, help="Stop after this many matches (default: never).")
]
Seed = Annotated[
    str | None,
    typer.Option(
        help="Master seed, for a reproducible run (default: a fresh secret one, revealed at "
        "the end); each match's seed is keyed by it. Ignored with --db (the contest's own)."
    ),
]
GameOption = Annotated[
    list[str] | None, typer.Option(metavar="NAME=VALUE", help="A game option; repeatable.")
]
MaxFaults = Annotated[int, typer.Option(min=1, help="Faults before a seat is retired.")]
Grace = Annotated[float, typer.Option(min=0, help="Seconds a bot may take to reconnect mid-match.")]
Sessions = Annotated[int, typer.Option(min=1, help="Sessions one account may hold open at once.")]
PerSession = Annotated[
    int | None,
    typer.Option(min=1, help="Matches a session plays before it is ended (default: no limit)."),
]
PerSecond = Annotated[
    float,
    typer.Option(
        min=1, help="Messages a stream may send per second on average; past it, it is ended."
    ),
]
MessageBytes = Annotated[
    int, typer.Option(min=1024, help="Largest message a bot may send, in bytes.")
]
Drain = Annotated[
    float, typer.Option(min=0, help="On SIGINT/SIGTERM, time given to running matches.")
]
MaxLead = Annotated[
    int,
    typer.Option(
        min=1,
        help=_HOSTED + "matches a bot may play ahead of the slowest connected bot "
        "(faster bots wait for it).",
    ),
]
TeamSize = Annotated[
    int,
    typer.Option(
        min=1, help="Members a team may have, its leader counted, as its leader adds them."
    ),
]
LogJson = Annotated[bool, typer.Option(help="Log connections and faults as JSON lines.")]
Web = Annotated[
    str | None,
    typer.Option(
        metavar="HOST:PORT",
        help="Also serve the contest's web site here (standings, live matches, replays); "
        "needs --db. TLS, loopback and --insecure as for the referee.",
    ),
]

ReviewBudget = Annotated[
    int,
    typer.Option(
        min=1,
        max=MAX_BUDGET,
        help="Playouts a decision of a review an author asks for on the site's desk "
        "(the default reviews an XIX match in under a minute on 2 cores).",
    ),
]


def serve_command(
    ctx: typer.Context,
    contest: ContestFile = None,
    game: Game = None,
    host: Host = "127.0.0.1",
    port: Port = 50051,
    tokens: Db = None,
    versions: Versions = None,
    runtime: Runtime = None,
    submissions_per_hour: PerHour = None,
    max_upload_mb: UploadMb = None,
    versions_kept: Kept = None,
    hosted_slots: Slots = None,
    cluster: Cluster = None,
    freeze_submissions: Freeze = False,
    tls_cert: TlsCert = None,
    tls_key: TlsKey = None,
    insecure: Insecure = False,
    records: Records = None,
    matches: Matches = None,
    move_ms: MoveMs = 1000,
    bank_ms: BankMs = 10_000,
    clock: Clock = ClockKind.WALL,
    ceiling_factor: CeilingFactor = None,
    seed: Seed = None,
    option: GameOption = None,
    max_faults: MaxFaults = 3,
    reconnect_grace: Grace = 10.0,
    max_sessions_per_token: Sessions = 16,
    max_matches_per_session: PerSession = None,
    max_messages_per_second: PerSecond = 1000.0,
    max_message_bytes: MessageBytes = 64 * 1024,
    drain_seconds: Drain = 30.0,
    max_lead: MaxLead = 2,
    max_team_size: TeamSize = 4,
    log_json: LogJson = False,
    web: Web = None,
    review_budget: ReviewBudget = DEFAULT_BUDGET,
) -> None:
    """Listen for bots and play matches among whichever are idle, printing each result.

    With --db (or a contest file) it is a contest: accounts, standings and history in that
    database (see `croupier ladder standings DB`), every bot playing about as often as the
    slowest, each against the ones it met least. A flag given beside a contest file wins.
    """
    from referee.cli.logs import configure_logging
    from referee.contest import file as contest_file
    from referee.contest.settings import ServeSettings

    given = {  # what the command line says, over the contest file's and the database's
        name: value
        for name, value in ctx.params.items()
        if name != "contest" and _on_command_line(ctx, name)
    }
    with user_errors():
        settings = ServeSettings()
        if contest is not None:
            settings = settings.over(contest_file.load(contest))
        settings = settings.over(given)
        config = settings.config("")  # checked before a seed is drawn and announced
        configure_logging(json_lines=settings.log_json)
        # A contest (--db) keeps its own master seed in its database; a plain referee draws one.
        master = announce_seed(settings.seed) if settings.tokens is None else ""
        _serve(settings, dataclasses.replace(config, seed=master))
    logging.shutdown()


def _serve(settings: ServeSettings, config: ServeConfig) -> None:
    """Run the referee (and its site) until it stops, printing its address, each result and,
    at the end, the master seed."""
    from referee import transport
    from referee.cli.web_settings import web_settings
    from referee.contest.serving import serve_matches
    from referee.match.luck import value_digest
    from referee.web import serve_site

    tokens = settings.tokens
    game = config.game.id

    def listening(bound: int) -> None:
        if tokens is not None:  # the contest's own seed, committed to when it was made
            sha256 = contest_meta(tokens, "seed_sha256")
            console.print(f"master seed sha256: {sha256}", markup=False, soft_wrap=True)
        scheme = "TLS" if settings.tls_cert else "plaintext"
        console.print(
            f"croupier referee for {game} on {settings.host}:{bound} ({scheme})", markup=False
        )
        # Committed to with the seed; after the address line, which scripts read as line 2.
        if digest := value_digest(game):
            console.print(f"luck value function: {digest}", markup=False, soft_wrap=True)

    def finished(outcome: MatchOutcome) -> None:
        names = [seat.name for seat in outcome.result.seats]
        console.print(f"{outcome.match_id}: {named(outcome.result.text, names)}", markup=False)

    def site_listening(url: str) -> None:
        console.print(f"contest web site on {url}", markup=False)

    companion = None
    if settings.web is not None:
        site = web_settings(settings.web, settings.tls_cert, settings.tls_key, settings.insecure)
        site = dataclasses.replace(site, review_budget=settings.review_budget)
        companion = functools.partial(serve_site, site, site_listening)
    # SIGINT, like SIGTERM, drains the matches and ends with exit 0 (serve_matches).
    run = functools.partial(transport.run, interruptible=False)
    run(serve_matches, config, listening, finished, None, companion)
    if tokens is None:
        reveal_seed(str(config.seed), given=settings.seed is not None)
    elif contest_meta(tokens, "revealed") == "1":  # over, not stopped: it may resume
        revealed = contest_meta(tokens, "master_seed")
        console.print(f"master seed: {revealed}", markup=False, soft_wrap=True)


def _on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the parameter `name` was given on the command line (not a default). By the
    source's name: typer keeps its own copy of click's ParameterSource."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def contest_meta(database: Path, key: str) -> str | None:
    """One meta value of a contest's database, read and let go."""
    from referee.results.database import Store

    store = Store(database, create=False)
    try:
        return store.meta(key)
    finally:
        store.close()
