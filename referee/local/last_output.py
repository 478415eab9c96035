"""What a bot that died said about why: the lines of its output that name the error, and advice.

A runtime's last lines are often not the telling ones: Node ends a missing package's error with a
stack of `at ...` lines, an object and its version, and a Python exception raised while handling
another ends far below the first. So the lines that name an error are quoted wherever they are,
with the last lines after them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: Lines of a bot's output quoted after the telling ones.
LAST_LINES = 10
#: At most this many telling lines from before the last ones.
TELLING_LINES = 5
#: How much of the end of a log is searched (bytes).
SEARCHED_BYTES = 64 * 1024

_TELLING = re.compile(
    r"^\s*(?:"
    r"[A-Za-z_][\w.]*(?:Error|Exception)\b"  # Python, JavaScript, Java exceptions
    r"|Error\b|Traceback \(most recent call last\)"
    r"|panic:|fatal error:|terminate called"  # Go, C++
    r")"
    r"|Cannot find (?:module|package)"
)
_NODE_MISSING = re.compile(r"Cannot find (?:module|package) '([^']+)'(?: imported from (\S+))?")

#: Marks the lines left out between the telling ones and the last ones.
GAP = "..."


def read_output(path: Path | None) -> list[str]:
    """The end of a bot's log as lines ([] when there is none)."""
    if path is None:
        return []
    try:
        with path.open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - SEARCHED_BYTES))
            return log.read().decode(errors="replace").splitlines()
    except OSError:
        return []


def telling(lines: list[str], last: int = LAST_LINES) -> list[str]:
    """The lines that name an error from before the `last` lines (at most TELLING_LINES, the
    first ones, each once: a bot restarted several times says the same again), `GAP` where lines
    are left out, then the `last` lines."""
    cut = max(0, len(lines) - last)
    seen = set(lines[cut:])
    named: list[int] = []
    for i in range(cut):
        if len(named) < TELLING_LINES and lines[i] not in seen and _TELLING.search(lines[i]):
            named.append(i)
            seen.add(lines[i])
    shown: list[str] = []
    previous = -1
    for i in named:
        if i > previous + 1:
            shown.append(GAP)
        shown.append(lines[i])
        previous = i
    if cut > previous + 1:
        shown.append(GAP)
    return shown + lines[cut:]


def advice(lines: list[str]) -> str | None:
    """What to do about an error the output names, when there is a usual fix."""
    for line in lines:
        if missing := _NODE_MISSING.search(line):
            importer = missing.group(2)
            folder = f" ({Path(importer).parent})" if importer else ""
            return (
                f"Node cannot find {missing.group(1)!r}: run `npm ci` in the bot's folder{folder}, "
                "where its package.json and package-lock.json are, and keep node_modules beside it"
            )
    return None
