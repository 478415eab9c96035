"""`croupier positions test`: a bot on each position of a file, each a one-decision match
through the referee's runner (referee.review.position_game); the points it loses against the
reference's best, per position and in all. A position where the bot faults (crashes, times
out, answers out of range) is that position's fault, and the rest go on: a bot that crashes
is launched again (once for each position, at most), and has the connect timeout to come back.

A hosted version's qualification (referee.hosted.qualify) runs it with the version's launch
context (`launch`, `limits`, `connect_timeout`: its folder, its sessions, its sandbox), the one
the doctor's checks gave it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from croupier.v1 import common_pb2
from referee.local.limits import Limits
from referee.local.series import Launch, SeriesConfig, play_series
from referee.match.clock import TimeControl
from referee.match.runner import MatchOutcome
from referee.review.position_game import PositionGame
from referee.review.positions import Position


@dataclass(frozen=True, slots=True)
class PositionResult:
    source: str
    chosen: str  # the bot's choice ("" where it faulted)
    lost: float
    fault: str = ""


@dataclass(frozen=True, slots=True)
class PositionsLaunch:
    """How the bot is launched beyond its command (the defaults: `croupier positions test`'s,
    from the current folder); a hosted version's are its qualification's."""

    launch: Launch = field(default_factory=Launch)
    limits: Limits = field(default_factory=Limits)
    connect_timeout: float = 30.0
    #: Where the bot's output goes (None: a temporary folder, gone afterwards).
    logs: Path | None = None


async def run_positions(
    positions: Sequence[Position],
    command: str,
    *,
    time_control: TimeControl,
    sandbox: bool,
    launched: PositionsLaunch | None = None,
) -> list[PositionResult]:
    """Each position played by the bot `command` in its seat (the other seats never move)."""
    launched = launched or PositionsLaunch()
    game = PositionGame(positions)
    options = positions[0].view.options
    # A crash costs its position only: the bot is launched again, as often as there are positions.
    launch = replace(launched.launch, max_restarts=launched.launch.max_restarts + len(positions))
    config = SeriesConfig(
        game=game,
        options=options,
        commands=(command,),
        matches=len(positions),
        time_control=time_control,
        concurrency=1,
        max_faults=1,
        connect_timeout=launched.connect_timeout,
        sandbox=sandbox,
        limits=launched.limits,
        launch=launch,
        logs=launched.logs,
    )
    _, outcomes = await play_series(config)
    return [_judged(p, o) for p, o in zip(positions, outcomes, strict=True)]


def _judged(position: Position, outcome: MatchOutcome) -> PositionResult:
    mine = [f for f in outcome.faults if f.seat == position.view.seat]
    if mine:
        reason = common_pb2.FaultReason.Name(mine[0].reason).removeprefix("FAULT_REASON_")
        played = position.decision.legal[0]  # the referee plays a faulted seat's first action
        return PositionResult(position.source, "", position.lost(played), reason.lower())
    chosen = outcome.result.text.removeprefix("chose ")
    return PositionResult(position.source, chosen, position.lost(chosen))
