"""Hostile bots that try to escape the bot sandbox (the kernel side of tests/bots/cheaters.py).

    python escapers.py probe ESCAPE [ARG...]   try ESCAPE now, with no referee: print one line,
                                               `CHEAT WORKED: <what>` (exit 42) or
                                               `CHEAT FAILED: <why>` (exit 0)
    python escapers.py bot ESCAPE [ARG...]     a bot (croupier.run) that tries ESCAPE on its first
                                               decision, then plays random legal actions; it
                                               exits 42 at once when the escape works

Escapes (each reports the errno names it was refused with):

- unmount SECRET: umount2(MNT_DETACH) every mount point but / (deepest first, several passes),
  then read SECRET; worked if the file can be read or the folder lists anything.
- remount FOLDER: remount each read-only mount read-write (MS_REMOUNT|MS_BIND, its other flags
  kept), then write a file in FOLDER (a folder bound read-only); worked if the write succeeds.
- proc PID: umount2("/proc", MNT_DETACH); worked if /proc/PID (a host pid) is then visible.
- setuid: setresuid(0, 0, 0), setuid(0), setresgid(0, 0, 0), setgid(0); worked if the effective
  uid is 0 when the real uid was not at the start, or if any effective capability is held.
- ptrace: PTRACE_ATTACH (then PTRACE_SEIZE) a forked, sleeping child; worked if either succeeds.
- userns, mountns: unshare(CLONE_NEWUSER / CLONE_NEWNS) in a forked (single-threaded) child, also
  os.unshare where Python has it (3.12+), and a raw clone syscall with the flag (x86_64); worked
  if any succeeds.
- raw: socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) and socket(AF_PACKET, SOCK_RAW, 0); worked if
  either opens.
- setuid-exec BINARY: run `BINARY -u` (a setuid-root copy of id); worked if it prints 0 while our
  real uid is not 0.

unmount, remount and proc change the mount namespace they run in. Run in the host's initial
mount namespace there is no sandbox to escape from: they then report WORKED (no sandbox) without
touching a mount, so that a bot run with the sandbox off can neither pass nor wreck the host.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import errno
import functools
import os
import platform
import random
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from croupier.v1 import referee_pb2

MNT_DETACH = 2
MS_RDONLY = 1
MS_REMOUNT = 32
MS_BIND = 4096
#: The per-mount flags a bind remount keeps (a locked one dropped would be refused on its own).
MOUNT_FLAGS = {
    "nosuid": 2,
    "nodev": 4,
    "noexec": 8,
    "nosymfollow": 256,
    "noatime": 1024,
    "nodiratime": 2048,
    "relatime": 1 << 21,
    "strictatime": 1 << 24,
}
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
SYS_CLONE_X86_64 = 56
PTRACE_ATTACH = 16
PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
#: The nsfs inode of the initial mount namespace (fixed since Linux 6.18).
MNT_NS_INIT_INO = 0xEFFFFFF8


class Verdict(NamedTuple):
    worked: bool
    detail: str


@functools.cache
def libc() -> ctypes.CDLL:
    lib = ctypes.CDLL("libc.so.6", use_errno=True)
    lib.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
    lib.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.unshare.argtypes = [ctypes.c_int]
    lib.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.ptrace.restype = ctypes.c_long
    lib.syscall.restype = ctypes.c_long
    for name in ("setresuid", "setresgid"):
        getattr(lib, name).argtypes = [ctypes.c_uint] * 3
    for name in ("setuid", "setgid"):
        getattr(lib, name).argtypes = [ctypes.c_uint]
    return lib


def errno_name(number: int) -> str:
    return errno.errorcode.get(number, f"errno {number}")


def last_error() -> str:
    return errno_name(ctypes.get_errno())


def describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno is not None:
        where = f" ({error.filename})" if error.filename else ""
        return f"{errno_name(error.errno)}: {error.strerror}{where}"
    return f"{type(error).__name__}: {error}"


def tally(errors: list[str]) -> str:
    counts = collections.Counter(errors)
    return ", ".join(f"{name} on {count}" for name, count in counts.most_common()) or "no error"


def status_field(name: str) -> str:
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return value.strip()
    return "?"


class Mount(NamedTuple):
    target: str
    options: list[str]


def read_mountinfo() -> list[Mount]:
    def unescape(field: str) -> str:
        return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), field)

    mounts = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        mounts.append(Mount(unescape(fields[4]), fields[5].split(",")))
    return mounts


def host_mount_namespace() -> str | None:
    """Why this is the host's own mount namespace (no sandbox at all), or None."""
    with contextlib.suppress(OSError):
        if os.stat("/proc/self/ns/mnt").st_ino == MNT_NS_INIT_INO:
            return "this is the host's initial mount namespace"
        if os.readlink("/proc/1/ns/mnt") == os.readlink("/proc/self/ns/mnt"):
            init = Path("/proc/1/comm").read_text().strip()
            if init != "bwrap":
                return f"this is the mount namespace of pid 1 ({init})"
    return None


