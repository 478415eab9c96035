"""A launched bot's cgroups, as root: its process limit, and an account of the CPU it had.

- `pids` (cgroup v1's pids hierarchy, or v2 with the pids controller) enforces the processes
  limit: RLIMIT_NPROC is per user and root ignores it.
- `memory` (cgroup v1's memory hierarchy, or v2 with the memory controller) caps what the bot
  holds in memory, its private tmpfs pages (/tmp, /dev/shm, /run) included: the kernel charges
  a tmpfs page to the cgroup of the process that wrote it (issue 31), and no swap. Over the cap,
  the kernel's OOM killer ends a process of the bot, and `memory_hit` says so. It counts what
  the bot uses, not the address space it reserves (a JVM, Go and Node reserve gigabytes they
  never touch), so where it exists the sandbox sets no RLIMIT_AS (referee.local.sandbox).
- `account` is a cgroup v2 group (the unified hierarchy: /sys/fs/cgroup on v2 machines,
  /sys/fs/cgroup/unified on hybrid ones). Its `cpu.stat` counts the CPU time of everything the
  bot runs, and its `cpu.pressure` the time some of it was ready to run but waited for a CPU (the
  kernel's pressure stall information): the clock never charges a bot for that wait
  (referee.local.processes, referee.match.clock.DecisionTimer).

- `freezer` stops everything the bot runs at once while pondering is off
  (referee.local.processes): the account group itself (cgroup v2's `cgroup.freeze`), else a
  group of cgroup v1's freezer hierarchy. A signal to the bot's process group would miss a child
  that called setsid() or double-forked; the cgroup holds every descendant, wherever it went.

Unprivileged, or where the kernel has neither, there are none: RLIMIT_NPROC limits processes
(bwrap's user namespace makes it count the bot's own), the bot's CPU time is read from /proc,
a bot starved of CPU by other programs is charged as if it had it, and pondering is stopped by
SIGSTOP of the bot's process group.

Each group is named `croupier-PID-XXXXXXXX`, PID being the referee's: `remove` waits until the
bot's processes are gone before it removes them, and the first launch of a referee removes the
groups of referees that are no longer running (killed with -9, they could not).
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.local import leftovers

#: Where the pids controller may be: cgroup v1's own hierarchy, then v2's.
_PIDS_BASES = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
#: Where the memory controller may be: cgroup v1's own hierarchy, then v2's.
_MEMORY_BASES = (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup"))
#: Where the cgroup v2 (unified) hierarchy may be mounted: alone, or beside v1 (hybrid).
_UNIFIED_BASES = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
#: cgroup v1's freezer hierarchy, for a machine whose unified hierarchy cannot freeze.
_FREEZER_BASE = Path("/sys/fs/cgroup/freezer")
#: Every hierarchy croupier makes groups in (a v2-only machine has the first alone).
_BASES = (*_UNIFIED_BASES, _PIDS_BASES[0], _MEMORY_BASES[0], _FREEZER_BASE)
#: A group's name: this, the referee's pid, then a random part (referee.local.leftovers).
_PREFIX = "croupier"
#: How long `remove` waits for the bot's processes to be gone (seconds), and between looks.
REMOVE_WAIT_SECONDS = 2.0
_REMOVE_POLL_SECONDS = 0.005


@dataclass(frozen=True, slots=True)
class BotCgroups:
    """One bot process's cgroups (one launch: a restart gets new ones). On a v2-only machine
    both may be the same folder."""

    pids: Path | None
    account: Path | None
    memory: Path | None = None
    #: Where the bot is frozen: `account` (v2's cgroup.freeze) or a v1 freezer group.
    freezer: Path | None = None

    @classmethod
    def create(cls, process_limit: int, memory_mb: int = 0) -> BotCgroups | None:
        """New cgroups for a launch, limiting processes and threads to `process_limit` and
        memory to `memory_mb` MiB (0: no limit); None when not root or the kernel offers none."""
        if os.geteuid() != 0:
            return None
        remove_abandoned()
        name = leftovers.owned_name(_PREFIX) + secrets.token_hex(4)
        account = _make(_unified_base(), name)
        pids = None
        if process_limit:
            pids = _limited(_PIDS_BASES, "pids", name, account, {"pids.max": process_limit})
        limit = str(memory_mb * 1024 * 1024)
        files = {
            "memory.limit_in_bytes": limit,  # v1, then its memory+swap (no swap): after it
            "memory.memsw.limit_in_bytes": limit,
            "memory.max": limit,  # v2
            "memory.swap.max": "0",
        }
        memory = _limited(_MEMORY_BASES, "memory", name, account, files) if memory_mb else None
        freezer = account
        if account is None or not (account / "cgroup.freeze").exists():
            freezer = _make(_FREEZER_BASE if _is_hierarchy(_FREEZER_BASE) else None, name)
        if pids is None and account is None and memory is None and freezer is None:
            return None
        return cls(pids, account, memory, freezer)

    def folders(self) -> list[Path]:
        found = (self.pids, self.account, self.memory, self.freezer)
        return list(dict.fromkeys(p for p in found if p is not None))

    def enter(self) -> list[str]:
        """A command prefix that joins the cgroups, then execs the rest: everything the bot
        starts is counted in them."""
        folders = self.folders()
        script = 'echo $$ > "$0" && ' + 'echo $$ > "$1" && shift && ' * (len(folders) - 1)
        script += 'exec "$@"'
        shell = shutil.which("sh") or "/bin/sh"
        return [shell, "-c", script, *(str(f / "cgroup.procs") for f in folders)]

    def hit(self) -> bool:
        """Whether a fork or thread was refused for the processes limit."""
        if self.pids is None:
            return False
        for line in _read(self.pids / "pids.events").splitlines():
            name, _, count = line.partition(" ")
            if name == "max" and count.strip() not in ("", "0"):
                return True
        return False

    def memory_hit(self) -> bool:
        """Whether the kernel ended a process of the bot for its memory limit."""
        if self.memory is None:
            return False
        for name in ("memory.oom_control", "memory.events"):
            for line in _read(self.memory / name).splitlines():
                key, _, count = line.partition(" ")
                if key == "oom_kill" and count.strip() not in ("", "0"):
                    return True
        return False

    def remove(self, wait: float = REMOVE_WAIT_SECONDS) -> bool:
        """Kill what is left in them (a child that left the bot's process group, or that the
        kernel has not finished ending yet), wait up to `wait` seconds until they are empty,
        and remove them; whether all are gone (the kernel refuses to remove a busy one)."""
        return _remove(self.folders(), wait)


def remove_abandoned(wait: float = REMOVE_WAIT_SECONDS) -> list[Path]:
    """Remove the groups of referees that are no longer running (killed with -9, they could
    not), once per referee process; a running referee's are left alone. Returns those removed."""
    return _sweep(os.getpid(), wait)


