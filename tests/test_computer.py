"""Each record names the computer its match was played on (host, CPU model, CPUs) and, per seat,
the cores its bot was pinned to; records written before still verify and replay.

A real `croupier match` (loopback gRPC, bot processes) and real record files; the ladder whose
slots are pinned to cores is tests/test_fair_clock.py's.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path

from typer.testing import CliRunner

from croupier.v1 import record_pb2
from referee.cli import app
from referee.machine import cpu_model
from referee.match.computer import played_on, this_computer
from referee.match.records import read_all
from referee.match.replay import verify
from referee.viewer import load, viewer_data

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
OLD_RECORD = ROOT / "tests" / "data" / "xix-schema1.jsonl"
runner = CliRunner()


def _header(path: Path) -> record_pb2.RecordHeader:
    records, errors = read_all(path, strict=True)
    assert not errors
    return records[0].header


def test_a_match_record_names_this_computer_and_replays_saying_so(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            *("match", "xix", "--bot", RANDOM, "--bot", RANDOM, "--games", "1"),
            *("--seed", "3", "--records", str(tmp_path)),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = tmp_path.glob("*.jsonl")
    header = _header(record)
    assert header.computer.host == socket.gethostname() != ""
    assert header.computer.cpu_model == cpu_model() != ""
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert header.computer.cpus == expected
    assert [list(seat.cores) for seat in header.seats] == [[], []]  # `croupier match` never pins
    assert verify(record).ok
    shown = runner.invoke(app, ["replay", str(record), "--plain"])
    assert shown.exit_code == 0, shown.output
    said = f"played on {header.computer.host} ({header.computer.cpu_model}, {expected} CPUs)"
    assert said in shown.output.splitlines()
    assert viewer_data(load(record))["computer"] == said


def test_a_record_from_before_computers_verifies_and_replays_without_one(tmp_path: Path) -> None:
    assert not _header(OLD_RECORD).HasField("computer")
    assert verify(OLD_RECORD).ok
    shown = runner.invoke(app, ["replay", str(OLD_RECORD), "--plain"])
    assert shown.exit_code == 0, shown.output
    assert "seats: 0=random, 1=random" in shown.output and "played on" not in shown.output
    page = tmp_path / "old.html"
    written = runner.invoke(app, ["replay", str(OLD_RECORD), "--html", str(page)])
    assert written.exit_code == 0, written.output
    assert viewer_data(load(OLD_RECORD))["computer"] == ""


def test_played_on_names_pinned_seats_only() -> None:
    header = record_pb2.RecordHeader(
        seats=[
            record_pb2.RecordSeat(name="a", cores=[1]),
            record_pb2.RecordSeat(name="b"),
            record_pb2.RecordSeat(name="c", cores=[0, 2]),
        ],
        computer=record_pb2.Computer(host="box", cpu_model="Xeon", cpus=4),
    )
    pins = "seat 0 on core 1, seat 2 on cores 0,2"
    assert played_on(header) == f"played on box (Xeon, 4 CPUs); {pins}"
    header.computer.Clear()
    header.computer.host = "box"
    assert played_on(header) == f"played on box; {pins}"


def test_the_cpu_model_is_cpuinfos_model_name_else_platforms(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248\n\n"
        "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6248\n"
    )
    assert cpu_model(str(cpuinfo)) == "Intel(R) Xeon(R) Gold 6248"
    cpuinfo.write_text("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n")  # some ARM boards
    fallback = platform.processor() or platform.machine()
    assert cpu_model(str(cpuinfo)) == fallback
    assert cpu_model(str(tmp_path / "absent")) == fallback


def test_the_computer_is_read_once_per_process() -> None:
    assert this_computer() is this_computer()
