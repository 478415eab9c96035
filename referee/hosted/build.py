"""Building an uploaded version, once, in the sandbox a launched bot runs in.

A build is an author's program like the bot itself, so it is as hostile: it runs in
referee.local.sandbox's bubblewrap sandbox with no network, the system's toolchains (python3,
node, g++, go, javac as installed under /usr) and the organiser's runtime folder read-only, and
of the store nothing: its folder is a tmpfs at the build folder's path, as large as its disk
limit and counted in its memory, into which the version's files are copied (the version itself
stays as it was uploaded). The kernel holds it to that size, whatever it writes, unlinks or
keeps open. Once it has succeeded, what it left there comes out of the sandbox as a stream
that the referee unpacks with its own limits (referee.hosted.build_inside inside,
referee.hosted.build_output outside). Its limits are its own (`BuildLimits`), and it runs at
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import trio

from croupier.v1 import common_pb2
from referee.errors import CroupierError
from referee.hosted import build_inside
from referee.hosted.build_output import Kept, keep, shown_roots
from referee.local import spawn
from referee.local.bot_log import bot_output
from referee.local.cgroups import BotCgroups
from referee.local.doors import unused_uid
from referee.local.launcher import kill_group, launch_problem, log_tail
from referee.local.limits import MB, Limits, fault_of_exit
from referee.local.processes import BotProcessGroup
from referee.local.sandbox import Build, Prepared, Sandbox, prepare, refusals

#: Exit code of a build whose program does not exist, as a shell says it.
NOT_FOUND = 127


class BuildError(CroupierError):
    """A build command that cannot be a command at all (empty, or unbalanced quotes)."""


class BuildReason(enum.StrEnum):
    """Why a build ended: `ok`, its own exit code (`exit`), or the limit that stopped it."""

    OK = "ok"
    EXIT = "exit"
    TIMEOUT = "timeout"
    CPU = "cpu"
    MEMORY = "memory"
    DISK = "disk"
    PIDS = "pids"


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may consume. The defaults fit a real bot's build on a small machine, and
    stop a runaway one long before it costs a running contest anything."""

    #: CPU time, seconds, of all its processes (its cgroup's count, else summed over its process
    #: tree): a clean Go or C++ gRPC build takes one to three minutes of CPU; 10 minutes leaves
    #: room. CPU time, not wall time, because builds run at the lowest priority: on a loaded
    #: machine a C++ build took more than 10 minutes of wall time (issue 42.8).
    cpu_seconds: float = 600.0
    #: Wall time, seconds: bounds a build that sleeps or waits, which uses no CPU (it holds its
    #: account's build turn, never another account's: referee.hosted.turns).
    wall_seconds: float = 1800.0
    #: Memory, MiB (as a bot's: a memory cgroup as root, else RLIMIT_AS): g++ on a gRPC bot
    #: peaks near 1 GiB, and Go's and Java's compilers reserve more than they touch.
    memory_mb: int = 2048
    #: Disk, MiB: the build folder's size (the copied sources included), any one file, and the
    #: private /tmp: each a tmpfs, so counted in its memory too. Room for a compiled bot and a
    #: vendored runtime, not for filling the store's disk.
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
    secrets: tuple[Path, ...] = (),
) -> BuildOutcome:
    """Build `source` (a version's unpacked folder, left as it is) into `into` (replacing what a
    build that was interrupted left there): `command` runs, sandboxed, within `limits`, in a
    copy of `source` on a tmpfs at `into`'s path, seeing the organiser's `runtime` folder
    read-only (Sandbox.runtime) and never `secrets`; what it leaves there is then unpacked into
    `into` (referee.hosted.build_output), whole or not at all. Its output goes to `log` (written
    afresh). BuildError for a command that is none; SandboxError when the sandbox cannot be set
    up here. Cancelled, the build is killed and nothing is left running."""
    argv = parse_command(command)
    started = trio.current_time()
    uid = unused_uid() if os.geteuid() == 0 else None
    await trio.to_thread.run_sync(_clear, into)
    log.unlink(missing_ok=True)
    problem = launch_problem(argv, source)
    if problem is not None:
        log.write_text(f"{problem}\n")
        return BuildOutcome(False, BuildReason.EXIT, NOT_FOUND, 0.0, log, problem)
    reason, code, detail = await _run(argv, source, into, limits, log, uid, runtime, secrets)
    seconds = trio.current_time() - started
    return BuildOutcome(reason is BuildReason.OK, reason, code, seconds, log, detail)


