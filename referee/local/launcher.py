"""Launch local bot processes with their address and token, and keep them running.

Each bot process plays many matches over its sessions (no start-up cost per match). A process
that exits while it is still needed is restarted, and the sessions it had are told, so that their
faults are recorded as crashes rather than disconnects.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.errors import CroupierError
from referee.match.lobby import Lobby
from referee.match.processes import BotProcessGroup


class LaunchError(CroupierError):
    """A bot command that cannot be started, or that keeps crashing."""


@dataclass
class BotProcess:
    """One launched bot: its command, its token, and how often it was restarted."""

    command: str
    token: str
    log_path: Path | None
    sessions: int = 1
    restarts: int = 0
    #: Working directory and extra environment for the process (a ladder file's `cwd`/`env`).
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    exits: list[str] = field(default_factory=list)
    #: False: the bot's process group is stopped while none of its requests is pending.
    ponder: bool = True
    #: The cores the bot's processes may run on (os.sched_setaffinity); None: any.
    cpus: frozenset[int] | None = None

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
    max_restarts: int = 3,
) -> None:
    """Run the bot until `done` is set, restarting it when it exits early."""
    env = {
        **os.environ,
        **bot.env,
        "CROUPIER_ADDRESS": address,
        "CROUPIER_TOKEN": bot.token,
        "CROUPIER_SESSIONS": str(bot.sessions),
        "PYTHONUNBUFFERED": "1",
    }
    while not done.is_set():
        log = bot.log_path.open("ab") if bot.log_path is not None else subprocess.DEVNULL
        try:
            process = await trio.lowlevel.open_process(
                bot.argv(),
                env=env,
                cwd=bot.cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its own process group, to stop and continue it whole
            )
        except OSError as error:
            raise LaunchError(f"cannot start bot {bot.command!r}: {error}") from None
        finally:
            if not isinstance(log, int):
                log.close()
        lobby.attach(bot.token, BotProcessGroup(process.pid, ponder=bot.ponder))
        if bot.cpus is not None:
            try:  # at once: its children inherit it
                os.sched_setaffinity(process.pid, bot.cpus)
            except ProcessLookupError:
                pass  # it exited already: counted as any exit below
            except OSError as error:  # cores this machine lacks (a cluster worker)
                process.kill()
                with trio.CancelScope(shield=True):
                    await process.wait()
                raise LaunchError(
                    f"cannot pin bot {bot.command!r} to cores {sorted(bot.cpus)!r}: {error}"
                ) from None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_when_done, process, done)
            code = await process.wait()
            nursery.cancel_scope.cancel()
        detail = f"exit code {code}"
        bot.exits.append(detail)
        lobby.process_exited(bot.token, detail)
        if done.is_set():
            return
        if bot.restarts >= max_restarts:
            raise LaunchError(
                f"bot {bot.command!r} exited {len(bot.exits)} times ({', '.join(bot.exits)})"
                + (f"; see {bot.log_path}" if bot.log_path else "")
            )
        bot.restarts += 1


#: How long a bot may take to leave after its last Goodbye before it is killed.
EXIT_GRACE_SECONDS = 5.0


async def _stop_when_done(process: trio.Process, done: trio.Event) -> None:
    """Once the referee is done with the bot, it has EXIT_GRACE_SECONDS to exit on its own."""
    try:
        await done.wait()
        await trio.sleep(EXIT_GRACE_SECONDS)
    finally:
        if process.returncode is None:
            process.kill()
            with trio.CancelScope(shield=True):
                await process.wait()
