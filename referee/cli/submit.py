"""`croupier submit` and `croupier submissions`: an author uploads a bot's version to a contest
and reads their own versions (status, build log), through the Submissions service.

Exit codes: 0 done (with --wait: the version qualified), 1 with --wait: its build or its
qualification failed, 2 bad input or a refusal (the referee's one line printed).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli.consoles import EXIT_CHECK_FAILED, console, errors, progress, user_errors

if TYPE_CHECKING:
    from croupier.v1 import submissions_pb2
    from referee.transport.client import Author

#: Uploads larger than this show a progress bar (bytes).
PROGRESS_FROM_BYTES = 1024 * 1024
#: How often --wait asks for the version's status (seconds).
POLL_SECONDS = 1.0
#: Lines of the build log --wait prints when a build failed.
LOG_TAIL_LINES = 20
#: Statuses a version stays in (see VersionStatus in submissions.proto).
FINAL = ("qualified", "failed", "build-failed", "withdrawn")

To = Annotated[str, typer.Option("--to", metavar="HOST:PORT", help="The contest's referee.")]
Token = Annotated[
    str, typer.Option("--token", envvar="CROUPIER_TOKEN", help="Your account's token.")
]
Ca = Annotated[
    Path | None, typer.Option("--ca", help="Speak TLS, trusting this CA certificate (PEM).")
]
Tls = Annotated[bool, typer.Option("--tls", help="Speak TLS, trusting the system roots.")]

submissions_app = typer.Typer(
    help="Your versions on a contest: list, show, build log, withdraw.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _author(to: str, token: str, ca: Path | None, tls: bool) -> Author:
    from referee.transport.client import Author

    return Author(to, token, secure=tls or ca is not None, ca_file=ca)


def status_name(version: submissions_pb2.Version) -> str:
    """A version's status as the store and docs write it ("build-failed")."""
    from croupier.v1 import submissions_pb2

    name = submissions_pb2.VersionStatus.Name(version.status)
    return name.removeprefix("VERSION_STATUS_").lower().replace("_", "-")


def submit_command(
    bot: Annotated[Path, typer.Argument(help="The bot's folder (with bot.toml), or an archive.")],
    to: To,
    token: Token,
    ca: Ca = None,
    tls: Tls = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait for its build and qualification, and say how.")
    ] = False,
) -> None:
    """Upload a version of your bot to a contest; print its id and whether it is new."""
    from referee.hosted.submitting import pack

    with user_errors(), tempfile.TemporaryDirectory(prefix="croupier-submit-") as temporary:
        archive = bot
        if bot.is_dir():
            archive = Path(temporary) / f"{bot.resolve().name}.tar.gz"
            pack(bot, archive)
        elif not bot.is_file():
            raise FileNotFoundError(2, "No such file or directory", str(bot))
        with _author(to, token, ca, tls) as author:
            size = archive.stat().st_size
            if size > PROGRESS_FROM_BYTES:
                with progress(f"uploading {bot.name}") as sent:
                    answer = author.upload(archive, bot.name, sent)
            else:
                answer = author.upload(archive, bot.name)
            version = answer.version
            fresh = "new version" if answer.new_version else "already submitted"
            console.print(f"{version.id} ({fresh}, {status_name(version)})", markup=False)
            if wait:
                _wait(author, version)


def _wait(author: Author, version: submissions_pb2.Version) -> None:
    while status_name(version) not in FINAL:
        time.sleep(POLL_SECONDS)
        version = author.version(version.id)
    status = status_name(version)
    reason = f": {version.reason}" if version.reason else ""
    console.print(f"{version.id} {status}{reason}", markup=False)
    if status == "build-failed":
        tail = author.log(version.id).splitlines()[-LOG_TAIL_LINES:]
        errors.print("\n".join(["build log (its end):", *tail]), markup=False, highlight=False)
    if status != "qualified":
        raise typer.Exit(EXIT_CHECK_FAILED)


@submissions_app.command("list")
def list_command(to: To, token: Token, ca: Ca = None, tls: Tls = False) -> None:
    """Your versions, oldest first."""
    from rich.table import Table

    with user_errors(), _author(to, token, ca, tls) as author:
        versions = author.versions()
    table = Table("version", "status", "submitted", "reason")
    for version in versions:
        table.add_row(version.id, status_name(version), version.submitted_at, version.reason)
    console.print(table)


@submissions_app.command("show")
def show_command(
    version_id: Annotated[str, typer.Argument(help="The version's id.")],
    to: To,
    token: Token,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """One of your versions: its status and why."""
    with user_errors(), _author(to, token, ca, tls) as author:
        version = author.version(version_id)
    lines = [
        f"version: {version.id}",
        f"status: {status_name(version)}",
        f"reason: {version.reason or '-'}",
        f"submitted: {version.submitted_at}",
        f"updated: {version.updated_at}",
    ]
    console.print("\n".join(lines), markup=False)


@submissions_app.command("log")
def log_command(
    version_id: Annotated[str, typer.Argument(help="The version's id.")],
    to: To,
    token: Token,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """The build log of one of your versions (its end, when long)."""
    with user_errors(), _author(to, token, ca, tls) as author:
        log = author.log(version_id)
    console.print(log or "(no build has run yet)", markup=False, highlight=False, end="")


@submissions_app.command("withdraw")
def withdraw_command(
    version_id: Annotated[str, typer.Argument(help="The version's id.")],
    to: To,
    token: Token,
    ca: Ca = None,
    tls: Tls = False,
) -> None:
    """Withdraw one of your versions: it is kept, but no longer played."""
    with user_errors(), _author(to, token, ca, tls) as author:
        version = author.withdraw(version_id)
    console.print(f"{version.id} {status_name(version)}", markup=False)
