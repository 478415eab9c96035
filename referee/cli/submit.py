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
from referee.cli.epilog import DONE, epilog
from referee.errors import CroupierError
from referee.text import printable

if TYPE_CHECKING:
    from croupier.v1 import desk_pb2, submissions_pb2
    from referee.hosted.store import Version, VersionId
    from referee.transport.client import Author

#: Uploads larger than this show a progress bar (bytes).
PROGRESS_FROM_BYTES = 1024 * 1024
#: How often --wait asks for the version's status (seconds).
POLL_SECONDS = 1.0
#: The widest a version's reason is shown in `submissions list` (folded past it).
REASON_WIDTH = 50
#: Lines of the build log --wait prints when a build failed.
LOG_TAIL_LINES = 20
#: Statuses a version stays in (see VersionStatus in submissions.proto).
FINAL = ("qualified", "failed", "build-failed", "withdrawn")

To = Annotated[str, typer.Option("--to", metavar="HOST:PORT", help="The contest's referee.")]
Token = Annotated[
    str, typer.Option("--token", envvar="CROUPIER_TOKEN", help="Your account's token.")
]
Ca = Annotated[
    Path | None,
    typer.Option("--ca-file", help="Speak TLS, trusting this CA certificate (PEM)."),
]
#: The old spelling of --ca-file, kept for the scripts that use it; not shown in --help (one
#: spelling for submit, submissions and watch, the one their messages advise).
CaAlias = Annotated[
    Path | None, typer.Option("--ca", hidden=True, help="The old spelling of --ca-file.")
]
Tls = Annotated[bool, typer.Option("--tls", help="Speak TLS, trusting the system roots.")]
VersionArg = Annotated[
    str, typer.Argument(help="The version's id, or 6 or more of its first digits.")
]

