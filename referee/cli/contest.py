"""The contest commands: `croupier serve`, `croupier token ...` and `croupier watch`."""

from __future__ import annotations

import functools
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.consoles import console, user_errors
from referee.cli.epilog import DONE, epilog
from referee.cli.options import (
    BankMs,
    CeilingFactor,
    Clock,
    MoveMs,
    option_pairs,
    time_control,
)
from referee.cli.seeds import announce_seed, reveal_seed
from referee.cli.web_settings import LOOPBACK, web_settings
from referee.clock_kind import ClockKind
from referee.errors import CroupierError
from referee.text import named

if TYPE_CHECKING:
    from referee.hosted.submitting import Quotas
    from referee.match.runner import MatchOutcome

DEFAULT_DB = Path("croupier.db")

token_app = typer.Typer(help="Bot accounts: a name and a secret token (only its hash is kept).")
TokenDb = Annotated[Path, typer.Option("--db", help="The contest's SQLite database.")]


@token_app.command(
    "add",
    epilog=epilog(
        [
            "croupier token add alice --db contest.db",
            "croupier token add alice bob carol --db contest.db > tokens.tsv",
            "croupier token add --from students.txt --db contest.db > tokens.tsv",
        ],
        DONE,
    ),
)
def token_add(
    names: Annotated[
        list[str] | None, typer.Argument(metavar="NAME", help="The accounts' names.")
    ] = None,
    db: TokenDb = DEFAULT_DB,
    source: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="FILE",
            help="Names from this file too, one a line ('#' starts a comment); '-': stdin.",
        ),
    ] = None,
) -> None:
    """Create accounts and print their tokens (shown this once only): one name prints its token
    alone, several print a line `NAME<TAB>TOKEN` each. All or none: a bad or taken name adds
    no account."""
    from referee.contest.tokens import TokenStore

    with user_errors():
        wanted = [*(names or []), *(_names_from(source) if source is not None else [])]
        if not wanted:
            raise CroupierError("give the accounts' names, or --from FILE")
        added = TokenStore(db).add_many(wanted)
    if names and len(names) == 1 and source is None:
        console.print(added[0][1], markup=False, highlight=False)
        return
    for name, token in added:
        typer.echo(f"{name}\t{token}")  # a real tab, which rich would expand to spaces


def _names_from(source: Path) -> list[str]:
    """The names in a file (or stdin for '-'), one a line, blank lines and comments skipped."""
    text = sys.stdin.read() if str(source) == "-" else source.read_text()
    return [kept for line in text.splitlines() if (kept := line.split("#", 1)[0].strip())]


@token_app.command("list", epilog=epilog(["croupier token list --db contest.db"], DONE))
def token_list(db: TokenDb = DEFAULT_DB) -> None:
    """List the accounts (never the tokens)."""
    from rich.table import Table

    from referee.contest.tokens import TokenStore

    with user_errors():
        accounts = TokenStore(db, create=False).accounts()
    table = Table(title="bot accounts")
    for column in ("bot", "created", "revoked"):
        table.add_column(column)
    for account in accounts:
        table.add_row(account.name, account.created_at, account.revoked_at or "-")
    console.print(table)


@token_app.command("revoke", epilog=epilog(["croupier token revoke alice --db contest.db"], DONE))
def token_revoke(name: str, db: TokenDb = DEFAULT_DB) -> None:
    """Revoke an account's token; a running referee drops its sessions at once."""
    from referee.contest.tokens import TokenStore

    with user_errors():
        TokenStore(db, create=False).revoke(name)
    console.print(f"revoked {name}", markup=False)


