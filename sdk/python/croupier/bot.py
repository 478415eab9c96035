"""The Bot API: subclass `Bot`, implement `act`, and hand an instance to `croupier.run`."""

from __future__ import annotations

import math
import time

from croupier.v1 import game_pb2, referee_pb2


class Bot:
    """A bot plays one seat per match. Only `act` is required; the hooks default to doing nothing.

    The same instance plays every match of its session, one after another, so keep per-match
    state in `on_match_start` and drop it in `on_match_end`.
    """

    #: The name shown in standings and records (sent in Hello).
    name: str = "bot"
    #: Your bot's version, recorded in each match's header.
    version: str = ""
    #: The game ids it plays (sent in Hello; empty: any). It is never seated in another game.
    games: tuple[str, ...] = ()
    #: When the current decision must be answered (time.monotonic(), with slack taken off);
    #: set by the SDK before each `act`. See `time_left`.
    deadline: float = math.inf

    def time_left(self) -> float:
        """Seconds until the current decision's deadline (inf without a time limit)."""
        return self.deadline - time.monotonic()

    def act(self, request: referee_pb2.ActionRequest) -> int:
        """Return the index of one of `request.legal_actions`.

        Answer before `request.clock.deadline_ms` has passed; the SDK leaves slack for the network.
        """
        raise NotImplementedError

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        """A match begins: your seat, the seat names, the options and the time control."""

    def on_event(self, event: game_pb2.Event) -> None:
        """Something you may see happened (a card played, a trick taken, a private peek...).

        Called for each of a request's `events` just before `act`, and for the match's last
        events just before `on_match_end`."""

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        """The match is over: its result and your faults."""
