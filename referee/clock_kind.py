"""The clocks a bot's time may be measured by: alone, so that the CLI names them without
loading the match layer (referee.match.clock holds what each one charges)."""

from __future__ import annotations

from enum import StrEnum


class ClockKind(StrEnum):
    """What a bot's time is measured by (the wire's `ClockKind`)."""

    #: From the request leaving to the reply arriving, less the bot's wait for a CPU where the
    #: kernel counts it (referee.match.clock.DecisionTimer).
    WALL = "wall"
    #: The CPU time the bot's process tree used meanwhile, under a wall ceiling: only for bots
    #: the referee launched and can meter (referee.match.clock.TimeControl.for_seat).
    CPU = "cpu"
