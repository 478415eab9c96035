"""Child processes whose stdout a test reads only at the start."""

from __future__ import annotations

import threading
from typing import IO


def drain(stream: IO[bytes]) -> None:
    """Read the rest of `stream` and close it, in a daemon thread.

    A child printing to a pipe nobody reads blocks once the pipe's 64 KB are full: a referee
    that prints a line per match stalled its whole event loop after about 800 matches, and then
    could not shut down.
    """

    def read() -> None:
        with stream:
            while stream.read(1 << 16):
                pass

    threading.Thread(target=read, daemon=True, name="drain").start()
