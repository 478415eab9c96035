"""The cheat suite: hostile bots (tests/bots/cheaters.py) try, each in its own test, what a
competitor might, under the default sandbox. Each attempt fails or is recorded as a fault with
its own reason, while the honest bot in the same run finishes with no fault and every record
verifies.

Each test fails when its own protection is switched off (checked by hand): the file, /proc and
network tests without the sandbox; the orphan test without the sandbox and the pids cgroup; the
deal test with a known master seed (the old default, 0); the pondering test has its control
built in (`ponder = true`). The limit tests assert the limit's own fault reason, which a bot
dying of anything else never gets.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.ladder.verify import verify_ladder
from referee.local.cgroups import BotCgroups
from referee.local.doors import Door, open_door
from referee.local.limits import Limits
from referee.local.sandbox import Sandbox, prepare
from referee.match.replay import verify
from tests.cgroup_helpers import launch_cgroups

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CHEATERS = ROOT / "tests" / "bots" / "cheaters.py"
RANDOM = ROOT / "examples" / "python" / "random_bot.py"
runner = CliRunner()

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's")


def faults_by_bot(records: Path) -> dict[str, list[str]]:
    """Every record verifies; returns each bot's fault reasons (lowercase, e.g. 'memory')."""
    found: dict[str, list[str]] = {}
    paths = sorted(records.glob("*.jsonl"))
    assert paths, f"no records in {records}"
    for path in paths:
        assert verify(path).ok, path
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        names = [seat["name"] for seat in lines[0]["header"]["seats"]]
        for line in lines:
            if "fault" in line:
                fault = line["fault"]["fault"]
                reason = fault["reason"].removeprefix("FAULT_REASON_").lower()
                found.setdefault(names[fault.get("seat", 0)], []).append(reason)
    return found


def play(
    tmp_path: Path,
    cheat: str,
    *args: str,
    games: int = 2,
    extra: tuple[str, ...] = (),
    script: Path = CHEATERS,
) -> str:
    """`croupier match` between the cheater (bot0, `script CHEAT ARGS`) and the random bot;
    returns bot0's log."""
    records = tmp_path / "records"
    cheater = " ".join([PYTHON, str(script), cheat, *args])
    result = runner.invoke(
        app,
        [
            *("match", "xix", "--bot", cheater, "--bot", f"{PYTHON} {RANDOM}"),
            *("--games", str(games), "--records", str(records), "--move-ms", "5000", *extra),
        ],
    )
    assert result.exit_code == 0, result.output
    faults = faults_by_bot(records)
    assert "random" not in faults, faults  # the honest bot never faults
    (log,) = records.glob("logs/*-bot0.log")
    return log.read_text()


def assert_refused(log: str) -> None:
    assert "CHEAT WORKED" not in log, log
    assert "CHEAT FAILED" in log, log


def test_the_live_record_is_out_of_sight(tmp_path: Path) -> None:
    assert_refused(play(tmp_path, "record", str(tmp_path / "records")))


def test_the_referee_environment_is_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHEAT_SECRET_TOKEN", secrets.token_hex(8))
    assert_refused(play(tmp_path, "environ", str(os.getpid()), "CHEAT_SECRET_TOKEN"))


def test_the_referee_memory_is_out_of_reach(tmp_path: Path) -> None:
    assert_refused(play(tmp_path, "peek", str(os.getpid())))


def test_the_organisers_home_is_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret.txt").write_text("the organiser's notes")
    monkeypatch.setenv("HOME", str(home))
    assert_refused(play(tmp_path, "home", str(home / "secret.txt")))


