"""Starting a bot's process from one thread that lives as long as the referee.

bwrap's `--die-with-parent` (and any parent-death signal) follows the *thread* that started the
process, not the process: trio starts processes from worker threads that end when idle, which
would kill healthy bots. So every bot starts from one long-lived thread of its own; when the
referee dies, that thread dies with it, and so does every sandbox (its pid namespace with it).
The process is then waited for through a pidfd, as trio's own processes are on Linux.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

import trio

#: One thread, never idle-reaped (a ThreadPoolExecutor's threads live until shutdown).
_STARTER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="croupier-bot-starter")


class Child:
    """A started bot process: the parts of trio.Process the launchers use. Any number of tasks
    may wait for it at once (the supervisor, and whoever stops the bot)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self._pidfd = os.pidfd_open(popen.pid)
        self._watching = False
        self._waiters = trio.lowlevel.ParkingLot()

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        """The exit code (negative: killed by that signal), once the process has exited."""
        while self._popen.returncode is None:
            if self._watching:  # another task watches the pidfd: wake with it
                await self._waiters.park()
                continue
            self._watching = True
            try:
                await trio.lowlevel.wait_readable(self._pidfd)
                self._popen.wait()
            finally:
                self._watching = False
                self._waiters.unpark_all()
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1
        return self._popen.returncode

    def kill(self) -> None:
        """SIGKILL, through the pidfd: never a pid that was reused."""
        if self._pidfd >= 0 and self._popen.returncode is None:
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)


async def start(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None,
    output: IO[bytes] | int,
    pass_fds: Sequence[int] = (),
) -> Child:
    """Start `argv` in a session of its own (so its group can be stopped and killed whole),
    stdin closed, stdout and stderr to `output`; OSError when it cannot start."""

    def popen() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv),
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )

    future = _STARTER.submit(popen)
    try:
        popened = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
    except trio.Cancelled:
        # Ctrl-C while many slots launch: a launch still queued is withdrawn, and one already
        # under way is killed as soon as it exists, so that nobody waits for the whole queue.
        if not future.cancel():
            future.add_done_callback(_kill_unwanted)
        raise
    return Child(popened)


def _kill_unwanted(future: Future[subprocess.Popen[bytes]]) -> None:
    """Kill the session of a process whose launch was cancelled while it started; the starter
    thread reaps it (this may run on the caller's thread, which must not wait)."""
    if future.cancelled() or future.exception() is not None:
        return
    popened = future.result()
    with contextlib.suppress(OSError):
        os.killpg(popened.pid, signal.SIGKILL)
    _STARTER.submit(popened.wait)
