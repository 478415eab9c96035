"""A launched bot's log: its stdout and stderr go into a pipe that the referee empties into the
log file, which it keeps to a size cap: the output's head, a line saying how much was cut, and
its latest output (what a crash says).

The bot never writes the file itself: a file of its own is held to its file-size limit
(RLIMIT_FSIZE), so a log that reached it killed the bot on its next print, and every restart
with it. A pipe is no file: printing costs the bot a write into the pipe's 1 MiB buffer, and no
limit of its own. The referee's side is bounded: it moves at most RATE bytes a second from each
bot (a bot that prints faster waits on its full pipe, on its own clock), and the file never
grows past its cap.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import trio

_V = TypeVar("_V")

#: The pipe's buffer: a bot's bursts up to this size never wait for the referee.
PIPE_BYTES = 1024 * 1024
#: At most this many bytes a second are moved from each bot's pipe to its log.
RATE = 32 * 1024 * 1024
#: What the pipe still holds when the bot has exited is moved up to this much (a child the bot
#: left behind may still write).
DRAIN_BYTES = 4 * PIPE_BYTES
#: The line between the head and the tail, with the count of bytes of output cut.
MARKER = b"\n[... %d bytes cut ...]\n"
_MARKER = re.compile(rb"\n\[\.\.\. (\d+) bytes cut \.\.\.\]\n")
#: The kept tail starts at a line's start when one starts this near its cut.
_LINE_BYTES = 4096


class _Log:
    """One log file, shared by every process of this referee that writes it (a per-match
    launch runs several processes of one bot at once): each write goes at its tracked end, and
    `lock` keeps a cut (in a worker thread) apart from writes."""

    def __init__(self, path: Path, cap: int, taps: list[Callable[[bytes], None]]) -> None:
        # Not O_APPEND: the file is rewritten in place when it reaches its cap.
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        #: Who gets the output as it comes, besides the file (see `tapped`).
        self.taps = taps
        self.cap = cap
        self.users = 0
        self.lock = trio.Lock()
        self.end = os.fstat(self.fd).st_size
        #: The head's size, and the size of the tail kept when the file is cut.
        self.head = self.keep = cap // 4
        #: Output bytes cut so far, and where the tail after the marker starts.
        self.cut = 0
        self.tail_start = self.head
        if cap and self.end > self.head:  # a log written before, cut already: count on
            found = _MARKER.match(os.pread(self.fd, 64, self.head))
            if found:
                self.cut = int(found[1])
                self.tail_start = self.head + found.end()

    async def take(self, pipe: int, most: int) -> int:
        """Move up to `most` bytes that `pipe` holds now into the file (cutting it at its cap);
        the count moved. The pipe never ends here: its writing end is held until it closes."""
        moved = 0
        async with self.lock:
            while moved < most:
                if self.cap and self.end >= self.cap:
                    await trio.to_thread.run_sync(self._cut)
                room = self.cap - self.end if self.cap else most
                try:
                    data = os.read(pipe, min(most - moved, room))
                except BlockingIOError:
                    break
                self._write(data)
                for tap in self.taps:
                    tap(data)
                moved += len(data)
        return moved

    def _write(self, data: bytes) -> None:
        # A full disk loses the output, never the bot (the records say that the disk is full).
        with contextlib.suppress(OSError):
            self.end += os.pwrite(self.fd, data, self.end)

    def _cut(self) -> None:
        """Keep the head, a marker line, and the last `keep` bytes (from a line's start when
        one starts near). The tail lies past 3/4 of the cap and is copied below 1/2 of it, so
        the copy never overlaps itself."""
        start = max(self.tail_start, self.end - self.keep)
        newline = os.pread(self.fd, _LINE_BYTES, start).find(b"\n")
        if newline >= 0:
            start += newline + 1
        self.cut += start - self.tail_start
        marker = MARKER % self.cut
        os.pwrite(self.fd, marker, self.head)
        self.tail_start = to = self.head + len(marker)
        while start < self.end:
            chunk = os.pread(self.fd, min(PIPE_BYTES, self.end - start), start)
            os.pwrite(self.fd, chunk, to)
            start += len(chunk)
            to += len(chunk)
        os.ftruncate(self.fd, to)
        self.end = to


#: The logs open in this trio run (their locks are its own), by path.
_OPEN: trio.lowlevel.RunVar[dict[Path, _Log]] = trio.lowlevel.RunVar("bot_logs")
#: Who gets each log's output as it comes (see `tapped`), by path, whether it is open or not.
_TAPS: trio.lowlevel.RunVar[dict[Path, list[Callable[[bytes], None]]]] = trio.lowlevel.RunVar(
    "bot_log_taps"
)


def _run_dict(var: trio.lowlevel.RunVar[dict[Path, _V]]) -> dict[Path, _V]:
    try:
        return var.get()
    except LookupError:
        made: dict[Path, _V] = {}
        var.set(made)
        return made


@contextlib.contextmanager
def tapped(path: Path, tap: Callable[[bytes], None]) -> Iterator[None]:
    """`tap` gets every byte of output the log at `path` is given while the block runs, before
    any cut: a hosted bot's output during one of its matches (referee.hosted.roster)."""
    taps = _run_dict(_TAPS).setdefault(Path(os.path.abspath(path)), [])
    taps.append(tap)
    try:
        yield
    finally:
        taps.remove(tap)


@contextlib.contextmanager
def _shared(path: Path, cap: int) -> Iterator[_Log]:
    opened = _run_dict(_OPEN)
    key = Path(os.path.abspath(path))
    log = opened.get(key)
    if log is None:
        log = opened[key] = _Log(path, cap, _run_dict(_TAPS).setdefault(key, []))
    log.users += 1
    try:
        yield log
    finally:
        log.users -= 1
        if not log.users:
            del opened[key]
            os.close(log.fd)


async def _pump(log: _Log, pipe: int) -> None:
    """Empty the pipe into the log as it fills, at most RATE bytes a second."""
    while True:
        await trio.lowlevel.wait_readable(pipe)
        await trio.sleep(await log.take(pipe, PIPE_BYTES) / RATE)


@asynccontextmanager
async def bot_output(path: Path | None, cap: int) -> AsyncIterator[int]:
    """The file descriptor a bot process's stdout and stderr go to while the block runs: a pipe
    emptied into the log at `path`, kept to `cap` bytes (0: no cap); DEVNULL when `path` is None.
    Run the process to its end inside the block: on the way out, what the pipe still holds is
    written, so that the log ends with the bot's last words. OSError when the log cannot be
    opened."""
    if path is None:
        yield subprocess.DEVNULL
        return
    read, write = os.pipe()
    try:
        with contextlib.suppress(OSError):  # (a smaller pipe where the system allows no more)
            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        os.set_blocking(read, False)
        with _shared(path, cap) as log:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_pump, log, read)
                try:
                    yield write
                finally:
                    nursery.cancel_scope.cancel()
                    with trio.CancelScope(shield=True):
                        await log.take(read, DRAIN_BYTES)
    finally:
        trio.lowlevel.notify_closing(read)
        os.close(read)
        os.close(write)
