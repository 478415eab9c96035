"""Run a command beside a fixed CPU load: `python scripts/with_load.py --hogs 2 -- CMD...`.

`make test-load` runs the test suite so (issue 50): a suite that fails only on a busy machine
refuses good work in CI, which runs on a developer's own machine beside whatever else runs. The
hogs are plain busy loops at normal priority, one process each; they are killed when the
command ends, however it ends. The load averages before and after are printed, so a run's
figures say what it ran beside. Exits with the command's exit code.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

SPIN = "while True:\n    pass\n"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="busy processes beside the command")
    parser.add_argument("--nice", type=int, default=0, help="niceness of the command")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command and its args")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    hogs = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(args.hogs)]
    began = time.monotonic()
    print(f"with_load: {args.hogs} hogs; load average before: {load_average()}", flush=True)
    try:
        niced = ["nice", "-n", str(args.nice), *command] if args.nice else command
        code = subprocess.call(niced)
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()
    minutes = (time.monotonic() - began) / 60
    print(
        f"with_load: exit {code} after {minutes:.1f} min; load average at the end: "
        f"{load_average()}",
        flush=True,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
