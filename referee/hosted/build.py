"""Building an uploaded version, once, in the sandbox a launched bot runs in.

A build is an author's program like the bot itself, so it is as hostile: it runs in
referee.local.sandbox's bubblewrap sandbox with no network, the system's toolchains (python3,
node, g++, go, javac as installed under /usr) and the organiser's runtime folder read-only, and
of the store only its own build
folder, which is the one folder it may write (a copy of the version's unpacked folder: the
version itself stays as it was uploaded). Its limits are its own (`BuildLimits`), and it runs at
the lowest CPU priority (nice 19, SCHED_IDLE where allowed, cgroup v2's cpu.idle where the bot's
cgroup has it), so that a running match's bots, at nice 0, always have the CPU first.

The outcome is a result, never an exception: ok, or which limit stopped the build, with its
log (stdout and stderr, kept to a head and a tail by referee.local.bot_log).
"""

from __future__ import annotations

import contextlib
import enum
import os
import shlex
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

import trio

from croupier.v1 import common_pb2
from referee.errors import CroupierError
from referee.local import spawn
from referee.local.bot_log import bot_output
from referee.local.cgroups import BotCgroups
from referee.local.doors import unused_uid
from referee.local.launcher import kill_group, launch_problem, log_tail
from referee.local.limits import MB, Limits, fault_of_exit
from referee.local.sandbox import Build, Sandbox, prepare, refusals

#: How often the build folder's size is read (seconds). The folder is on the store's disk,
#: which has no quota of the build's own, so this limit is soft: a build writing many files at
#: the page cache's speed (GB/s) overshoots it by that speed times this before it is killed
#: (measured: ~0.6 GB at 0.25 s); RLIMIT_FSIZE stops any one file at the limit at once.
DISK_POLL_SECONDS = 0.05
#: Files a build folder may hold: past it the build is stopped as over its disk limit (each
#: file costs an inode, and reading the folder's size walks them all).
MOST_FILES = 100_000
#: Exit code of a build whose program does not exist, as a shell says it.
NOT_FOUND = 127


class BuildError(CroupierError):
    """A build command that cannot be a command at all (empty, or unbalanced quotes)."""


class BuildReason(enum.StrEnum):
    """Why a build ended: `ok`, its own exit code (`exit`), or the limit that stopped it."""

    OK = "ok"
    EXIT = "exit"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    DISK = "disk"
    PIDS = "pids"


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may consume. The defaults fit a real bot's build on a small machine, and
    stop a runaway one long before it costs a running contest anything."""

    #: Wall time, seconds: a clean Go or C++ gRPC build takes one to three minutes at nice 19 on
    #: a busy machine; 10 minutes leaves room, and bounds what a build that hangs holds.
    wall_seconds: float = 600.0
    #: Memory, MiB (as a bot's: a memory cgroup as root, else RLIMIT_AS): g++ on a gRPC bot
    #: peaks near 1 GiB, and Go's and Java's compilers reserve more than they touch.
    memory_mb: int = 2048
    #: Disk, MiB: the build folder's size (the copied sources included), any one file, and the
    #: private /tmp (tmpfs, so memory). Room for a compiled bot and a vendored runtime, not for
    #: filling the store's disk.
    disk_mb: int = 512
    #: Processes and threads: `make -j`, go's and javac's worker threads, not a fork bomb.
    processes: int = 256
    #: Open files: a linker or a Java compiler holds hundreds at once.
    open_files: int = 1024
    #: The build log's cap, bytes: the head (the first error) and the tail (the last words).
    log_bytes: int = 1 * MB

    def limits(self) -> Limits:
        """These limits as a launched process's (no CPU-seconds cap: the wall time bounds it)."""
        return Limits(
            memory_mb=self.memory_mb,
            processes=self.processes,
            disk_mb=self.disk_mb,
            open_files=self.open_files,
            cpu_seconds=0,
        )


@dataclass(frozen=True, slots=True)
class BuildOutcome:
    """How a build ended. `exit_code` is None when it never started (a missing program) or was
    killed for a limit; `detail` is one line for the author (what the sandbox refused it, the
    signal that killed it)."""

    ok: bool
    reason: BuildReason
    exit_code: int | None
    seconds: float
    log: Path
    detail: str = ""

    @property
    def why(self) -> str:
        """`ok`, `exit N`, or the limit's name, as the author is shown it."""
        if self.reason is BuildReason.EXIT:
            return f"exit {self.exit_code}"
        return str(self.reason)


