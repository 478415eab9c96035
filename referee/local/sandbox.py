"""The sandbox a launched bot runs in: bubblewrap (`bwrap`), on by default on Linux.

A bot is a program written by a competitor, so it is treated as hostile. Inside the sandbox it has:

- no network: new network, pid, ipc, uts and cgroup namespaces (`--unshare-all`); it reaches the
  referee only through the referee's Unix socket, bound in at /run/croupier/referee.sock;
- a read-only view of the system, with the referee's secrets hidden under empty folders: the
  records, the ladder database's folder, every other bot's folder and log, the organiser's home,
  /tmp, and the host's /proc (it gets its own, of its own pid namespace);
- its own folder (its cwd) read-only, and a private writable scratch (/tmp, with HOME=/tmp/home),
  as large as its disk limit and gone when it exits;
- a scrubbed environment: PATH, the locale, HOME/TMPDIR, the ladder file's `env`, CROUPIER_*;
- the limits of referee.local.limits, and its cgroups as root (referee.local.cgroups: the
  processes limit, where RLIMIT_NPROC does not apply, and the account of its CPU);
- an end: bwrap is the pid namespace's init, so when the bot exits or its process group is killed
  (the launcher stops a bot that way), every process the bot started goes with it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import croupier
from referee.errors import CroupierError
from referee.local.cgroups import BotCgroups
from referee.local.limits import MB, Limits
from referee.match import priority

#: Where a sandboxed bot finds the referee, whatever the host's socket path.
SOCKET_IN_SANDBOX = "/run/croupier/referee.sock"
SOCKET_NAME = "referee.sock"
#: The bot's writable home inside the sandbox (on its private /tmp).
HOME_IN_SANDBOX = "/tmp/home"
#: Host variables a bot keeps (nothing else of the referee's environment reaches it).
_KEPT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
_INSTALL = "apt-get install bubblewrap"


class SandboxError(CroupierError):
    """The sandbox cannot be set up on this machine."""


def default_enabled() -> bool:
    """On by default where bubblewrap exists as a tool: Linux."""
    return sys.platform.startswith("linux")


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How the bots of one run are confined. `hidden` lists what no bot may see (the records,
    the database's folder, every bot's folder and log folder); a bot's own folder is shown
    again, read-only, over whatever hid it. `socket_dir` holds the referee's Unix socket."""

    enabled: bool = field(default_factory=default_enabled)
    socket_dir: Path | None = None
    hidden: tuple[Path, ...] = ()

    def address(self, tcp_address: str) -> str:
        """The address a bot is given: the Unix socket in the sandbox, else the TCP one."""
        return f"unix:{SOCKET_IN_SANDBOX}" if self.enabled else tcp_address

    def socket(self) -> Path | None:
        """Where the referee must listen for sandboxed bots (None without a sandbox)."""
        return self.socket_dir / SOCKET_NAME if self.enabled and self.socket_dir else None


@contextmanager
def socket_folder() -> Iterator[Path]:
    """A private folder for the referee's Unix socket, removed afterwards (short, as socket
    paths must be: under 108 bytes)."""
    with tempfile.TemporaryDirectory(prefix="croupier-") as folder:
        os.chmod(folder, 0o700)
        yield Path(folder)


