"""What a sandboxed bot can see of the machine: an allow-list, built into an empty root.

Nothing is hidden under covers (a cover can be taken off, issue 30): the bot's root is a fresh
tmpfs holding only what a runtime needs, read-only:

- the system's programs and libraries: /usr, and /bin, /sbin, /lib* (symlinks into /usr on a
  merged system, as on the host);
- the few files of /etc that runtimes read (`ETC`: the dynamic linker's cache, time zone, name
  service switch, the alternatives that point at Java, Java's configuration, TLS roots), not
  passwd, shadow or anything of the organiser's;
- the runtime the bot's command names, where it lies outside /usr (a venv and the Python it
  was made from, a Node under a home folder), and croupier's SDKs when they are a checkout's;
- the bot's own folder (`bot_folder`): the folder of its program, or of the first path its
  command names (a script, a class path), else its working folder.

A bot given a folder of its own (`own`: a ladder bot's `cwd`, a hosted version) is shown what
its command names by the path as written, never through a link in its folder; and an uploaded
one (`confined`: a hosted version, its build) is shown its folder and the runtimes the referee
names alone (the system, the organiser's runtime, croupier's Python and SDKs), nothing found
through its own files: a link its build made points at nothing the referee binds (issue 41.0).

The records, the ladder database, the organiser's home, other bots' folders and the referee's
processes are not in this view at all, so no unmount can reveal them. Nor are the machine's live
CPU counters, by which a bot could time other bots (how long an opponent thinks, whether a bot
of another match is busy): /sys (the cgroups' cpu.stat) is not shown, and the /proc files that
count the whole machine's CPU time (`STILL_PROC`) are shown still, as `still_proc` writes them.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import croupier

#: System folders shown read-only (or recreated as the host's symlinks into /usr).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files and folders of /etc that runtimes read; each shown read-only where it exists.
ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "nsswitch.conf",
    "host.conf",
    "hosts",
    "gai.conf",
    "protocols",
    "services",
    "mime.types",
    "alternatives",
    "ssl",
    "ca-certificates",
)
#: Java's configuration lives in /etc/java-NN-openjdk on Debian (its conf/ links there).
ETC_PATTERNS = ("java-*",)


def is_inside(path: Path, folder: Path) -> bool:
    """Whether `path` is `folder` or lies in it."""
    return path == folder or folder in path.parents


def system_arguments() -> list[str]:
    """bwrap arguments that show the system's programs, libraries and runtime /etc files."""
    arguments: list[str] = []
    for name in SYSTEM:
        path = Path(name)
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            arguments += ["--ro-bind", name, name]
    etc = Path("/etc")
    arguments += ["--perms", "0755", "--dir", "/etc"]  # bwrap would make it 0700
    names = [*ETC, *(p.name for pattern in ETC_PATTERNS for p in sorted(etc.glob(pattern)))]
    for name in names:
        if (etc / name).exists():
            arguments += ["--ro-bind", str(etc / name), str(etc / name)]
    return arguments


#: Programs that are interpreters (by name, `python3.11` and `pypy3` included): the bot is
#: what they run, not where they are.
_INTERPRETERS = ("python", "pypy", "node", "nodejs", "java")


def is_interpreter(program: str) -> bool:
    name = Path(program).name
    return name in _INTERPRETERS or name.startswith(("python", "pypy"))


def _is_runtime(path: Path) -> bool:
    """Whether `path` belongs to a runtime rather than to a bot: an interpreter, the system's
    files, or the Python that runs croupier (a bot command's `{python}`)."""
    if is_interpreter(str(path)):
        return True
    real = Path(os.path.realpath(path))
    roots = [Path("/usr"), Path(sys.prefix), Path(os.path.realpath(sys.base_prefix))]
    return any(is_inside(candidate, root) for candidate in (path, real) for root in roots)


def _named_path(argv: Sequence[str], cwd: Path, *, follow: bool = True) -> Path | None:
    """The bot's program when the command names it by path, else the first existing path
    among its arguments (an interpreter's script, a class path), skipping runtimes: resolved
    through links, or with `follow` False as written (made absolute, `..` taken lexically)."""
    for index, argument in enumerate(argv):
        if argument.startswith("-") or (index == 0 and "/" not in argument):
            continue
        path = Path(argument) if Path(argument).is_absolute() else cwd / argument
        if _exists(path) and not (index == 0 and _is_runtime(path)):
            if follow:
                return path.resolve()
            return Path(os.path.normpath(cwd.resolve() / argument))  # an absolute one stays
    return None


def _exists(path: Path) -> bool:
    """Whether `path` exists as far as this user can tell (not: a folder it may not search)."""
    try:
        return path.exists()
    except OSError:
        return False


def _folder_of(named: Path | None, cwd: Path, own: bool) -> Path:
    if own or named is None:
        return cwd.resolve()
    return named if named.is_dir() else named.parent


def bot_folder(argv: Sequence[str], cwd: Path, *, own: bool = False) -> Path:
    """The folder that is the bot's: `cwd` when it is the bot's `own` (a ladder bot's `cwd`),
    else that of the path its command names (a folder is its own), else `cwd`."""
    return _folder_of(None if own else _named_path(argv, cwd), cwd, own)


