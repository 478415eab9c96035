"""Child processes whose stdout a test reads only at the start."""

from __future__ import annotations

import threading
from typing import IO


def drain(stream: IO[bytes]) -> None:
    """Read the rest of `stream` and close it, in a daemon thread.

    A child printing to a pipe nobody reads blocks once the pipe's 64 KB are full: a referee
    that prints a line per match stalled its whole event loop after about 800 matches, and then
    could not shut down. The owner may close the stream first (Popen's `with` does, once its
    process has exited), before this thread has read to the end on a busy machine: the thread
    then just stops (an unhandled error in it failed the test that owned it, in a load run).
    """

    def read() -> None:
        try:
            with stream:
                while stream.read(1 << 16):
                    pass
        except (ValueError, OSError):  # closed by its owner
            return

    threading.Thread(target=read, daemon=True, name="drain").start()
