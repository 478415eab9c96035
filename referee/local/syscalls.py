"""The system calls a sandboxed bot is refused: a seccomp filter that bwrap loads (`--seccomp`)
just before the bot's program runs, so that it holds for the bot and everything it starts.

Refused, with EPERM, whatever the bot's privileges (its namespaces' owners could otherwise undo
its view or reach other processes): mounting and unmounting in every form, pivot_root, new or
joined namespaces (unshare, setns, clone with a CLONE_NEW* flag), ptrace and reading or writing
another process's memory, kernel keyrings, bpf, perf_event_open, and loading kernel code.
clone3 answers ENOSYS: its flags sit behind a pointer a filter cannot read, and every runtime's
libc then falls back to clone, whose flags it can.

Refused with ENOLCK ("no locks available", which runtimes already handle): every byte-range
lock command of fcntl (classic and open-file-description ones, getting included) and flock, the
lock channel two bots could otherwise signal through on any file both can read (issue 31);
leases and directory notifications with EPERM, and inotify, which would let one bot watch
another read a shared file.

libseccomp (through pyseccomp, a ctypes binding with the same API as libseccomp's own Python
module) compiles the rules for this machine's architecture; a system call made through another
architecture's entry (i386's int 0x80 on x86_64, x32) kills the bot, as libseccomp does by
default.
"""

from __future__ import annotations

import errno
import functools
import tempfile

from referee.errors import CroupierError


class FilterError(CroupierError):
    """The seccomp filter cannot be built here (no libseccomp)."""


#: Refused with EPERM, each for a reason given in the module's docstring.
REFUSED = (
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    "unshare",
    "setns",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "open_by_handle_at",
    "name_to_handle_at",
    "quotactl",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "syslog",
    "iopl",
    "ioperm",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
)

#: clone flags that make a namespace (CLONE_NEWTIME, CLONE_NEWNS, CLONE_NEWCGROUP,
#: CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET).
NAMESPACE_FLAGS = (
    0x80,
    0x20000,
    0x02000000,
    0x04000000,
    0x08000000,
    0x10000000,
    0x20000000,
    0x40000000,
)

#: fcntl's lock commands: F_GETLK, F_SETLK, F_SETLKW and the open-file-description ones
#: F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW.
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)
#: fcntl's lease and directory-notification commands: F_SETLEASE, F_GETLEASE, F_NOTIFY.
NOTICE_COMMANDS = (1024, 1025, 1026)


@functools.cache
def program() -> bytes:
    """The compiled filter (classic BPF for this architecture), built once per process."""
    try:  # here, not at import: a machine without libseccomp still runs --no-sandbox
        import pyseccomp as seccomp
    except (ImportError, OSError, AttributeError) as error:
        raise FilterError(
            f"the bot sandbox's seccomp filter needs libseccomp ({error}): "
            "apt-get install libseccomp2, or turn the sandbox off with --no-sandbox"
        ) from None
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED:
        rules.add_rule(refuse, name)
    for flag in NAMESPACE_FLAGS:
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for command in LOCK_COMMANDS:
        rules.add_rule(seccomp.ERRNO(errno.ENOLCK), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    for command in NOTICE_COMMANDS:
        rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    rules.add_rule(seccomp.ERRNO(errno.ENOLCK), "flock")
    with tempfile.TemporaryFile() as file:
        rules.export_bpf(file)
        file.seek(0)
        return file.read()
