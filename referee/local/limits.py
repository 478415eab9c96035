"""What a launched bot may consume, and which limit a bot that died went over.

The kernel enforces the limits (rlimits set in the child before it execs, which the sandbox and
every process the bot starts inherit); the referee only reads the exit afterwards to name the
fault: a signal, the end of the bot's own output (its runtime says why it died), or the pids
cgroup's counter.
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from croupier.v1 import common_pb2
from referee.errors import CroupierError

MB = 1024 * 1024


class LimitsError(CroupierError):
    """A limit given in a ladder file or on the command line that makes no sense."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Per bot process (and everything it starts). 0 means no limit. The defaults leave an
    honest bot (a Python or Node runtime with its gRPC threads) ample room and stop a runaway
    one long before it hurts the machine or the other bots."""

    #: Memory, MiB: what the bot uses, its tmpfs scratch included (a memory cgroup, as root),
    #: else its address space (RLIMIT_AS, which counts what a JVM, Go or Node reserves and never
    #: touches: ~0.5 GiB for Python+gRPC, ~1 GiB for Node). 2 GiB leaves a bot room for its
    #: own tables while ten bots fit in a 24 GiB machine.
    memory_mb: int = 2048
    #: Processes and threads (a pids cgroup as root, where RLIMIT_NPROC does not apply; else
    #: RLIMIT_NPROC): gRPC runtimes start ~10-20 threads; 128 allows a worker pool, not a bomb.
    processes: int = 128
    #: Largest file the bot may write, MiB (RLIMIT_FSIZE); also the size of its scratch folders
    #: (tmpfs, so memory), and of its log, which the referee writes and cuts (see log_bytes):
    #: room for a cache or a log, not for filling the host's disk.
    disk_mb: int = 64
    #: Open files and sockets (RLIMIT_NOFILE): a bot needs a handful; over it the bot's own
    #: open() fails (EMFILE), which is its error to handle, so no fault reason of its own.
    open_files: int = 256
    #: CPU seconds over the process's whole life, restarts starting afresh (RLIMIT_CPU): SIGXCPU
    #: at the limit, SIGKILL 5 s later. None by default: a ladder's bot lives for the whole
    #: ladder, and an honest bot using its full second a move would reach any fixed cap; the
    #: clock bounds thinking on a bot's own time, and `ponder = false` off it.
    cpu_seconds: int = 0

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def merged(self, overrides: dict[str, Any], where: str) -> Limits:
        """These limits with `overrides` (a ladder file's table, or command-line values) applied."""
        changes: dict[str, int] = {}
        for key, value in overrides.items():
            if key not in self.keys():
                raise LimitsError(
                    f"unknown limit {key!r} in {where}; known: {', '.join(self.keys())}"
                )
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise LimitsError(
                    f"limit {key!r} in {where} must be a whole number >= 0, got {value!r}"
                )
            changes[key] = value
        return replace(self, **changes)

    @property
    def log_bytes(self) -> int:
        """The cap of the bot's log (0: none): its output is kept to its head and latest part
        (referee.local.bot_log), so it never kills the bot as a file of its own would."""
        return self.disk_mb * MB

    def rlimits(self, *, nproc: bool, address_space: bool) -> list[tuple[int, int]]:
        """(resource, value) pairs to set in the child; RLIMIT_NPROC only when `nproc`, and
        RLIMIT_AS only when `address_space` (no memory cgroup holds the memory limit)."""
        pairs = [
            (resource.RLIMIT_AS, self.memory_mb * MB if address_space else 0),
            (resource.RLIMIT_FSIZE, self.disk_mb * MB),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_CPU, self.cpu_seconds),
        ]
        if nproc:
            pairs.append((resource.RLIMIT_NPROC, self.processes))
        return [(which, value) for which, value in pairs if value > 0]

    def prlimit(self, *, nproc: bool, address_space: bool) -> list[str]:
        """util-linux `prlimit` options that set the limits before the bot's command runs (a
        command rather than a preexec function: forking a process that runs gRPC's threads
        is what gRPC warns against)."""
        names = {
            resource.RLIMIT_AS: "as",
            resource.RLIMIT_FSIZE: "fsize",
            resource.RLIMIT_NOFILE: "nofile",
            resource.RLIMIT_CPU: "cpu",
            resource.RLIMIT_NPROC: "nproc",
        }
        options = []
        for which, value in self.rlimits(nproc=nproc, address_space=address_space):
            # CPU: a soft limit (SIGXCPU, which says why) then a hard one (SIGKILL) 5 s later.
            hard = value + 5 if which == resource.RLIMIT_CPU else value
            options.append(f"--{names[which]}={value}:{hard}")
        return options


#: What runtimes print when they die of a limit, lowercased (Python, Node, C/C++, Go, Java).
_MEMORY = (
    "memoryerror",
    "out of memory",
    "cannot allocate memory",
    "bad_alloc",
    "outofmemoryerror",
    "failed to reserve virtual memory",
)
_PROCESSES = (
    "can't start new thread",
    "resource temporarily unavailable",
    "blockingioerror",
    "eagain",
    "pthread_create",
)
_DISK = ("file too large", "no space left on device", "efbig", "enospc")


def fault_of_exit(
    code: int | None, output: Sequence[str], *, pids_hit: bool = False, memory_hit: bool = False
) -> tuple[common_pb2.FaultReason, str]:
    """The fault reason and detail for a bot process that exited with `code` (negative: killed
    by that signal; 128+N: a sandbox reporting its child's signal N), given its last lines of
    output. A limit named by the kernel (a signal, the pids counter, the memory cgroup's OOM
    kill) wins over the output."""
    signum = -code if code is not None and code < 0 else None
    if code is not None and 128 < code < 128 + 65:
        signum = code - 128
    text = "\n".join(output).lower()
    detail = f"exit code {code}" if signum is None else f"killed by {_signal_name(signum)}"
    if signum == signal.SIGXCPU:
        return common_pb2.FAULT_REASON_CPU, f"{detail}: over its CPU-seconds limit"
    if signum == signal.SIGXFSZ:
        return common_pb2.FAULT_REASON_DISK, f"{detail}: over its file-size limit"
    if pids_hit or any(marker in text for marker in _PROCESSES):
        return common_pb2.FAULT_REASON_PROCESSES, f"{detail}: over its processes limit"
    if memory_hit or any(marker in text for marker in _MEMORY):
        return common_pb2.FAULT_REASON_MEMORY, f"{detail}: over its memory limit"
    if any(marker in text for marker in _DISK):
        return common_pb2.FAULT_REASON_DISK, f"{detail}: over its disk limit"
    return common_pb2.FAULT_REASON_CRASHED, detail


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
