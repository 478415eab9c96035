"""croupier: the Python SDK for bots that play on a croupier referee.

import croupier

class MyBot(croupier.Bot):
    def act(self, request):
        return 0  # the index of a legal action in request.legal_actions

croupier.run(MyBot())
"""

from __future__ import annotations

from croupier.bot import Bot
from croupier.client import ConfigurationError, run, run_async

__all__ = ["Bot", "ConfigurationError", "run", "run_async"]