async def _run(
    argv: list[str],
    source: Path,
    into: Path,
    limits: BuildLimits,
    log: Path,
    uid: int | None,
    runtime: Path | None,
    secrets: tuple[Path, ...],
) -> tuple[BuildReason, int | None, str]:
    read, write = os.pipe()

    def call() -> Prepared:
        return prepare(
            argv,
            cwd=into,
            env={},
            croupier={},
            limits=limits.limits(),
            sandbox=Sandbox(enabled=True, runtime=runtime, secrets=secrets),
            own_folder=True,
            confined=True,
            build=Build(uid, source.resolve(), Path(build_inside.__file__), write),
        )

    try:
        launch = await trio.to_thread.run_sync(call)
    except BaseException:
        os.close(read)
        os.close(write)
        raise
    cgroups = launch.cgroups
    if cgroups is not None and cgroups.account is not None:
        with contextlib.suppress(OSError):  # cgroup v2's idle group, where the kernel has one
            (cgroups.account / "cpu.idle").write_text("1")
    stopped: BuildReason | None = None
    kept = Kept()
    try:
        async with bot_output(log, limits.log_bytes) as output, trio.open_nursery() as nursery:
            try:
                process = await spawn.start(
                    [*_lowest_priority(), *launch.argv],
                    env=launch.env,
                    cwd=into.parent,
                    output=output,
                    pass_fds=(*launch.pass_fds, write),
                )
            finally:
                launch.close_fds()
                os.close(write)
            nursery.start_soon(_take_output, read, into, limits, runtime, kept)
            read = -1  # closed by _take_output
            code, stopped = await _watch(process, limits, cgroups)
        pids_hit = cgroups is not None and cgroups.hit()
        memory_hit = cgroups is not None and cgroups.memory_hit()
    finally:
        if read != -1:
            os.close(read)
        if cgroups is not None:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(cgroups.remove)
    if kept.notes:
        with log.open("a") as appended:
            appended.writelines(f"croupier: {note}\n" for note in kept.notes)
    if stopped is not None:
        return stopped, None, _STOPPED[stopped].format(limits=limits)
    if code == 0 and kept.refused is not None:
        return BuildReason.DISK, None, kept.refused
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
    BuildReason.CPU: "killed at its CPU-time limit of {limits.cpu_seconds:g} s (all its processes)",
}
#: How often a build's CPU time is read (seconds): it may pass its limit by this much.
CPU_POLL_SECONDS = 0.25
#: A launched process's fault, as a build's reason (a crash is its exit).
_REASONS = {
    common_pb2.FAULT_REASON_MEMORY: BuildReason.MEMORY,
    common_pb2.FAULT_REASON_DISK: BuildReason.DISK,
    common_pb2.FAULT_REASON_PROCESSES: BuildReason.PIDS,
}


async def _take_output(
    read: int, into: Path, limits: BuildLimits, runtime: Path | None, kept: Kept
) -> None:
    """Unpack what the build's sandbox writes to `read` (its output, once it has succeeded)
    into `into`, then close `read`: the writer's end is the sandbox's alone."""

    def take() -> None:
        with os.fdopen(read, "rb") as stream:
            if stream.peek(1):  # nothing at all: the build failed, and kept nothing
                done = keep(stream, into, limits.disk_mb * MB, shown_roots(runtime))
                kept.notes, kept.refused = done.notes, done.refused

    await trio.to_thread.run_sync(take, abandon_on_cancel=True)


async def _watch(
    process: spawn.Child, limits: BuildLimits, cgroups: BotCgroups | None
) -> tuple[int, BuildReason | None]:
    """Wait for the build to exit, killing it (its whole sandbox) at its wall-time or its
    CPU-time limit; its exit code, and which limit stopped it (None: neither)."""
    stopped: list[BuildReason] = []
    account = cgroups.account if cgroups is not None else None
    tree = BotProcessGroup(process.pid, account=account)

    async def watch_cpu() -> None:
        while True:
            await trio.sleep(CPU_POLL_SECONDS)
            used = await trio.to_thread.run_sync(tree.cpu_seconds)
            if used is not None and used > limits.cpu_seconds:
                stopped.append(BuildReason.CPU)
                return

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_after, watch_cpu, nursery.cancel_scope)
            with trio.move_on_after(limits.wall_seconds) as timer:
                await process.wait()
            if timer.cancelled_caught:
                stopped.append(BuildReason.TIMEOUT)
            nursery.cancel_scope.cancel()
    finally:
        if process.returncode is None:  # over a limit, or cancelled: the build goes with it
            kill_group(process.pid)
            process.kill()
        with trio.CancelScope(shield=True):
            code = await process.wait()
        tree.close()
    return code, stopped[0] if stopped else None


async def _cancel_after(watch: Callable[[], Awaitable[None]], scope: trio.CancelScope) -> None:
    """Run `watch`; once it returns (a limit passed), cancel `scope`."""
    await watch()
    scope.cancel()


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


def _clear(into: Path) -> None:
    """Remove what an interrupted build left at `into` (its output, or a half-unpacked one);
    make its parent."""
    into.parent.mkdir(parents=True, exist_ok=True)
    for path in (into, into.with_name(into.name + ".partial")):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.exists():
            shutil.rmtree(path)
