"""The launched process behind a bot's sessions: its CPU time, and stopping it while it waits.

The launcher (referee.local.launcher) attaches one `BotProcessGroup` to the bot's identity in
the lobby; each session of that bot then carries it, as the match layer's `LaunchedBot`
(referee.match.launched), so that its seat can read the bot's CPU time around a decision and,
with pondering off, continue the bot only while one of its requests is pending. A bot that
connects on its own (a contest) has none: its CPU time is unknown.

With a cgroup v2 account of the bot (referee.local.cgroups, as root), both its CPU time and the
time it waited for a CPU are read from the kernel's counters for everything the bot runs;
without one, the CPU time is summed over its process tree from /proc and the wait is unknown.

With pondering off, the bot is stopped by freezing its cgroup (cgroup v2's `cgroup.freeze`, or
v1's `freezer.state`), which holds every process it started, a child that called setsid() or
double-forked included; only where it has no freezer group is its process group sent SIGSTOP,
which such a child escapes. A frozen process uses no CPU and is not waiting for one, so neither
its CPU count nor its pressure stall count grows: the clock charges it nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

#: How often (seconds) the list of the bot's descendant processes is read again from /proc:
#: reading it costs about as much as the rest of a decision's bookkeeping, so it is cached.
TREE_REFRESH_SECONDS = 0.1
#: How long a count read from the bot's cgroup is used again rather than read anew (seconds):
#: well below what a decision's figures are rounded to.
COUNTER_REUSE_SECONDS = 0.0005
#: A freezer cgroup's file, and what freezes and thaws it: cgroup v2's, then v1's.
_V2_FREEZE = ("cgroup.freeze", b"1", b"0")
_V1_FREEZE = ("freezer.state", b"FROZEN", b"THAWED")


def _cpu_clock(pid: int) -> int:
    """Linux's CPU-time clock of a whole process (all its threads), what clock_getcpuclockid
    returns: reading it costs well under a microsecond, unlike parsing /proc/PID/stat."""
    return ((~pid) << 3) | 2


def _children(pid: int) -> list[int]:
    """The process's children, from each of its threads' /proc children list (Linux)."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as file:
                found.extend(int(child) for child in file.read().split())
        except OSError:
            continue  # the thread ended meanwhile
    return found


