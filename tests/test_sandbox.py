"""The sandbox's switches and reports: a missing bubblewrap is a one-line error, ladder files set
the sandbox and limits, exits are named by the limit they hit, and the doctor says what the
sandbox refused a bot. (tests/test_cheats.py attacks the sandbox itself.)"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.v1 import common_pb2
from referee.cli import app
from referee.ladder.config import LadderConfigError, parse
from referee.local import bot_root
from referee.local.cgroups import BotCgroups
from referee.local.doors import open_door
from referee.local.limits import Limits, fault_of_exit
from referee.local.sandbox import Sandbox, prepare

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
RANDOM = f"{PYTHON} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
CHEATERS = ROOT / "tests" / "bots" / "cheaters.py"
CROUPIER = Path(PYTHON).parent / "croupier"
runner = CliRunner()


def test_without_bubblewrap_the_error_is_one_line_with_the_fix(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on this PATH
    done = subprocess.run(
        [str(CROUPIER), "match", "xix", "--bot", RANDOM],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "apt-get install bubblewrap" in line and "--no-sandbox" in line


LADDER = """
game = "xix"
{extra}
[[bot]]
name = "a"
command = "{{python}} a.py"
{bot_extra}
[[bot]]
name = "b"
command = "{{python}} b.py"
"""


def test_ladder_files_set_the_sandbox_and_limits(tmp_path: Path) -> None:
    text = LADDER.format(
        extra="sandbox = false\n[limits]\nmemory_mb = 512\ncpu_seconds = 10",
        bot_extra="limits = { memory_mb = 1024, processes = 0 }",
    )
    config = parse(text, tmp_path / "l.toml")
    assert config.placement.sandbox is False
    a, b = config.bots
    assert a.limits == Limits(memory_mb=1024, processes=0, cpu_seconds=10)
    assert b.limits == Limits(memory_mb=512, cpu_seconds=10)
    assert (
        parse(LADDER.format(extra="", bot_extra=""), tmp_path / "l.toml").placement.sandbox is True
    )


def test_a_bad_limit_is_placed_in_the_file(tmp_path: Path) -> None:
    with pytest.raises(
        LadderConfigError, match=r"key 'limits.memory': unknown key \(did you mean 'memory_mb'"
    ):
        parse(LADDER.format(extra="[limits]\nmemory = 5", bot_extra=""), tmp_path / "l.toml")
    with pytest.raises(LadderConfigError, match=r"key 'limits.disk_mb': expected a whole number"):
        parse(LADDER.format(extra="[limits]\ndisk_mb = -1", bot_extra=""), tmp_path / "l.toml")


def test_a_bad_limit_on_the_command_line_is_a_clear_error() -> None:
    result = runner.invoke(app, ["match", "xix", "--bot", RANDOM, "--limit", "ram=5"])
    assert result.exit_code == 2
    assert "unknown limit 'ram' in --limit" in result.output


@pytest.mark.parametrize(
    ("code", "output", "pids_hit", "reason"),
    [
        (128 + signal.SIGXCPU, [], False, common_pb2.FAULT_REASON_CPU),
        (-signal.SIGXCPU, [], False, common_pb2.FAULT_REASON_CPU),
        (-signal.SIGXFSZ, [], False, common_pb2.FAULT_REASON_DISK),
        (1, ["Traceback (most recent call last):", "MemoryError"], False, 8),
        (1, ["OSError: [Errno 28] No space left on device"], False, common_pb2.FAULT_REASON_DISK),
        (1, ["BlockingIOError: [Errno 11] Resource temporarily unavailable"], False, 9),
        (1, ["anything"], True, common_pb2.FAULT_REASON_PROCESSES),
        (3, ["ValueError: a bug"], False, common_pb2.FAULT_REASON_CRASHED),
    ],
)
def test_an_exit_is_named_by_the_limit_it_hit(
    code: int, output: list[str], pids_hit: bool, reason: int
) -> None:
    assert fault_of_exit(code, output, pids_hit=pids_hit)[0] == reason


def test_the_doctor_says_what_the_sandbox_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the bot's folder")
    result = runner.invoke(
        app, ["doctor", "--game", "xix", "--", PYTHON, str(CHEATERS), "home", str(secret)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    (refused,) = [i for i, line in enumerate(lines) if line.startswith("sandbox: refused")]
    assert str(secret) in lines[refused] and "not in the bot's view" in lines[refused]
    assert "write only to /tmp" in lines[refused + 1]
    clean = runner.invoke(app, ["doctor", "--game", "xix", "--", *RANDOM.split()])
    assert "sandbox: the bot needed nothing the contest's sandbox refuses" in clean.output


def run_launched(
    argv: list[str], cwd: Path, tmp_path: Path, sandboxed: bool = True, *, own_folder: bool = False
) -> subprocess.CompletedProcess[str]:
    """`argv` launched from `cwd` as a bot is (in the sandbox with a door, or not; default
    limits), to its end."""
    doors = tmp_path / "doors"
    doors.mkdir(mode=0o700)
    launch = prepare(
        argv,
        cwd=cwd,
        env={},
        croupier={},
        limits=Limits(),
        sandbox=Sandbox(enabled=sandboxed, socket_dir=doors),
        door=open_door(doors) if sandboxed else None,
        own_folder=own_folder,
    )
    try:
        return subprocess.run(
            launch.argv,
            cwd=cwd,
            env=launch.env,
            pass_fds=launch.pass_fds,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        launch.close_fds()
        if launch.cgroups is not None:
            launch.cgroups.remove()


def has_memory_cgroup() -> bool:
    cgroups = BotCgroups.create(0, 64)
    if cgroups is None:
        return False
    cgroups.remove()
    return cgroups.memory is not None


@pytest.mark.skipif(shutil.which("java") is None, reason="no JDK on this machine")
def test_a_plain_java_program_runs_in_the_sandbox(tmp_path: Path) -> None:
    """The JVM starts under the seccomp filter and the allow-listed view (Debian's java goes
    through /etc/alternatives; its configuration is in /etc/java-*), with no flag: under a
    memory cgroup, the memory limit counts what it uses, not the gigabytes it reserves (heap,
    class space, code cache), which RLIMIT_AS would count. Python, Node, C++, Go and Java bots
    play sandboxed matches in test_cheats, test_node_sdk and test_other_languages."""
    if not has_memory_cgroup():
        pytest.skip("no memory cgroup here: RLIMIT_AS holds the limit, and a JVM needs -Xmx")
    folder = tmp_path / "javabot"
    folder.mkdir(mode=0o755)
    (folder / "Hello.java").write_text(
        'public class Hello { public static void main(String[] a) { System.out.println("hi"); } }'
    )
    done = run_launched(["java", "Hello.java"], folder, tmp_path)
    assert done.returncode == 0 and done.stdout == "hi\n", done.stdout + done.stderr


def test_as_an_ordinary_user_a_bot_cannot_undo_its_sandbox(tmp_path: Path) -> None:
    """Where this Python can be run by another user, `croupier match` run as one: bwrap's user
    namespace instead of root's own uid per bot, and the same escapes refused."""
    if os.geteuid() != 0:
        pytest.skip("switching to another user takes root")
    user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    check = "import os, sys, referee; os.stat(sys.argv[1])"
    can = subprocess.run([*user, PYTHON, "-c", check, PYTHON], capture_output=True, check=False)
    if can.returncode != 0:
        pytest.skip("this Python or the checkout is not readable by another user")
    place = Path(tempfile.mkdtemp(prefix="croupier-user-"))
    try:
        place.chmod(0o777)
        (place / "bot").mkdir(mode=0o755)
        escaper = place / "bot" / "escapers.py"
        shutil.copy(ROOT / "tests" / "bots" / "escapers.py", escaper)
        for name in ("unmount", "proc", "ptrace", "userns", "setuid"):
            records = place / f"records-{name}"
            args = {"unmount": str(records), "proc": str(os.getpid())}.get(name, "")
            command = [*user, str(CROUPIER), "match", "xix", "--games", "1"]
            command += ["--records", str(records), "--bot", RANDOM]
            command += ["--bot", f"{PYTHON} {escaper} bot {name} {args}".strip()]
            env = {**os.environ, "HOME": str(place)}
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr
            log = "".join(p.read_text() for p in records.glob("logs/*-bot1.log"))
            assert "CHEAT WORKED" not in log and "CHEAT FAILED" in log, log
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_a_bot_is_shown_its_own_folder_and_runtime_only(tmp_path: Path) -> None:
    """A program named by path shows its folder, never its parent's (a ladder's root holds the
    records); an interpreter named by path (a bot's own venv) is a runtime, and the bot is the
    script it runs; a ladder bot's own `cwd` is its folder."""
    root = tmp_path / "root"
    alice = root / "bots" / "alice"
    (alice / ".venv" / "bin").mkdir(parents=True)
    (alice / "alice").write_text("#!/bin/sh\n")
    (alice / "alice").chmod(0o755)
    (alice / "main.py").write_text("")
    (alice / ".venv" / "bin" / "python").symlink_to(sys.executable)
    assert bot_root.bot_paths(["bots/alice/alice"], root) == [alice]
    assert bot_root.runtime_folders(["bots/alice/alice"], root) == []
    venv_python = ["bots/alice/.venv/bin/python", "bots/alice/main.py"]
    assert bot_root.bot_paths(venv_python, root) == [alice]
    assert alice / ".venv" in bot_root.runtime_folders(venv_python, root)
    assert bot_root.bot_paths([PYTHON, "-m", "alice"], alice, own=True) == [alice]
    shared = [PYTHON, str(ROOT / "examples" / "python" / "random_bot.py")]
    assert bot_root.bot_paths(shared, alice, own=True) == [alice, Path(shared[1])]


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_python_bot_imports_from_its_own_folder(tmp_path: Path, sandboxed: bool) -> None:
    """A ladder bot's folder is its `cwd`; its program in a subfolder imports its own package
    from there, although the referee's PYTHONPATH never reaches the sandbox."""
    alice = tmp_path / "alice"
    (alice / "src").mkdir(parents=True)
    (alice / "alice_tables").mkdir()
    (alice / "alice_tables" / "__init__.py").write_text("OPENING = 'from my folder'\n")
    (alice / "src" / "main.py").write_text("import alice_tables\nprint(alice_tables.OPENING)\n")
    for path in (tmp_path, alice, alice / "src", alice / "alice_tables"):
        path.chmod(0o755)
    done = run_launched([PYTHON, "src/main.py"], alice, tmp_path, sandboxed, own_folder=True)
    assert done.returncode == 0 and done.stdout == "from my folder\n", done.stdout + done.stderr
