"""Launch local bot processes with their address and token, and keep them running.

Each bot process plays many matches over its sessions (no start-up cost per match). A process
that exits while it is still needed is restarted, and the sessions it had are told, so that their
faults are recorded as crashes rather than disconnects. `supervise` is the one supervisor of a
launched bot: `croupier match`, a ladder's slots and the doctor all run their bots through it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from croupier.v1 import common_pb2
from referee.errors import CroupierError
from referee.local import spawn
from referee.local.bot_log import bot_output
from referee.local.bot_root import is_interpreter
from referee.local.doors import Door
from referee.local.last_output import advice, read_output, telling
from referee.local.limits import Limits, fault_of_exit
from referee.local.processes import BotProcessGroup
from referee.local.sandbox import Prepared, Sandbox, SandboxError, prepare
from referee.match.lobby import Lobby
from referee.transport import serve_door

#: How long a bot may take to leave after its last Goodbye before it is killed.
EXIT_GRACE_SECONDS = 5.0
#: How often a bot that finishes its matches before it leaves is looked at (seconds).
_PLAYING_POLL_SECONDS = 0.25


class LaunchError(CroupierError):
    """A bot command that cannot be started, or that keeps crashing. `problem`: what stopped
    a start, said on its own (the doctor quotes it beside the bot's command)."""

    def __init__(self, message: str, problem: str = "") -> None:
        super().__init__(message)
        self.problem = problem or message


@dataclass
class BotProcess:
    """One launched bot: its command, its token, and how often it was restarted."""

    command: str
    token: str
    log_path: Path | None
    sessions: int = 1
    restarts: int = 0
    #: Restarts allowed before the bot counts as broken (`supervise` raises LaunchError); read
    #: at each exit, so it may change while the bot runs (the doctor allows none until the bot
    #: has connected).
    max_restarts: int = 3
    #: Working directory and extra environment for the process (a ladder file's `cwd`/`env`).
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    exits: list[str] = field(default_factory=list)
    #: The exit code of each exit (negative: killed by that signal), beside `exits`.
    exit_codes: list[int] = field(default_factory=list)
    #: The pid of the process last started (the leader of its process group); None before.
    pid: int | None = None
    #: False when `log_path` is a temporary file (the run keeps no records): errors then quote
    #: its last lines without pointing at it.
    log_kept: bool = True
    #: What the process may consume, and the sandbox it runs in (see referee.local.sandbox).
    limits: Limits = field(default_factory=Limits)
    sandbox: Sandbox = field(default_factory=lambda: Sandbox(enabled=False))
    #: The fault reason of each exit (a crash, or the limit it went over), beside `exits`.
    exit_reasons: list[common_pb2.FaultReason] = field(default_factory=list)
    #: False: the bot's process group is stopped while none of its requests is pending.
    ponder: bool = True
    #: The cores the bot's processes may run on (os.sched_setaffinity); None: any.
    cpus: frozenset[int] | None = None
    #: Whether `cwd` is the bot's own folder, the one its sandbox shows (see sandbox.prepare).
    own_folder: bool = False
    #: Whether that folder is an author's upload (a hosted version): shown alone, with the
    #: runtimes the referee names, never what its links lead to (see sandbox.prepare).
    confined: bool = False
    #: Once the referee is done with it, whether its sessions still in a match finish it before
    #: its exit grace starts (a retired hosted version: referee.hosted.roster).
    finish_matches: bool = False

    def argv(self) -> list[str]:
        argv = shlex.split(self.command)
        if not argv:
            raise LaunchError(f"empty bot command {self.command!r}")
        return argv


async def supervise(
    bot: BotProcess,
    address: str,
    lobby: Lobby,
    done: trio.Event,
    *,
    exit_grace: float = EXIT_GRACE_SECONDS,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Run the bot until `done` is set, restarting it when it exits early (up to
    `bot.max_restarts` times; then LaunchError, as when it cannot start). Once `done` is set it
    has `exit_grace` seconds to exit; cancelled, its process group is killed at once.
    `task_status.started()` is called when its first process has started. `address` is the
    referee's TCP address; a sandboxed bot is given its own door instead, which the referee
    serves for as long as the bot is supervised (its token is accepted there only)."""
    async with door_for(bot.sandbox, lobby, bot.token) as door:
        await _supervise(bot, address, lobby, done, door, exit_grace, task_status)


@asynccontextmanager
async def door_for(sandbox: Sandbox, lobby: Lobby, token: str) -> AsyncIterator[Door | None]:
    """A sandboxed bot's door (None without a sandbox), served while the block runs: the
    referee listens on it for `token` alone, and accepts `token` nowhere else."""
    door = sandbox.open_door()
    if door is None:
        yield None
        return
    try:
        lobby.admit(token, door=door.name)
        async with serve_door(lobby, door.name, door.socket):
            door.hand_over()
            yield door
    finally:
        door.close()


async def _supervise(
    bot: BotProcess,
    address: str,
    lobby: Lobby,
    done: trio.Event,
    door: Door | None,
    exit_grace: float,
    task_status: trio.TaskStatus[None],
) -> None:
    croupier = {
        **bot.sandbox.addresses(address),
        "CROUPIER_TOKEN": bot.token,
        "CROUPIER_SESSIONS": str(bot.sessions),
    }
    while not done.is_set():
        launch = await _prepared(bot, croupier, door)
        cgroups = launch.cgroups
        try:
            code = await _run_once(bot, launch, lobby, done, exit_grace, task_status)
            task_status = trio.TASK_STATUS_IGNORED  # started once
            pids_hit = cgroups is not None and cgroups.hit()
            memory_hit = cgroups is not None and cgroups.memory_hit()
        finally:
            if cgroups is not None:
                with trio.CancelScope(shield=True):  # it waits for the bot's processes to end
                    await trio.to_thread.run_sync(cgroups.remove)
        reason, detail = fault_of_exit(
            code, log_tail(bot.log_path), pids_hit=pids_hit, memory_hit=memory_hit
        )
        bot.exits.append(detail)
        bot.exit_codes.append(code)
        bot.exit_reasons.append(reason)
        lobby.process_exited(lobby.launched_identity(bot.token), detail, reason)
        if done.is_set():
            return
        if bot.restarts >= bot.max_restarts:
            raise LaunchError(
                f"bot {bot.command!r} exited {len(bot.exits)} times ({', '.join(bot.exits)})"
                + (
                    f"; the referee refused it: {lobby.refused[who]}"
                    if (who := lobby.launched_identity(bot.token)) in lobby.refused
                    else ""
                )
                + last_words(bot)
            )
        bot.restarts += 1


#: Launches prepared at once (each a few ms of file-system work, on a thread of its own).
_PREPARING = trio.lowlevel.RunVar[trio.CapacityLimiter]("preparing")


async def _prepared(bot: BotProcess, croupier: dict[str, str], door: Door | None) -> Prepared:
    """The bot's launch (sandbox.prepare), made off the event loop: it checks folders and
    creates cgroups, tens of ms on a busy machine, which on the loop would be every running
    match's lag at every launch and restart. Waiting for a turn can be cancelled (Ctrl-C while
    many slots start); a launch under way finishes, and its caller removes what it made."""
    try:
        limiter = _PREPARING.get()
    except LookupError:
        limiter = trio.CapacityLimiter(2)
        _PREPARING.set(limiter)

    def call() -> Prepared:
        return prepare(
            bot.argv(),
            cwd=bot.cwd,
            env=bot.env,
            croupier=croupier,
            limits=bot.limits,
            sandbox=bot.sandbox,
            door=door,
            own_folder=bot.own_folder,
            confined=bot.confined,
        )

    problem = launch_problem(bot.argv(), bot.cwd)  # before the sandbox guesses its folder
    if problem is not None:
        raise _cannot_start(bot, problem)
    await limiter.acquire()  # the wait that Ctrl-C may cut short
    try:
        with trio.CancelScope(shield=True):  # what it creates is then removed by the caller
            launch = await trio.to_thread.run_sync(call)
    except SandboxError as error:
        raise _cannot_start(bot, str(error)) from None
    finally:
        limiter.release()
    return launch


def _cannot_start(bot: BotProcess, problem: str) -> LaunchError:
    return LaunchError(f"cannot start bot {bot.command!r}: {problem}", problem)


async def _run_once(
    bot: BotProcess,
    launch: Prepared,
    lobby: Lobby,
    done: trio.Event,
    exit_grace: float,
    task_status: trio.TaskStatus[None],
) -> int:
    """Start the process in its own process group (so that it can be stopped and continued
    whole, and killed whole), wait for it, and kill the whole group."""
    problem = launch_problem(bot.argv(), bot.cwd)
    if problem is not None:
        raise _cannot_start(bot, problem)
    argv = list(launch.argv)
    if bot.cpus is not None:
        # Pinned before the first instruction (util-linux's taskset): its children inherit it.
        lacking = sorted(bot.cpus - os.sched_getaffinity(0))
        if lacking:
            raise LaunchError(
                f"cannot pin bot {bot.command!r} to cores {sorted(bot.cpus)!r}: this machine "
                f"lacks {lacking!r}",
                f"cannot pin it to cores {sorted(bot.cpus)!r}: this machine lacks {lacking!r}",
            )
        argv = ["taskset", "--cpu-list", ",".join(map(str, sorted(bot.cpus))), *argv]
    async with contextlib.AsyncExitStack() as stack:
        try:
            log = await stack.enter_async_context(bot_output(bot.log_path, bot.limits.log_bytes))
            process = await spawn.start(
                argv, env=launch.env, cwd=bot.cwd, output=log, pass_fds=launch.pass_fds
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise _cannot_start(bot, str(error)) from None
        finally:
            launch.close_fds()
        cgroups = launch.cgroups
        group = BotProcessGroup(
            process.pid,
            ponder=bot.ponder,
            account=cgroups.account if cgroups is not None else None,
            freezer=cgroups.freezer if cgroups is not None else None,
            pinned=tuple(sorted(bot.cpus or ())),
        )
        lobby.attach(lobby.launched_identity(bot.token), group)
        bot.pid = process.pid
        task_status.started()
        async with trio.open_nursery() as nursery:
            playing = _playing(lobby, bot) if bot.finish_matches else None
            nursery.start_soon(_stop_when_done, process, group, done, exit_grace, playing)
            code = await process.wait()
            nursery.cancel_scope.cancel()
        group.close()
    # What the bot started and left behind ends with its pid namespace (sandbox) or its pids
    # cgroup (BotCgroups.remove); its process group is killed only while its leader lives, as
    # a reaped leader's pid (hence group id) may already be another bot's.
    return code


def launch_problem(argv: Sequence[str], cwd: Path | None) -> str | None:
    """Why the bot's program cannot run, checked here: inside wrappers, a missing program is an
    exit rather than an error at launch; and a script an interpreter is to run that does not
    exist (a typo in a path, issue 42.10), which the sandbox would take for the bot's folder."""
    program = argv[0]
    here = cwd or Path.cwd()
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else here / program
        if not (os.access(path, os.X_OK) and path.is_file()):
            return f"no such program {program!r}"
    elif not shutil.which(program):
        return f"{program!r} is not on PATH"
    script = _script(argv) if is_interpreter(program) else None
    if (
        script is not None
        and not (Path(script) if Path(script).is_absolute() else here / script).exists()
    ):
        return f"no such file {script!r}, which {Path(program).name} is to run (from {str(here)!r})"
    return None


#: What a script an interpreter runs is named like: a file, not a module or an option's value.
_SCRIPT_SUFFIXES = (".py", ".pyz", ".js", ".mjs", ".cjs", ".ts", ".jar")


def _script(argv: Sequence[str]) -> str | None:
    """The script file an interpreter's command runs (`python bots/a.py`, `node dist/bot.js`,
    `java -jar bot.jar`), or None where it runs none by path (`python -m bot`, `-c`)."""
    words = iter(argv[1:])
    for word in words:
        if word in ("-m", "-c", "-e", "--eval", "-p", "--print"):
            return None
        if word == "-jar":
            return next(words, None)
        if word.startswith("-"):
            continue
        looks = "/" in word or word.endswith(_SCRIPT_SUFFIXES)
        return word if looks else None
    return None


def kill_group(pgid: int) -> None:
    """SIGKILL a bot's process group (its leader was started with a session of its own); call
    it only before the leader is reaped."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def last_words(bot: BotProcess) -> str:
    """The end of an error about `bot`: the lines of its output that name the error and its
    last ones (what a crash says), advice for a usual cause, and, when its log is kept, where
    the rest is."""
    output = read_output(bot.log_path)
    quoted = "".join(f"\n  | {line}" for line in telling(output))
    where = f"; see {bot.log_path}" if bot.log_path is not None and bot.log_kept else ""
    if not output:
        return f"{where}; it printed nothing"
    fix = advice(output)
    return f"{where}; its last output:{quoted}" + (f"\nadvice: {fix}" if fix else "")


def log_tail(path: Path | None, lines: int = 20) -> list[str]:
    """The log's last lines: how a runtime that died of a limit says which."""
    if path is None:
        return []
    try:
        with path.open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - 4096))
            return log.read().decode(errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def _playing(lobby: Lobby, bot: BotProcess) -> Callable[[], bool]:
    """Whether the bot has a session open (in a match, once the lobby has retired it)."""
    identity = lobby.launched_identity(bot.token)
    return lambda: lobby.active(identity) > 0


async def _stop_when_done(
    process: spawn.Child,
    group: BotProcessGroup,
    done: trio.Event,
    exit_grace: float,
    playing: Callable[[], bool] | None = None,
) -> None:
    """Once the referee is done with the bot (and, with `playing`, once it plays no more), it
    has `exit_grace` seconds to exit on its own."""
    try:
        await done.wait()
        while playing is not None and playing():
            await trio.sleep(_PLAYING_POLL_SECONDS)
        await trio.sleep(exit_grace)
    finally:
        if process.returncode is None:
            group.release()  # a task frozen by cgroup v1's freezer ignores SIGKILL until thawed
            kill_group(process.pid)
            process.kill()
            with trio.CancelScope(shield=True):
                await process.wait()
