"""Building an uploaded version in the sandbox (referee.hosted.build): real bubblewrap, real
processes, real files. Each hostile build tries one way out or one way to hurt the referee."""

from __future__ import annotations

import os
import resource
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.hosted.build import (
    NOT_FOUND,
    BuildError,
    BuildLimits,
    BuildOutcome,
    BuildReason,
    build,
)
from referee.local.bot_log import MARKER

PYTHON = sys.executable


pytestmark = pytest.mark.usefixtures("bubblewrap")


def version(tmp_path: Path, script: str, name: str = "build.py") -> Path:
    """A version's unpacked folder holding `script`, as the store would hand it over."""
    source = tmp_path / "store" / "versions" / "v1"
    source.mkdir(parents=True)
    (source / name).write_text(textwrap.dedent(script))
    return source


async def run(tmp_path: Path, source: Path, command: str, **limits: Any) -> BuildOutcome:
    into = tmp_path / "store" / "builds" / "v1"
    return await build(source, into, command, BuildLimits(**limits), tmp_path / "build.log")


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler on this machine")
async def test_a_build_compiles_its_bot_in_a_fresh_copy(tmp_path: Path) -> None:
    source = version(tmp_path, "int main(void) { return 7; }\n", name="bot.c")
    leftover = tmp_path / "store" / "builds" / "v1" / "half-built"
    leftover.parent.mkdir(parents=True)
    leftover.write_text("left by a build killed with -9")
    outcome = await run(tmp_path, source, "cc -O2 -o bot bot.c")
    assert outcome.ok and outcome.why == "ok" and outcome.exit_code == 0, outcome
    built = tmp_path / "store" / "builds" / "v1"
    assert not leftover.exists()
    assert sorted(p.name for p in source.iterdir()) == ["bot.c"]  # the version is untouched
    done = await trio.run_process([str(built / "bot")], check=False)
    assert done.returncode == 7
    if os.geteuid() == 0:  # what the build's own user left is the referee's, readable by bots
        info = (built / "bot").stat()
        assert (info.st_uid, info.st_mode & 0o7777) == (0, 0o755)


async def test_a_build_cannot_reach_the_network(tmp_path: Path) -> None:
    source = version(
        tmp_path,
        """
        import socket
        socket.create_connection(("1.1.1.1", 53), timeout=5)
        """,
    )
    outcome = await run(tmp_path, source, f"{PYTHON} build.py")
    assert (outcome.ok, outcome.why) == (False, "exit 1"), outcome
    assert "network is unreachable" in outcome.detail.lower()


async def test_a_fork_bomb_stops_at_the_pids_limit(tmp_path: Path) -> None:
    source = version(
        tmp_path,
        """
        import os, sys, time
        while True:
            try:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
            except OSError as error:
                print("fork refused:", error)
                sys.exit(1)
        """,
    )
    outcome = await run(tmp_path, source, f"{PYTHON} build.py", processes=16, wall_seconds=30)
    assert (outcome.ok, outcome.reason) == (False, BuildReason.PIDS), outcome
    assert outcome.seconds < 20


@pytest.mark.parametrize("files", [1, 1000], ids=["one file", "many files"])
async def test_a_build_that_fills_its_disk_is_stopped(tmp_path: Path, files: int) -> None:
    source = version(
        tmp_path,
        f"""
        import itertools
        block = b"x" * 65536
        for n in itertools.count():
            with open(f"fill-{{n % {files}}}", "ab") as out:
                for _ in range(16):
                    out.write(block)
        """,
    )
    outcome = await run(tmp_path, source, f"{PYTHON} build.py", disk_mb=8, wall_seconds=30)
    assert (outcome.ok, outcome.reason) == (False, BuildReason.DISK), outcome
    built = tmp_path / "store" / "builds" / "v1"
    used = sum(p.stat().st_blocks * 512 for p in built.rglob("*"))
    # Stopped soon after its 8 MiB (the limit is polled, so soft), far from the disk's end.
    assert used < 512 * 1024 * 1024, used


