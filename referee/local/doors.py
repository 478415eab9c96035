"""A sandboxed bot's own way to the referee, and the user it runs as.

Each launched bot gets a folder of its own under the run's private socket folder (mode 0700,
the referee's), holding one Unix socket that the referee listens on for that bot alone. The
folder is bound read-only into that bot's sandbox only, at /run/croupier: no other bot can see
it, and the bot itself cannot unlink, replace or add anything there (issue 31). The referee
accepts the bot's token on that socket only (referee.match.lobby), so a token seen by another
process is useless: the socket is the peer check, and only the bot's own processes can reach it.

Run as root, the referee gives each bot a uid and gid of its own (an unused number, as MIT
Pokerbots gives each seat its own user), so the kernel keeps bots apart even where namespaces
would not: signals, ptrace, /proc, files either could write. The socket is that user's alone.
Unprivileged, every bot runs as the caller, inside a user namespace bwrap makes.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

SOCKET_NAME = "referee.sock"
#: Where the door's folder is bound in the sandbox.
FOLDER_IN_SANDBOX = "/run/croupier"
SOCKET_IN_SANDBOX = f"{FOLDER_IN_SANDBOX}/{SOCKET_NAME}"
#: The uids bots are given: far above any account's and below the 32-bit overflow uid.
_UIDS = (1 << 24, 1 << 30)


@dataclass(frozen=True, slots=True)
class Door:
    """One bot's socket folder on the host, its name in the lobby, and the uid (and gid) the
    bot runs as (None: the caller's, unprivileged)."""

    folder: Path
    name: str
    uid: int | None

    @property
    def socket(self) -> Path:
        return self.folder / SOCKET_NAME

    def hand_over(self) -> None:
        """Once the referee listens on the socket: make it the bot's alone to connect to."""
        if self.uid is not None:
            os.chown(self.socket, self.uid, self.uid)
        os.chmod(self.socket, 0o600)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def open_door(run_folder: Path) -> Door:
    """A new door in `run_folder` (the run's private socket folder), with a uid of its own
    when the referee runs as root."""
    name = f"bot-{secrets.token_hex(6)}"
    folder = run_folder / name
    folder.mkdir(mode=0o755)
    return Door(folder, name, unused_uid() if os.geteuid() == 0 else None)


def unused_uid() -> int:
    """A random uid no account has: with 2^30 to choose from, two bots of one machine drawing
    the same one is as likely as guessing a 30-bit secret."""
    while True:
        uid = _UIDS[0] + secrets.randbelow(_UIDS[1] - _UIDS[0])
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