def no_sandbox(reason: str) -> Verdict:
    return Verdict(True, f"no sandbox: {reason} (left the mounts alone)")


def unmount(secret: str) -> Verdict:
    """Detach every mount (the tmpfs over SECRET among them), then read what was under it."""
    lib = libc()
    if reason := host_mount_namespace():
        return no_sandbox(reason)
    targets = sorted(
        {mount.target for mount in read_mountinfo() if mount.target != "/"},
        key=lambda target: target.count("/"),
        reverse=True,
    )
    detached: collections.Counter[str] = collections.Counter()
    refused: dict[str, str] = {}
    for _ in range(8):  # stacked mounts come off one per pass
        progress = False
        for target in targets:
            if lib.umount2(target.encode(), MNT_DETACH) == 0:
                detached[target] += 1
                progress = True
            else:
                refused[target] = last_error()
        if not progress:
            break
    stuck = [name for target, name in refused.items() if not detached[target]]
    summary = f"detached {detached.total()} mounts from {len(targets)} mount points"
    summary += f" ({tally(stuck)} unmounts)" if stuck else ""
    path = Path(secret)
    try:
        if path.is_dir():
            entries = sorted(os.listdir(path))
            if entries:
                return Verdict(True, f"{summary}; listed {secret}: {entries[:8]}")
            return Verdict(False, f"{summary}; {secret} is empty")
        data = path.read_bytes()
        return Verdict(True, f"{summary}; read {secret}: {data[:40]!r}")
    except OSError as error:
        return Verdict(False, f"{summary}; {secret}: {describe(error)}")


def remount(folder: str) -> Verdict:
    """Make the read-only mounts writable, then write in FOLDER."""
    lib = libc()
    if reason := host_mount_namespace():
        return no_sandbox(reason)
    readonly = [mount for mount in read_mountinfo() if "ro" in mount.options]
    done, errors = 0, []
    for mount in readonly:
        flags = MS_REMOUNT | MS_BIND
        flags |= sum(MOUNT_FLAGS.get(option, 0) for option in mount.options)
        if lib.mount(None, mount.target.encode(), None, flags, None) == 0:
            done += 1
        else:
            errors.append(last_error())
    summary = f"remounted {done} of {len(readonly)} read-only mounts read-write"
    summary += f" ({tally(errors)})" if errors else ""
    path = Path(folder) / f".escaper-{os.getpid()}"
    try:
        path.write_text("escaped\n")
    except OSError as error:
        return Verdict(False, f"{summary}; write in {folder}: {describe(error)}")
    path.unlink()
    return Verdict(True, f"{summary}; wrote {path}")


