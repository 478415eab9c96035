"""A random bot whose process crashes once, for the ladder tests: python crash_once.py MARKER.

On its third decision, if the file MARKER does not exist yet, it creates it and exits at once
(mid-match, exit code 3); every later process finds the marker and plays on. The ladder must
restart it, record the crash against it, and finish.
"""

from __future__ import annotations

import os
import random
import sys

import croupier
from croupier.v1 import referee_pb2


class CrashOnce(croupier.Bot):
    name = "crash-once"
    version = "1"
    decisions = 0

    def act(self, request: referee_pb2.ActionRequest) -> int:
        CrashOnce.decisions += 1
        if CrashOnce.decisions == 3:
            try:  # O_EXCL: of several processes, exactly one crashes
                os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                pass
            else:
                os._exit(3)
        return random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    croupier.run(CrashOnce)
