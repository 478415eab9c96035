"""Seats: what the match runner talks to. A remote bot over gRPC and an in-process Python bot both
implement `Seat`, and the runner cannot tell them apart."""

from __future__ import annotations

from typing import Protocol

from croupier.bot import Bot
from croupier.v1 import common_pb2, referee_pb2
from referee.match.clock import DecisionTimer
from referee.match.wire import WireRequest


class SeatFault(Exception):
    """A bot's fault while acting: a closed reason plus free-text detail. The runner records it.

    A lost bot is charged for its loss, not for every decision it misses: the seat says `final`
    when the bot has left the match for good (the runner retires the seat with that fault), and
    `repeat` for a decision missed, while the bot may still come back, to a loss already charged
    (the runner plays the default action and records no fault). So a loss costs one fault, or
    two when the clock ran out while the bot might have come back and it did not."""

    def __init__(
        self,
        reason: common_pb2.FaultReason,
        detail: str,
        *,
        final: bool = False,
        repeat: bool = False,
    ) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.final = final
        self.repeat = repeat


class Seat(Protocol):
    """One seat's bot as the runner sees it. Only `act` may raise, and only SeatFault."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    async def start(self, start: referee_pb2.MatchStart) -> None: ...

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        """The index of the chosen legal action. The runner applies the deadline around it,
        unless the seat keeps within it itself (`bounds_itself`): such a seat returns None when
        its wait ended with no reply (its bot's time was up, or `timer.deadline` passed).

        The request (parsed: `request.message`) carries the events the seat may see since its
        previous message. A seat whose bot is behind a transport has `timer` measure there, so
        that the referee's own lag is not charged to the bot, and ends the wait when `timer`
        says the time is up; others may ignore it."""
        ...

    async def end(self, end: referee_pb2.MatchEnd) -> None: ...


def cause_of_silence(seat: Seat) -> SeatFault | None:
    """What a seat whose clock ran out knows went wrong before (its bot crashed or lost its
    connection), to be recorded instead of a timeout: a seat may offer it as `cause`."""
    cause = getattr(seat, "cause", None)
    return cause if isinstance(cause, SeatFault) else None


def bounds_itself(seat: Seat) -> bool:
    """Whether a seat keeps every wait of its `act` within the timer's `deadline` itself, and
    returns None when the wait ended with no reply: the runner then waits in no cancel scope of
    its own, so that a decision costs one scope, not two (the seat's wait already needs one, for
    its bot's deadline). A seat says so with `bounds_its_wait`, as RemoteSeat does."""
    return getattr(seat, "bounds_its_wait", False) is True


def pinned_cores(seat: Seat) -> tuple[int, ...]:
    """The cores a seat's bot was pinned to, for its record (empty: not pinned, or not a
    process the referee launched): a seat may offer them as `cores`."""
    cores = getattr(seat, "cores", ())
    return tuple(cores) if isinstance(cores, tuple) else ()


def metered(seat: Seat) -> bool:
    """Whether the referee can read the CPU time of a seat's bot (a bot it launched, on Linux):
    a seat says so with a `meter`, as RemoteSeat does. A CPU clock needs it."""
    return getattr(seat, "meter", None) is not None


class InProcessSeat:
    """A Python `croupier.Bot` called directly: for self-play, tests and benchmarks."""

    def __init__(self, bot: Bot, name: str | None = None) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.version = bot.version

    async def start(self, start: referee_pb2.MatchStart) -> None:
        self.bot.on_match_start(start)

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int:
        message = request.message
        try:
            for event in message.events:
                self.bot.on_event(event)
            return int(self.bot.act(message))
        except Exception as error:  # a bot's bug is the bot's fault, not the referee's
            detail = f"{type(error).__name__}: {error}"
            raise SeatFault(common_pb2.FAULT_REASON_CRASHED, detail) from error

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        for event in end.events:
            self.bot.on_event(event)
        self.bot.on_match_end(end)