def running_with(marker: str) -> list[int]:
    """The pids of the processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile
    return found


DAEMON = """
import os, sys, time
if os.fork() == 0:
    os.setsid()  # a daemon that leaves the build's process group
    while True:
        with open("alive", "a") as out:
            out.write(".")
        time.sleep(0.05)
time.sleep({sleep})
"""


async def test_a_build_that_runs_forever_is_killed_with_its_children(tmp_path: Path) -> None:
    marker = f"forever-{os.getpid()}-{id(tmp_path)}"
    source = version(tmp_path, DAEMON.format(sleep=1000))
    outcome = await run(tmp_path, source, f"{PYTHON} build.py {marker}", wall_seconds=1.5)
    assert (outcome.ok, outcome.reason, outcome.why) == (False, BuildReason.TIMEOUT, "timeout")
    assert 1.5 <= outcome.seconds < 10
    assert not (tmp_path / "store" / "builds" / "v1").exists()  # a failed build keeps nothing
    await trio.sleep(0.5)
    assert running_with(marker) == []  # nothing of the build still runs


async def test_what_a_finished_build_leaves_running_is_killed_before_its_folder_is_kept(
    tmp_path: Path,
) -> None:
    """A build that exits at once, its daemon still writing: the daemon is killed before the
    folder is read, so the folder kept is the one the build left, and nothing runs on."""
    marker = f"daemon-{os.getpid()}-{id(tmp_path)}"
    source = version(tmp_path, DAEMON.format(sleep=0.3))
    outcome = await run(tmp_path, source, f"{PYTHON} build.py {marker}", wall_seconds=30)
    assert outcome.ok, outcome.log.read_text()
    alive = tmp_path / "store" / "builds" / "v1" / "alive"
    size = alive.stat().st_size
    assert size > 0
    await trio.sleep(0.5)
    assert alive.stat().st_size == size and running_with(marker) == []


UNLINKED = """
import os, sys
held = []
try:
    for n in range({files}):
        name = f"hidden-{{n}}"
        out = open(name, "wb")
        os.unlink(name)  # invisible to whoever walks the folder, still on the disk
        held.append(out)
        for _ in range({mb}):
            out.write(b"x" * (1 << 20))
            out.flush()
        print("holding", len(held) * {mb}, "MiB", flush=True)
except OSError as error:
    print("refused after", sum(f.tell() for f in held) >> 20, "MiB:", error, flush=True)
    sys.exit(1)
