"""The contest's commands besides `croupier serve` (referee.cli.serve): `croupier token ...`
and `croupier contest final`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.consoles import console, user_errors
from referee.cli.epilog import DONE, epilog
from referee.errors import CroupierError

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