def proc(pid: str) -> Verdict:
    """Detach the sandbox's /proc: the host's may lie under it."""
    lib = libc()
    if reason := host_mount_namespace():
        return no_sandbox(reason)
    if lib.umount2(b"/proc", MNT_DETACH) == 0:
        summary = "detached /proc"
    else:
        summary = f"umount /proc: {last_error()}"
    try:
        count = len(os.listdir("/proc"))
    except OSError as error:
        count_text = f"/proc unreadable ({describe(error)})"
    else:
        count_text = f"{count} entries in /proc"
    if os.path.exists(f"/proc/{pid}"):
        return Verdict(True, f"{summary}; /proc/{pid} is visible; {count_text}")
    return Verdict(False, f"{summary}; /proc/{pid} absent; {count_text}")


def setuid() -> Verdict:
    lib = libc()
    real = os.getuid()
    calls: list[tuple[str, Callable[[], int]]] = [
        ("setresuid(0,0,0)", lambda: lib.setresuid(0, 0, 0)),
        ("setuid(0)", lambda: lib.setuid(0)),
        ("setresgid(0,0,0)", lambda: lib.setresgid(0, 0, 0)),
        ("setgid(0)", lambda: lib.setgid(0)),
    ]
    results = [f"{name} {'ok' if call() == 0 else last_error()}" for name, call in calls]
    euid, egid = os.geteuid(), os.getegid()
    capabilities = int(status_field("CapEff"), 16)
    worked = (euid == 0 and real != 0) or capabilities != 0
    detail = f"uid {real} -> euid {euid}, egid {egid}, CapEff {capabilities:#x}"
    detail += f", NoNewPrivs {status_field('NoNewPrivs')}; {', '.join(results)}"
    return Verdict(worked, detail)


def ptrace() -> Verdict:
    lib = libc()
    child = os.fork()
    if child == 0:
        try:
            time.sleep(30)
        finally:
            os._exit(0)
    try:
        if lib.ptrace(PTRACE_ATTACH, child, None, None) == 0:
            os.waitpid(child, 0)  # its attach stop
            detached = lib.ptrace(PTRACE_DETACH, child, None, None) == 0
            return Verdict(True, f"PTRACE_ATTACH'd child {child} (detached: {detached})")
        attach = last_error()
        if lib.ptrace(PTRACE_SEIZE, child, None, None) == 0:
            return Verdict(True, f"PTRACE_SEIZE'd child {child} (PTRACE_ATTACH: {attach})")
        return Verdict(False, f"PTRACE_ATTACH {attach}, PTRACE_SEIZE {last_error()}")
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


#: Run by a fresh interpreter (argument: the flag): os.unshare in a forked child where Python has
#: it (3.12+), then unshare through libc; prints the two errnos (0: it worked, -1: not tried).
UNSHARE_CHILD = """
import ctypes, os, sys
flag = int(sys.argv[1])
first = -1
if hasattr(os, "unshare"):
    if os.fork() == 0:
        try:
            os.unshare(flag)
        except OSError as error:
            os._exit(error.errno)
        os._exit(0)
    first = os.waitstatus_to_exitcode(os.wait()[1])
lib = ctypes.CDLL("libc.so.6", use_errno=True)
print(first, 0 if lib.unshare(flag) == 0 else ctypes.get_errno())
"""


def namespace(flag: int) -> Verdict:
    lib = libc()
    # unshare(CLONE_NEWUSER) wants a single-threaded process: not the bot's (gRPC's threads), nor
    # a forked child of it (gRPC restarts its threads there), but a fresh interpreter.
    result = subprocess.run(
        [sys.executable or "python3", "-I", "-c", UNSHARE_CHILD, str(flag)],
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"the unshare child failed: {result.stderr.strip()[-200:]!r}")
    results = {}
    for call, code in zip(("os.unshare", "unshare"), map(int, result.stdout.split()), strict=True):
        if code >= 0:
            results[call] = "ok" if code == 0 else errno_name(code)
    if platform.machine() == "x86_64":
        flags = ctypes.c_long(flag | signal.SIGCHLD)
        child = lib.syscall(ctypes.c_long(SYS_CLONE_X86_64), flags, *[ctypes.c_long(0)] * 4)
        if child == 0:
            os._exit(0)
        if child > 0:
            os.waitpid(child, 0)
            results["clone"] = "ok"
        else:
            results["clone"] = last_error()
    detail = ", ".join(f"{call} {outcome}" for call, outcome in results.items())
    return Verdict("ok" in results.values(), detail)


