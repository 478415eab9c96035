"""`croupier challenge`: an author tests a version against an opponent until a GSPRT decides
(docs/contest.md, "Challenges"), through the Challenges service.

`croupier challenge OPPONENT` asks one (`new` is the command's name: `croupier challenge new
list` challenges an account named `list`); `list`, `show`, `cancel`, `consent` and `answer`
read and answer them. Exit codes of `croupier challenge OPPONENT --wait` (and of `show` for an
ended one): 0 decided better (H1), 1 decided not better (H0), 3 undecided (the budget ran out, or
it ended for the reason printed), 2 refused (by the referee: the limit or rule printed; or by
the opponent) or bad input. Without --wait a stored challenge exits 0.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from referee.cli.consoles import (
    EXIT_BAD_INPUT,
    EXIT_CHECK_FAILED,
    Pace,
    console,
    errors,
    user_errors,
)
from referee.cli.epilog import epilog
from referee.cli.submit import Ca, Tls, To, Token
from referee.errors import CroupierError
from referee.text import printable

if TYPE_CHECKING:
    from croupier.v1 import challenges_pb2
    from referee.transport.client import Challenger

#: How often --wait asks how the challenge stands (seconds).
POLL_SECONDS = 0.5
#: `croupier challenge ... --wait`: decided undecided (neither bound crossed).
EXIT_UNDECIDED = 3
EXITS = {
    0: "decided better (H1 accepted); without --wait, the challenge is stored",
    EXIT_CHECK_FAILED: "decided not better (H0 accepted)",
    EXIT_BAD_INPUT: "refused (a limit or a rule, named; or by the opponent), or bad input",
    EXIT_UNDECIDED: "undecided: the budget ran out, or it ended for the reason printed",
}


class _NewByDefault(TyperGroup):
    """`croupier challenge OPPONENT ...` runs `new`: a first word that names no command is the
    opponent."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        # typer's own copy of click's Context (typer._click), as in referee.cli.resume
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["new", *args]
        return super().resolve_command(ctx, args)