@functools.cache
def check_bwrap() -> str:
    """bwrap's path, once it has set up a sandbox like the bots' here; a one-line error (how to
    install it, or why it failed) otherwise."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxError(
            f"bubblewrap (bwrap) is not installed, so bots cannot be sandboxed: {_INSTALL} "
            "(or turn the sandbox off: --no-sandbox, or sandbox = false in a ladder file)"
        )
    probe = [path, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    probe += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true"]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode
        raise SandboxError(
            f"bubblewrap cannot set up a sandbox here ({why!r}); it needs user namespaces "
            f"(or root); {_INSTALL}, or turn the sandbox off with --no-sandbox"
        )
    return path


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _keep_visible(argv: Sequence[str], cwd: Path) -> list[Path]:
    """What the bot needs to see even where a hidden folder covers it: its folder, the program
    it runs with that program's installation (a venv's python links to a base Python, say under
    the organiser's home), and an interpreter's script file."""
    keep = [cwd]
    program = shutil.which(argv[0], path=os.environ.get("PATH")) if argv else None
    if program is not None:
        for candidate in (Path(program), Path(os.path.realpath(program))):
            keep.append(candidate.parent.parent)  # e.g. PREFIX of PREFIX/bin/python
    if argv and Path(argv[0]).name.startswith("python"):
        keep += [Path(sys.prefix), Path(os.path.realpath(sys.base_prefix))]
        keep.append(Path(croupier.__file__).parent.parent)  # the SDK, when installed editable
    if len(argv) > 1 and Path(argv[1]).is_absolute() and Path(argv[1]).is_file():
        keep.append(Path(argv[1]))  # an interpreter's script (only it: not any path in argv)
    return keep


@dataclass(frozen=True, slots=True)
class Prepared:
    """A bot's launch: the command (the bot's, inside prlimit and bwrap, inside a shell that
    joins its cgroups first), its environment, and the cgroups to read and remove after."""

    argv: list[str]
    env: dict[str, str]
    cgroups: BotCgroups | None


def prepare(
    argv: Sequence[str],
    *,
    cwd: Path | None,
    env: Mapping[str, str],
    croupier: Mapping[str, str],
    limits: Limits,
    sandbox: Sandbox,
) -> Prepared:
    """The launch of `argv` under `sandbox` with `limits`; `env` is the ladder file's, and
    `croupier` the CROUPIER_* variables. Without a sandbox, the bot gets the referee's
    environment as before, and the limits still apply."""
    folder = (cwd or Path.cwd()).resolve()
    cgroups = BotCgroups.create(limits.processes)
    prefix = cgroups.enter() if cgroups is not None else []
    prefix += priority.bot_prefix()
    options = limits.prlimit(nproc=cgroups is None or cgroups.pids is None)
    if options:
        prefix += [_tool("prlimit", "util-linux"), *options, "--"]
    if not sandbox.enabled:
        full = {**os.environ, **env, **croupier, "PYTHONUNBUFFERED": "1"}
        return Prepared([*prefix, *argv], full, cgroups)
    bwrap = check_bwrap()
    size = str(limits.disk_mb * MB if limits.disk_mb else 1024 * MB)
    home = os.environ.get("HOME")
    hidden = {p.resolve() for p in [*sandbox.hidden, *([Path(home)] if home else [])]}
    hidden = {p for p in hidden if p.exists() and p != Path("/") and p != folder}
    covered = [*hidden, Path("/tmp"), Path("/run")]
    # Mounts apply in order and a later one covers what lies under it, so parents go first:
    # a bot's folder under a hidden one shows again, a hidden one inside the bot's folder hides.
    mounts: list[tuple[Path, list[str]]] = [
        (Path("/tmp"), ["--size", size, "--tmpfs", "/tmp"]),
        (Path("/run"), ["--size", str(MB), "--tmpfs", "/run"]),
    ]
    mounts += [(path, ["--size", str(MB), "--tmpfs", str(path)]) for path in hidden]
    for path in _keep_visible(argv, folder):
        real = path.resolve()
        if real.exists() and any(_inside(real, above) for above in covered):
            mounts.append((real, ["--ro-bind", str(real), str(real)]))
    # No --die-with-parent: its parent-death signal follows the thread that started bwrap, and
    # trio starts processes from worker threads that exit when idle, killing healthy bots.
    wrapped = [bwrap, "--unshare-all", "--ro-bind", "/", "/"]
    wrapped += ["--dev", "/dev", "--proc", "/proc"]
    for _, args in sorted(mounts, key=lambda mount: len(mount[0].parts)):
        wrapped += args
    wrapped += ["--dir", HOME_IN_SANDBOX]
    if sandbox.socket_dir is not None:
        wrapped += ["--bind", str(sandbox.socket_dir), str(Path(SOCKET_IN_SANDBOX).parent)]
    wrapped += ["--chdir", str(folder), "--", *argv]
    scrubbed = {key: os.environ[key] for key in _KEPT if key in os.environ}
    scrubbed.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    scrubbed |= {"HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp", "PYTHONUNBUFFERED": "1"}
    scrubbed |= {**env, **croupier}
    return Prepared([*prefix, *wrapped], scrubbed, cgroups)


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SandboxError(f"{name!r} is not installed: apt-get install {package}")
    return path


#: What a bot's runtime prints when the sandbox refused it something, lowercased.
_REFUSED = (
    "network is unreachable",
    "temporary failure in name resolution",
    "name or service not known",
    "read-only file system",
    "permission denied",
)
_PATH = re.compile(r"(/[\w.@+-]+(?:/[\w.@+-]+)*)")


def refusals(lines: Sequence[str], sandbox: Sandbox) -> list[str]:
    """Lines of a bot's output that show the sandbox refusing it something: the network, a
    write outside its scratch, or a file that exists on this machine but that the sandbox hides
    (a missing file that is missing on the host too is the bot's own mistake)."""
    hidden = [p.resolve() for p in sandbox.hidden]
    home = os.environ.get("HOME")
    hidden += [Path(home).resolve()] if home else []
    found = []
    for line in lines:
        text = line.lower()
        network = "connection refused" in text and "unix:" not in text  # not the referee's
        if network or any(marker in text for marker in _REFUSED):
            found.append(line.strip())
        elif "no such file or directory" in text:
            for match in _PATH.findall(line):
                path = Path(match)
                if path.exists() and any(_inside(path, h) for h in [*hidden, Path("/tmp")]):
                    found.append(f"{line.strip()} ({match} is hidden by the sandbox)")
                    break
    return found
