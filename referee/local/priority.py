"""Bots start at the usual CPU priority, below the referee that runs them.

A referee starved of CPU (by its bots, or by other programs on the machine) sends requests late
and reads replies late; it does not charge its own lag to the bots (referee.match.clock), but
past LAG_ALLOWANCE_SECONDS a decision ends anyway. So the referee raises its priority as it
starts, when it may (`referee.transport.host.raise_priority`: nice REFEREE_NICE, as root or with
CAP_SYS_NICE), and its launched bots start back at the usual priority (`bot_prefix`).
Unprivileged, both keep the priority they were given. Measured beside two CPU hogs
(bench/fair_clock.py): the wall time of instant bots' decisions fell from a p99.9 of over
200 ms to about 50 ms.
"""

from __future__ import annotations

import os
import shutil


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
