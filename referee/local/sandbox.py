"""The sandbox a launched bot runs in: bubblewrap (`bwrap`), on by default on Linux.

A bot is a program written by a competitor, so it is treated as hostile (docs/bots.md says
what it can see and why). Inside the sandbox it has:

- no privilege: as root, the referee starts it as a uid and gid of its own with no capability
  and no_new_privs (util-linux's setpriv, run inside the sandbox once bwrap has built it);
  unprivileged, bwrap's user namespace, with further ones disabled. A seccomp filter
  (referee.local.syscalls) refuses mounts, namespaces, ptrace, locks and the like;
- an allow-listed view (referee.local.bot_root): the system's runtime files, its runtime, its own
  folder, all read-only; nothing of the referee's exists in it to uncover;
- new network, pid, ipc, uts and cgroup namespaces: no network, its own /proc (in which the
  machine's CPU counters stand still, referee.local.bot_root); it reaches the referee only through
  its own door (referee.local.doors), bound read-only at /run/croupier, or through the relay
  (referee.local.relay) that listens on its loopback and joins the door;
- private, sized scratch: /tmp (HOME=/tmp/home), /dev/shm and /run, tmpfs counted in its
  memory cgroup where there is one, and each no larger than its disk limit;
- a scrubbed environment: PATH, the locale, HOME/TMPDIR, the ladder file's `env`, CROUPIER_*;
- the limits of referee.local.limits and its cgroups as root (referee.local.cgroups);
- an end: bwrap is the pid namespace's init and dies with the referee (`--die-with-parent`,
  from the long-lived thread of referee.local.spawn), and every process the bot started goes
  with it.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import CroupierError
from referee.local import bot_root, leftovers, priority, relay, syscalls
from referee.local.cgroups import BotCgroups
from referee.local.doors import FOLDER_IN_SANDBOX, SOCKET_IN_SANDBOX, Door, open_door
from referee.local.limits import MB, Limits

#: The bot's writable home inside the sandbox (on its private /tmp).
HOME_IN_SANDBOX = "/tmp/home"
#: Host variables a bot keeps (nothing else of the referee's environment reaches it).
_KEPT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
_INSTALL = "apt-get install bubblewrap"
#: Folders the sandbox mounts itself, before a bot's folders are shown.
_MOUNTED = ("/usr", "/etc", "/dev", "/dev/shm", "/proc", "/tmp", "/run")
#: The relay's port on a sandboxed bot's own loopback (croupier's default port: a bot that
#: dials 127.0.0.1:50051 when given no address finds its referee there too).
RELAY_PORT = 50051
#: Where referee.local.relay is shown in the sandbox.
_RELAY_IN_SANDBOX = "/run/relay.py"
#: Where a build's version files (Build.source) and its program (Build.inside) are shown.
BUILD_SOURCE = "/run/source"
_BUILD_INSIDE = "/run/build.py"
#: The variable naming the organiser's runtime folder (`Sandbox.runtime`) to a bot or build.
RUNTIME_VARIABLE = "CROUPIER_RUNTIME"
#: Capabilities bwrap leaves to setpriv, which drops them with the uid before the bot runs.
_SETPRIV_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")


class SandboxError(CroupierError):
    """The sandbox cannot be set up on this machine, or a bot's folder cannot be shown."""


