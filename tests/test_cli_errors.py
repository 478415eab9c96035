"""Every command meets a refused path or port with one `error:` line and exit 2, never a traceback.

Each case runs the real `croupier` process, so what gRPC's C core or Python would print on its
own (a bind failure, an unreadable file, a database that cannot be opened) is seen as a user
sees it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster_helpers import ROOT

BOT = f"{sys.executable} examples/python/random_bot.py"


@pytest.fixture
def held_port() -> Iterator[int]:
    """A loopback port another program is listening on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


PROGRESS = re.compile(r"[\w ]+: \d+ of \d+")


def assert_one_error(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output, output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output
    # Nothing else (no gRPC core line), but the progress lines a run in a pipe prints
    # (referee.cli.consoles: "xix matches: 1 of 4") before its error.
    said = [line for line in result.stderr.strip().splitlines() if not PROGRESS.fullmatch(line)]
    assert said == errors, output
    for text in expected:
        assert text in errors[0], output


def test_serve_on_a_port_in_use(held_port: int) -> None:
    result = croupier("serve", "--game", "xix", "--port", str(held_port))
    assert_one_error(result, f"cannot listen on 127.0.0.1:{held_port}", "address already in use")


def test_ladder_web_site_on_a_port_in_use(held_port: int, tmp_path: Path) -> None:
    """Refused before the ladder starts: no database made, no bot launched."""
    database = tmp_path / "ladder.sqlite"
    result = croupier(
        "ladder", "run", "examples/ladders/xix.toml", "--database", str(database),
        "--records", str(tmp_path / "records"), "--web", f"127.0.0.1:{held_port}",
    )  # fmt: skip
    assert_one_error(
        result, f"the web site cannot listen on 127.0.0.1:{held_port}", "address already in use"
    )
    assert not database.exists()


def test_cluster_local_on_a_port_in_use(held_port: int) -> None:
    pytest.importorskip("distributed")
    result = croupier("cluster", "local", "--workers", "1", "--port", str(held_port))
    assert_one_error(result, str(held_port))


def test_token_commands_refuse_a_folder_and_create_nothing_at_a_mistyped_db(
    tmp_path: Path,
) -> None:
    assert_one_error(croupier("token", "add", "alice", "--db", str(tmp_path)), "cannot open")
    typo = tmp_path / "contset.db"
    assert_one_error(croupier("token", "list", "--db", str(typo)), "no account database")
    assert_one_error(croupier("token", "revoke", "bob", "--db", str(typo)), "token add")
    assert not typo.exists()


def test_match_with_records_under_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = croupier(
        "match", "xix", "--bot", BOT, "--bot", BOT, "--games", "1",
        "--records", str(blocker / "records"),
    )  # fmt: skip
    assert_one_error(result, str(blocker))


def test_ladder_commands_on_refused_paths(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    ladder = "examples/ladders/xix.toml"
    run = croupier("ladder", "run", ladder, "--database", str(blocker / "l.db"), "--no-live")
    assert_one_error(run, str(blocker))
    missing = str(tmp_path / "missing.db")
    assert_one_error(croupier("ladder", "standings", missing), "no ladder database")
    assert_one_error(croupier("ladder", "verify", missing), "no ladder database")
    assert_one_error(croupier("ladder", "verify", str(blocker)), "not a ladder database")
    report = croupier("ladder", "report", missing, "--html", str(tmp_path / "out"))
    assert_one_error(report, "no ladder database")


def test_replay_of_a_folder_or_a_missing_record(tmp_path: Path) -> None:
    assert_one_error(croupier("replay", "--plain", str(tmp_path)), str(tmp_path))
    missing = str(tmp_path / "missing.jsonl")
    assert_one_error(croupier("replay", "--plain", missing), missing)
    assert_one_error(croupier("replay", "--verify", missing), missing)


def test_doctor_keeping_into_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = croupier("doctor", "--game", "xix", "--keep", str(blocker), "--", *BOT.split())
    assert_one_error(result, str(blocker))


def test_watch_an_unreachable_referee() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    assert_one_error(croupier("watch", f"127.0.0.1:{port}"), "cannot list matches")


def test_serve_on_a_mistyped_db_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "contset.db"
    assert_one_error(croupier("serve", "--game", "xix", "--db", str(typo)), "token add")
    assert not typo.exists()


def test_serve_web_site_on_a_port_in_use(held_port: int, tmp_path: Path) -> None:
    database = tmp_path / "contest.db"
    assert croupier("token", "add", "alice", "--db", str(database)).returncode == 0
    result = croupier(
        "serve", "--game", "xix", "--port", "0", "--db", str(database),
        "--web", f"127.0.0.1:{held_port}",
    )  # fmt: skip
    assert_one_error(
        result, f"the web site cannot listen on 127.0.0.1:{held_port}", "address already in use"
    )


def in_bwrap(*mounts: str) -> list[str]:
    """The host as it is, with `mounts` (bubblewrap's options) laid over it."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (make test installs it)")
    return ["bwrap", "--dev-bind", "/", "/", *mounts]


def croupier_in(mounts: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*mounts, sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_full_disk_is_one_line(tmp_path: Path) -> None:
    record = tmp_path / "records"
    played = croupier(
        "match", "xix", "--bot", BOT, "--games", "1", "--seed", "1", "--no-sandbox",
        "--records", str(record),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    (match,) = record.glob("*.jsonl")
    full = croupier("replay", str(match), "--html", "/dev/full")
    assert_one_error(full, "cannot write '/dev/full'", "no space left on device")
    small = tmp_path / "small"
    small.mkdir()
    disk = in_bwrap("--size", "16384", "--tmpfs", str(small))
    records = small / "records"
    result = croupier_in(
        disk, "match", "xix", "--bot", BOT, "--games", "4", "--no-sandbox",
        "--records", str(records),
    )  # fmt: skip
    assert_one_error(result, str(records), "no space left on device")
    database = small / "ladder.sqlite"
    ladder = croupier_in(
        disk, "ladder", "run", "examples/ladders/xix.toml", "--no-sandbox", "--no-live",
        "--database", str(database), "--records", str(tmp_path / "ladder-records"),
    )  # fmt: skip
    assert_one_error(ladder, f"the ladder database {str(database)!r}")


def test_a_read_only_folder_is_one_line(tmp_path: Path) -> None:
    """What a user without write permission meets: the system's refusal, one line."""
    shut = tmp_path / "shut"
    shut.mkdir()
    read_only = in_bwrap("--ro-bind", str(shut), str(shut))
    refused = "read-only file system"
    match = croupier_in(
        read_only, "match", "xix", "--bot", BOT, "--games", "1", "--no-sandbox",
        "--records", str(shut / "records"),
    )  # fmt: skip
    assert_one_error(match, str(shut / "records"), refused)
    ladder = croupier_in(
        read_only, "ladder", "run", "examples/ladders/xix.toml", "--no-live",
        "--database", str(shut / "ladder.sqlite"),
    )  # fmt: skip
    assert_one_error(ladder, str(shut), refused)
    token = croupier_in(read_only, "token", "add", "alice", "--db", str(shut / "c.db"))
    assert_one_error(token, str(shut))
    doctor = croupier_in(
        read_only, "doctor", "--game", "xix", "--keep", str(shut / "kept"), "--", *BOT.split()
    )
    assert_one_error(doctor, str(shut / "kept"), refused)


#: What a `croupier` run may take in address space here: a command that refuses its input
#: needs far less, and one that does not (an unbounded setting growing memory) fails at it
#: instead of taking the machine's memory.
CAPPED_BYTES = 4 * 1024**3


def croupier_capped(*args: str, seconds: float = 60) -> subprocess.CompletedProcess[str]:
    """`croupier` with its memory capped at CAPPED_BYTES and its time at `seconds`."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAPPED_BYTES, CAPPED_BYTES))

    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
        preexec_fn=cap,
    )


TOO_LONG = str(2**32)  # one past the protocol's uint32 milliseconds


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["match", "xix", "--bot", BOT, "--games", str(10**12)], "--games 1000000000000"),
        (["match", "xix", "--bot", BOT, "--concurrency", "100000"], "matches at once"),
        (["match", "xix", "--bot", BOT, "--move-ms", TOO_LONG], f"--move-ms {TOO_LONG}"),
        (["match", "xix", "--bot", BOT, "--bank-ms", TOO_LONG], f"--bank-ms {TOO_LONG}"),
        (["serve", "--port", "0", "--bank-ms", TOO_LONG], f"--bank-ms {TOO_LONG}"),
        (["doctor", "--game", "xix", "--move-ms", TOO_LONG, "--", *BOT.split()], "86400000 ms"),
        (["ladder", "run", "examples/ladders/xix.toml", "--concurrency", "100000"], "per core"),
    ],
    ids=["games", "concurrency", "move", "bank", "serve", "doctor", "ladder"],
)
def test_absurd_settings_are_refused_in_one_line(args: list[str], expected: str) -> None:
    """Issue 32.3: refused before anything starts, not at the first match or out of memory."""
    assert_one_error(croupier_capped(*args), expected)


def test_a_contest_file_with_an_absurd_bank_is_refused_at_its_line(tmp_path: Path) -> None:
    contest = tmp_path / "contest.toml"
    contest.write_text(f'game = "xix"\nport = 0\n[time_control]\nbank_ms = {TOO_LONG}\n')
    assert_one_error(
        croupier_capped("serve", str(contest)), f"{contest}:4: key 'time_control.bank_ms': expected"
    )


def test_replay_refuses_a_fifo_and_a_device_before_reading(tmp_path: Path) -> None:
    """Issue 32.3: a FIFO with no writer would block the open; /dev/zero never ends."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        for mode in ("--plain", "--verify"):
            result = croupier_capped("replay", mode, path, seconds=30)
            assert_one_error(result, f"{path!r} is not a regular file")