def parse_command(command: str) -> list[str]:
    """The build command's arguments (shell quoting, no shell); BuildError when there are none."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise BuildError(f"build command {command!r} cannot be read: {error}") from None
    if not argv:
        raise BuildError(f"empty build command {command!r}")
    return argv


async def build(
    source: Path,
    into: Path,
    command: str,
    limits: BuildLimits,
    log: Path,
    runtime: Path | None = None,
) -> BuildOutcome:
    """Copy `source` (a version's unpacked folder) to `into` (replacing what a build that was
    interrupted left there) and run `command` in it, sandboxed, within `limits`, seeing the
    organiser's `runtime` folder read-only (Sandbox.runtime); its output goes to `log` (written
    afresh). BuildError for a command that is none; SandboxError when the
    sandbox cannot be set up here. Cancelled, the build is killed and nothing is left running."""
    argv = parse_command(command)
    started = trio.current_time()
    uid = unused_uid() if os.geteuid() == 0 else None
    await trio.to_thread.run_sync(_copy, source, into, uid)
    log.unlink(missing_ok=True)
    problem = launch_problem(argv, into)
    if problem is not None:
        log.write_text(f"{problem}\n")
        return BuildOutcome(False, BuildReason.EXIT, NOT_FOUND, 0.0, log, problem)
    try:
        reason, code, detail = await _run(argv, into, limits, log, uid, runtime)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_reclaim, into, uid)
    seconds = trio.current_time() - started
    return BuildOutcome(reason is BuildReason.OK, reason, code, seconds, log, detail)


async def _run(
    argv: list[str],
    into: Path,
    limits: BuildLimits,
    log: Path,
    uid: int | None,
    runtime: Path | None,
) -> tuple[BuildReason, int | None, str]:
    def call() -> tuple[list[str], dict[str, str], tuple[int, ...], BotCgroups | None]:
        launch = prepare(
            argv,
            cwd=into,
            env={},
            croupier={},
            limits=limits.limits(),
            sandbox=Sandbox(enabled=True, runtime=runtime),
            own_folder=True,
            build=Build(uid),
        )
        return launch.argv, launch.env, launch.pass_fds, launch.cgroups

    command, env, fds, cgroups = await trio.to_thread.run_sync(call)
    if cgroups is not None and cgroups.account is not None:
        with contextlib.suppress(OSError):  # cgroup v2's idle group, where the kernel has one
            (cgroups.account / "cpu.idle").write_text("1")
    stopped: list[BuildReason] = []
    try:
        async with bot_output(log, limits.log_bytes) as output:
            try:
                process = await spawn.start(
                    [*_lowest_priority(), *command], env=env, cwd=into, output=output, pass_fds=fds
                )
            finally:
                for fd in fds:
                    os.close(fd)
            code = await _watch(process, into, limits, stopped)
        if not stopped and await trio.to_thread.run_sync(_over_disk, into, limits.disk_mb):
            stopped.append(BuildReason.DISK)  # written between the last look and the exit
        pids_hit = cgroups is not None and cgroups.hit()
        memory_hit = cgroups is not None and cgroups.memory_hit()
    finally:
        if cgroups is not None:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(cgroups.remove)
    if stopped:
        return stopped[0], None, _STOPPED[stopped[0]].format(limits=limits)
    if code == 0:
        return BuildReason.OK, 0, ""
    fault, detail = fault_of_exit(code, log_tail(log), pids_hit=pids_hit, memory_hit=memory_hit)
    refused = refusals(log_tail(log))
    if refused:
        detail += f"; the sandbox refused it: {refused[-1]}"
    return _REASONS.get(fault, BuildReason.EXIT), code, detail


#: What the author is told of a limit the referee enforced itself.
_STOPPED = {
    BuildReason.TIMEOUT: "killed at its time limit of {limits.wall_seconds:g} s",
    BuildReason.DISK: "killed over its disk limit of {limits.disk_mb} MiB "
    f"(or {MOST_FILES} files) in its build folder",
}
#: A launched process's fault, as a build's reason (a crash is its exit).
_REASONS = {
    common_pb2.FAULT_REASON_MEMORY: BuildReason.MEMORY,
    common_pb2.FAULT_REASON_DISK: BuildReason.DISK,
    common_pb2.FAULT_REASON_PROCESSES: BuildReason.PIDS,
}


async def _watch(
    process: spawn.Child, into: Path, limits: BuildLimits, stopped: list[BuildReason]
) -> int:
    """Wait for the build to exit, killing it (its whole sandbox) at its time limit or once its
    folder is over its disk limit, and noting which in `stopped`."""

    def stop(reason: BuildReason) -> None:
        stopped.append(reason)
        kill_group(process.pid)
        process.kill()

    async def watch_disk() -> None:
        while not await trio.to_thread.run_sync(_over_disk, into, limits.disk_mb):
            await trio.sleep(DISK_POLL_SECONDS)
        stop(BuildReason.DISK)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watch_disk)
        try:
            with trio.move_on_after(limits.wall_seconds) as timer:
                code = await process.wait()
            if timer.cancelled_caught:
                stop(BuildReason.TIMEOUT)
        finally:
            if process.returncode is None:  # cancelled: the build goes with its caller
                kill_group(process.pid)
                process.kill()
            with trio.CancelScope(shield=True):
                code = await process.wait()
        nursery.cancel_scope.cancel()
    return code


def _lowest_priority() -> list[str]:
    """A prefix that runs a build at nice 19 (whatever the referee's own nice, which a child
    inherits) and, where util-linux's chrt is installed, under SCHED_IDLE: it gets a CPU only
    when no bot of a running match wants one."""
    prefix = []
    chrt = shutil.which("chrt")
    if chrt is not None:
        prefix += [chrt, "--idle", "0"]
    nice = shutil.which("nice")
    if nice is not None and hasattr(os, "getpriority"):
        prefix += [nice, "-n", str(19 - os.getpriority(os.PRIO_PROCESS, 0)), "--"]
    return prefix


def _over_disk(folder: Path, disk_mb: int) -> bool:
    """Whether `folder` holds more than `disk_mb` MiB of blocks or MOST_FILES entries (counted
    without following links, and stopping at the first that is too many)."""
    most = disk_mb * MB
    used = files = 0
    todo = [folder]
    while todo:
        with contextlib.suppress(OSError), os.scandir(todo.pop()) as entries:
            for entry in entries:
                files += 1
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_blocks * 512
                    if stat.S_ISDIR(info.st_mode):
                        todo.append(Path(entry.path))
                if used > most or files > MOST_FILES:
                    return True
    return False


def _copy(source: Path, into: Path, uid: int | None) -> None:
    """`into` afresh, a copy of `source` (links copied as links, never followed), owned by the
    build's user, who may then write it; readable by others, as the sandbox requires."""
    if into.exists() or into.is_symlink():
        shutil.rmtree(into)
    shutil.copytree(source, into, symlinks=True)
    for path in _tree(into):
        if uid is not None:
            os.lchown(path, uid, uid)
        if not path.is_symlink():
            os.chmod(path, stat.S_IMODE(path.lstat().st_mode) | stat.S_IWUSR | stat.S_IRUSR)
    os.chmod(into, 0o755)


