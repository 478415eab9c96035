"""The referee's match, driven one decision at a time by the caller instead of by seats.

A training environment (croupier.env) steps a match from plain synchronous code: it reads the
request the referee would send the seat to move, and answers it with an action index. This is
the runner's own loop (`_Match.steps` in referee.match.runner, the one `run_match` drives) with
the same deal, requests, record and result, so a match played here is the match the referee
plays with the same seed and the same answers. No clock is run: a decision takes no time.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from croupier.v1 import referee_pb2
from referee.games.base import State
from referee.match.records import RecordWriter
from referee.match.runner import Decision, MatchConfig, MatchOutcome, _Match
from referee.match.wire import WireRequest


@dataclass(frozen=True, slots=True)
class SeatName:
    """A seat as the record names it: the bot's name and version, nothing to call."""

    name: str
    version: str = ""


class SeatQueues:
    """One match between callers: `request` is the pending decision, `answer` plays it.

    The match starts when made (the header is written and each seat's MatchStart is in
    `starts`); when the last decision is answered `outcome` and `ends` (each seat's MatchEnd) are
    set and the record, if any, is closed. Bad answers raise ValueError and change nothing.
    """

    def __init__(
        self,
        config: MatchConfig,
        seats: Sequence[SeatName],
        record_path: Path | None = None,
    ) -> None:
        expected = config.game.seat_count(config.options)
        if len(seats) != expected:
            raise ValueError(f"game {config.game.id!r} needs {expected} seats, got {len(seats)}")
        self._writer = RecordWriter(record_path) if record_path is not None else None
        self._match = _Match(config, seats, self._writer, None)  # type: ignore[arg-type]
        self.starts: list[referee_pb2.MatchStart] = self._match.open()
        self.outcome: MatchOutcome | None = None
        self.ends: list[referee_pb2.MatchEnd] = []
        self._steps: Generator[tuple[int, WireRequest], Decision, State] = self._match.steps()
        self.seat: int = -1
        self.request: referee_pb2.ActionRequest | None = None
        self._advance(None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def answer(self, index: int) -> None:
        """Play the action at `index` of the pending request's legal actions."""
        if self.request is None:
            raise ValueError(f"action {index!r} after the end of match {self.match_id!r}")
        count = len(self.request.legal_actions)
        if not isinstance(index, int) or not 0 <= index < count:
            raise ValueError(
                f"action index {index!r} is out of range 0..{count - 1} for seat {self.seat}"
            )
        self._advance(Decision(index, False))

    @property
    def match_id(self) -> str:
        return self._match.config.match_id

    def _advance(self, decision: Decision | None) -> None:
        try:
            if decision is None:
                self.seat, request = next(self._steps)
            else:
                self.seat, request = self._steps.send(decision)
            self.request = request.message
        except StopIteration as done:
            self.seat, self.request = -1, None
            self.outcome, self.ends = self._match.close(done.value)
            self.close()

    def close(self) -> None:
        """Close the record (an unfinished match's record stays a valid prefix)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