def serve_command(
    ctx: typer.Context,
    contest: Annotated[
        Path | None,
        typer.Argument(help="A contest file (TOML) with these settings; see docs/contest.md."),
    ] = None,
    game: Annotated[str, typer.Option(help="Game id to play (see `croupier games`).")] = "xix",
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free port).")] = 50051,
    tokens: Annotated[
        Path | None,
        typer.Option("--db", help="Accounts database (croupier token add); default: any token."),
    ] = None,
    versions: Annotated[
        Path | None,
        typer.Option(
            help="With --db: the folder of hosted bots' versions (default: versions/ beside the "
            "database)."
        ),
    ] = None,
    runtime: Annotated[
        Path | None,
        typer.Option(
            help="With --db: a folder every hosted bot's build and run sees read-only, as "
            "CROUPIER_RUNTIME (the protos, the SDKs, a virtualenv); see docs/bots.md."
        ),
    ] = None,
    submissions_per_hour: Annotated[
        int | None,
        typer.Option(min=1, help="With --db: uploads an account may begin in an hour [20]."),
    ] = None,
    max_upload_mb: Annotated[
        int | None, typer.Option(min=1, help="With --db: an upload's largest size, MiB [64].")
    ] = None,
    versions_kept: Annotated[
        int | None,
        typer.Option(
            min=1, help="With --db: versions an account may keep, withdrawn ones aside [50]."
        ),
    ] = None,
    hosted_slots: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="With --db: matches with hosted bots at once, each on cores of its own "
            "[the cores / the seats].",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            metavar="tcp://HOST:PORT",
            help="With --db: a Dask scheduler whose workers play the hosted bots against each "
            "other (network bots play here); see docs/contest.md.",
        ),
    ] = None,
    freeze_submissions: Annotated[
        bool,
        typer.Option(
            help="With --db: refuse uploads and withdrawals (FAILED_PRECONDITION); the active "
            "versions play on, and authors may still list them and read their logs."
        ),
    ] = False,
    tls_cert: Annotated[Path | None, typer.Option(help="PEM certificate chain for TLS.")] = None,
    tls_key: Annotated[Path | None, typer.Option(help="PEM private key for TLS.")] = None,
    insecure: Annotated[
        bool, typer.Option(help="Allow plaintext on an address other than loopback.")
    ] = False,
    records: Annotated[Path | None, typer.Option(help="Folder for the match records.")] = None,
    matches: Annotated[
        int | None, typer.Option(min=1, help="Stop after this many matches (default: never).")
    ] = None,
    move_ms: MoveMs = 1000,
    bank_ms: BankMs = 10_000,
    clock: Clock = ClockKind.WALL,
    ceiling_factor: CeilingFactor = None,
    seed: Annotated[
        str | None,
        typer.Option(
            help="Master seed, for a reproducible run (default: a fresh secret one, revealed at "
            "the end); each match's seed is keyed by it. Ignored with --db (the contest's own)."
        ),
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option(metavar="NAME=VALUE", help="A game option; repeatable.")
    ] = None,
    max_faults: Annotated[int, typer.Option(min=1, help="Faults before a seat is retired.")] = 3,
    reconnect_grace: Annotated[
        float, typer.Option(min=0, help="Seconds a bot may take to reconnect mid-match.")
    ] = 10.0,
    max_sessions_per_token: Annotated[
        int, typer.Option(min=1, help="Sessions one account may hold open at once.")
    ] = 16,
    max_matches_per_session: Annotated[
        int | None,
        typer.Option(min=1, help="Matches a session plays before it is ended (default: no limit)."),
    ] = None,
    max_messages_per_second: Annotated[
        float,
        typer.Option(
            min=1, help="Messages a stream may send per second on average; past it, it is ended."
        ),
    ] = 1000.0,
    max_message_bytes: Annotated[
        int, typer.Option(min=1024, help="Largest message a bot may send, in bytes.")
    ] = 64 * 1024,
    drain_seconds: Annotated[
        float, typer.Option(min=0, help="On SIGINT/SIGTERM, time given to running matches.")
    ] = 30.0,
    max_lead: Annotated[
        int,
        typer.Option(
            min=1,
            help="With --db: matches a bot may play ahead of the slowest connected bot "
            "(faster bots wait for it).",
        ),
    ] = 2,
    log_json: Annotated[bool, typer.Option(help="Log connections and faults as JSON lines.")] = (
        False
    ),
    web: Annotated[
        str | None,
        typer.Option(
            metavar="HOST:PORT",
            help="Also serve the contest's web site here (standings, live matches, replays); "
            "needs --db. TLS, loopback and --insecure as for the referee.",
        ),
    ] = None,
) -> None:
    """Listen for bots and play matches among whichever are idle, printing each result.

    With --db (or a contest file) it is a contest: accounts, standings and history in that
    database (see `croupier ladder standings DB`), every bot playing about as often as the
    slowest, each against the ones it met least.
    """
    from referee import transport
    from referee.cli.logs import configure_logging
    from referee.contest import file as contest_file
    from referee.contest.serving import ServeConfig, serve_matches
    from referee.contest.tokens import TokenStore
    from referee.games import get_game
    from referee.games.base import parse_options
    from referee.match.luck import value_digest
    from referee.transport import ServerSettings
    from referee.web import serve_site

    given = {  # what the command line says, over the contest file's and the database's
        name: value
        for name, value in ctx.params.items()
        if _on_command_line(ctx, name) and name != "contest"
    }
    if contest is not None:
        with user_errors():
            settings = contest_file.load(contest)
        serve_command(ctx, **{**ctx.params, **settings, **given, "contest": None})
        return
    with user_errors():
        if tokens is not None and "game" not in given and "option" not in given:
            game, option = database_game(tokens, game, option)
        control = time_control(move_ms, bank_ms, ClockKind(clock), ceiling_factor)
        chosen = get_game(game)
        if (tls_cert is None) != (tls_key is None):
            raise CroupierError("give both --tls-cert and --tls-key, or neither")
        if tls_cert is None and host not in LOOPBACK and not insecure:
            raise CroupierError(
                f"refusing plaintext on {host!r}: give --tls-cert/--tls-key (or --insecure)"
            )
        if tokens is None and host not in LOOPBACK:
            raise CroupierError(f"refusing to accept any token on {host!r}: give --db")
        for path in (tls_cert, tls_key):
            if path is not None and not path.is_file():
                raise CroupierError(f"no such file {str(path)!r}")
        site = web_settings(web, tls_cert, tls_key, insecure) if web is not None else None
        if site is not None and tokens is None:
            raise CroupierError("--web shows a contest: give --db too")
        if versions is not None and tokens is None:
            raise CroupierError("--versions keeps hosted bots of a contest: give --db too")
        if freeze_submissions and tokens is None:
            raise CroupierError("--freeze-submissions freezes a contest's uploads: give --db too")
        if cluster is not None:
            from referee.cluster import require_dask
            from referee.ladder.config import check_scheduler

            if tokens is None:
                raise CroupierError("--cluster plays a contest's hosted bots: give --db too")
            if problem := check_scheduler(cluster):
                raise CroupierError(f"--cluster {cluster!r}: {problem}")
            require_dask()
        if runtime is not None and tokens is None:
            raise CroupierError("--runtime is for hosted bots of a contest: give --db too")
        if runtime is not None and not runtime.is_dir():
            raise CroupierError(f"--runtime: no such folder {str(runtime)!r}")
        if runtime is not None and tokens is not None:
            shown = runtime.resolve()
            for secret in (tokens.resolve(), (versions or tokens.parent / "versions").resolve()):
                if secret.is_relative_to(shown) or shown.is_relative_to(secret):
                    raise CroupierError(
                        f"--runtime {str(runtime)!r} would show {str(secret)!r} to every bot: "
                        "keep the runtime folder apart from the database and the versions"
                    )
        if max_lead < 1:  # a contest file's value is not checked by the option
            raise CroupierError(f"max_lead must be at least 1, got {max_lead!r}")
        if tokens is not None:
            TokenStore(tokens, create=False)  # a mistyped --db must not start an empty contest
        configure_logging(json_lines=log_json)
        # A contest (--db) keeps its own master seed in its database; a plain referee draws one.
        master = announce_seed(seed) if tokens is None else ""
        config = ServeConfig(
            game=chosen,
            options=parse_options(chosen, option_pairs(option or [], None)),
            settings=ServerSettings(
                host=host,
                port=port,
                tls_cert=tls_cert,
                tls_key=tls_key,
                max_sessions_per_token=max_sessions_per_token,
                max_messages_per_second=max_messages_per_second,
                max_receive_bytes=max_message_bytes,
            ),
            tokens=tokens,
            versions=versions,
            quotas=quotas(submissions_per_hour, max_upload_mb, versions_kept),
            freeze_submissions=freeze_submissions,
            runtime=runtime.resolve() if runtime is not None else None,
            records=records,
            time_control=control,
            seed=master,
            matches=matches,
            max_faults=max_faults,
            reconnect_grace=reconnect_grace,
            max_matches_per_session=max_matches_per_session,
            drain_seconds=drain_seconds,
            max_lead=max_lead,
            hosted_slots=hosted_slots,
            cluster=cluster,
        )

        def listening(bound: int) -> None:
            if tokens is not None:  # the contest's own seed, committed to when it was made
                sha256 = contest_meta(tokens, "seed_sha256")
                console.print(f"master seed sha256: {sha256}", markup=False, soft_wrap=True)
            scheme = "TLS" if tls_cert else "plaintext"
            console.print(f"croupier referee for {game} on {host}:{bound} ({scheme})", markup=False)
            # Committed to with the seed; after the address line, which scripts read as line 2.
            if digest := value_digest(game):
                console.print(f"luck value function: {digest}", markup=False, soft_wrap=True)

        def finished(outcome: MatchOutcome) -> None:
            names = [seat.name for seat in outcome.result.seats]
            console.print(f"{outcome.match_id}: {named(outcome.result.text, names)}", markup=False)

        def site_listening(url: str) -> None:
            console.print(f"contest web site on {url}", markup=False)

        companion = (
            functools.partial(serve_site, site, site_listening) if site is not None else None
        )
        # SIGINT, like SIGTERM, drains the matches and ends with exit 0 (serve_matches).
        run = functools.partial(transport.run, interruptible=False)
        run(serve_matches, config, listening, finished, None, companion)
        if tokens is None:
            reveal_seed(master, given=seed is not None)
        elif contest_meta(tokens, "revealed") == "1":  # over, not stopped: it may resume
            revealed = contest_meta(tokens, "master_seed")
            console.print(f"master seed: {revealed}", markup=False, soft_wrap=True)
    logging.shutdown()