def test_no_network(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        assert_refused(play(tmp_path, "tcp", str(port)))


def test_the_loopback_relay_reaches_the_bots_own_door_only(tmp_path: Path) -> None:
    """The bot plays over CROUPIER_TCP_ADDRESS (its token is accepted on its own door only, so
    the relay reaches that door), and finds nothing else on its loopback, nor a proxy in it."""
    assert_refused(play(tmp_path, "relay"))
    assert "cheater" not in faults_by_bot(tmp_path / "records")


def test_the_deal_cannot_be_learnt_from_the_match_id(tmp_path: Path) -> None:
    # The cheater ships its own copy of the (open source) engines in its folder.
    folder = tmp_path / "cheater"
    shutil.copytree(ROOT / "referee", folder / "referee")
    shutil.copy(CHEATERS, folder)
    assert_refused(play(tmp_path, "deal", script=folder / CHEATERS.name))


@pytest.mark.parametrize(
    ("cheat", "limit", "reason"),
    [
        ("memory", "memory_mb=1024", "memory"),
        ("processes", "processes=64", "processes"),
        ("disk", "disk_mb=16", "disk"),
        ("cpu", "cpu_seconds=2", "cpu"),
    ],
)
def test_exhausting_a_limit_is_a_fault_of_its_own(
    tmp_path: Path, cheat: str, limit: str, reason: str
) -> None:
    log = play(tmp_path, cheat, games=1, extra=("--limit", limit))
    assert faults_by_bot(tmp_path / "records").get("cheater", [])[:1] == [reason], log


MIB = 1024 * 1024


def test_a_bot_that_prints_past_its_log_cap_plays_on(tmp_path: Path) -> None:
    """Its log (capped at its disk limit) keeps its head, a line saying how much was cut, and its
    latest output from a line's start; printing never kills the bot, as a full log file did."""
    log = play(tmp_path, "chatter", "3", games=1, extra=("--limit", "disk_mb=1"))
    assert "cheater" not in faults_by_bot(tmp_path / "records")
    (path,) = (tmp_path / "records").glob("logs/*-bot0.log")
    assert path.stat().st_size <= MIB
    head, marker, tail = re.split(r"\n(\[\.\.\. \d+ bytes cut \.\.\.\])\n", log)
    assert "chatter 000000000 " in head and "CHATTER ENDS" not in head
    assert int(marker.split()[1]) >= 2 * MIB
    assert tail.startswith("chatter ") and "CHATTER ENDS" in tail


def test_a_bot_that_fills_its_scratch_after_a_full_log_is_a_disk_fault(tmp_path: Path) -> None:
    log = play(tmp_path, "chatter_disk", "2", games=1, extra=("--limit", "disk_mb=1"))
    assert faults_by_bot(tmp_path / "records").get("cheater", [])[:1] == ["disk"], log[-3000:]


def test_a_ladder_whose_bot_log_is_full_starts_and_plays(tmp_path: Path) -> None:
    """A log already past its cap (an earlier run's) is cut when the bot prints again."""
    logs = tmp_path / "records" / "logs"
    logs.mkdir(parents=True)
    full = logs / "cheater-0.log"
    full.write_bytes(b"an earlier run\n" + b"y" * (2 * MIB))
    _, log = ladder(tmp_path, "chatter", "0", extra="[limits]\ndisk_mb = 1")
    assert "cheater" not in faults_by_bot(tmp_path / "records")
    assert full.stat().st_size <= MIB
    assert log.startswith("an earlier run\n") and "bytes cut ...]" in log
    assert "CHATTER ENDS" in log


def test_nothing_outlives_the_bot(tmp_path: Path) -> None:
    marker = f"{900 + secrets.randbelow(99)}.{secrets.randbelow(10**9)}"
    try:
        log = play(tmp_path, "orphan", marker)
        assert "CHEAT ORPHAN STARTED" in log
    finally:
        survivors = _processes_with(f"/bin/sleep\0{marker}")
        for pid in survivors:
            os.kill(pid, signal.SIGKILL)
    assert survivors == []


def _processes_with(command: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if cmdline.rstrip("\0") == command:
                found.append(int(proc.name))
    return found


def ladder(
    tmp_path: Path,
    cheat: str,
    *args: str,
    sandbox: bool = True,
    extra: str = "",
    honest: str = str(RANDOM),
    script: Path = CHEATERS,
) -> tuple[Path, str]:
    """A ladder of the cheater and an honest bot that keeps a secret in its own folder; returns
    the database and the cheater's log. `extra`: more top-level keys of the ladder file."""
    other = tmp_path / "honest-folder"
    other.mkdir()
    (other / "secret.txt").write_text("the honest bot's opening book")
    database = tmp_path / "db" / "ladder.sqlite"
    lines = [
        'game = "xix"',
        f"root = {json.dumps(str(ROOT))}",
        f"database = {json.dumps(str(database))}",
        f"records = {json.dumps(str(tmp_path / 'records'))}",
        "matches_per_pairing = 2",
        f"sandbox = {str(sandbox).lower()}",
        extra,
        "[time_control]",
        "move_ms = 5000",
        "[[bot]]",
        'name = "cheater"',
        f"command = {json.dumps(' '.join(['{python}', str(script), cheat, *args]))}",
        "[[bot]]",
        'name = "honest"',
        f"command = {json.dumps('{python} ' + honest)}",
        f"cwd = {json.dumps(str(other))}",
    ]
    path = tmp_path / "ladder.toml"
    path.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["ladder", "run", str(path)])
    assert result.exit_code == 0, result.output
    check = verify_ladder(database)
    assert check.ok, check.problems
    faults = faults_by_bot(tmp_path / "records")
    assert "honest" not in faults, faults
    return database, "".join(p.read_text() for p in (tmp_path / "records").glob("logs/cheater*"))


def test_the_ladder_database_is_out_of_sight(tmp_path: Path) -> None:
    _, log = ladder(tmp_path, "database", str(tmp_path / "db" / "ladder.sqlite"))
    assert_refused(log)


def test_another_bots_folder_is_out_of_sight(tmp_path: Path) -> None:
    _, log = ladder(tmp_path, "folder", str(tmp_path / "honest-folder"))
    assert_refused(log)


def test_other_bots_logs_are_out_of_sight(tmp_path: Path) -> None:
    _, log = ladder(tmp_path, "folder", str(tmp_path / "records" / "logs"))
    assert_refused(log)


@pytest.mark.parametrize("ponder", [False, True])
def test_a_bot_cannot_think_on_its_opponents_time(tmp_path: Path, ponder: bool) -> None:
    """With `ponder = false` a bot that keeps a CPU busy is stopped while not to move; the
    control (pondering allowed) shows that the cheat sees the opponent's time when it has it."""
    thinker = f"{ROOT / 'tests' / 'bots' / 'ponderer.py'} --think-ms 80"
    _, log = ladder(tmp_path, "ponder", extra=f"ponder = {str(ponder).lower()}", honest=thinker)
    if ponder:
        assert "CHEAT WORKED: spun through" in log, log
    else:
        assert_refused(log)


_LAUNCH_CGROUPS = launch_cgroups()


@pytest.mark.skipif(
    _LAUNCH_CGROUPS is None or _LAUNCH_CGROUPS.freezer is None,
    reason="freezing a bot's cgroup takes root and a freezer (cgroup v2, or v1's)",
)
@pytest.mark.parametrize("escape", ["setsid", "double-fork"])
def test_a_bots_escaped_child_cannot_think_on_its_opponents_time(
    tmp_path: Path, escape: str
) -> None:
    """The ponder cheat's spinning done by a child that left the bot's process group (issue
    32.2), which a SIGSTOP of the group misses: freezing the bot's cgroup stops it too."""
    thinker = f"{ROOT / 'tests' / 'bots' / 'ponderer.py'} --think-ms 80"
    _, log = ladder(tmp_path, f"ponder-{escape}", extra="ponder = false", honest=thinker)
    assert_refused(log)


def test_the_machines_cpu_counters_are_out_of_sight(tmp_path: Path) -> None:
    """No live CPU counter (the machine's /proc/stat and the like, other bots' cgroups) by which
    to time the other bots (issue 32.2)."""
    assert_refused(play(tmp_path, "counters"))


# --- Issue 30: undoing the sandbox (tests/bots/escapers.py) -------------------------------------
# Each escape is tried by a bot in a real match and must fail; its control runs the same attempt
# (the bot's `probe` mode) with the protection that stops it removed, and must work.

ESCAPERS = ROOT / "tests" / "bots" / "escapers.py"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the controls take root's privileges")


def escaper_folder(tmp_path: Path) -> Path:
    """The escaping bot in a folder of its own, with a setuid-root copy of id (as root)."""
    folder = tmp_path / "escaper"
    folder.mkdir(mode=0o755)
    shutil.copy(ESCAPERS, folder)
    if os.geteuid() == 0:
        shutil.copy("/usr/bin/id", folder / "id-suid")
        os.chmod(folder / "id-suid", 0o4755)
    return folder


def escape_args(name: str, tmp_path: Path, folder: Path) -> list[str]:
    return {
        "unmount": [str(tmp_path / "records")],
        "remount": [str(folder)],
        "proc": [str(os.getpid())],
        "setuid-exec": [str(folder / "id-suid")],
    }.get(name, [])


ESCAPES = ["unmount", "remount", "proc", "setuid", "ptrace", "userns", "mountns", "raw"]


@pytest.mark.parametrize("name", [*ESCAPES, "setuid-exec"])
def test_a_bot_cannot_undo_its_sandbox(tmp_path: Path, name: str) -> None:
    folder = escaper_folder(tmp_path)
    if name == "setuid-exec" and os.geteuid() != 0:
        pytest.skip("making a setuid-root binary takes root")
    args = escape_args(name, tmp_path, folder)
    log = play(tmp_path, "bot", name, *args, script=folder / ESCAPERS.name)
    assert_refused(log)


@pytest.mark.parametrize("name", ["unmount", "remount", "proc", "ptrace", "userns"])
def test_a_ladder_bot_cannot_undo_its_sandbox(tmp_path: Path, name: str) -> None:
    folder = escaper_folder(tmp_path)
    args = escape_args(name, tmp_path, folder)
    _, log = ladder(tmp_path, "bot", name, *args, script=folder / ESCAPERS.name)
    assert_refused(log)


@pytest.mark.parametrize("name", ["unmount", "proc", "setuid", "userns"])
def test_a_bot_under_the_doctor_cannot_undo_its_sandbox(tmp_path: Path, name: str) -> None:
    folder = escaper_folder(tmp_path)
    kept = tmp_path / "kept"
    args = escape_args(name, tmp_path, folder)
    if name == "unmount":
        args = [str(kept)]  # the doctor's own records
    command = [PYTHON, str(folder / ESCAPERS.name), "bot", name, *args]
    result = runner.invoke(
        app, ["doctor", "--game", "xix", "--matches", "2", "--keep", str(kept), "--", *command]
    )
    assert "sandbox: " in result.output, result.output
    assert_refused((kept / "bot.log").read_text())


def test_a_bot_folder_that_holds_the_records_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o755)
    shutil.copy(RANDOM, folder)
    command = [str(Path(PYTHON).parent / "croupier"), "match", "xix", "--records"]
    command += [str(folder / "records"), "--bot", f"{PYTHON} {folder / RANDOM.name}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "would show" in line and str(folder / "records") in line, line


def probe(command: list[str], **options: object) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, **options)  # type: ignore[call-overload]
    return str(done.stdout + done.stderr)


