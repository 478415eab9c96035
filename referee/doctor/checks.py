"""The doctor's checks: names, advice, what to examine, and the report a bot author reads."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from referee.errors import CroupierError
from referee.games.base import Game
from referee.games.options import Options
from referee.local.last_output import advice, read_output, telling
from referee.local.launcher import EXIT_GRACE_SECONDS
from referee.local.limits import Limits
from referee.local.sandbox import default_enabled
from referee.local.series import Launch
from referee.match.clock import TimeControl
from referee.text import plural

#: The last lines of the bot's output shown when a check fails (after the lines naming an error).
LOG_TAIL_LINES = 12


class CheckName(StrEnum):
    """The checks, in the order they run and print."""

    STARTS = "starts"
    CONNECTS = "connects"
    AUTHENTICATES = "authenticates"
    HELLO = "hello"
    MATCH_CYCLE = "match cycle"
    SEVERAL_MATCHES = "several matches"
    TIME = "time"
    LEGAL_ACTIONS = "legal actions"
    PROTOCOL = "protocol"
    RECONNECT = "reconnect"
    SESSIONS = "sessions"
    GOODBYE = "goodbye"


class QualificationCheck(StrEnum):
    """A check a contest's qualification adds after the doctor's (referee.hosted.qualify), which
    `croupier doctor` never runs: the organiser's positions."""

    POSITIONS = "positions"


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"


ADVICE: dict[CheckName | QualificationCheck, str] = {
    CheckName.STARTS: (
        "check the command line: the program must exist and be executable; it runs in the "
        "current folder"
    ),
    CheckName.CONNECTS: (
        "open a plaintext gRPC channel to CROUPIER_ADDRESS (host:port) and call "
        "croupier.v1.Referee/Play; see the bot's output below"
    ),
    CheckName.AUTHENTICATES: (
        "send the metadata 'authorization: Bearer <CROUPIER_TOKEN>' with the Play call, and "
        "make BotMessage{hello} the first message of the stream"
    ),
    CheckName.HELLO: "list the game in Hello.games, or leave Hello.games empty to play any game",
    CheckName.MATCH_CYCLE: (
        "after MatchEnd keep reading the same stream: the next MatchStart comes on it; only "
        "Goodbye ends a session"
    ),
    CheckName.SEVERAL_MATCHES: (
        "keep per-match state in your match-start hook and reset it there; a session plays "
        "matches one after another, in any seat"
    ),
    CheckName.TIME: (
        "answer each ActionRequest before clock.deadline_ms (counted from when the referee sent "
        "it), keeping slack for the network; do slow set-up before opening the session"
    ),
    CheckName.LEGAL_ACTIONS: (
        "answer with an index into request.legal_actions (0 to length - 1), not a card, a value "
        "or an action's text"
    ),
    CheckName.PROTOCOL: (
        "send exactly one ActionReply per ActionRequest, copying its match_id and request_id, "
        "and nothing else after Hello"
    ),
    CheckName.RECONNECT: (
        "when the stream fails without Goodbye (UNAVAILABLE: a network drop, a referee restart), "
        "open a new session with the same token, or exit so that the launcher restarts the bot; "
        "the referee then sends MatchStart again and the pending request"
    ),
    CheckName.SESSIONS: (
        "open CROUPIER_SESSIONS sessions at once, each its own Play call with its own state: a "
        "ladder seats several copies of a bot, in one match too"
    ),
    CheckName.GOODBYE: "on Goodbye, close your side of the stream and exit with code 0",
    QualificationCheck.POSITIONS: (
        "the contest's positions are decisions of real matches, valued by the reference bot's "
        "search: extract positions from your own matches (croupier positions extract RECORDS "
        "--seat S) and see where your bot loses points (croupier positions test FILE -- CMD)"
    ),
}

#: Under the sandbox report's refusals: what a bot may use (the rules of docs/bots.md).
SANDBOX_ADVICE = (
    "in a contest a bot has no network, no privilege and no file locks, and sees only the "
    "system's runtime files (read-only), its own folder (read-only) and a scratch /tmp and "
    "$HOME (lost when it exits): keep what it reads in its folder and write only to /tmp "
    "(see docs/bots.md, 'What a bot may use')"
)


#: Advice when the bot exited before it called Play.
EXITED_ADVICE = (
    "the bot exited before it called Play: see its output below; it runs in the current folder, "
    "and in the sandbox its environment is only PATH, the locale, CROUPIER_ADDRESS, "
    "CROUPIER_TOKEN, CROUPIER_SESSIONS and what --env gives (as a ladder file's env)"
)

#: Advice when the bot was lost (crashed, or dropped its stream) during a match.
LOST_ADVICE = (
    "the bot crashed or closed its stream in the middle of a match: see its output below; a "
    "session plays matches one after another until Goodbye"
)


@dataclass(frozen=True, slots=True)
class Check:
    name: CheckName | QualificationCheck
    status: Status
    detail: str
    #: Advice for this failure, when the check's usual advice does not fit it.
    hint: str = ""

    @property
    def advice(self) -> str:
        if self.status is Status.PASS:
            return ""
        return self.hint or ADVICE[self.name]