challenge_app = typer.Typer(
    cls=_NewByDefault,
    help="Challenges: test a version against an opponent until the test decides; list, show, "
    "cancel them; consent to ranked ones.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

IdArg = Annotated[int, typer.Argument(help="The challenge's number (croupier challenge list).")]


def _challenger(to: str, token: str, ca: Path | None, tls: bool) -> Challenger:
    from referee.transport.client import Challenger

    return Challenger(to, token, secure=tls or ca is not None, ca_file=ca)


def state_name(challenge: challenges_pb2.Challenge) -> str:
    from croupier.v1 import challenges_pb2

    return challenges_pb2.ChallengeState.Name(challenge.state).removeprefix("CHALLENGE_STATE_")


def outcome_name(challenge: challenges_pb2.Challenge) -> str:
    from croupier.v1 import challenges_pb2

    name = challenges_pb2.ChallengeOutcome.Name(challenge.outcome)
    return name.removeprefix("CHALLENGE_OUTCOME_").lower().replace("_", "-")


def exit_code(challenge: challenges_pb2.Challenge) -> int:
    """The exit code an ended challenge gives (see EXITS)."""
    return {
        "better": 0,
        "not-better": EXIT_CHECK_FAILED,
        "refused": EXIT_BAD_INPUT,
    }.get(outcome_name(challenge), EXIT_UNDECIDED)


def describe(challenge: challenges_pb2.Challenge) -> str:
    head = f"challenge {challenge.id}: {challenge.challenger} vs {challenge.opponent}"
    ranked = "ranked" if challenge.ranked else "unranked"
    lines = [
        f"{head} ({ranked}, {challenge.deals} deals at most)",
        f"state: {state_name(challenge).lower()}"
        + (f", {outcome_name(challenge)}" if challenge.outcome else ""),
        f"reason: {printable(challenge.reason) or '-'}",
        f"test: {challenge.test_on} elo0 {challenge.elo0:g} elo1 {challenge.elo1:g} "
        f"alpha {challenge.alpha:g} beta {challenge.beta:g}",
        f"deals: {challenge.deals_played}, LLR {challenge.llr:.2f} "
        f"(bounds {challenge.lower:.2f}, {challenge.upper:.2f})",
    ]
    if challenge.summary:
        lines.append(f"result: {printable(challenge.summary)}")
    if challenge.match_ids:
        lines.append(f"matches: {', '.join(challenge.match_ids)}")
    return "\n".join(lines)


@challenge_app.command(
    "new",
    epilog=epilog(
        [
            "croupier challenge bob --to contest.example.org:50051 --token $T --wait",
            "croupier challenge alice@4e639b --version 9c1d2e --deals 100 --elo 0 10 --wait",
        ],
        EXITS,
    ),
)
def new_command(
    opponent: Annotated[
        str,
        typer.Argument(
            help="ACCOUNT (its active version) or ACCOUNT@VERSION (your own earlier version)."
        ),
    ],
    to: To,
    token: Token,
    version: Annotated[
        str | None, typer.Option("--version", help="Your version (default: the active one).")
    ] = None,
    ranked: Annotated[bool, typer.Option("--ranked", help="Count its matches.")] = False,
    deals: Annotated[
        int | None, typer.Option("--deals", min=1, help="Its budget (default: the contest's).")
    ] = None,
    elo: Annotated[
        tuple[float, float] | None,
        typer.Option("--elo", metavar="E0 E1", help="The test's H0 and H1 (Elo, or points)."),
    ] = None,
    wait: Annotated[bool, typer.Option("--wait", help="Wait for its end, and say how.")] = False,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """Challenge OPPONENT with one of your versions until the test decides."""
    from croupier.v1 import challenges_pb2

    request = challenges_pb2.CreateChallengeRequest(opponent=opponent, ranked=ranked)
    if version is not None:
        request.version = version
    if deals is not None:
        request.deals = deals
    if elo is not None:
        request.elo0, request.elo1 = elo
    with user_errors(), _challenger(to, token, ca, tls) as author:
        challenge = author.ask(request)
        console.print(describe(challenge), markup=False)
        if wait:
            challenge = _wait(author, challenge)
    if wait:
        console.print(describe(challenge), markup=False)
        raise typer.Exit(exit_code(challenge))


def _wait(author: Challenger, challenge: challenges_pb2.Challenge) -> challenges_pb2.Challenge:
    """Follow the challenge to its end: a bar of deals played with the LLR and its bounds (on
    a terminal), else a line now and then."""
    if errors.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        columns = (
            TextColumn("deals"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[llr]}"),
        )
        with Progress(*columns, console=errors, transient=True) as bar:
            task = bar.add_task("deals", total=challenge.deals, llr="")
            while state_name(challenge) != "ENDED":
                bar.update(task, completed=challenge.deals_played, llr=_llr(challenge))
                time.sleep(POLL_SECONDS)
                challenge = author.get(challenge.id)
        return challenge
    pace = Pace()
    while state_name(challenge) != "ENDED":
        if pace.due(challenge.deals_played, challenge.deals):
            line = f"deals {challenge.deals_played} of {challenge.deals}, {_llr(challenge)}"
            errors.print(line, markup=False, highlight=False)
        time.sleep(POLL_SECONDS)
        challenge = author.get(challenge.id)
    return challenge


def _llr(challenge: challenges_pb2.Challenge) -> str:
    return (
        f"LLR {challenge.llr:+.2f} in ({challenge.lower:.2f}, {challenge.upper:.2f}), "
        f"{state_name(challenge).lower()}"
    )


@challenge_app.command(
    "list", epilog=epilog(["croupier challenge list --to HOST:PORT --token $T"], EXITS)
)
def list_command(to: To, token: Token, ca: Ca = None, tls: Tls = False) -> None:
    """Your challenges and those asked of you, oldest first."""
    from rich.table import Table

    with user_errors(), _challenger(to, token, ca, tls) as author:
        listed = author.listed()
    table = Table("id", "challenger", "opponent", "ranked", "state", "deals", "LLR", "result")
    for c in listed:
        state = state_name(c).lower() + (f" ({outcome_name(c)})" if c.outcome else "")
        table.add_row(
            str(c.id),
            c.challenger,
            c.opponent,
            "yes" if c.ranked else "no",
            state,
            f"{c.deals_played}/{c.deals}",
            f"{c.llr:+.2f}",
            printable(c.summary or c.reason),
        )
    console.print(table)


@challenge_app.command(
    "show", epilog=epilog(["croupier challenge show 7 --to HOST:PORT --token $T"], EXITS)
)
def show_command(id: IdArg, to: To, token: Token, ca: Ca = None, tls: Tls = False) -> None:
    """One challenge as it stands; an ended one exits with its outcome's code."""
    with user_errors(), _challenger(to, token, ca, tls) as author:
        challenge = author.get(id)
    console.print(describe(challenge), markup=False)
    if state_name(challenge) == "ENDED":
        raise typer.Exit(exit_code(challenge))


@challenge_app.command(
    "cancel", epilog=epilog(["croupier challenge cancel 7 --to HOST:PORT --token $T"], EXITS)
)
def cancel_command(id: IdArg, to: To, token: Token, ca: Ca = None, tls: Tls = False) -> None:
    """End one of your challenges (after its current match, if one is being played)."""
    with user_errors(), _challenger(to, token, ca, tls) as author:
        challenge = author.cancel(id)
    console.print(describe(challenge), markup=False)


@challenge_app.command(
    "consent",
    epilog=epilog(["croupier challenge consent accept --to HOST:PORT --token $T"], EXITS),
)
def consent_command(
    answer: Annotated[
        str, typer.Argument(help="ask (the default), accept or refuse.", metavar="ANSWER")
    ],
    to: To,
    token: Token,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """What your account answers ranked challenges from a higher rating, from now on."""
    with user_errors():
        if answer not in ("ask", "accept", "refuse"):
            raise CroupierError(f"consent is one of ask, accept or refuse, not {answer!r}")
        with _challenger(to, token, ca, tls) as author:
            author.consent(answer)
    console.print(f"ranked challenges from above: {answer}", markup=False)


@challenge_app.command(
    "answer",
    epilog=epilog(["croupier challenge answer 7 --accept --to HOST:PORT --token $T"], EXITS),
)
def answer_command(
    id: IdArg,
    to: To,
    token: Token,
    accept: Annotated[
        bool, typer.Option("--accept/--refuse", help="Accept it, or refuse (withdraw) it.")
    ] = True,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """Accept or refuse a ranked challenge asked of you."""
    with user_errors(), _challenger(to, token, ca, tls) as author:
        challenge = author.answer(id, accept)
    console.print(describe(challenge), markup=False)