def old_sandbox(cover: Path, shown: Path, *probe_args: str) -> list[str]:
    """The sandbox before issue 30, as root: the whole system read-only, covers over secrets
    (`cover`; not /tmp, where a checkout and its venv may be), the bot's folder (`shown`) bound
    read-only again, root's capabilities kept."""
    return [
        *("bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--ro-bind", "/", "/"),
        *("--dev", "/dev", "--proc", "/proc", "--tmpfs", str(cover)),
        *("--ro-bind", str(shown), str(shown)),
        *("--", PYTHON, str(ESCAPERS), "probe", *probe_args),
    ]


@as_root
@pytest.mark.parametrize("name", ["unmount", "remount", "proc", "setuid", "mountns", "raw"])
def test_without_the_new_sandbox_each_escape_works(tmp_path: Path, name: str) -> None:
    """Control: under the old view (covers over a full system) with root's powers, each works."""
    secret = tmp_path / "records"
    secret.mkdir()
    (secret / "live.jsonl").write_text('{"header": {"seed": "the deal"}}\n')
    folder = escaper_folder(tmp_path)
    args = escape_args(name, tmp_path, folder)
    output = probe(old_sandbox(secret, folder, name, *args))
    assert "CHEAT WORKED" in output, output


@pytest.mark.parametrize("name", ["ptrace", "userns"])
def test_without_the_seccomp_filter_ptrace_and_namespaces_work(tmp_path: Path, name: str) -> None:
    """Control: the real sandbox (its own uid, no capability) stops them only by its filter."""
    folder = escaper_folder(tmp_path)
    command = [PYTHON, str(folder / ESCAPERS.name), "probe", name]
    protected, weakened = launched_twice(command, folder, without_seccomp)
    assert "CHEAT FAILED" in protected, protected
    assert "CHEAT WORKED" in weakened, weakened