def default_enabled() -> bool:
    """On by default where bubblewrap exists as a tool: Linux."""
    return sys.platform.startswith("linux")


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How the bots of one run are confined. `socket_dir` is the run's private folder of doors
    (one per bot, see referee.local.doors); `secrets` lists what no bot's folder may contain
    or lie in (the records and logs, the ladder database, other bots' folders): a bot whose
    folder would show one is refused rather than half-hidden. `runtime` is the organiser's
    runtime folder (`croupier serve --runtime`: the protos, the SDKs, a virtualenv), shown
    read-only at its own path to every bot and build, which find it as CROUPIER_RUNTIME: an
    uploaded bot has only its own folder, so what it shares with every other bot lies there."""

    enabled: bool = field(default_factory=default_enabled)
    socket_dir: Path | None = None
    secrets: tuple[Path, ...] = ()
    runtime: Path | None = None

    def addresses(self, tcp_address: str) -> dict[str, str]:
        """The addresses a bot is given, `tcp_address` being the referee's: in the sandbox, its
        door, and the relay to it on its own loopback; else the referee's, twice."""
        if not self.enabled:
            return {"CROUPIER_ADDRESS": tcp_address, "CROUPIER_TCP_ADDRESS": tcp_address}
        return {
            "CROUPIER_ADDRESS": f"unix:{SOCKET_IN_SANDBOX}",
            "CROUPIER_TCP_ADDRESS": f"127.0.0.1:{RELAY_PORT}",
        }

    def open_door(self) -> Door | None:
        """A new bot's door (None without a sandbox)."""
        if not self.enabled:
            return None
        if self.socket_dir is None:
            raise SandboxError("the sandbox has no socket folder for its bots' doors")
        return open_door(self.socket_dir)


@contextmanager
def socket_folder() -> Iterator[Path]:
    """A private folder for the bots' doors, removed afterwards (short, as socket paths must
    be: under 108 bytes), and those a referee killed with -9 left (referee.local.leftovers)."""
    with leftovers.temporary_folder("croupier-run") as folder:
        yield folder


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
    try:
        syscalls.program()
    except syscalls.FilterError as error:
        raise SandboxError(str(error)) from None
    probe = [path, "--die-with-parent", *_privilege(), *bot_root.system_arguments()]
    probe += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true"]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode != 0:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode
        raise SandboxError(
            f"bubblewrap cannot set up a sandbox here ({why!r}); it needs user namespaces "
            f"(or root); {_INSTALL}, or turn the sandbox off with --no-sandbox"
        )
    return path


#: Every namespace but the user namespace (bwrap's --unshare-all would add one where it can).
_NAMESPACES = (
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
)


def _privilege() -> list[str]:
    """bwrap's namespace and privilege options. As root: no user namespace (whose map would
    hold uid 0 alone, so the bot could not be given a uid of its own), and of root's powers
    only what setpriv needs to become the bot's user. Otherwise a user namespace in which no
    further one can be made."""
    if os.geteuid() == 0:
        added = [arg for cap in _SETPRIV_CAPS for arg in ("--cap-add", cap)]
        return [*_NAMESPACES, "--cap-drop", "ALL", *added]
    return [*_NAMESPACES, "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]


def _drop_to(uid: int) -> list[str]:
    """setpriv: become `uid` (and gid) with no groups, no capability in any set, and
    no_new_privs (a setuid program gains nothing), then exec the bot."""
    setpriv = _tool("setpriv", "util-linux")
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def _readable_by_others(path: Path) -> bool:
    mode = path.stat().st_mode
    need = stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0)
    return mode & need == need


def check_shown(path: Path, sandbox: Sandbox) -> None:
    """Refuse to show `path` (a bot's folder, its runtime) where it would show a secret."""
    path = Path(os.path.realpath(path))
    if path == Path("/"):
        raise SandboxError("a bot's folder cannot be '/': give the bot a folder of its own")
    for secret in sandbox.secrets:
        secret = Path(os.path.realpath(secret))
        if secret != path and (
            bot_root.is_inside(secret, path) or bot_root.is_inside(path, secret)
        ):
            raise SandboxError(
                f"the bot's folder {str(path)!r} would show {str(secret)!r} to the bot: "
                "keep bots' folders apart from the records, the database and each other"
            )


def check_folder(folder: Path, sandbox: Sandbox, uid: int | None) -> None:
    """Refuse a bot folder that would show a secret, or that the bot's own user cannot read."""
    check_shown(folder, sandbox)
    if uid is not None and not _readable_by_others(folder):
        raise SandboxError(
            f"the bot's folder {str(folder)!r} is not readable by other users, and a sandboxed "
            f"bot runs as a user of its own: chmod -R o+rX {str(folder)!r}"
        )


@dataclass(frozen=True, slots=True)
class Build:
    """A build's variant of a bot's launch (referee.hosted.build): no door; its folder a tmpfs
    of its disk limit at the folder's own path (the only folder it writes, held to its size by
    the kernel), into which `inside`, a Python program of the referee's that the sandbox runs
    first, copies `source` (shown read-only at BUILD_SOURCE), runs the build command as `uid`,
    and writes the folder out to the inherited descriptor `out`. `uid`: a referee run as root
    gives each build a uid of its own (doors.unused_uid); None: the caller's, in bwrap's user
    namespace."""

    uid: int | None
    source: Path
    inside: Path
    out: int


@dataclass(frozen=True, slots=True)
class Prepared:
    """A bot's launch: the command (the bot's, inside prlimit and bwrap, inside a shell that
    joins its cgroups first), its environment, the cgroups to read and remove after, and the
    file descriptors the command must inherit (bwrap's seccomp filter, its still /proc files),
    which the caller closes once the process has started."""

    argv: list[str]
    env: dict[str, str]
    cgroups: BotCgroups | None
    pass_fds: tuple[int, ...] = ()

    def close_fds(self) -> None:
        for fd in self.pass_fds:
            os.close(fd)


def prepare(
    argv: Sequence[str],
    *,
    cwd: Path | None,
    env: Mapping[str, str],
    croupier: Mapping[str, str],
    limits: Limits,
    sandbox: Sandbox,
    door: Door | None = None,
    own_folder: bool = False,
    confined: bool = False,
    build: Build | None = None,
) -> Prepared:
    """The launch of `argv` under `sandbox` with `limits`; `env` is the ladder file's, and
    `croupier` the CROUPIER_* variables; `door` is the bot's own (None: no door is bound, the
    bot reaches nothing); `own_folder`: `cwd` is the bot's folder (else the folder its command
    names, referee.local.bot_root); `confined`: the folder is an author's upload (a hosted version),
    shown alone with the runtimes the referee names (bot_root.bot_paths); `build`: the launch is a
    build's (referee.hosted.build), which has no door and writes its own folder. Without a
    sandbox, the bot gets the referee's environment as before, and the limits still apply.
    Either way the bot's folder leads its PYTHONPATH, so that a Python bot imports its own
    modules wherever it lies (a ladder file's PYTHONPATH replaces it)."""
    here = (cwd or Path.cwd()).resolve()
    if sandbox.runtime is not None:
        croupier = {**croupier, RUNTIME_VARIABLE: str(sandbox.runtime.resolve())}
    uid = door.uid if door is not None else build.uid if build is not None else None
    bot_paths = bot_root.bot_paths(argv, here, own=own_folder or confined, confined=confined)
    wrapped: list[str] = []
    if sandbox.enabled:  # refused (a folder that would show a secret) before any cgroup exists
        wrapped = _wrapper(argv, here, bot_paths, limits, sandbox, door, build, confined)
    cgroups = BotCgroups.create(limits.processes, limits.memory_mb)
    prefix = cgroups.enter() if cgroups is not None else []
    prefix += priority.bot_prefix()
    nproc = cgroups is None or cgroups.pids is None or uid is not None
    options = limits.prlimit(nproc=nproc, address_space=cgroups is None or cgroups.memory is None)
    if options:
        prefix += [_tool("prlimit", "util-linux"), *options, "--"]
    folder = str(bot_paths[0])
    if not sandbox.enabled:
        inherited = os.environ.get("PYTHONPATH")
        own = {"PYTHONPATH": f"{folder}{os.pathsep}{inherited}" if inherited else folder}
        full = {**os.environ, **own, **env, **croupier, "PYTHONUNBUFFERED": "1"}
        return Prepared([*prefix, *argv], full, cgroups)
    scrubbed = {key: os.environ[key] for key in _KEPT if key in os.environ}
    scrubbed.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    scrubbed |= {"HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp", "PYTHONUNBUFFERED": "1"}
    scrubbed |= {"PYTHONPATH": folder, **env, **croupier}
    seccomp = _memory_file("croupier-seccomp", syscalls.program())
    wrapped[wrapped.index(_SECCOMP_FD)] = str(seccomp)
    still = {path: _memory_file("croupier-proc", data) for path, data in bot_root.still_proc()}
    at = wrapped.index(_STILL_PROC)
    wrapped[at : at + 1] = [a for p, fd in still.items() for a in ("--ro-bind-data", str(fd), p)]
    fds = (seccomp, *still.values())
    return Prepared([*prefix, *wrapped, *argv], scrubbed, cgroups, fds)


#: Stand for the seccomp filter's descriptor, and the still /proc files' (bot_root.still_proc), in
#: `_wrapper`'s arguments until they are opened.
_SECCOMP_FD = "{seccomp}"
_STILL_PROC = "{still proc}"


def _memory_file(name: str, data: bytes) -> int:
    """A memory file holding `data` from its start, for bwrap's `--seccomp FD` and
    `--ro-bind-data FD` (bwrap reads it once; the caller closes it once bwrap has started)."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _wrapper(
    argv: Sequence[str],
    here: Path,
    bot_paths: Sequence[Path],
    limits: Limits,
    sandbox: Sandbox,
    door: Door | None,
    build: Build | None = None,
    confined: bool = False,
) -> list[str]:
    """bwrap's command line up to the bot's own (and setpriv's and the relay's); `bot_paths`
    are bot_root.bot_paths's; `build` and `confined` as in `prepare`."""
    bwrap = check_bwrap()
    folder, *extra = bot_paths
    runtimes = bot_root.runtime_folders(argv, here, confined=confined)
    if sandbox.runtime is not None:
        runtimes.append(sandbox.runtime.resolve())
    if door is not None or build is not None:  # the relay's or the build's Python, where it
        runtimes.append(Path(os.path.realpath(sys.base_prefix)))  # lies outside /usr
    uid = door.uid if door is not None else build.uid if build is not None else None
    if build is None:
        check_folder(folder, sandbox, uid)
    else:  # the folder is made in the sandbox; its files come from the version's
        extra = [*extra, build.source]
    # Each refused as the folder is where it shows a secret; a file the command names (a shared
    # script in another bot's folder) is that one file, and is shown.
    for path in [*runtimes, *(path for path in extra if path.is_dir())]:
        check_shown(path, sandbox)
    scratch = str(limits.disk_mb * MB if limits.disk_mb else 1024 * MB)
    # No --new-session: the launcher starts bwrap in a session of its own with no terminal
    # (spawn.start), which is what it guards against (TIOCSTI); bwrap's own setsid would take
    # the bot out of the process group that the referee stops while pondering is off where the
    # bot has no freezer cgroup (referee.local.processes).
    wrapped = [bwrap, "--die-with-parent", *_privilege()]
    wrapped += ["--seccomp", _SECCOMP_FD, *bot_root.system_arguments()]
    wrapped += ["--dev", "/dev", "--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm"]
    wrapped += ["--proc", "/proc", _STILL_PROC]
    wrapped += ["--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
    wrapped += ["--perms", "0777", "--dir", HOME_IN_SANDBOX]
    wrapped += ["--perms", "0755", "--size", str(MB), "--tmpfs", "/run"]
    if door is not None:
        wrapped += ["--ro-bind", str(door.folder), FOLDER_IN_SANDBOX]
        wrapped += ["--ro-bind", relay.__file__, _RELAY_IN_SANDBOX]
    if build is None:
        wrapped += bot_root.bind_arguments(
            bot_root.shown([*runtimes, folder, *extra]), _MOUNTED, here
        )
    else:  # the one folder a build writes: a tmpfs of its disk limit, the version beside it
        wrapped += bot_root.bind_arguments(bot_root.shown(runtimes), _MOUNTED, here)
        wrapped += ["--perms", "0777", "--size", scratch, "--tmpfs", str(folder)]
        wrapped += ["--ro-bind", str(build.source), BUILD_SOURCE]
        wrapped += ["--ro-bind", str(build.inside), _BUILD_INSIDE]
    wrapped += ["--chdir", str(here), "--"]
    if build is not None:  # each of its steps as the build's user
        drop = _drop_to(uid) if uid is not None else []
        plan = {"source": BUILD_SOURCE, "folder": str(folder), "drop": drop, "out": build.out}
        python = os.path.realpath(sys.executable)
        wrapped += [python, "-I", "-S", _BUILD_INSIDE, json.dumps(plan), "--"]
    elif uid is not None:
        wrapped += _drop_to(uid)
    if door is not None:
        python = os.path.realpath(sys.executable)
        wrapped += [python, "-I", "-S", _RELAY_IN_SANDBOX, str(RELAY_PORT), SOCKET_IN_SANDBOX]
        wrapped += ["--"]
    return wrapped


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
    "operation not permitted",
    "no locks available",
)
_PATH = re.compile(r"(/[\w.@+-]+(?:/[\w.@+-]+)*)")


def refusals(lines: Sequence[str], shown: Sequence[Path] = ()) -> list[str]:
    """Lines of a bot's output that show the sandbox refusing it something: the network, a
    write outside its scratch, a refused system call, or a file that exists on this machine but
    is not in the bot's view (a file missing on the host too is the bot's own mistake), such as
    a Node package in a node_modules outside the bot's folders `shown` (issue 42.7: `node
    dist/bot.js` is shown dist/, not the node_modules beside it)."""
    found = []
    for line in lines:
        text = line.lower()
        network = "connection refused" in text and "unix:" not in text  # not the referee's
        if network or any(marker in text for marker in _REFUSED):
            found.append(line.strip())
        elif (outside := node_package_outside(line, shown)) is not None:
            found.append(f"{line.strip()} ({outside} is not in the bot's view)")
        elif "no such file or directory" in text or "cannot find module" in text:
            for match in _PATH.findall(line):
                if Path(match).exists():
                    found.append(f"{line.strip()} ({match} is not in the bot's view)")
                    break
    return found


#: Node's words for a package it did not find, and the file that imported it.
_NODE_PACKAGE = re.compile(
    r"Cannot find (?:module|package) '([^'./][^']*)'(?:.*?(?:imported from|from) '?(/[^'\s]+))?"
)


def node_package_outside(line: str, shown: Sequence[Path]) -> Path | None:
    """The node_modules folder holding the package a line says Node could not find, when it
    lies on this machine above the importing file but outside every folder in `shown`."""
    missing = _NODE_PACKAGE.search(line)
    if missing is None or missing.group(2) is None:
        return None
    parts = missing.group(1).split("/")
    package = "/".join(parts[:2] if parts[0].startswith("@") else parts[:1])
    for folder in Path(missing.group(2)).parents:
        candidate = folder / "node_modules" / package
        if candidate.is_dir():
            inside = any(bot_root.is_inside(candidate, Path(root)) for root in shown)
            return None if inside else folder / "node_modules"
    return None
