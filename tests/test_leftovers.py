"""What a referee leaves on the machine, its bots' cgroups and its socket folder (issue 32.5): a
referee removes its own, and the next one removes those a referee killed with -9 left, never
those of a referee that still runs. Real referees (`croupier match`), real bots, real cgroups."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from tests.cgroup_helpers import launch_cgroups

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
RANDOM = ROOT / "examples" / "python" / "random_bot.py"
RANDOM_BOT = f"{PYTHON} {RANDOM}"
CHEATERS = ROOT / "tests" / "bots" / "cheaters.py"
#: A bot slow enough that its match is still on when the test acts.
SLOW = f"{PYTHON} {ROOT / 'tests' / 'bots' / 'ponderer.py'} --think-ms 100"
CGROUPFS = Path("/sys/fs/cgroup")


pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or launch_cgroups() is None,
    reason="bots get cgroups as root on Linux only",
)


def groups_of(pid: int) -> set[Path]:
    """The cgroups referee `pid` made, in every hierarchy (v2's at the top or beside v1's)."""
    pattern = f"croupier-{pid}-*"
    return {*CGROUPFS.glob(pattern), *CGROUPFS.glob(f"*/{pattern}")}


def socket_folders_of(pid: int) -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(f"croupier-run-{pid}-*"))


def match_args(records: Path, *bots: str, games: int = 1) -> list[str]:
    bot_args = [arg for bot in bots for arg in ("--bot", bot)]
    return ["match", "xix", *bot_args, "--games", str(games), "--records", str(records)]


def test_a_match_leaves_no_cgroup(tmp_path: Path) -> None:
    """Each launch's cgroups go when its bot does, a child it left in a session of its own
    (which the kernel ends with the sandbox, a moment after the bot) included."""
    before = groups_of(os.getpid())
    orphan = f"{PYTHON} {CHEATERS} orphan {900 + secrets.randbelow(99)}"
    result = CliRunner().invoke(app, match_args(tmp_path / "records", orphan, RANDOM_BOT, games=2))
    assert result.exit_code == 0, result.output
    assert groups_of(os.getpid()) - before == set()


@contextlib.contextmanager
def referee(records: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A `croupier match` of slow bots in a process of its own, once its bots have cgroups."""
    command = [PYTHON, "-m", "referee.cli", *match_args(records, SLOW, SLOW, games=50)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len({g.name for g in groups_of(process.pid)}) < 2 or not socket_folders_of(
            process.pid
        ):  # both bots' groups
            assert process.poll() is None and time.monotonic() < deadline, "no bot launched"
            time.sleep(0.05)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # it cleans up after itself
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for group in groups_of(process.pid):  # what a failed test left
            with contextlib.suppress(OSError):
                group.rmdir()


def test_the_next_start_removes_what_a_killed_referee_left(tmp_path: Path) -> None:
    with referee(tmp_path / "killed") as killed, referee(tmp_path / "running") as running:
        ours = groups_of(running.pid), socket_folders_of(running.pid)
        killed.kill()
        killed.wait()
        assert groups_of(killed.pid) and socket_folders_of(killed.pid)  # -9 leaves them
        next_start = subprocess.run(
            [PYTHON, "-m", "referee.cli", *match_args(tmp_path / "next", RANDOM_BOT, RANDOM_BOT)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert next_start.returncode == 0, next_start.stdout + next_start.stderr
        assert groups_of(killed.pid) == set()
        assert socket_folders_of(killed.pid) == set()
        assert running.poll() is None
        # The running referee's own are all still there (it may have made more since).
        assert ours[0] <= groups_of(running.pid) and ours[1] == socket_folders_of(running.pid)
