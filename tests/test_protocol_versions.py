"""A wire change is a promise to every published bot (issue 24.0): bots built with stubs from
protocol version 1's protos (tests/data/protocol-v1.binpb, the previous release's, as buf built
them) still play every game without a fault, while a session that declares version 2 is held to
its meaning. tools/buf/baseline.binpb is the current release's: `make lint`'s `buf breaking`
catches the next change against it, and this test the next one buf calls compatible."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from grpc_tools import protoc
from typer.testing import CliRunner

from referee.cli import app
from referee.match.replay import verify

ROOT = Path(__file__).resolve().parent.parent
V1 = ROOT / "tests" / "data" / "protocol-v1.binpb"
OLD_BOT = ROOT / "tests" / "bots" / "protocol_v1_bot.py"
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
runner = CliRunner()


@pytest.fixture(scope="module")
def old_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The version 1 bot in a folder of its own, beside its stubs (made here from the protos)."""
    folder = tmp_path_factory.mktemp("v1") / "bot"
    folder.mkdir(mode=0o755)
    files = ["common", "game", "record", "referee", "textactoe", "xactika", "xeri", "xix"]
    arguments = ["protoc", f"--descriptor_set_in={V1}", f"--python_out={folder}"]
    assert protoc.main([*arguments, *(f"croupier/v1/{name}.proto" for name in files)]) == 0
    for package in (folder / "croupier", folder / "croupier" / "v1"):
        (package / "__init__.py").write_text("")
    shutil.copy(OLD_BOT, folder)
    return folder / OLD_BOT.name


def faults(records: Path) -> list[dict[str, object]]:
    found = []
    for path in sorted(records.glob("*.jsonl")):
        assert verify(path).ok, path
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        found += [line["fault"] for line in lines if "fault" in line]
    return found


@pytest.mark.parametrize(
    ("game", "options"),
    [("xix", []), ("xactika", ["--players", "3"]), ("xeri", []), ("textactoe", [])],
)
def test_a_version_1_bot_plays_every_game_without_a_fault(
    old_bot: Path, tmp_path: Path, game: str, options: list[str]
) -> None:
    records = tmp_path / "records"
    result = runner.invoke(
        app,
        [
            *("match", game, *options, "--bot", f"{sys.executable} {old_bot}", "--bot", RANDOM),
            *("--games", "2", "--records", str(records), "--move-ms", "5000"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert faults(records) == []
    log = "".join(path.read_text() for path in records.glob("logs/*-bot0.log"))
    assert "Traceback" not in log and "version 1 bids" not in log, log


def test_a_version_2_session_without_an_index_is_faulted(tmp_path: Path) -> None:
    """Control: the same omission from a bot that declared version 2 (tests/bots/misbehaving.py)
    is a malformed reply, never action 0."""
    records = tmp_path / "records"
    misbehaving = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'misbehaving.py'} no_index"
    result = runner.invoke(
        app,
        [
            *("match", "xix", "--bot", misbehaving, "--bot", RANDOM, "--games", "1"),
            *("--records", str(records), "--move-ms", "5000", "--max-faults", "100"),
        ],
    )
    assert result.exit_code == 0, result.output
    reasons = {str(fault["fault"]["reason"]) for fault in faults(records)}  # type: ignore[index]
    assert reasons == {"FAULT_REASON_MALFORMED_MESSAGE"}


def test_the_doctor_tells_a_version_1_bot_what_to_change(old_bot: Path) -> None:
    result = runner.invoke(
        app,
        [
            *("doctor", "--game", "xix", "--matches", "2", "--connect-timeout", "5"),
            *("--", sys.executable, str(old_bot)),
        ],
    )
    hello = next(line for line in result.output.splitlines() if " hello " in f" {line} ")
    assert "PASS" in hello and "speaks protocol version 1" in hello, result.output
    assert "set it to 2" in hello


def test_a_version_1_bot_plays_under_a_cpu_clock(old_bot: Path, tmp_path: Path) -> None:
    """Stubs older than TimeControl.clock and Clock.ceiling_ms ignore them (issue 27.5)."""
    records = tmp_path / "records"
    result = runner.invoke(
        app,
        [
            *("match", "textactoe", "--bot", f"{sys.executable} {old_bot}", "--bot", RANDOM),
            *("--records", str(records), "--clock", "cpu", "--move-ms", "2000"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert faults(records) == []
    header = json.loads(next(records.glob("*.jsonl")).read_text().splitlines()[0])["header"]
    assert header["timeControl"]["clock"] == "CLOCK_KIND_CPU"
    log = "".join(path.read_text() for path in records.glob("logs/*-bot0.log"))
    assert "Traceback" not in log, log
