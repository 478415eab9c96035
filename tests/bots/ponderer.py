"""A random bot for the fair-CPU tests: python ponderer.py [--ponder] [--think-ms N] [--burn-ms N].

`--ponder` starts a child process that spins on the CPU all the time (thinking on the opponent's
clock too), in the bot's process group; it exits when the bot does. `--think-ms` sleeps and
`--burn-ms` spins that long before each answer. It prints its CPU affinity to stderr at start.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

import croupier
from croupier.v1 import referee_pb2

SPIN = (
    "import os\n"
    "parent = os.getppid()\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(100_000): pass\n"
)


class Ponderer(croupier.Bot):
    name = "ponderer"
    version = "1"
    think = 0.0
    burn = 0.0

    def act(self, request: referee_pb2.ActionRequest) -> int:
        time.sleep(self.think)
        end = time.process_time() + self.burn
        while time.process_time() < end:
            pass
        return random.randrange(len(request.legal_actions))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ponder", action="store_true")
    parser.add_argument("--think-ms", type=float, default=0.0)
    parser.add_argument("--burn-ms", type=float, default=0.0)
    args = parser.parse_args()
    print("affinity", " ".join(map(str, sorted(os.sched_getaffinity(0)))), file=sys.stderr)
    Ponderer.think = args.think_ms / 1000
    Ponderer.burn = args.burn_ms / 1000
    spinner = subprocess.Popen([sys.executable, "-c", SPIN]) if args.ponder else None
    try:
        croupier.run(Ponderer)
    finally:
        if spinner is not None:
            spinner.kill()


if __name__ == "__main__":
    main()