@as_root
def test_without_no_new_privs_a_setuid_program_gives_root(tmp_path: Path) -> None:
    """Control: the bot's own uid, but no_new_privs and bwrap's nosuid binds removed."""
    place = Path(tempfile.mkdtemp(prefix="croupier-escape-"))  # traversable by that uid
    place.chmod(0o755)
    folder = escaper_folder(place)
    system_python = shutil.which("python3", path="/usr/bin")
    if system_python is None:
        pytest.skip("no system python3 that another user can run")
    uid = "--reuid=1234567", "--regid=1234567", "--clear-groups"
    command = ["setpriv", *uid, "--", system_python, str(folder / ESCAPERS.name), "probe"]
    try:
        output = probe([*command, "setuid-exec", str(folder / "id-suid")])
    finally:
        shutil.rmtree(place)
    assert "CHEAT WORKED" in output, output


# --- Issue 31: what two bots could share (tests/bots/colluders.py) -------------------------------

COLLUDERS = ROOT / "tests" / "bots" / "colluders.py"


@pytest.mark.parametrize("name", ["hijack", "unlink"])
def test_a_bot_cannot_take_or_remove_its_socket(tmp_path: Path, name: str) -> None:
    assert_refused(play(tmp_path, "bot", name, script=COLLUDERS))


