"""Bots in other languages, for real: the C++ XIX bot (examples/cpp), the Go Xeri bot
(examples/go) and the Java bot (examples/java, grpc-java over the sandbox's loopback relay, in a
plain JVM under the default limits) are built from proto/ with Debian's packages (`make
other-languages`), play the Python example bots over gRPC through `croupier match` with records
that verify, and pass `croupier doctor`. A name clash in any generator fails the build."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.match.replay import verify

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CPP_BOT = ROOT / "examples" / "cpp" / "build" / "xix_bot"
GO_BOT = ROOT / "examples" / "go" / "build" / "xeri_bot"
#: A plain `java`: the memory limit counts what the JVM uses, not what it reserves.
JAVA_BOT = f"java -jar {ROOT / 'examples' / 'java' / 'build' / 'random_bot.jar'}"
runner = CliRunner()


def make(*targets: str) -> None:
    """Build (or find up to date) under one lock: xdist workers must not run make side by side."""
    tools = ("make", "protoc", "g++", "go", "javac", "grpc_java_plugin")
    missing = [tool for tool in tools if not shutil.which(tool)]
    if missing:
        pytest.skip(f"{' '.join(missing)} not found: `make other-languages` installs them")
    (ROOT / "build").mkdir(exist_ok=True)
    with (ROOT / "build" / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            ["make", "-s", *targets], cwd=ROOT, capture_output=True, text=True, timeout=1200
        )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def built() -> None:
    make("other-languages")


def play(game: str, bots: list[str], games: int, records: Path, *extra: str) -> str:
    """`croupier match`; every record verifies and no seat faulted. Returns the output."""
    bot_args = [arg for bot in bots for arg in ("--bot", bot)]
    result = runner.invoke(
        app,
        ["match", game, *bot_args, "--games", str(games), "--records", str(records), *extra],
    )
    assert result.exit_code == 0, result.output
    paths = sorted(records.glob("*.jsonl"))
    assert len(paths) == games
    for path in paths:
        report = verify(path)
        assert report.ok, report.problems
        assert '"fault"' not in path.read_text()
    return result.output


def test_the_java_bot_plays_the_python_bots(built: None, tmp_path: Path) -> None:
    heuristic = f"{PYTHON} {ROOT / 'examples' / 'python' / 'xactika_heuristic.py'}"
    output = play("xactika", [JAVA_BOT, heuristic], 2, tmp_path)
    assert "java-random" in output and "xactika-heuristic" in output


def test_the_cpp_bot_plays_the_python_bots(built: None, tmp_path: Path) -> None:
    heuristic = f"{PYTHON} {ROOT / 'examples' / 'python' / 'xix_heuristic.py'}"
    output = play("xix", [str(CPP_BOT), heuristic], 4, tmp_path)
    assert "xix-cpp" in output and "xix-heuristic" in output


def test_the_go_bot_plays_the_python_bots(built: None, tmp_path: Path) -> None:
    heuristic = f"{PYTHON} {ROOT / 'examples' / 'python' / 'xeri_heuristic.py'}"
    random = f"{PYTHON} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
    output = play(
        "xeri", [str(GO_BOT), heuristic, str(GO_BOT), random], 2, tmp_path, "--players", "4"
    )
    assert "xeri-go" in output and "xeri-heuristic" in output


def test_the_cpp_bot_at_full_speed_is_never_rate_limited(built: None, tmp_path: Path) -> None:
    """Thousands of decisions as fast as the C++ bot answers: no fault, no retirement."""
    output = play("xix", [str(CPP_BOT)], 200, tmp_path, "--concurrency", "2")
    assert "retired" not in output
    decisions = sum(path.read_text().count('"action"') for path in tmp_path.glob("*.jsonl"))
    assert decisions > 5000


@pytest.mark.parametrize(
    ("bot", "args"),
    [
        (str(CPP_BOT), ["--game", "xix"]),
        (str(GO_BOT), ["--game", "xeri", "--players", "4"]),
        (JAVA_BOT, ["--game", "xix"]),
    ],
    ids=["cpp", "go", "java"],
)
def test_the_doctor_passes_each_bot(built: None, bot: str, args: list[str]) -> None:
    result = runner.invoke(app, ["doctor", *args, "--", *bot.split()])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output
