"""Qualifying a built version before it is ranked: the doctor's checks, in the sandbox, once.

In each game the contest plays (with the contest's options) that its manifest declares (every
declared game, with default options, outside a contest), the version plays the doctor's matches
(referee.doctor: connects, answers in time, plays several matches on one session, reconnects
after a drop, holds its sessions at once, exits cleanly on Goodbye) against the reference bot,
the game's random bot, in process. It runs as a contest would run it: in its own folder, with its
manifest's run command, sessions and limits, in the bubblewrap sandbox.

Time: a version has `QualifySettings.startup_seconds` from its launch to its first Play call (load
a model then, before opening a session), and then each decision the contest's time control:
`move_ms` per decision plus a `bank_ms` reserve. So its first move's allowance is the start-up
allowance before its session opens plus move time and bank once its first request comes; a bot
that loads for 10 s after its first request, against a 10 s bank, times out and fails.

The organiser's positions (a contest file's `[hosted] qualify_positions`: decisions of real
matches with the reference's values, referee.review.positions): once the doctor's checks pass in
the positions' game, the version plays each position as a one-decision match
(referee.review.position_runs), launched as the doctor's checks launched it (its folder, run
command, sessions, limits, sandbox, runtime folder; the same DoctorConfig), and fails the
`positions` check if it loses more than `PositionsTest.max_loss` points against the reference
in all. A position it crashes or times out on costs it that position only (the referee plays
its first legal action). The file is read by the referee alone: it lies outside every bot's view
(referee.contest.settings refuses one that a bot would be shown) and is among the secrets.

Qualification runs once per version, and the report is final: a version that crashes at start-up,
times out, or speaks a game it did not declare fails with the check that caught it and its own
last output, and is not retried (the author submits a fixed version).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.doctor.checks import (
    LOG_TAIL_LINES,
    Check,
    DoctorConfig,
    DoctorReport,
    QualificationCheck,
    Status,
    render,
)
from referee.doctor.examine import examine
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import Game, parse_options
from referee.games.options import Options
from referee.hosted.manifest import Manifest
from referee.local.last_output import telling
from referee.local.limits import Limits
from referee.local.sandbox import default_enabled
from referee.match.clock import TimeControl
from referee.review.position_runs import PositionResult, PositionsLaunch, run_positions
from referee.review.positions import Position

#: The positions a failed `positions` check names: those the version lost most on.
WORST_NAMED = 3


@dataclass(frozen=True, slots=True)
class PositionsTest:
    """The organiser's positions, checked against the engine (referee.review.positions), and
    the most points against the reference a version may lose on them in all."""

    positions: tuple[Position, ...]
    max_loss: float
    #: The file they were read from: a secret no bot's folder may show.
    source: Path

    @property
    def game(self) -> str:
        return self.positions[0].view.game.id

    def of(self, game: Game, options: Options) -> bool:
        """Whether these are positions of `game` played with `options`."""
        view = self.positions[0].view
        return view.game.id == game.id and view.options.as_text() == options.as_text()

    def judged(self, results: Sequence[PositionResult]) -> Check:
        """The `positions` check of a version that played them with these `results`."""
        lost = sum(result.lost for result in results)
        faults = sum(bool(result.fault) for result in results)
        faulted = f", {faults} of them faulted (their first legal action played)" if faults else ""
        detail = (
            f"lost {lost:.2f} points against the reference over {len(results)} positions{faulted}"
        )
        if lost <= self.max_loss:
            return Check(
                QualificationCheck.POSITIONS,
                Status.PASS,
                f"{detail}, within the contest's {self.max_loss:g}",
            )
        worst = sorted(results, key=lambda result: -result.lost)[:WORST_NAMED]
        named = ", ".join(
            f"{r.source} ({r.lost:.2f}{', ' + r.fault if r.fault else ''})" for r in worst
        )
        return Check(
            QualificationCheck.POSITIONS,
            Status.FAIL,
            f"{detail}, more than the contest's {self.max_loss:g}; the worst: {named}",
        )


@dataclass(frozen=True, slots=True)
class QualifySettings:
    """How hard qualification is. The defaults are the contest's usual clock and the doctor's."""

    time_control: TimeControl = field(default_factory=TimeControl)
    #: From launch to the first Play call (and to reconnect after the doctor's drop): a bot
    #: loads its model in this time, before it opens a session.
    startup_seconds: float = 30.0
    #: A whole qualification's time, every game's matches included (seconds): one runs at a
    #: time, so this bounds how long a version can keep the next one waiting (a bot answering
    #: each request at its last millisecond took 317 s, issue 41.2).
    wall_seconds: float = 600.0
    #: Matches per game before the reconnect and sessions checks (None: the doctor's default).
    matches: int | None = None
    #: The contest's default limits, over which the manifest's asked limits go.
    limits: Limits = field(default_factory=Limits)
    sandbox: bool = field(default_factory=default_enabled)
    seed: str | int = 0
    #: The games the contest plays, with its options: a version qualifies in those it
    #: declares. Empty: in every game it declares, with their default options.
    games: tuple[tuple[Game, Options], ...] = ()
    #: The organiser's positions, played in their game once the doctor's checks pass there.
    positions: PositionsTest | None = None

    def to_play(self, manifest: Manifest) -> list[tuple[Game, Options]]:
        """The games (and options) a version with this manifest qualifies in, in order."""
        if not self.games:
            return [(game, parse_options(game, {})) for game in map(get_game, manifest.games)]
        return [(game, options) for game, options in self.games if game.id in manifest.games]


@dataclass(frozen=True, slots=True)
class QualificationReport:
    """Each game's doctor report, in order, up to the first that failed. No game at all: the
    version declares none the contest plays (a contest restarted on another game), and fails."""

    games: tuple[tuple[str, DoctorReport], ...]
    #: The games the contest plays, for the reason when the version declares none of them.
    contest: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.games) and all(report.ok for _, report in self.games)

    @property
    def failed(self) -> tuple[str, Check] | None:
        """The first game and check that did not pass, or None."""
        for game, report in self.games:
            for check in report.checks:
                if check.status is not Status.PASS:
                    return game, check
        return None

    @property
    def reason(self) -> str:
        """One line for the version's status: the check that failed and why."""
        if not self.games:
            return f"bot.toml declares none of the games this contest plays: {list(self.contest)}"
        failed = self.failed
        if failed is None:
            passed = f"passed the checks in {', '.join(game for game, _ in self.games)}"
            scored = [
                f"; {game} positions: {check.detail}"
                for game, report in self.games
                for check in report.checks
                if check.name is QualificationCheck.POSITIONS
            ]
            return passed + "".join(scored)
        game, check = failed
        return f"{game}: {check.name} {check.status}: {check.detail}"

    @property
    def summary(self) -> str:
        """`reason` without its details (which may quote the bot: its Hello, a token it
        presented), as anyone may read it on the contest's site."""
        failed = self.failed
        if not self.games or failed is None:
            return self.reason
        game, check = failed
        return f"{game}: {check.name} {check.status}"

    def last_output(self) -> list[str]:
        """The telling end of the bot's output (stdout and stderr) in the game that failed."""
        failed = self.failed
        if failed is None:
            return []
        report = dict(self.games)[failed[0]]
        return telling(report.output(), LOG_TAIL_LINES)

    def lines(self) -> list[str]:
        """The whole report as its author reads it: each game's checks, advice, last output.
        No path of the referee's machine appears in it."""
        lines: list[str] = [] if self.games else [self.reason]
        for game, report in self.games:
            lines += render(report, f"qualification in {game}:", kept=False)
        return lines