def colluders_log(records: Path) -> str:
    assert not faults_by_bot(records), "a colluder faulted"
    return "".join(path.read_text() for path in sorted(records.glob("logs/*.log")))


#: Where partners tried to leave each other their hands; the shared file is the colluders' own
#: script, which every seat can read (they share its folder).
CHANNELS = [
    ("file", "/run/croupier"),
    ("file", "/tmp"),
    ("file", "/dev/shm"),
    ("dgram", "/run/croupier"),
    ("locks", str(COLLUDERS)),
]


@pytest.mark.parametrize(("name", "place"), CHANNELS)
def test_partners_at_one_table_cannot_pass_hands(tmp_path: Path, name: str, place: str) -> None:
    records = tmp_path / "records"
    colluder = f"{PYTHON} {COLLUDERS} bot {name} {place}"
    result = runner.invoke(
        app,
        [
            *("match", "xactika", "--players", "4", "--bot", colluder, "--games", "2"),
            *("--records", str(records), "--move-ms", "5000"),
        ],
    )
    assert result.exit_code == 0, result.output
    log = colluders_log(records)
    assert "CHEAT WORKED" not in log, log
    assert log.count("CHEAT FAILED") >= 4, log


def test_partners_in_a_four_player_ladder_cannot_pass_hands(tmp_path: Path) -> None:
    lines = ['game = "xactika"', "options = { players = 4 }", f"root = {json.dumps(str(ROOT))}"]
    lines += [f"database = {json.dumps(str(tmp_path / 'db' / 'ladder.sqlite'))}"]
    lines += [f"records = {json.dumps(str(tmp_path / 'records'))}", "matches_per_pairing = 4"]
    lines += ["[time_control]", "move_ms = 5000"]
    for seat, (name, place) in enumerate([CHANNELS[0], CHANNELS[3], CHANNELS[4], CHANNELS[0]]):
        command = " ".join(["{python}", str(COLLUDERS), "bot", name, place])
        lines += ["[[bot]]", f'name = "colluder{seat}"', f"command = {json.dumps(command)}"]
    path = tmp_path / "ladder.toml"
    path.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["ladder", "run", str(path)])
    assert result.exit_code == 0, result.output
    log = colluders_log(tmp_path / "records")
    assert "CHEAT WORKED" not in log, log
    assert "CHEAT FAILED" in log, log


