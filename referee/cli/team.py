"""`croupier team`: a contest's team (its account) and its members, each with a token of their
own. A member speaks to the referee (--to, --token: only the leader adds or removes members);
the organiser reads and changes the database itself (--db, and --team to name the team).

Exit codes: 0 done, 2 bad input or a refusal (the referee's one line printed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from referee.cli.consoles import console, user_errors
from referee.cli.epilog import DONE, epilog
from referee.cli.submit import Ca, MaybeTo, MaybeToken, Tls
from referee.errors import CroupierError
from referee.text import printable

if TYPE_CHECKING:
    from referee.contest.tokens import TokenStore
    from referee.transport.client import Member

_T = TypeVar("_T")

team_app = typer.Typer(
    help="A contest's team: its leader and members, each with their own token (yours with "
    "--to and --token; any team's with --db, the organiser).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Db = Annotated[Path | None, typer.Option("--db", help="As the organiser: the contest's database.")]
TeamName = Annotated[
    str | None, typer.Option("--team", help="With --db: the team (its account's name).")
]
MemberName = Annotated[str, typer.Argument(help="The member's name (any printable text).")]


def _member_client(to: str, token: str, ca: Path | None, tls: bool) -> Member:
    from referee.transport.client import Member

    return Member(to, token, secure=tls or ca is not None, ca_file=ca)


def _where(to: str | None, token: str | None, db: Path | None, team: str | None) -> None:
    """Refuse a mix of the member's way (--to, --token) and the organiser's (--db, --team)."""
    if db is None:
        if team is not None:
            raise CroupierError("--team names a team of --db: give --db too")
        if to is None or token is None:
            raise CroupierError(
                "give --to HOST:PORT and --token (your team) or --db CONTEST.db --team TEAM "
                "(the organiser)"
            )
    elif to is not None:
        raise CroupierError("--db changes the database here, --to asks a referee: give one")


def _either(
    where: tuple[str | None, str | None, Path | None, bool, Path | None, str | None],
    organiser: Callable[[TokenStore, str], _T],
    member: Callable[[Member], _T],
) -> _T:
    """`member(client)` over the referee (--to, --token, --ca-file, --tls), or, for the
    organiser, `organiser(store, team)` on the database (--db, --team)."""
    to, token, ca, tls, db, team = where
    _where(to, token, db, team)
    if db is not None:
        if team is None:
            raise CroupierError("give --team TEAM with --db")
        from referee.contest.tokens import TokenStore

        return organiser(TokenStore(db, create=False), team)
    assert to is not None and token is not None
    with _member_client(to, token, ca, tls) as client:
        return member(client)


@team_app.command(
    "list",
    epilog=epilog(
        [
            "croupier team list --to contest.example.org:50051 --token $CROUPIER_TOKEN",
            "croupier team list --db contest.db",
        ],
        DONE,
    ),
)
def list_command(
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    tls: Tls = False,
    db: Db = None,
) -> None:
    """Your team's members, leader first; every team's with --db."""
    from rich.table import Table
    from rich.text import Text

    from referee.contest.tokens import TokenStore

    with user_errors():
        _where(to, token, db, None)
        rows: list[tuple[str, str, str, str]] = []
        if db is not None:
            for account in TokenStore(db, create=False).accounts():
                for member in account.members:
                    removed = member.removed_at or account.revoked_at or "-"
                    role = "leader" if member.leader else "member"
                    rows.append((account.name, member.name, role, removed))
        else:
            assert to is not None and token is not None
            with _member_client(to, token, ca, tls) as client:
                team = client.team()
            for sent in team.members:
                you = " (you)" if sent.name == team.you else ""
                role = "leader" if sent.leader else "member"
                rows.append((team.team, sent.name + you, role, "-"))
    table = Table("team", "member", "role", "removed")
    for row in rows:
        table.add_row(*(Text(printable(cell)) for cell in row))  # a name's "[b]" is text
    console.print(table)


@team_app.command(
    "add",
    epilog=epilog(
        [
            "croupier team add carol --to contest.example.org:50051 --token $LEADER_TOKEN",
            "croupier team add carol --team alice --db contest.db",
        ],
        DONE,
    ),
)
def add_command(
    name: MemberName,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    tls: Tls = False,
    db: Db = None,
    team: TeamName = None,
) -> None:
    """Add a member to your team (its leader only) and print their token, shown this once."""
    with user_errors():
        made = _either(
            (to, token, ca, tls, db, team),
            lambda store, team: store.add_member(team, name),
            lambda client: client.add(name).token,
        )
    console.print(made, markup=False, highlight=False)


@team_app.command(
    "remove",
    epilog=epilog(
        [
            "croupier team remove carol --to contest.example.org:50051 --token $LEADER_TOKEN",
            "croupier team remove carol --team alice --db contest.db",
        ],
        DONE,
    ),
)
def remove_command(
    name: MemberName,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    tls: Tls = False,
    db: Db = None,
    team: TeamName = None,
) -> None:
    """Remove a member of your team (its leader only): their token is refused at once, their
    open streams ended; the others' work on."""
    with user_errors():
        _either(
            (to, token, ca, tls, db, team),
            lambda store, team: store.remove_member(team, name),
            lambda client: client.remove(name),
        )
    console.print(f"removed {printable(name)}", markup=False, highlight=False)


@team_app.command(
    "rotate",
    epilog=epilog(
        [
            "croupier team rotate --to contest.example.org:50051 --token $CROUPIER_TOKEN",
            "croupier team rotate carol --team alice --db contest.db",
        ],
        DONE,
    ),
)
def rotate_command(
    name: Annotated[
        str | None,
        typer.Argument(help="Whose token (default: yours; another's: the leader only)."),
    ] = None,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    tls: Tls = False,
    db: Db = None,
    team: TeamName = None,
) -> None:
    """Replace a member's token and print the new one, shown this once; the old one is refused
    at once, its open streams ended."""

    def organiser(store: TokenStore, team: str) -> str:
        if name is None:
            raise CroupierError("give the member's name with --db")
        return store.rotate(team, name)

    with user_errors():
        made = _either(
            (to, token, ca, tls, db, team), organiser, lambda client: client.rotate(name or "")
        )
    console.print(made, markup=False, highlight=False)