@functools.cache
def _sweep(referee: int, wait: float) -> list[Path]:
    del referee  # the cache's key: a forked referee sweeps again
    found = leftovers.abandoned(_groups(), _PREFIX)
    _remove(found, wait)
    return [folder for folder in found if not folder.exists()]


def _groups() -> Iterator[Path]:
    """croupier's groups in every hierarchy it makes them in."""
    seen: set[Path] = set()
    for base in _BASES:
        if base in seen or not (base / "cgroup.procs").exists():
            continue
        seen.add(base)
        with contextlib.suppress(OSError):
            for entry in os.scandir(base):
                if entry.name.startswith(_PREFIX) and entry.is_dir(follow_symlinks=False):
                    yield Path(entry.path)


def _remove(folders: list[Path], wait: float) -> bool:
    """Thaw and kill what is in `folders`, then remove them as they empty, for up to `wait`
    seconds; whether all are gone."""
    for folder in folders:
        _thaw(folder)  # a task frozen by v1's freezer does not die until it is thawed
        _kill_all(folder)
    deadline = time.monotonic() + wait
    left = list(folders)
    while True:
        left = [folder for folder in left if not _rmdir(folder)]
        if not left or time.monotonic() >= deadline:
            return not left
        for folder in left:
            _kill_all(folder)  # a process forked while the first kill was under way
        time.sleep(_REMOVE_POLL_SECONDS)


def _thaw(folder: Path) -> None:
    for file, value in (("cgroup.freeze", "0"), ("freezer.state", "THAWED")):
        if (folder / file).exists():
            with contextlib.suppress(OSError):
                (folder / file).write_text(value)


def _kill_all(folder: Path) -> None:
    """SIGKILL everything in `folder`: at once by v2's cgroup.kill, else one process at a time,
    each pinned with a pidfd and checked to be still in the group before the signal (pids are
    reused fast)."""
    with contextlib.suppress(OSError):
        (folder / "cgroup.kill").write_text("1")
        return
    for pid in _read(folder / "cgroup.procs").split():
        with contextlib.suppress(OSError, ValueError):
            fd = os.pidfd_open(int(pid))
            try:
                if f"/{folder.name}\n" in _read(Path(f"/proc/{pid}/cgroup")):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
            finally:
                os.close(fd)


def _rmdir(folder: Path) -> bool:
    """Remove `folder`; whether it is gone (EBUSY while a process is still in it)."""
    try:
        folder.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _is_hierarchy(base: Path) -> bool:
    return (base / "cgroup.procs").exists()


def _unified_base() -> Path | None:
    for base in _UNIFIED_BASES:
        if (base / "cgroup.controllers").exists() and (base / "cpu.pressure").exists():
            return base
    return None


def _limited(
    bases: tuple[Path, ...],
    controller: str,
    name: str,
    account: Path | None,
    files: Mapping[str, object],
) -> Path | None:
    """A cgroup of `controller` with its limit `files` written (those the hierarchy has: v1
    and v2 name them differently): v2's is the account group itself."""
    for base in bases:
        if not _is_hierarchy(base):
            continue
        v2 = (base / "cgroup.controllers").exists()
        if v2 and controller not in _read(base / "cgroup.controllers").split():
            continue
        same = account is not None and account.parent == base
        path = account if same else _make(base, name)
        if path is None:
            continue
        written = 0
        for file, value in files.items():
            with contextlib.suppress(OSError):
                (path / file).write_text(str(value))
                written += 1
        if not written:  # this hierarchy cannot hold the limit: try the next
            if not same:
                with contextlib.suppress(OSError):
                    path.rmdir()
            continue
        return path
    return None


def _make(base: Path | None, name: str) -> Path | None:
    if base is None:
        return None
    path = base / name
    try:
        path.mkdir()
    except OSError:
        return None
    return path


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