print("HELD EVERYTHING", flush=True)
"""


async def test_files_unlinked_and_kept_open_count_against_the_disk_limit(tmp_path: Path) -> None:
    """Issue 41.1's attack: five files of 400 MB each, unlinked and held open, where the disk
    limit is 512 MiB: a walk of the folder sees none of them, the kernel counts them all."""
    source = version(tmp_path, UNLINKED.format(files=5, mb=400))
    outcome = await run(tmp_path, source, f"{PYTHON} build.py", wall_seconds=120)
    log = outcome.log.read_text()
    assert (outcome.ok, outcome.reason) == (False, BuildReason.DISK), log
    assert "HELD EVERYTHING" not in log and "No space left on device" in log, log
    refused = int(log.split("refused after ")[1].split()[0])
    assert refused <= 512, log  # never more than its limit, and none of it on the store's disk


async def test_a_fifo_a_socket_and_links_out_of_the_folder_are_not_kept(tmp_path: Path) -> None:
    """Issue 41.3: what a build leaves that is no file, folder or link within the folder or
    the runtime is left out of what is kept (and the build log says so); the rest is kept."""
    source = version(
        tmp_path,
        f"""
        import os, socket, sys
        os.mkfifo("pipe")
        socket.socket(socket.AF_UNIX).bind("sock")
        os.symlink("../../..", "contest")  # out of the folder, to the contest's
        os.symlink("/etc/shadow", "shadow")
        os.symlink("build.py", "inside")
        os.symlink({sys.executable!r}, "python")  # the runtime every bot is shown
        os.makedirs("deep/er")
        os.symlink("../../build.py", "deep/er/up")
        open("deep/er/file", "w").write("kept")
        """,
    )
    outcome = await run(tmp_path, source, f"{PYTHON} build.py")
    log = outcome.log.read_text()
    assert outcome.ok, log
    built = tmp_path / "store" / "builds" / "v1"
    kept = sorted(str(p.relative_to(built)) for p in built.rglob("*"))
    assert kept == ["build.py", "deep", "deep/er", "deep/er/file", "deep/er/up", "inside", "python"]
    assert os.readlink(built / "python") == sys.executable
    for name in ("'pipe', a FIFO", "'sock', a socket", "'contest', a link", "'shadow', a link"):
        assert f"left out {name}" in log, log


async def test_a_build_that_prints_gigabytes_keeps_its_log_and_the_referee_small(
    tmp_path: Path,
) -> None:
    source = version(
        tmp_path,
        """
        import sys
        print("first words")
        line = "x" * 4095 + "\\n"
        while True:
            sys.stdout.write(line)
        """,
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = await run(tmp_path, source, f"{PYTHON} build.py", wall_seconds=3, log_bytes=64 * 1024)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert outcome.reason is BuildReason.TIMEOUT, outcome
    log = outcome.log.read_bytes()
    assert len(log) <= 64 * 1024 and log.startswith(b"first words")
    assert MARKER.split(b"%d")[0] in log  # tens of MB went through the pipe, cut
    assert grown_kib < 32 * 1024


async def test_a_build_sees_no_other_version_nor_the_database(tmp_path: Path) -> None:
    store = tmp_path / "store"
    other = store / "versions" / "other"
    other.mkdir(parents=True)
    (other / "secret.py").write_text("THE OTHER AUTHOR'S CODE")
    (tmp_path / "contest.db").write_text("tokens")
    (store / "contest.db").write_text("tokens")
    secrets = [str(other / "secret.py"), str(store / "contest.db"), str(tmp_path / "contest.db")]
    source = version(
        tmp_path,
        f"""
        paths = {secrets!r}
        for path in paths:
            try:
                print("READ", path, open(path).read())
            except OSError as error:
                print("hidden", path, type(error).__name__)
        try:
            open({str(store / "versions" / "v1" / "build.py")!r}, "a").write("changed")
            print("WROTE the version")
        except OSError as error:
            print("version read-only", type(error).__name__)
        """,
    )
    uploaded = (source / "build.py").read_text()
    outcome = await run(tmp_path, source, f"{PYTHON} build.py")
    log = outcome.log.read_text()
    assert outcome.ok, log
    assert log.count("hidden") == 3 and "READ" not in log and "WROTE" not in log, log
    assert (source / "build.py").read_text() == uploaded


async def test_a_build_reads_the_runtime_folder_by_its_variable_and_cannot_change_it(
    tmp_path: Path,
) -> None:
    runtime = tmp_path / "runtime"
    (runtime / "proto").mkdir(parents=True)
    (runtime / "proto" / "shared.proto").write_text("THE CONTEST'S PROTO")
    runtime.chmod(0o755)
    source = version(
        tmp_path,
        """
        import os, pathlib
        runtime = pathlib.Path(os.environ["CROUPIER_RUNTIME"])
        print("READ", (runtime / "proto" / "shared.proto").read_text())
        for path in (runtime / "proto" / "shared.proto", runtime / "planted.py"):
            try:
                path.write_text("changed")
                print("WROTE", path.name)
            except OSError as error:
                print("read-only", type(error).__name__)
        """,
    )
    into = tmp_path / "store" / "builds" / "v1"
    log = tmp_path / "build.log"
    outcome = await build(source, into, f"{PYTHON} build.py", BuildLimits(), log, runtime)
    text = log.read_text()
    assert outcome.ok, text
    assert "READ THE CONTEST'S PROTO" in text and text.count("read-only") == 2, text
    assert "WROTE" not in text and not (runtime / "planted.py").exists()
    assert (runtime / "proto" / "shared.proto").read_text() == "THE CONTEST'S PROTO"


async def test_a_build_runs_at_the_lowest_cpu_priority(tmp_path: Path) -> None:
    source = version(
        tmp_path,
        """
        import os
        print("nice", os.getpriority(os.PRIO_PROCESS, 0))
        print("idle", os.sched_getscheduler(0) == os.SCHED_IDLE)
        """,
    )
    outcome = await run(tmp_path, source, f"{PYTHON} build.py")
    log = outcome.log.read_text()
    assert outcome.ok and "nice 19" in log, log
    if shutil.which("chrt") is not None:
        assert "idle True" in log, log


async def test_a_missing_program_or_no_command_is_reported(tmp_path: Path) -> None:
    source = version(tmp_path, "")
    outcome = await run(tmp_path, source, "./configure")
    assert (outcome.ok, outcome.exit_code, outcome.why) == (False, NOT_FOUND, f"exit {NOT_FOUND}")
    assert "no such program './configure'" in outcome.log.read_text()
    for command in ("", "make 'unbalanced"):
        with pytest.raises(BuildError, match="build command"):
            await run(tmp_path, source, command)


async def test_a_build_cannot_hard_link_what_it_may_only_read_nor_what_it_cannot_see(
    tmp_path: Path,
) -> None:
    """Issue 41.0's variant by hard link: a build links the contest's database (not in its
    view), another version's file (nor that), and files it is shown read-only (the runtime's,
    the interpreter): each link is refused, so none of them reaches the folder that is kept."""
    store = tmp_path / "store"
    other = store / "versions" / "other" / "src"
    other.mkdir(parents=True)
    (other / "secret.py").write_text("THE OTHER AUTHOR'S CODE")
    (tmp_path / "contest.db").write_text("master_seed")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "shared.py").write_text("the organiser's")
    targets = [tmp_path / "contest.db", other / "secret.py", runtime / "shared.py"]
    targets.append(Path(os.path.realpath(sys.executable)))
    source = version(
        tmp_path,
        f"""
        import os
        for n, path in enumerate({[str(p) for p in targets]!r}):
            try:
                os.link(path, f"linked-{{n}}")
                print("LINKED", path)
            except OSError as error:
                print("refused", path, type(error).__name__)
        """,
    )
    into = tmp_path / "store" / "builds" / "v1"
    outcome = await build(
        source, into, f"{PYTHON} build.py", BuildLimits(), tmp_path / "build.log", runtime
    )
    log = outcome.log.read_text()
    assert outcome.ok, log
    assert log.count("refused") == len(targets) and "LINKED" not in log, log
    assert sorted(p.name for p in into.iterdir()) == ["build.py"]


async def test_a_build_is_timed_by_the_cpu_it_uses_and_its_wall_time_bounds_a_sleeper(
    tmp_path: Path,
) -> None:
    """Issue 42.8: builds run at the lowest priority, so on a loaded machine a C++ build ran
    out of its ten minutes of wall time. Now its limit is CPU time (all its processes: here two
    spinning at once pass one second in half of it), and the wall limit only bounds a build that
    sleeps, which uses none."""
    spin = version(
        tmp_path,
        """
        import os
        os.fork()  # two processes spin: their CPU time counts together
        while True:
            pass
        """,
    )
    outcome = await run(tmp_path, spin, f"{PYTHON} build.py", cpu_seconds=1, wall_seconds=60)
    assert (outcome.ok, outcome.reason) == (False, BuildReason.CPU), outcome
    assert "CPU-time limit of 1 s" in outcome.detail and outcome.seconds < 20
    sleep = tmp_path / "sleeper"
    sleep.mkdir()
    (sleep / "build.py").write_text("import time\ntime.sleep(60)\n")
    outcome = await run(tmp_path, sleep, f"{PYTHON} build.py", cpu_seconds=1, wall_seconds=3)
    assert (outcome.ok, outcome.reason) == (False, BuildReason.TIMEOUT), outcome
    assert 3 <= outcome.seconds < 20
