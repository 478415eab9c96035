"""A XIX bot that plays the first legal action, and whose process dies (exit 3) when asked to
draft: for the positions test, where a crash is a fault of that position only."""

from __future__ import annotations

import os

import croupier
from croupier.v1 import referee_pb2


class CrashOnDraft(croupier.Bot):
    name = "crash-on-draft"
    version = "1"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        if request.legal_actions[0].text.startswith("draft"):
            os._exit(3)
        return 0


if __name__ == "__main__":
    croupier.run(CrashOnDraft)