contest_app = typer.Typer(help="A contest's rounds (the database `croupier serve --db` plays).")


@contest_app.command(
    "final",
    epilog=epilog(
        [
            "croupier contest final contest.db --into final/contest.db && "
            "croupier serve --db final/contest.db --matches 1000"
        ],
        DONE,
    ),
)
def contest_final(
    database: Annotated[Path, typer.Argument(help="The contest's database (left untouched).")],
    into: Annotated[
        Path, typer.Option(help="The final round's new database, in a folder of its own.")
    ],
    versions: Annotated[
        Path | None,
        typer.Option(help="The contest's versions folder (default: versions/ beside it)."),
    ] = None,
) -> None:
    """Make the final round: the accounts and their active versions, frozen, from no ratings.

    The new database has the same accounts (and tokens), each account's active version as it
    qualified (copied, not built again), no match and no rating, and its submissions frozen for
    good; `croupier serve --db` on it plays the final. The contest's own database, records and
    versions are only read. Freeze or stop it first.
    """
    from referee.contest.final import final_round

    with user_errors():
        made = final_round(database, into, source_versions=versions)
    console.print(
        f"final round in {made.database}: {made.accounts} accounts, {len(made.active)} active "
        f"versions in {made.versions}, submissions frozen",
        markup=False,
    )
    for version in made.active:
        console.print(f"  {version.account}: {version.id[:12]}", markup=False)
    for path in made.left_out:
        console.print(
            f"  left out {path}: no folder, file or link (an older build's)", markup=False
        )
    console.print(f"play it: croupier serve --db {made.database}", markup=False)


