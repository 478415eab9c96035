"""Training environments on the referee's own rules (`pip install croupier[env]`).

`croupier.env._aec(game, **options)` is a PettingZoo AEC environment (each seat an agent);
`croupier.env._gym(game, opponents, **options)` a Gymnasium one for one seat against fixed
opponents (`croupier.Bot`s). Both play the referee's own match (referee.match.requests), so
`reset(seed=S)` deals as a referee match with seed S. `PolicyBot` plays a trained policy as a bot.
PettingZoo, Gymnasium and the referee are imported only by `aec` and `gym`: a policy bot
(numpy and the SDK) needs none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from croupier.bot import Bot
from croupier.env.encoding import ACTIONS, Encoder
from croupier.env.policy import Policy, PolicyBot

if TYPE_CHECKING:
    from croupier.env._aec import CroupierAEC
    from croupier.env._gym import CroupierGym


def aec(game: str, **options: object) -> CroupierAEC:
    """The PettingZoo AEC environment of `game` (options as keywords: `players=4`)."""
    from croupier.env._aec import CroupierAEC

    return CroupierAEC(game, **options)  # type: ignore[arg-type]


def gym(game: str, opponents: Sequence[Bot], **options: object) -> CroupierGym:
    """The Gymnasium environment of `game` for seat `seat` (default 0) against `opponents`."""
    from croupier.env._gym import CroupierGym

    return CroupierGym(game, opponents, **options)  # type: ignore[arg-type]


__all__ = ["ACTIONS", "Encoder", "Policy", "PolicyBot", "aec", "gym"]