def _reclaim(into: Path, uid: int | None) -> None:
    """After a build run as a user of its own: what it left becomes the referee's, with no
    setuid, setgid or sticky bit, and readable (and where the owner could, executable) by
    others, so that the bot's own user (referee.local.doors) can run it."""
    if uid is None:
        return
    for path in _tree(into):
        with contextlib.suppress(OSError):
            os.lchown(path, 0, 0)
            if path.is_symlink():
                continue
            mode = stat.S_IMODE(path.lstat().st_mode) & 0o777
            mode |= stat.S_IRUSR | stat.S_IWUSR | stat.S_IROTH | stat.S_IRGRP
            if mode & stat.S_IXUSR or path.is_dir():
                mode |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
            os.chmod(path, mode)


def _tree(folder: Path) -> list[Path]:
    """`folder` and everything in it, links not followed."""
    found = [folder]
    for top, folders, files in os.walk(folder):
        found += [Path(top, name) for name in (*folders, *files)]
    return found


class Builder:
    """Runs builds `at_once` at a time (the rest wait their turn): each build already runs at
    the lowest priority, and this bounds the memory and disk they hold together."""

    def __init__(self, at_once: int = 2) -> None:
        self._turns = trio.CapacityLimiter(at_once)

    async def build(
        self,
        source: Path,
        into: Path,
        command: str,
        limits: BuildLimits,
        log: Path,
        runtime: Path | None = None,
    ) -> BuildOutcome:
        """`build`, once a turn is free."""
        async with self._turns:
            return await build(source, into, command, limits, log, runtime)