def test_scratch_is_small_and_counted_in_memory(tmp_path: Path) -> None:
    log = play(tmp_path, "bot", "fill", "/dev/shm", "2048", games=1, script=COLLUDERS)
    assert_refused(log)  # the tmpfs is as large as the disk limit


@as_root
def test_a_memory_backed_fill_counts_against_the_bots_memory(tmp_path: Path) -> None:
    probe_cgroups = BotCgroups.create(0, 64)
    if probe_cgroups is None or probe_cgroups.memory is None:
        pytest.skip("no memory cgroup here")
    probe_cgroups.remove()
    limits = ("--limit", "memory_mb=768", "--limit", "disk_mb=4096")
    play(tmp_path, "bot", "fill", "/dev/shm", "1536", games=1, extra=limits, script=COLLUDERS)
    assert faults_by_bot(tmp_path / "records").get("colluder", [])[:1] == ["memory"]


def launched_twice(
    command: list[str], cwd: Path, weaken: Callable[[list[str], Door], list[str]]
) -> tuple[str, str]:
    """`command`'s output when launched as `croupier match` launches a bot (in the sandbox,
    with a door holding a live socket), and again with `weaken` applied to the launch."""
    # A short folder, as the referee's own run folder is: a socket's path has at most 107 bytes,
    # and pytest's tmp_path (with xdist's worker and a long test name) can pass that.
    doors = Path(tempfile.mkdtemp(prefix="cr-doors-"))
    try:
        return _launch_twice(doors, command, cwd, weaken)
    finally:
        shutil.rmtree(doors, ignore_errors=True)


def _launch_twice(
    doors: Path, command: list[str], cwd: Path, weaken: Callable[[list[str], Door], list[str]]
) -> tuple[str, str]:
    door = open_door(doors)
    outputs = []
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(door.socket))
        listener.listen()
        door.hand_over()
        for weakened in (False, True):
            launch = prepare(
                command,
                cwd=cwd,
                env={},
                croupier={"CROUPIER_ADDRESS": "unix:/run/croupier/referee.sock"},
                limits=Limits(),
                sandbox=Sandbox(enabled=True, socket_dir=doors),
                door=door,
            )
            argv = weaken(launch.argv, door) if weakened else launch.argv
            try:
                outputs.append(probe(argv, env=launch.env, pass_fds=launch.pass_fds))
            finally:
                launch.close_fds()
                if launch.cgroups is not None:
                    launch.cgroups.remove()
    return outputs[0], outputs[1]


def without_seccomp(argv: list[str], door: Door) -> list[str]:
    at = argv.index("--seccomp")
    return argv[:at] + argv[at + 2 :]


def writable_door(argv: list[str], door: Door) -> list[str]:
    """The door bound read-write, as the old shared socket folder was."""
    door.folder.chmod(0o777)
    at = argv.index(str(door.folder))
    return [*argv[: at - 1], "--bind", *argv[at:]]


@pytest.mark.parametrize("name", ["hijack", "unlink"])
def test_with_a_writable_socket_folder_the_socket_is_taken(tmp_path: Path, name: str) -> None:
    command = [PYTHON, str(COLLUDERS), "probe", name]
    protected, weakened = launched_twice(command, ROOT, writable_door)
    assert "CHEAT FAILED" in protected, protected
    assert "CHEAT WORKED" in weakened, weakened


@pytest.mark.parametrize(("name", "place"), CHANNELS[:4])
def test_in_a_shared_writable_folder_the_channel_carries(
    tmp_path: Path, name: str, place: str
) -> None:
    """Control: the same channel in a folder two processes share and may write (what
    /run/croupier was) carries a hand; the probe plays both ends."""
    shared = tmp_path / "shared"
    shared.mkdir()
    output = probe([PYTHON, str(COLLUDERS), "probe", name, str(shared)])
    assert "CHEAT WORKED" in output, output


def test_without_the_seccomp_filter_locks_carry(tmp_path: Path) -> None:
    command = [PYTHON, str(COLLUDERS), "probe", "locks", str(COLLUDERS)]
    protected, weakened = launched_twice(command, ROOT, without_seccomp)
    assert "CHEAT FAILED" in protected, protected
    assert "CHEAT WORKED" in weakened, weakened
