"""The Gymnasium environment: one seat learns, fixed opponents (`croupier.Bot`s) play the rest."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from croupier.bot import Bot
from croupier.env.encoding import BOUND
from croupier.env.sampling import resample
from croupier.env.start import Replayed, from_record
from croupier.env.table import MATCH_ID, Table, new_seed
from croupier.v1 import referee_pb2
from referee.match.clock import TimeControl
from referee.match.requests import SeatQueues

Observation = dict[str, Any]


class CroupierGym(gymnasium.Env[Observation, np.int64]):
    """Seat `seat` is the agent; `opponents` play the other seats, in seat order, as they would
    in a match (MatchStart, each request's events, MatchEnd: the SDK's calls, in its order).

    The reward is 0 until the end, then the agent's score minus the best other side's score
    (so a win is positive); `request` is the agent's last ActionRequest (the protobuf; not in
    `info`, as its request id is new at every run), `info` holds the `rank` and `result` at the
    end. reset options: `record_to` (a path: the match's record is written there), `match_id`;
    `record` and `decision` start at decision K (0-based, all seats') of a record, which must
    be the agent's seat's (croupier.env.start.from_record); with `resample=True` and a seed the
    cards the agent never saw are dealt again (croupier.env.sampling), and the opponents start
    at the decision knowing only their MatchStart.

    An action off the mask raises ValueError; with `strict=False` the first legal action is
    played instead, as the referee plays a faulted seat's (Gymnasium's `check_env` steps with
    unmasked samples), and `info["illegal"]` says so.
    """

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        opponents: Sequence[Bot],
        *,
        seat: int = 0,
        name: str = "agent",
        time_control: TimeControl | None = None,
        strict: bool = True,
        **options: object,
    ) -> None:
        self.strict = strict
        self.table = Table.of(game, options)
        if len(opponents) != self.table.seats - 1:
            raise ValueError(f"{len(opponents)} opponents for {self.table.seats} seats")
        if not 0 <= seat < self.table.seats:
            raise ValueError(f"seat {seat!r} is not one of 0..{self.table.seats - 1}")
        self.seat = seat
        self.bots: list[Bot | None] = list(opponents)
        self.bots.insert(seat, None)
        self.names = [name if bot is None else bot.name for bot in self.bots]
        self.time_control = time_control
        encoder = self.table.encoder
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-BOUND, BOUND, (encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (encoder.actions,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(encoder.actions)
        self.match: SeatQueues | None = None
        self.request = referee_pb2.ActionRequest()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        record_to = options.pop("record_to", None)
        write = Path(record_to) if record_to is not None else None
        record = options.pop("record", None)
        decision = int(options.pop("decision", 0))
        resampled = bool(options.pop("resample", False))
        match_id = str(options.pop("match_id", MATCH_ID))
        if options:
            raise ValueError(f"unknown reset option {sorted(options)[0]!r}")
        if self.match is not None:
            self.match.close()
        replayed: list[Replayed] = []
        if record is not None and resampled:
            if seed is None:
                raise ValueError("resample=True needs a seed")
            sample = resample(self.table, Path(record), decision, self.seat, random.Random(seed))
            self.match = sample.match
        elif record is not None:
            self.match, replayed = from_record(
                self.table, Path(record), decision, self.seat, record_to=write
            )
        else:
            self.match = self.table.match(
                new_seed() if seed is None else seed,
                self.names,
                time_control=self.time_control,
                match_id=match_id,
                record=write,
            )
        for bot, start in zip(self.bots, self.match.starts, strict=True):
            if bot is not None:
                bot.on_match_start(start)
        for seat, request in replayed:  # the record's decisions: the bots see their events
            bot = self.bots[seat]
            if bot is not None:
                for event in request.events:
                    bot.on_event(event)
        observation, _, _, info = self._play_others()
        return observation, info

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        if self.match is None or self.match.request is None:
            raise ValueError(f"action {action!r} after the end of the match (call reset)")
        count = len(self.match.request.legal_actions)
        illegal = not 0 <= int(action) < count
        if illegal and not self.strict:  # as the referee plays a faulted seat's: the first
            action = 0
        self.match.answer(int(action))
        observation, reward, done, info = self._play_others()
        info["illegal"] = illegal
        return observation, reward, done, False, info

    def _play_others(self) -> tuple[Observation, float, bool, dict[str, Any]]:
        """Let the opponents act until it is the agent's turn or the match ends."""
        assert self.match is not None
        match = self.match
        while match.request is not None and match.seat != self.seat:
            bot = self.bots[match.seat]
            assert bot is not None
            for event in match.request.events:
                bot.on_event(event)
            match.answer(int(bot.act(match.request)))
        if match.request is not None:
            self.request = match.request
            return self._observe(match.request), 0.0, False, {}
        assert match.outcome is not None
        for bot, end in zip(self.bots, match.ends, strict=True):
            if bot is not None:
                for event in end.events:
                    bot.on_event(event)
                bot.on_match_end(end)
        result = match.outcome.result
        mine = result.seats[self.seat]
        teams = mine.HasField("team")
        others = [s.score for s in result.seats if (s.team != mine.team if teams else s != mine)]
        reward = float(mine.score - max(others, default=0))
        info = {"rank": mine.rank, "result": result}
        return self._observe(self.request), reward, True, info

    def _observe(self, request: referee_pb2.ActionRequest) -> Observation:
        encoder = self.table.encoder
        return {"observation": encoder.encode(request), "action_mask": encoder.mask(request)}

    def close(self) -> None:
        if self.match is not None:
            self.match.close()
