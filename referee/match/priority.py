"""The referee's CPU priority above the bots it referees, where the system lets it.

A referee starved of CPU (by its bots, or by other programs on the machine) sends requests late
and reads replies late; it does not charge its own lag to the bots (referee.match.clock), but
past LAG_ALLOWANCE_SECONDS a decision ends anyway. So the referee raises its priority (nice
REFEREE_NICE) when it may (as root, or with CAP_SYS_NICE), and starts its bots back at the usual
priority (`bot_prefix`). Unprivileged, it keeps the priority it was given. Measured beside two
CPU hogs (bench/fair_clock.py): the wall time of instant bots' decisions fell from a p99.9 of
over 200 ms to about 50 ms.
"""

from __future__ import annotations

import contextlib
import os
import shutil

#: The referee's nice value when it may raise its priority (lower is more CPU).
REFEREE_NICE = -10


def raise_own() -> None:
    """Set every thread of this process to REFEREE_NICE (Linux's nice is per thread, and only
    threads started later inherit it); best effort."""
    if not hasattr(os, "setpriority"):
        return
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        with contextlib.suppress(OSError):
            if os.getpriority(os.PRIO_PROCESS, tid) > REFEREE_NICE:
                os.setpriority(os.PRIO_PROCESS, tid, REFEREE_NICE)


def bot_prefix() -> list[str]:
    """A command prefix that starts a bot at nice 0 when the referee (whose nice a child
    inherits) runs at a raised priority; empty otherwise."""
    if not hasattr(os, "getpriority"):
        return []
    own = os.getpriority(os.PRIO_PROCESS, 0)
    nice = shutil.which("nice")
    if own >= 0 or nice is None:
        return []
    return [nice, "-n", str(-own), "--"]