@dataclass(frozen=True, slots=True)
class DoctorConfig:
    """What to examine and how hard. `workdir` receives the records and the bot's output."""

    game: Game
    options: Options
    argv: tuple[str, ...]
    workdir: Path
    matches: int | None = None  # default: one per seat, at least three
    time_control: TimeControl = field(default_factory=TimeControl)
    seed: str | int = 0
    #: How long the bot may take to open a session: at launch, between matches (after a crash),
    #: and to take its seat back after the drop.
    connect_timeout: float = 30.0
    #: How long the bot may take to exit after Goodbye (a contest kills it after this).
    goodbye_grace: float = EXIT_GRACE_SECONDS
    max_faults: int = 3
    #: CROUPIER_SESSIONS: the sessions the bot must hold at once; the "sessions" check seats
    #: that many of them in one match (up to its seats).
    sessions: int = 2
    #: Run the bot in the contest's sandbox with these limits (referee.local.sandbox).
    sandbox: bool = field(default_factory=default_enabled)
    limits: Limits = field(default_factory=Limits)
    #: Variables for the bot (`--env`, as a ladder file's `env`): in the sandbox, the only
    #: ones beside PATH, the locale and CROUPIER_*; without it, added to the doctor's own.
    env: Mapping[str, str] = field(default_factory=dict)
    #: The bot's own folder (a hosted version's, referee.hosted): it runs there and the sandbox
    #: shows that folder; None: the current folder, and the sandbox shows what the command names.
    cwd: Path | None = None
    #: The games the bot declared (a hosted version's manifest): a Hello naming another fails
    #: the hello check, since the contest would offer the bot only these. Empty: not checked.
    declared: tuple[str, ...] = ()
    #: The organiser's runtime folder, shown to the bot read-only (Sandbox.runtime).
    runtime: Path | None = None
    #: Whether `cwd` is an author's upload (a hosted version's qualification): the sandbox
    #: shows it alone, never what its links lead to (referee.local.bot_root).
    confined: bool = False
    #: What the bot's folder may not show besides the doctor's records (a contest's database
    #: and records, at qualification).
    secrets: tuple[Path, ...] = ()

    def match_count(self) -> int:
        return self.matches or max(3, self.game.seat_count(self.options))

    def launch(self) -> Launch:
        """The bot's launch context as a series of matches takes it (referee.local.series), so
        that what else plays the bot (a qualification's positions) launches it as the doctor
        does."""
        return Launch(
            cwd=self.cwd,
            runtime=self.runtime,
            confined=self.confined,
            secrets=self.secrets,
            sessions=self.sessions,
            env=dict(self.env),
        )


@dataclass
class DoctorReport:
    checks: list[Check]
    log_path: Path
    #: What the sandbox refused the bot (from its output); reported, with advice, after the checks.
    refused: list[str] = field(default_factory=list)
    sandboxed: bool = False
    #: The bot's own folders the sandbox showed it (read-only): the folder of the file its
    #: command names, or its `cwd`; empty for a hosted version, which is shown its folder.
    shown: tuple[Path, ...] = ()

    @property
    def ok(self) -> bool:
        return all(check.status is Status.PASS for check in self.checks)

    def output(self) -> list[str]:
        """The end of the bot's output (stdout and stderr)."""
        return read_output(self.log_path)


def parse_command(command: Sequence[str]) -> tuple[str, ...]:
    """The bot's argv: the words after `--`, or one quoted command line split like a shell."""
    one = command[0] if len(command) == 1 else ""
    if any(c.isspace() for c in one) and not Path(one).exists():
        return tuple(shlex.split(one))
    if not command:
        raise CroupierError("no bot command given: croupier doctor --game G -- CMD...")
    return tuple(command)


def _outside(report: DoctorReport) -> str | None:
    """Advice when the bot looked for its own files outside the folder it was shown (a Node
    package in the node_modules beside dist/): run it from its folder, as a contest does."""
    for line in report.refused:
        if line.endswith("node_modules is not in the bot's view)"):
            modules = Path(line.rsplit(" (", 1)[1].removesuffix(" is not in the bot's view)"))
            shown = report.shown[0] if report.shown else "the folder of the file it runs"
            return (
                f"the bot's packages are in {modules}, outside {shown}, the folder the sandbox "
                f"shows it (the folder of the file its command names): give --cwd "
                f"{modules.parent} to run it from its own folder, as a contest runs a hosted bot "
                "from the folder it uploaded"
            )
    return None


def render(
    report: DoctorReport, title: str, *, kept: bool = True, extra: Sequence[str] = ()
) -> list[str]:
    """The report as plain lines: one per check, advice under each failure, the `extra` lines
    (the run's seed), then (when a check did not pass) the bot's last output, naming its file
    when `kept`."""
    width = max(len(name) for name in CheckName)
    lines = [title]
    for check in report.checks:
        lines.append(f"{check.status}  {check.name:<{width}}  {check.detail}")
        if check.advice and check.status is Status.FAIL:
            lines.append(f"      {'':<{width}}  advice: {check.advice}")
    if report.shown:
        others = "".join(f" and {folder}" for folder in report.shown[1:])
        lines.append(f"sandbox: showed the bot its folder {report.shown[0]}{others} (read-only)")
    outside = _outside(report)
    if report.refused:
        lines.append(
            f"sandbox: refused the bot {plural(len(report.refused), 'time')}, "
            f"first: {report.refused[0]}"
        )
        lines.append(f"      advice: {outside or SANDBOX_ADVICE}")
    elif report.sandboxed:
        lines.append("sandbox: the bot needed nothing the contest's sandbox refuses")
    lines.extend(extra)
    failed = sum(check.status is not Status.PASS for check in report.checks)
    if failed:
        lines.append(f"{failed} of {len(report.checks)} checks did not pass")
        output = report.output()
        where = f" ({report.log_path})" if kept else ""
        if output:
            lines.append(f"the bot's last output{where}:")
            lines.extend(f"  | {line}" for line in telling(output, LOG_TAIL_LINES))
            fix = None if outside else advice(output)  # not "npm ci": it is there, not shown
            if fix:
                lines.append(f"      advice: {fix}")
        else:
            lines.append(f"the bot printed nothing{where}, on stdout or stderr")
    else:
        lines.append(f"all {len(report.checks)} checks passed")
    return lines
