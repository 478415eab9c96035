"""Log lines that a bot can provoke, rate-limited per bot or address so that it cannot flood the
referee's log: at most `per_second` lines a second per key, the rest counted and reported with
the next line that gets through."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

#: Keys remembered at most; older windows are forgotten first (an attacker's many addresses).
MAX_KEYS = 4096


@dataclass
class LogLimiter:
    """At most `per_second` lines per key in any one-second window; `suppressed` is counted."""

    logger: logging.Logger
    per_second: int = 5
    _windows: dict[str, tuple[float, int, int]] = field(default_factory=dict)

    def info(self, key: str, message: str, **fields: Any) -> bool:
        """Log `message` with `fields` unless `key` is over its rate; True if it was logged."""
        now = time.monotonic()
        start, lines, suppressed = self._windows.get(key, (now, 0, 0))
        if now - start >= 1.0:
            start, lines = now, 0
        if lines >= self.per_second:
            self._windows[key] = (start, lines, suppressed + 1)
            return False
        if suppressed:
            fields["suppressed"] = suppressed
        self._windows.pop(key, None)  # re-inserted last: the dict stays in order of use
        self._windows[key] = (start, lines + 1, 0)
        while len(self._windows) > MAX_KEYS:
            del self._windows[next(iter(self._windows))]
        self.logger.info(message, extra=fields)
        return True


def host_of(peer: str) -> str:
    """The address without its port ('ipv4:10.0.0.1:5000' -> 'ipv4:10.0.0.1'): one key per host."""
    host, _, port = peer.rpartition(":")
    return host if host and port.isdigit() else peer