def _on_command_line(ctx: typer.Context, name: str) -> bool:
    """Whether the parameter `name` was given on the command line (not a default). By the
    source's name: typer keeps its own copy of click's ParameterSource."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def database_game(
    database: Path, game: str, option: list[str] | None
) -> tuple[str, list[str] | None]:
    """The game and options a contest database was made for (a final round's are its
    contest's), where the command line names none; `game` and `option` for a database that
    holds no contest yet (or none at all: the serve then says so)."""
    from referee.contest.book import contest_game

    if not database.is_file():
        return game, option
    try:
        made = contest_game(database)
    except CroupierError:
        return game, option  # not a contest database: the serve says so
    if made is None:
        return game, option
    return made[0], [f"{name}={value}" for name, value in sorted(made[1].items())]


def quotas(per_hour: int | None, upload_mb: int | None, kept: int | None) -> Quotas:
    """The authors' quotas: those given, the defaults for the rest."""
    from referee.hosted.submitting import Quotas

    given = {"submissions_per_hour": per_hour, "versions_kept": kept}
    if upload_mb is not None:
        given["upload_bytes"] = upload_mb * 1024 * 1024
    return Quotas(**{key: value for key, value in given.items() if value is not None})


def contest_meta(database: Path, key: str) -> str | None:
    """One meta value of a contest's database, read and let go."""
    from referee.ladder.store import Store

    store = Store(database, create=False)
    try:
        return store.meta(key)
    finally:
        store.close()
