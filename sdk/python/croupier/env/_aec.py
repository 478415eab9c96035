"""The PettingZoo AEC environment: every seat an agent, the referee's own match underneath."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from croupier.env.encoding import BOUND, Vector
from croupier.env.sampling import resample
from croupier.env.start import from_record
from croupier.env.table import MATCH_ID, Table, new_seed
from croupier.v1 import referee_pb2
from referee.match.clock import TimeControl
from referee.match.requests import SeatQueues

Observation = dict[str, Any]


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class CroupierAEC(AECEnv[str, Observation, int]):  # type: ignore[misc]  # untyped
    """One game at one table; `reset(seed=S)` deals as a referee match with match seed S does.

    Each agent's observation is the encoding of the last `ActionRequest` the referee sent its
    seat (`request(agent)` is the protobuf itself) with its action mask; zeros before its first.
    Rewards are 0 until the end, then each seat's score as the match's result gives it (in a
    team game, its team's); `infos[agent]` then holds its `rank` and the `result` message.

    reset options: `record_to` (a path: the match's record is written there, for
    `croupier replay --verify`), `match_id`; `record`, `decision` and `seat` start at decision K
    (0-based, all seats') of a record as its seat saw it (croupier.env.start.from_record); with
    `resample=True` and a seed, the cards that seat never saw are dealt again consistently with
    all it saw (croupier.env.sampling; the other seats' observations start empty).
    """

    metadata = {"name": "croupier_v1", "render_modes": [], "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        *,
        names: list[str] | None = None,
        time_control: TimeControl | None = None,
        **options: object,
    ) -> None:
        super().__init__()
        self.table = Table.of(game, options)
        self.game = game
        self.names = names or [f"seat {seat}" for seat in range(self.table.seats)]
        if len(self.names) != self.table.seats:
            raise ValueError(f"{len(self.names)} names for {self.table.seats} seats")
        self.time_control = time_control
        self.possible_agents = [agent_name(seat) for seat in range(self.table.seats)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        width = self.table.encoder.size
        actions = self.table.encoder.actions
        space = spaces.Dict(
            {
                "observation": spaces.Box(-BOUND, BOUND, (width,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self.match: SeatQueues | None = None
        self.requests: list[referee_pb2.ActionRequest | None] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Other keys are ignored: PettingZoo's api_test resets with options={"options": 1}.
        options = options or {}
        record_to = options.get("record_to")
        write = Path(record_to) if record_to is not None else None
        if self.match is not None:
            self.match.close()
        self.requests = [None] * self.table.seats
        if options.get("record") is not None and options.get("resample"):
            if seed is None:
                raise ValueError("resample=True needs a seed")
            sample = resample(
                self.table,
                Path(options["record"]),
                int(options.get("decision", 0)),
                options.get("seat"),
                random.Random(seed),
            )
            self.match = sample.match
            self.requests[self.match.seat] = self.match.request  # the others' are not resampled
        elif options.get("record") is not None:
            self.match, replayed = from_record(
                self.table,
                Path(options["record"]),
                int(options.get("decision", 0)),
                options.get("seat"),
                record_to=write,
            )
            for seat, request in replayed:
                self.requests[seat] = request
        else:
            self.match = self.table.match(
                new_seed() if seed is None else seed,
                self.names,
                time_control=self.time_control,
                match_id=str(options.get("match_id", MATCH_ID)),
                record=write,
            )
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._moved()

    def request(self, agent: str) -> referee_pb2.ActionRequest | None:
        """The last request the referee sent the agent's seat (None before its first)."""
        return self.requests[self._seat[agent]]

    def observe(self, agent: str) -> Observation:
        request = self.requests[self._seat[agent]]
        encoder = self.table.encoder
        if request is None:
            empty: Vector = np.zeros(encoder.size, dtype=np.float32)
            return {"observation": empty, "action_mask": np.zeros(encoder.actions, np.int8)}
        return {"observation": encoder.encode(request), "action_mask": encoder.mask(request)}

    def step(self, action: int | None) -> None:
        if self.match is None:
            raise ValueError("step before reset")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"action {action!r} for {agent!r}, whose match is over")
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"no action for {agent!r}, whose turn it is")
        self.match.answer(int(action))  # raises, changing nothing, for an action off the mask
        self._cumulative_rewards[agent] = 0.0
        self._moved()

    def _moved(self) -> None:
        """After each decision: the next seat's request, or the end and its rewards."""
        assert self.match is not None
        match = self.match
        if match.request is not None:
            self.requests[match.seat] = match.request
            self.agent_selection = agent_name(match.seat)
            return
        assert match.outcome is not None
        result = match.outcome.result
        for seat_result in result.seats:
            agent = agent_name(seat_result.seat)
            self.rewards[agent] = float(seat_result.score)
            self.terminations[agent] = True
            self.infos[agent] = {"rank": seat_result.rank, "result": result}
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def close(self) -> None:
        if self.match is not None:
            self.match.close()
