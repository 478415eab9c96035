"""`croupier positions test`: a bot on each position of a file, each a one-decision match
through the referee's runner (referee.review.position_game); the points it loses against the
reference's best, per position and in all. A position where the bot faults (crashes, times
out, answers out of range) is that position's fault, and the rest go on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from croupier.v1 import common_pb2
from referee.local.series import SeriesConfig, play_series
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


async def run_positions(
    positions: Sequence[Position],
    command: str,
    *,
    time_control: TimeControl,
    sandbox: bool,
) -> list[PositionResult]:
    """Each position played by the bot `command` in its seat (the other seats never move)."""
    game = PositionGame(positions)
    options = positions[0].view.options
    config = SeriesConfig(
        game=game,
        options=options,
        commands=(command,),
        matches=len(positions),
        time_control=time_control,
        concurrency=1,
        max_faults=1,
        sandbox=sandbox,
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
