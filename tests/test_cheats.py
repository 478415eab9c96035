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
import secrets
import signal
import socket
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.ladder.verify import verify_ladder
from referee.match.replay import verify

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
    tmp_path: Path, cheat: str, *args: str, games: int = 2, extra: tuple[str, ...] = ()
) -> str:
    """`croupier match` between the cheater (bot0) and the random bot; returns bot0's log."""
    records = tmp_path / "records"
    cheater = " ".join([PYTHON, str(CHEATERS), cheat, *args])
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


def test_the_deal_cannot_be_learnt_from_the_match_id(tmp_path: Path) -> None:
    assert_refused(play(tmp_path, "deal"))


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
        f"command = {json.dumps(' '.join(['{python}', str(CHEATERS), cheat, *args]))}",
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