async def qualify(
    folder: Path,
    manifest: Manifest,
    workdir: Path,
    settings: QualifySettings,
    runtime: Path | None = None,
    secrets: tuple[Path, ...] = (),
) -> QualificationReport:
    """Qualify the version built in `folder` (its run command runs there) in each game of
    `settings.to_play(manifest)`, stopping at the first game it fails. `workdir` (made if
    missing, and kept apart from `folder`: the bot must not see it) receives the records and the
    bot's output; the bot sees the organiser's `runtime` folder read-only, as its build did, and
    its folder alone of its own files (a confined bot: referee.local.bot_root), never `secrets`."""
    played: list[tuple[str, DoctorReport]] = []
    for game, options in settings.to_play(manifest):
        config = DoctorConfig(
            game=game,
            options=options,
            argv=tuple(manifest.run_argv()),
            workdir=workdir / game.id,
            matches=settings.matches,
            time_control=settings.time_control,
            seed=settings.seed,
            connect_timeout=settings.startup_seconds,
            sessions=manifest.sessions,
            sandbox=settings.sandbox,
            limits=manifest.limits(settings.limits),
            cwd=folder,
            declared=manifest.games,
            runtime=runtime,
            confined=True,
            secrets=secrets,
        )
        report = await examine(config)
        test = settings.positions
        if report.ok and test is not None and test.of(game, options):
            report.checks.append(await _positions(config, test, config.workdir / "positions"))
        played.append((game.id, report))
        if not report.ok:
            break
    return QualificationReport(tuple(played), tuple(game.id for game, _ in settings.games))


#: Why the positions could not all be played: a bot that stopped and did not come back. The
#: launcher's own words are not quoted (they hold the referee's paths and the bot's output).
STOPPED = (
    "the bot stopped and did not come back to play the rest of the positions (a bot launched "
    "again after a crash has the start-up allowance to call Play)"
)


async def _positions(config: DoctorConfig, test: PositionsTest, logs: Path) -> Check:
    """The `positions` check: the version, launched as the doctor's `config` launched it, on
    every position of `test`; its output goes to `logs`, which it is never shown."""
    logs.mkdir(parents=True, exist_ok=True)
    launched = PositionsLaunch(
        launch=config.launch(),
        limits=config.limits,
        connect_timeout=config.connect_timeout,
        logs=logs,
    )
    try:
        results = await run_positions(
            test.positions,
            shlex.join(config.argv),
            time_control=config.time_control,
            sandbox=config.sandbox,
            launched=launched,
        )
    except CroupierError:
        return Check(QualificationCheck.POSITIONS, Status.FAIL, STOPPED)
    except BaseExceptionGroup as group:  # from the series' nursery: a bot's supervisor, a seat
        _, others = group.split(CroupierError)
        if others is not None:
            raise
        return Check(QualificationCheck.POSITIONS, Status.FAIL, STOPPED)
    return test.judged(results)
