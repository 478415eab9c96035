"""What a seat sees of the process behind a bot it plays: a few calls, no signals or /proc.

Whoever launches a bot (referee.local.launcher, with referee.local.processes) attaches one to
the bot's identity in the lobby (`Lobby.attach`); each session of that bot then carries it
(`Session.process`). A bot that connects on its own (a contest) has none. Keeping this a
protocol leaves reading CPU counters, freezing cgroups and SIGSTOP to the local launcher, the
one layer that starts processes.
"""

from __future__ import annotations

from typing import Protocol


class LaunchedBot(Protocol):
    """The launched process of a bot, as its seats use it around each decision."""

    def to_move(self) -> None:
        """A request to the bot is about to be sent: it runs (again)."""

    def moved(self) -> None:
        """A request to the bot is over (answered or not)."""

    def idle(self) -> None:
        """None of the bot's requests may be pending (a match starts): it may stop thinking."""

    def release(self) -> None:
        """The bot must run freely again (its match or its session ended)."""

    def cpu_seconds(self) -> float | None:
        """CPU seconds the bot has used so far; None where unknown."""

    def starved_seconds(self) -> float | None:
        """Seconds the bot has waited for a CPU so far; None where unknown."""

    def ended(self) -> bool:
        """Whether the bot's process has exited, though whoever launched it may not yet have
        said how (on a busy machine that takes seconds: referee.match.remote_seat)."""

    def cores(self) -> tuple[int, ...]:
        """The cores the bot's processes are pinned to, ascending; empty when not pinned."""

    def pin(self, cores: frozenset[int]) -> None:
        """Run the bot's processes (every thread, and what they start from now on) on `cores`
        alone: a hosted bot gets the cores of the match it plays (referee.contest.slots)."""