def raw() -> Verdict:
    kinds = [
        ("AF_INET SOCK_RAW ICMP", socket.AF_INET, socket.IPPROTO_ICMP),
        ("AF_PACKET SOCK_RAW", socket.AF_PACKET, 0),
    ]
    opened, refused = [], []
    for name, family, protocol in kinds:
        try:
            with socket.socket(family, socket.SOCK_RAW, protocol):
                opened.append(name)
        except OSError as error:
            refused.append(f"{name} {describe(error)}")
    if opened:
        return Verdict(True, f"opened {', '.join(opened)}; refused: {refused}")
    return Verdict(False, "; ".join(refused))


def setuid_exec(binary: str) -> Verdict:
    info = os.stat(binary)
    mode = f"{stat.filemode(info.st_mode)} owner {info.st_uid}"
    result = subprocess.run([binary, "-u"], capture_output=True, text=True, timeout=10, check=False)
    printed = result.stdout.strip()
    real = os.getuid()
    detail = f"{binary} ({mode}) -u printed {printed!r} (exit {result.returncode}"
    detail += f"{', stderr ' + repr(result.stderr.strip()) if result.stderr.strip() else ''})"
    detail += f" as real uid {real}, NoNewPrivs {status_field('NoNewPrivs')}"
    return Verdict(printed == "0" and real != 0, detail)


#: Each escape: its arguments' names and the attempt.
ESCAPES: dict[str, tuple[tuple[str, ...], Callable[..., Verdict]]] = {
    "unmount": (("SECRET",), unmount),
    "remount": (("FOLDER",), remount),
    "proc": (("PID",), proc),
    "setuid": ((), setuid),
    "ptrace": ((), ptrace),
    "userns": ((), lambda: namespace(CLONE_NEWUSER)),
    "mountns": ((), lambda: namespace(CLONE_NEWNS)),
    "raw": ((), raw),
    "setuid-exec": (("BINARY",), setuid_exec),
}


def attempt(escape: str, args: list[str]) -> Verdict:
    try:
        return ESCAPES[escape][1](*args)
    except BaseException as error:
        return Verdict(False, f"{escape}: {describe(error)}")


def report(verdict: Verdict) -> None:
    """Print the verdict; a working escape ends the process with exit code 42."""
    if verdict.worked:
        print(f"CHEAT WORKED: {verdict.detail}", flush=True)
        os._exit(42)
    print(f"CHEAT FAILED: {verdict.detail}", flush=True)


def play(escape: str, args: list[str]) -> None:
    """Play random legal actions, trying the escape on the first decision."""
    import croupier

    class Escaper(croupier.Bot):
        name = "escaper"
        version = "1"

        def __init__(self) -> None:
            self.tried = False

        def act(self, request: referee_pb2.ActionRequest) -> int:
            if not self.tried:
                self.tried = True  # mid-match, as a cheater would
                report(attempt(escape, args))
            return random.randrange(len(request.legal_actions))

    croupier.run(Escaper)


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[0] not in ("probe", "bot") or argv[1] not in ESCAPES:
        usage = " | ".join(" ".join([name, *names]) for name, (names, _) in ESCAPES.items())
        print(f"usage: escapers.py probe|bot ESCAPE [ARG...]\nescapes: {usage}", file=sys.stderr)
        sys.exit(2)
    mode, escape, args = argv[0], argv[1], argv[2:]
    if len(args) != len(ESCAPES[escape][0]):
        names = " ".join(ESCAPES[escape][0]) or "no argument"
        print(f"escapers.py: {escape} takes {names}", file=sys.stderr)
        sys.exit(2)
    if mode == "probe":
        report(attempt(escape, args))
    else:
        play(escape, args)


if __name__ == "__main__":
    main(sys.argv[1:])