submissions_app = typer.Typer(
    help="Versions on a contest: list, show, build log (yours with --to, every account's with "
    "--db), withdraw (yours).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _author(to: str, token: str, ca: Path | None, tls: bool) -> Author:
    from referee.transport.client import Author

    return Author(to, token, secure=tls or ca is not None, ca_file=ca)


def status_name(version: submissions_pb2.Version) -> str:
    """A version's status as the store and docs write it ("build-failed")."""
    from croupier.v1 import submissions_pb2

    if version.queued:
        return "queued"
    name = submissions_pb2.VersionStatus.Name(version.status)
    return name.removeprefix("VERSION_STATUS_").lower().replace("_", "-")


def submit_command(
    bot: Annotated[Path, typer.Argument(help="The bot's folder (with bot.toml), or an archive.")],
    to: To,
    token: Token,
    ca: Ca = None,
    ca_alias: CaAlias = None,
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
            for line in pack(bot, archive):  # never silently (issue 42.7)
                errors.print(printable(line), markup=False, highlight=False)
        elif not bot.is_file():
            raise FileNotFoundError(2, "No such file or directory", str(bot))
        with _author(to, token, ca or ca_alias, tls) as author:
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
    reason = f": {printable(version.reason)}" if version.reason else ""
    console.print(f"{version.id} {status}{reason}", markup=False)
    if status == "build-failed":
        tail = author.log(version.id).splitlines()[-LOG_TAIL_LINES:]
        shown = "\n".join(["build log (its end):", *tail])
        errors.print(printable(shown), markup=False, highlight=False)
    if status == "failed":
        # The whole report (a traceback whole), where the reason quotes its last line only.
        report = author.qualification_report(version.id)
        if report:
            shown = "\n".join(["qualification report:", report.rstrip("\n")])
            errors.print(printable(shown), markup=False, highlight=False)
    if status != "qualified":
        raise typer.Exit(EXIT_CHECK_FAILED)


Db = Annotated[
    Path | None,
    typer.Option(
        "--db", help="As the organiser: the contest's database (every account's versions)."
    ),
]
Versions = Annotated[
    Path | None,
    typer.Option(
        "--versions", help="With --db: the versions' folder (default: versions/ beside it)."
    ),
]
MaybeTo = Annotated[
    str | None,
    typer.Option("--to", metavar="HOST:PORT", help="As an author: the contest's referee."),
]
MaybeToken = Annotated[
    str | None,
    typer.Option("--token", envvar="CROUPIER_TOKEN", help="With --to: your account's token."),
]


def _store_here(
    to: str | None, token: str | None, db: Path | None, versions: Path | None
) -> Path | None:
    """The store the organiser reads here (--db), or None for an author asking the referee (--to
    and --token); CroupierError for any other mix."""
    from referee.hosted.store import beside

    if db is None:
        if versions is not None:
            raise CroupierError("--versions is the folder of a contest's --db: give --db too")
        if to is None or token is None:
            raise CroupierError(
                "give --to HOST:PORT and --token (an author's versions) "
                "or --db CONTEST.db (the organiser's view of every account)"
            )
        return None
    if to is not None:
        raise CroupierError("--db reads the store here, --to asks a referee: give one of them")
    if not db.is_file():
        raise FileNotFoundError(2, "No such file or directory", str(db))
    root = versions or beside(db)
    if not root.is_dir():
        raise CroupierError(f"no versions folder {str(root)!r}: give --versions")
    return root


def _stored(version: submissions_pb2.Version) -> Version:
    """A version as the referee sent it, as the store holds it (its account is the caller's)."""
    from referee.hosted.store import Version, VersionId, VersionStatus

    return Version(
        VersionId(version.id),
        "",
        VersionStatus(status_name(version)),
        version.reason,
        version.submitted_at,
        version.updated_at,
    )


def _status(version: Version, active: frozenset[VersionId]) -> str:
    return f"{version.status} (active)" if version.id in active else str(version.status)


@submissions_app.command(
    "list",
    epilog=epilog(
        [
            "croupier submissions list --to contest.example.org:50051 --token $CROUPIER_TOKEN",
            "croupier submissions list --db contest.db",
        ],
        DONE,
    ),
)
def list_command(
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
    db: Db = None,
    versions: Versions = None,
) -> None:
    """Your versions, oldest first; every account's with --db (the organiser)."""
    from rich.table import Table

    from referee.hosted.store import SHORT_ID, Listing, VersionId, read_listing

    with user_errors():
        root = _store_here(to, token, db, versions)
        if root is not None:
            listing = read_listing(root)
        else:
            assert to is not None and token is not None
            with _author(to, token, ca or ca_alias, tls) as author:
                sent = author.versions()
            active = frozenset(VersionId(v.id) for v in sent if v.active)
            listing = Listing(tuple(_stored(v) for v in sent), active)
    # As narrow as its contents allow: a reason is folded within REASON_WIDTH (it was one line
    # of some 250 columns), the time shown to the minute (UTC, as stored).
    table = Table("version", *(["account"] if root else []), "status", "submitted (UTC)")
    table.add_column("reason", max_width=REASON_WIDTH, overflow="fold")
    for version in listing.versions:
        account = [version.account] if root else []
        status = _status(version, listing.active)
        short = version.id[:SHORT_ID]  # as git shows commits; any unique prefix names one
        when = version.submitted_at[:16].replace("T", " ")
        table.add_row(short, *account, status, when, printable(version.reason))
    console.print(table)


@submissions_app.command(
    "show",
    epilog=epilog(
        [
            "croupier submissions show 4e639b076764 --to contest.example.org:50051 --token $T",
            "croupier submissions show 4e639b076764 --db contest.db",
        ],
        DONE,
    ),
)
def show_command(
    version_id: VersionArg,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
    db: Db = None,
    versions: Versions = None,
) -> None:
    """One of your versions (any account's, with --db): its status and why."""
    with user_errors():
        version, active = _one(version_id, to, token, ca or ca_alias, tls, db, versions)
    lines = [
        f"version: {version.id}",
        *([f"account: {version.account}"] if version.account else []),
        f"status: {_status(version, active)}",
        f"reason: {printable(version.reason) or '-'}",
        f"submitted: {version.submitted_at}",
        f"updated: {version.updated_at}",
    ]
    console.print("\n".join(lines), markup=False)


@submissions_app.command(
    "log",
    epilog=epilog(
        [
            "croupier submissions log 4e639b076764 --to contest.example.org:50051 --token $T",
            "croupier submissions log --match contest-00042 --to contest.example.org:50051 "
            "--token $T",
            "croupier submissions log 4e639b076764 --db contest.db",
        ],
        DONE,
    ),
)
def log_command(
    version_id: Annotated[
        str | None,
        typer.Argument(help="The version's id, or 6 or more of its first digits."),
    ] = None,
    match: Annotated[
        str | None,
        typer.Option(
            "--match",
            metavar="MATCH",
            help="What your hosted version printed during this match instead: its last 64 KiB.",
        ),
    ] = None,
    decision: Annotated[
        int | None,
        typer.Option(
            "--decision",
            metavar="N",
            min=1,
            help="With --match: only what it printed while decision N (from 1, as the record "
            "counts them) was pending.",
        ),
    ] = None,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
    db: Db = None,
    versions: Versions = None,
) -> None:
    """The build log of one of your versions (any account's, with --db): its end, when long.
    With --match, what your hosted version printed during that match."""
    from referee.hosted.store import read_listing, version_folder
    from referee.hosted.submitting import log_tail, match_logs

    with user_errors():
        if (version_id is None) == (match is None):
            raise CroupierError("give a version's id, or --match MATCH")
        if decision is not None and match is None:
            raise CroupierError("--decision N is a decision of --match MATCH: give --match too")
        root = _store_here(to, token, db, versions)
        if decision is not None:
            assert match is not None
            log = _decision_log(root, match, decision, (to, token, ca or ca_alias, tls))
        elif root is not None and match is not None:
            log = match_logs(root, match)
        elif root is not None:
            assert version_id is not None
            log = log_tail(version_folder(root, read_listing(root).find(version_id).id))
        else:
            assert to is not None and token is not None
            with _author(to, token, ca or ca_alias, tls) as author:
                if match is not None:
                    log = author.match_log(match).log
                else:
                    assert version_id is not None
                    log = author.log(version_id)
    empty = "(it printed nothing)" if match is not None else "(no build has run yet)"
    # A build's or a bot's own bytes: shown, never acted on by the terminal (issue 41.4).
    console.print(printable(log) or empty, markup=False, highlight=False, end="")


def _decision_log(
    root: Path | None,
    match: str,
    decision: int,
    author: tuple[str | None, str | None, Path | None, bool],
) -> str:
    """What was printed during one decision: every version's (the organiser's store, `root`),
    or the caller's team's, over the Desk service."""
    from referee.hosted.submitting import match_logs
    from referee.transport.client import Member

    if root is not None:
        return match_logs(root, match, decision)
    to, token, ca, tls = author
    assert to is not None and token is not None
    with Member(to, token, secure=tls or ca is not None, ca_file=ca) as member:
        answer = member.decision_log(match, decision)
    head = f"--- version {answer.version_id[:12]}, decision {decision} ---\n"
    return head + "".join(line + "\n" for line in answer.lines)


@submissions_app.command(
    "report",
    epilog=epilog(
        [
            "croupier submissions report 4e639b076764 --to contest.example.org:50051 --token $T",
            "croupier submissions report 4e639b076764 --db contest.db",
        ],
        DONE,
    ),
)
def report_command(
    version_id: VersionArg,
    to: MaybeTo = None,
    token: MaybeToken = None,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
    db: Db = None,
    versions: Versions = None,
) -> None:
    """The qualification report of one of your versions (any account's, with --db): each check,
    its advice and what the bot printed, as `croupier doctor` shows them."""
    from referee.hosted.store import read_listing, version_folder
    from referee.hosted.submitting import read_report

    with user_errors():
        root = _store_here(to, token, db, versions)
        if root is not None:
            report: str | None = read_report(
                version_folder(root, read_listing(root).find(version_id).id)
            )
        else:
            assert to is not None and token is not None
            with _author(to, token, ca or ca_alias, tls) as author:
                report = author.qualification_report(version_id)
            if report is None:
                raise CroupierError(
                    f"the referee at {to!r} predates qualification reports: "
                    "`croupier submissions show` gives the reason"
                )
    shown = printable(report or "") or "(not qualified yet)\n"
    console.print(shown, markup=False, highlight=False, end="")


def _one(
    version_id: str,
    to: str | None,
    token: str | None,
    ca: Path | None,
    tls: bool,
    db: Path | None,
    versions: Path | None,
) -> tuple[Version, frozenset[VersionId]]:
    """One version, from the store here (--db) or the referee (--to), and the active ones known."""
    from referee.hosted.store import VersionId, read_listing

    root = _store_here(to, token, db, versions)
    if root is not None:
        listing = read_listing(root)
        return listing.find(version_id), listing.active
    assert to is not None and token is not None
    with _author(to, token, ca, tls) as author:
        sent = author.version(version_id)
    return _stored(sent), frozenset({VersionId(sent.id)} if sent.active else ())


@submissions_app.command(
    "withdraw",
    epilog=epilog(
        [
            "croupier submissions withdraw 4e639b076764 --to contest.example.org:50051 --token $T",
        ],
        DONE,
    ),
)
def withdraw_command(
    version_id: VersionArg,
    to: To,
    token: Token,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
) -> None:
    """Withdraw one of your versions: it is kept, but no longer played."""
    with user_errors(), _author(to, token, ca or ca_alias, tls) as author:
        version = author.withdraw(version_id)
    console.print(f"{version.id} {status_name(version)}", markup=False)


#: The events `follow --until` can wait for (desk.proto's DeskEventKind, as the store names them).
EVENT_KINDS = (
    "received",
    "queued",
    "building",
    "built",
    "build-failed",
    "qualifying",
    "qualified",
    "failed",
    "withdrawn",
    "active",
    "first-match",
    "retired",
    "challenge-decided",
)


def event_kind(event: desk_pb2.FollowEventsResponse) -> str:
    """An event's kind as the store and docs write it ("build-failed")."""
    from croupier.v1 import desk_pb2

    name = desk_pb2.DeskEventKind.Name(event.kind)
    return name.removeprefix("DESK_EVENT_KIND_").lower().replace("_", "-")


def event_line(event: desk_pb2.FollowEventsResponse) -> str:
    """One event as `follow` prints it: its id (to resume after), when, the version, what, and
    why; a failed build's log tail below it."""
    kind = event_kind(event)
    said = f" {event.match_id}" if event.match_id else ""
    said += f" challenge {event.challenge_id}" if event.challenge_id else ""
    said += f": {event.reason}" if event.reason else ""
    lines = [f"#{event.event_id} {event.at} {event.version_id[:12]} {kind}{said}"]
    lines += [f"  | {line}" for line in event.log_tail]
    return printable("\n".join(lines))


@submissions_app.command(
    "follow",
    epilog=epilog(
        [
            "croupier submissions follow --to contest.example.org:50051 --token $T",
            "croupier submissions follow --to contest.example.org:50051 --token $T --after 41",
            "croupier submissions follow --to 127.0.0.1:50051 --token $T --until active",
        ],
        {0: "stopped by --until, or Ctrl-C", 2: DONE[2]},
    ),
)
def follow_command(
    to: To,
    token: Token,
    ca: Ca = None,
    ca_alias: CaAlias = None,
    tls: Tls = False,
    after: Annotated[
        int,
        typer.Option(min=0, help="Start after this event id (each line starts with its id)."),
    ] = 0,
    until: Annotated[
        list[str] | None,
        typer.Option(
            metavar="EVENT",
            help=f"Stop after an event of this kind; repeatable ({', '.join(EVENT_KINDS)}).",
        ),
    ] = None,
) -> None:
    """Print each event of your team's versions as it happens (received, building, build-failed
    with its log's end, qualifying, qualified, failed with its check, active, first-match,
    retired, challenge-decided), from the first or after --after; a broken connection is
    opened again after the last event printed, so none is missed or printed twice."""
    from referee.transport.client import Member

    stop = set(until or ())
    with user_errors():
        if unknown := sorted(stop - set(EVENT_KINDS)):
            raise CroupierError(f"--until {unknown[0]!r}: expected one of {list(EVENT_KINDS)!r}")

        def reconnecting(last: int, why: str) -> None:
            errors.print(f"connection lost after event #{last} ({why}); reconnecting", markup=False)

        ca_file = ca or ca_alias
        with Member(to, token, secure=tls or ca_file is not None, ca_file=ca_file) as member:
            for event in member.follow(after, reconnecting):
                console.print(event_line(event), markup=False, highlight=False, soft_wrap=True)
                if event_kind(event) in stop:
                    return