@dataclass(eq=False)
class BotProcessGroup:
    """A launched bot: the leader of its own process group (started with a new session).

    `ponder = False` keeps the bot stopped (frozen, else SIGSTOP) unless a request of one of its
    sessions is pending, so a bot that plays in several matches at once runs while any of them
    waits on it.
    """

    pid: int
    ponder: bool = True
    #: The bot's cgroup v2 folder (cpu.stat, cpu.pressure), if it has one.
    account: Path | None = None
    #: The bot's freezer cgroup (v2's cgroup.freeze or v1's freezer.state), if it has one.
    freezer: Path | None = None
    #: The cores the launcher pinned the bot to, ascending; empty: not pinned.
    pinned: tuple[int, ...] = ()
    #: Requests of this bot pending now (across its sessions).
    pending: int = 0
    stopped: bool = False
    _tree: list[int] = field(default_factory=list)
    _tree_read: float = -1.0
    _files: dict[str, int] = field(default_factory=dict)
    _counts: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: The open freezer file, and what to write in it to freeze and to thaw.
    _freezing: tuple[int, bytes, bytes] | None = None

    def cpu_seconds(self) -> float | None:
        """CPU seconds used so far by the bot and its descendants (its cgroup's count, else
        summed over its process tree, listed anew every TREE_REFRESH_SECONDS); None where the
        platform does not tell."""
        if self.account is not None:
            return self._counter("cpu.stat")
        now = time.monotonic()
        if now - self._tree_read > TREE_REFRESH_SECONDS:
            self._tree = self._descendants()
            self._tree_read = now
        total = 0.0
        for pid in self._tree:
            try:
                total += time.clock_gettime(_cpu_clock(pid))
            except (OSError, OverflowError):
                if pid == self.pid:
                    return None  # the bot itself is gone (or this is not Linux)
        return total

    def cores(self) -> tuple[int, ...]:
        return self.pinned

    def pin(self, cores: frozenset[int]) -> None:
        """Every thread of the bot's process tree on `cores` (their children inherit it); a
        thread that ended meanwhile is skipped."""
        for pid in self._descendants():
            try:
                threads = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for thread in threads:
                with contextlib.suppress(OSError, ValueError):
                    os.sched_setaffinity(int(thread), cores)
        self.pinned = tuple(sorted(cores))

    def ended(self) -> bool:
        """Whether the leader has exited: looked at without reaping it (WNOWAIT), so that its
        launcher still reads its exit status."""
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:  # reaped already (or never this process's child)
            return True

    def starved_seconds(self) -> float | None:
        """Seconds so far during which some of the bot's processes were ready to run but waited
        for a CPU (its cgroup's pressure stall count); None where unknown."""
        if self.account is None:
            return None
        return self._counter("cpu.pressure")

    def _counter(self, name: str) -> float | None:
        """The count in seconds that cgroup file `name` starts with (cpu.stat: `usage_usec N`;
        cpu.pressure: `some avg10=.. avg60=.. avg300=.. total=N`). The file stays open, and a
        count read less than COUNTER_REUSE_SECONDS ago is reused: a bot playing many matches at
        once is asked about for each of their decisions."""
        assert self.account is not None
        now = time.perf_counter()
        cached = self._counts.get(name)
        if cached is not None and now - cached[0] < COUNTER_REUSE_SECONDS:
            return cached[1]
        try:
            fd = self._files.get(name)
            if fd is None:
                fd = self._files[name] = os.open(self.account / name, os.O_RDONLY)
            first = os.pread(fd, 128, 0).split(b"\n", 1)[0]
            count = int(first.rpartition(b" ")[2].rpartition(b"=")[2]) / 1e6
        except (OSError, ValueError):
            return None
        self._counts[name] = (now, count)
        return count

    def close(self) -> None:
        """The process ended: let go of its cgroup's files."""
        for fd in self._files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._files.clear()
        self._freezing = None

    def _descendants(self) -> list[int]:
        found: list[int] = []
        todo = [self.pid]
        while todo and len(found) < 1000:
            pid = todo.pop()
            found.append(pid)
            todo.extend(_children(pid))
        return found

    def to_move(self) -> None:
        """A request to the bot is about to be sent: it runs (again)."""
        self.pending += 1
        if self.stopped:
            self._stop(False)  # before the request leaves: its clock starts on a running bot
            self.stopped = False

    def moved(self) -> None:
        """A request to the bot is over (answered or not): without pondering, the bot stops once
        none is pending."""
        self.pending = max(0, self.pending - 1)
        self.idle()

    def idle(self) -> None:
        """Without pondering, stop the bot if none of its requests is pending (from its match's
        start on, so that it does not think on the first mover's time either)."""
        if not self.ponder and self.pending == 0 and not self.stopped:
            self._stop(True)
            self.stopped = True

    def release(self) -> None:
        """The bot must run freely again (its match or its session ended)."""
        if self.stopped:
            self._stop(False)
            self.stopped = False

    def _stop(self, stop: bool) -> None:
        """Freeze (thaw) the bot's cgroup, else SIGSTOP (SIGCONT) its process group. A freeze
        completes asynchronously, as the kernel reaches each task: it is not waited for, since
        what the bot runs meanwhile is on nobody's clock. Refused, the bot is gone: its sessions
        learn it anyway."""
        with contextlib.suppress(OSError):
            if self.freezer is None:
                os.killpg(self.pid, signal.SIGSTOP if stop else signal.SIGCONT)
                return
            if self._freezing is None:  # the file stays open, as the counters' do
                v2 = (self.freezer / "cgroup.freeze").exists()
                name, frozen, thawed = _V2_FREEZE if v2 else _V1_FREEZE
                fd = self._files[name] = os.open(self.freezer / name, os.O_WRONLY)
                self._freezing = (fd, frozen, thawed)
            fd, frozen, thawed = self._freezing
            os.write(fd, frozen if stop else thawed)