def bot_paths(
    argv: Sequence[str], cwd: Path, *, own: bool = False, confined: bool = False
) -> list[Path]:
    """What the sandbox shows of the bot: its folder, and the path its command names when that
    lies outside it as written (a shared script run from a folder of the bot's own; with `own`
    a link inside the folder is not followed out of it). A `confined` bot's folder is `cwd`,
    alone."""
    if confined:
        return [cwd.resolve()]
    named = _named_path(argv, cwd, follow=not own)
    folder = _folder_of(named, cwd, own)
    extra = [named] if named is not None and not is_inside(named, folder) else []
    return [folder, *extra]


def runtime_folders(argv: Sequence[str], cwd: Path, *, confined: bool = False) -> list[Path]:
    """The installations the command runs on, outside /usr: its program's prefix (PREFIX of
    PREFIX/bin/node), a venv and the Python it was made from, and the checkout's SDK folder
    (sdk/, which the example bots import from by path, and proto/, which the Node SDK reads)
    and, for Python, its referee package (which the SDK's reference bots import).
    A relative program is found from `cwd`; a `confined` bot's program only on the referee's
    PATH (one named by path is in its folder, and where its links lead is not shown)."""
    found: list[Path] = []
    # A program's prefix when it is found on PATH or is an interpreter (a bot's own venv); any
    # other program named by path is the bot's own, in its folder (bot_folder).
    named = bool(argv) and "/" in argv[0]
    program = None
    if argv and not named:
        program = shutil.which(argv[0], path=os.environ.get("PATH"))
    elif argv and is_interpreter(argv[0]) and not confined:
        program = shutil.which(str(cwd / argv[0]))
    if program is not None:
        for candidate in (Path(program).absolute(), Path(os.path.realpath(program))):
            found.append(candidate.parent.parent)
    if argv and Path(argv[0]).name.startswith("python"):
        found += [Path(sys.prefix), Path(os.path.realpath(sys.base_prefix))]
        package = Path(croupier.__file__).resolve().parent  # .../sdk/python/croupier
        sdks = package.parent.parent
        found.append(sdks if sdks.name == "sdk" else package)
        # The referee's package: the SDK's reference bots search with its engines (an
        # installed croupier has it beside the SDK, in site-packages).
        found.append(Path(__file__).resolve().parent.parent)
    elif argv and Path(argv[0]).name in ("node", "nodejs"):
        sdks = Path(croupier.__file__).resolve().parent.parent.parent
        if sdks.name == "sdk":  # the Node SDK loads the checkout's .proto files
            found += [sdks, sdks.parent / "proto"]
    return [path for path in found if path.is_dir() and not is_inside(path, Path("/usr"))]


def shown(folders: Sequence[Path]) -> list[Path]:
    """`folders` (and files) without those shown through another of them (or /usr), parents
    first."""
    unique = sorted({Path(os.path.realpath(p)) for p in folders}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if path == Path("/"):
            continue
        if not any(is_inside(path, above) for above in [Path("/usr"), *kept]):
            kept.append(path)
    return kept


def bind_arguments(folders: Sequence[Path], mounted: Sequence[str], cwd: Path) -> list[str]:
    """bwrap arguments that show `folders` read-only at their own paths, and make `cwd` (the
    bot starts there, seeing of it only what is shown). Folders are made first, traversable by
    anyone (bwrap would make them 0700, closing them to the bot's user), except `mounted` ones,
    which exist already; the binds then cover them."""
    arguments: list[str] = []
    made = {Path("/"), *map(Path, mounted)}
    for path in [*(folder.parent for folder in folders), cwd]:
        for folder in [*reversed(path.parents), path]:
            if folder not in made and not is_inside(folder, Path("/usr")):
                arguments += ["--perms", "0755", "--dir", str(folder)]
                made.add(folder)
    for folder in folders:
        arguments += ["--ro-bind", str(folder), str(folder)]
    return arguments


#: /proc files that count the whole machine's CPU time, or its tasks' waits, as it goes.
STILL_PROC = (
    "/proc/stat",
    "/proc/schedstat",
    "/proc/uptime",
    "/proc/loadavg",
    "/proc/interrupts",  # each core's timer ticks: more on a busy one
    "/proc/softirqs",
    "/proc/pressure/cpu",
    "/proc/pressure/io",
    "/proc/pressure/memory",
    "/proc/pressure/irq",
)


@functools.cache
def still_proc() -> tuple[tuple[str, bytes], ...]:
    """What the bot reads in each of `STILL_PROC` that exists here: the same lines with every
    count 0, so that a runtime still finds its cores in /proc/stat (glibc and Node count them
    there where /sys is not shown), and nothing moves."""
    found: dict[str, bytes] = {}
    for name in STILL_PROC:
        try:
            text = Path(name).read_text()
        except OSError:
            continue
        if name == "/proc/loadavg":
            found[name] = b"0.00 0.00 0.00 1/1 1\n"
        elif name == "/proc/uptime":
            found[name] = b"0.00 0.00\n"
        else:
            found[name] = "".join(_zeroed(line) for line in text.splitlines()).encode()
    return tuple(found.items())


def _zeroed(line: str) -> str:
    """A counters line, spaced as it was, with every count 0 (`some avg10=0.00 ... total=0`);
    /proc/stat's boot time, no counter, is kept."""
    if line.startswith("btime"):
        return line + "\n"
    return _COUNT.sub(lambda count: "0.00" if "." in count[0] else "0", line) + "\n"


#: A count: a number alone, or after an `=` (not the 0 of `cpu0`, the 10 of `avg10`, nor an
#: interrupt's number, `9:`, or its trigger, `9-edge`).
_COUNT = re.compile(r"(?<=[\s=])\d+(?:\.\d+)?(?=\s|$)")
