"""The part of a build that runs inside its sandbox: copy the version in, build, hand it out.

referee.hosted.build runs this file as the sandbox's program, on the referee's Python:

    python -I -S build_inside.py PLAN -- BUILD COMMAND...

PLAN is JSON: `source`, the version's files (shown read-only); `folder`, the build folder, a
size-capped tmpfs at the folder's own path, so that the kernel holds the build to its disk limit,
files it unlinked and keeps open included (issue 41.1); `drop`, the words that run a step as the
build's user (setpriv, where the referee is root; none otherwise); `out`, the descriptor its
output goes to, inherited from the referee.

Each step runs as the build's user: copy the version's files into the folder; run the build
command there; once it has exited, kill whatever it left running (nothing may change the folder
while it is read); then, if it succeeded, write the folder to `out` as a tar stream of folders,
regular files and links only: a FIFO, a socket or a device is left out, and the build log says
so (issue 41.3). The referee unpacks the stream with limits of its own (referee.hosted.
build_output). Exits with the build command's status (128 + N when a signal N ended it).

Standard library only, and no import of croupier: croupier's packages are not in the sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import time

#: The exit status of a build whose program does not exist, as a shell gives it.
NOT_FOUND = 127
#: The exit status when the build succeeded but its folder could not be written out.
NOT_KEPT = 125


def main(argv: list[str]) -> int:
    plan = json.loads(argv[1])
    command = argv[3:]
    drop: list[str] = plan["drop"]
    folder: str = plan["folder"]
    step = [*drop, sys.executable, "-I", "-S", os.path.abspath(__file__)]
    code = _run([*step, "copy", plan["source"], folder], folder)
    if code == 0:
        code = _run([*drop, *command], folder)
    if drop:  # the build's processes are its user's: only that user may kill them all
        _run([*step, "reap"], folder)
    else:
        reap()
    if code == 0 and _run([*step, "pack", folder], folder, stdout=plan["out"]) != 0:
        code = NOT_KEPT
    os.close(plan["out"])
    return code


def _run(argv: list[str], cwd: str, stdout: int | None = None) -> int:
    """Run one step to its end; its exit status as a shell gives it."""
    try:
        done = subprocess.run(argv, cwd=cwd, stdout=stdout, check=False)
    except FileNotFoundError:
        print(f"croupier: no such program {argv[0]!r}", file=sys.stderr, flush=True)
        return NOT_FOUND
    return done.returncode if done.returncode >= 0 else 128 - done.returncode


def copy(source: str, folder: str) -> None:
    """The version's files into the build folder (whose top is the sandbox's), writable by
    their owner, the build."""
    for entry in os.scandir(source):
        into = os.path.join(folder, entry.name)
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(entry.path, into, symlinks=True)
        else:
            shutil.copy2(entry.path, into, follow_symlinks=False)
    for top, folders, files in os.walk(folder):
        for name in [*folders, *files]:
            path = os.path.join(top, name)
            os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | stat.S_IRUSR | stat.S_IWUSR)


def reap() -> None:
    """Kill every process this user may signal but this one and its parent (the sandbox's init
    is spared by the kernel), until none of them is left: a process forked meanwhile is caught
    the next time. (kill(-1) says nothing of who was left: the kernel counts the processes it
    may not signal too.)"""
    spared = {1, os.getpid(), os.getppid()}
    for _ in range(1000):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        if not _living(spared):
            return
        time.sleep(0.01)


def _living(spared: set[int]) -> list[int]:
    """The processes of the sandbox but `spared` that are not already dead (zombies)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in spared:
            try:
                with open(f"/proc/{name}/stat") as stat_file:
                    state = stat_file.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue  # gone meanwhile
            if state != "Z":
                found.append(int(name))
    return found


def pack(folder: str) -> None:
    """The build folder as a tar stream on stdout: folders, regular files and links, each named
    relative to the folder; what is none of those is left out, and said on stderr."""
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        for top, folders, files in os.walk(folder):
            folders.sort()
            for name in [*folders, *sorted(files)]:
                path = os.path.join(top, name)
                relative = os.path.relpath(path, folder)
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    entry = tarfile.TarInfo(relative)
                    entry.type, entry.linkname = tarfile.SYMTYPE, os.readlink(path)
                    tar.addfile(entry)
                elif stat.S_ISDIR(info.st_mode):
                    os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IRWXU)  # readable, walked
                    entry = tarfile.TarInfo(relative)
                    entry.type, entry.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(entry)
                elif stat.S_ISREG(info.st_mode):
                    os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IRUSR)
                    entry = tarfile.TarInfo(relative)
                    entry.size = info.st_size
                    entry.mode = 0o755 if info.st_mode & 0o111 else 0o644
                    with open(path, "rb") as data:
                        tar.addfile(entry, data)
                else:
                    print(
                        f"croupier: left out {relative!r}, a {_kind(info.st_mode)}: a built "
                        "bot keeps folders, regular files and links",
                        file=sys.stderr,
                        flush=True,
                    )


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device"


if __name__ == "__main__":
    if sys.argv[1] == "copy":
        copy(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "reap":
        reap()
    elif sys.argv[1] == "pack":
        pack(sys.argv[2])
    else:
        sys.exit(main(sys.argv))
