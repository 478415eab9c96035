"""croupier: the Python SDK for bots that play on a croupier referee.

import croupier

class MyBot(croupier.Bot):
    def act(self, request):
        return 0  # the index of a legal action in request.legal_actions

croupier.run(MyBot())

`DecisionLog` is a logging handler that tags each line with the decision it came during, for
`croupier replay --seat S --log FILE` to show beside it.
"""

from __future__ import annotations

from croupier.bot import Bot
from croupier.client import ConfigurationError, run, run_async
from croupier.decision_log import Decision, DecisionLog, current_decision

__all__ = [
    "Bot",
    "ConfigurationError",
    "Decision",
    "DecisionLog",
    "current_decision",
    "run",
    "run_async",
]
