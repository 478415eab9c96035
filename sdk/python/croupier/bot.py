"""The Bot API: subclass `Bot`, implement `act`, and hand an instance to `croupier.run`."""

from __future__ import annotations

from croupier.v1 import referee_pb2


class Bot:
    """A bot plays one seat per match. Only `act` is required; the hooks default to doing nothing.

    The same instance plays every match of its session, one after another, so keep per-match
    state in `on_match_start` and drop it in `on_match_end`.
    """

    #: The name shown in standings and records (sent in Hello).
    name: str = "bot"
    #: Your bot's version, recorded in each match's header.
    version: str = ""

    def act(self, request: referee_pb2.ActionRequest) -> int:
        """Return the index of one of `request.legal_actions`.

        Answer before `request.clock.deadline_ms` has passed; the SDK leaves slack for the network.
        """
        raise NotImplementedError

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        """A match begins: your seat, the seat names, the options and the time control."""

    def on_event(self, event: referee_pb2.MatchEvent) -> None:
        """Something you may see happened (a card played, a trick taken, a private peek...)."""

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        """The match is over: its result and your faults."""
