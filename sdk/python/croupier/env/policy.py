"""A policy becomes a bot: the function a training run learned, played by the SDK unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from croupier.bot import Bot
from croupier.env.encoding import Encoder, deck, encoder
from croupier.v1 import referee_pb2

#: A policy: from an environment's observation ({"observation", "action_mask"}) to an action.
Policy = Callable[[dict[str, Any]], int]


class PolicyBot(Bot):
    """Plays `policy` on the encoding of each request, exactly as the environments encode it,
    so that `croupier match`, `croupier doctor` and `croupier submit` run the trained agent.
    An action off the mask is the bot's illegal action (the referee faults it), never remapped.
    It needs numpy and the SDK only (no referee, PettingZoo or Gymnasium), as a hosted bot has."""

    def __init__(self, policy: Policy, name: str = "policy", version: str = "1") -> None:
        self.policy = policy
        self.name = name
        self.version = version
        self._encoder: Encoder | None = None

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        options = dict(start.options)
        seats = len(start.seat_names)
        self._encoder = encoder(start.game, seats, deck(start.game, options))

    def act(self, request: referee_pb2.ActionRequest) -> int:
        assert self._encoder is not None, "a request before MatchStart"
        coder = self._encoder
        observation = {"observation": coder.encode(request), "action_mask": coder.mask(request)}
        return int(self.policy(observation))
