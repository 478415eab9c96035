"""The CPU clock (issue 27.5): a launched bot is charged the CPU time its processes used on its
turn, under a wall ceiling, so that a sleeping bot costs nothing, a spinning one times out, and a
busy host costs an honest one no move.

Real bot processes launched by `croupier match` over gRPC on loopback (with the cgroup v2
account the launcher makes as root, else their CPU time summed from /proc), real spinning
processes beside them, real records.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import trio
from typer.testing import CliRunner

from croupier.bot import Bot
from croupier.v1 import common_pb2, referee_pb2
from referee.cli import app
from referee.clock_kind import ClockKind
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.config import LadderConfigError, Launch, clocked, parse
from referee.machine import cores
from referee.match.clock import (
    CEILING_SLACK_SECONDS,
    DecisionTimer,
    SeatClock,
    TimeControl,
)
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
PONDERER = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'ponderer.py'}"
runner = CliRunner()

#: The referee reads a launched bot's CPU time from its cgroup or /proc: Linux's.
linux_only = pytest.mark.skipif(
    sys.platform != "linux", reason="a bot's CPU time is read from Linux's cgroups or /proc"
)


def lines(records: Path) -> list[dict[str, Any]]:
    """Every line of the records in `records`, each checked by the replay first."""
    found: list[dict[str, Any]] = []
    for path in sorted(records.glob("*.jsonl")):
        report = verify(path)
        assert report.ok, report.problems
        found += [json.loads(line) for line in path.read_text().splitlines()]
    return found


def play(tmp_path: Path, bot: str, *options: str, games: int = 1) -> list[dict[str, Any]]:
    """`croupier match` of one round of two-player Xactika (9 decisions a seat) between `bot`
    (seat 0 in the first match) and a random bot; the records' lines."""
    records = tmp_path / "records"
    result = runner.invoke(
        app,
        [
            *("match", "xactika", "--players", "2", "--option", "rounds=1"),
            *("--bot", bot, "--bot", RANDOM, "--seed", "5"),
            *("--games", str(games), "--records", str(records), *options),
        ],
    )
    assert result.exit_code == 0, result.output
    return lines(records)


def faults(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line["fault"]["fault"] for line in found if "fault" in line]


def moves(found: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    return [
        line["action"]
        for line in found
        if "action" in line and line["action"].get("seat", 0) == seat
    ]


CPU_200 = ("--clock", "cpu", "--move-ms", "200", "--bank-ms", "0")


@linux_only
def test_a_bot_that_sleeps_is_not_charged_under_a_cpu_clock(tmp_path: Path) -> None:
    # 2 s asleep per move against 200 ms of CPU: its ceiling (10 x 0.2 s + 1 s = 3 s) is never
    # reached and it used next to no CPU, so not one timeout.
    found = play(tmp_path, f"{PONDERER} --think-ms 2000", *CPU_200, "--ceiling-factor", "10")
    assert faults(found) == []
    header = found[0]["header"]
    assert header["timeControl"] == {
        "moveMs": 200,
        "clock": "CLOCK_KIND_CPU",
        "ceilingFactor": 10,
    }
    assert all("clock" not in seat for seat in header["seats"])  # both metered: the match's
    slept = moves(found, 0)
    assert len(slept) >= 4
    assert all(int(move.get("elapsedMs", 0)) < 200 for move in slept), slept


@linux_only
def test_the_same_bot_times_out_under_the_wall_clock(tmp_path: Path) -> None:
    found = play(tmp_path, f"{PONDERER} --think-ms 2000", "--move-ms", "200", "--bank-ms", "0")
    timeouts = [f for f in faults(found) if f["reason"] == "FAULT_REASON_TIMEOUT"]
    assert timeouts and all(f.get("seat", 0) == 0 for f in timeouts)
    assert "clock" not in found[0]["header"]["timeControl"]  # the wall clock: as before


@linux_only
def test_a_cpu_clock_still_ends_a_sleep_at_its_wall_ceiling(tmp_path: Path) -> None:
    # The default ceiling, 4 x 0.2 s + 1 s = 1.8 s, ends each 2 s sleep: a timeout, saying so.
    started = time.monotonic()
    found = play(tmp_path, f"{PONDERER} --think-ms 2000", *CPU_200)
    timeouts = [f for f in faults(found) if f["reason"] == "FAULT_REASON_TIMEOUT"]
    assert len(timeouts) == 3, timeouts  # then the seat is retired (max_faults 3)
    assert all("wall ceiling of 1800 ms" in f["detail"] for f in timeouts), timeouts
    assert time.monotonic() - started < 3 * 2.0 + 5  # each was cut at the ceiling, not later


@linux_only
def test_a_bot_that_spins_past_its_cpu_budget_times_out(tmp_path: Path) -> None:
    # 500 ms of CPU per move against 200 ms and no bank: cut off once its CPU reaches 200 ms.
    found = play(tmp_path, f"{PONDERER} --burn-ms 500", *CPU_200)
    timeouts = [f for f in faults(found) if f["reason"] == "FAULT_REASON_TIMEOUT"]
    assert timeouts and all(f.get("seat", 0) == 0 for f in timeouts), faults(found)
    assert "ms of CPU, more than the 200 ms allowed" in timeouts[0]["detail"], timeouts
    cut = [move for move in moves(found, 0) if move.get("defaulted") and "cpuMs" in move]
    assert len(cut) == len(timeouts), cut  # (a retired seat's moves are not timed)
    assert all(200 <= int(move["elapsedMs"]) < 500 for move in cut), cut


@pytest.fixture
def busy_host() -> Iterator[int]:
    """Two spinning processes per core at normal priority, beside the match; their count. Each
    in a session of its own, as other programs are: with the scheduler's autogroups, spinners
    of one session would share one group's slice, however many."""
    count = 2 * cores()
    spin = [sys.executable, "-c", "while True: pass"]
    spinners = [subprocess.Popen(spin, start_new_session=True) for _ in range(count)]
    try:
        time.sleep(0.2)  # all of them on the run queues before the match starts
        yield count
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


@linux_only
@pytest.mark.usefixtures("busy_host")
def test_a_busy_host_costs_an_honest_bot_no_move_under_a_cpu_clock(tmp_path: Path) -> None:
    # The bot computes 100 ms of CPU per move against 200 ms: with two spinners per core it gets
    # a third of a core or less, so each move takes 300 ms or more of wall time.
    started = time.monotonic()
    found = play(tmp_path, f"{PONDERER} --burn-ms 100", *CPU_200, games=2)
    assert faults(found) == []
    # The load was real: the honest bot's 18 moves took more than their 200 ms on the wall.
    assert time.monotonic() - started > 18 * 0.2
    burned = [move for move in moves(found, 0) + moves(found, 1) if int(move.get("cpuMs", 0)) >= 90]
    assert len(burned) >= 6, burned  # the honest bot's moves, in both seats over two matches
    assert all(int(move["elapsedMs"]) < 200 for move in burned), burned


class SelfMeter:
    """This process's own CPU time, as a launched bot's meter reads its process tree's."""

    def cpu_seconds(self) -> float | None:
        return time.process_time()

    def starved_seconds(self) -> float | None:
        return None

    def ended(self) -> bool:
        return False


def spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


async def test_a_cpu_decisions_time_is_up_at_its_cpu_budget_not_at_its_wall_time() -> None:
    clock = SeatClock.start(TimeControl(move_ms=100, bank_ms=0, clock=ClockKind.CPU))
    assert clock.ceiling_seconds() == pytest.approx(4 * 0.1 + CEILING_SLACK_SECONDS)
    timer = DecisionTimer.start(clock)
    assert timer.scope.deadline == pytest.approx(trio.current_time() + 1.4)  # the ceiling
    timer.measure_at_transport()
    timer.count_from(SelfMeter())
    timer.left()
    time.sleep(0.3)  # three times the budget asleep: no CPU, not up
    assert not timer.is_up()
    assert 0 < timer.seconds_left() <= 0.1 / cores() + 0.001
    spin(0.11)
    assert timer.is_up() and timer.seconds_left() == 0
    timer.count_to()
    spent = timer.result()
    assert 110 <= spent.charged_ms < 200  # the CPU time, not the 0.41 s on the wall
    assert not spent.over_ceiling and not spent.cut_by_lag


async def test_a_cpu_decisions_time_is_up_at_its_wall_ceiling() -> None:
    clock = SeatClock.start(
        TimeControl(move_ms=50, bank_ms=0, clock=ClockKind.CPU, ceiling_factor=1)
    )
    timer = DecisionTimer.start(clock)
    timer.measure_at_transport()
    timer.count_from(SelfMeter())
    timer.left()
    assert timer.seconds_left() <= 0.05 / cores() + 0.001  # the CPU budget could end first
    time.sleep(0.8)
    assert not timer.is_up()
    time.sleep(0.3)  # past 1.05 s: 1 x 50 ms plus a second
    assert timer.is_up()
    timer.count_to()
    spent = timer.result()
    assert spent.over_ceiling and spent.ceiling_ms == pytest.approx(1050)
    assert spent.charged_ms < 50 and not spent.cut_by_lag


async def test_a_request_sent_again_carries_what_is_left_of_each_clock() -> None:
    """After a reconnect the request goes again with its CPU deadline less the CPU used, and
    its ceiling less the wall time passed."""
    clock = SeatClock.start(TimeControl(move_ms=1000, bank_ms=0, clock=ClockKind.CPU))
    timer = DecisionTimer.start(clock)
    timer.count_from(SelfMeter())
    await trio.sleep(0.3)
    spin(0.1)
    again = clock.to_proto()
    assert (again.deadline_ms, again.ceiling_ms) == (1000, 5000)
    timer.catch_up(again)
    assert 850 <= again.deadline_ms <= 900  # 100 ms of CPU used, not the 0.4 s on the wall
    assert again.ceiling_ms <= 5000 - 400


def test_the_wire_says_the_clock_and_the_ceiling() -> None:
    control = TimeControl(move_ms=200, bank_ms=300, clock=ClockKind.CPU, ceiling_factor=5)
    wire = control.to_proto()
    assert wire.clock == common_pb2.CLOCK_KIND_CPU and wire.ceiling_factor == 5
    request_clock = SeatClock.start(control).to_proto()
    assert request_clock.deadline_ms == 500 and request_clock.ceiling_ms == 5 * 500 + 1000
    wall = TimeControl(move_ms=200, bank_ms=300)  # unset, as before the field existed
    assert not wall.to_proto().HasField("ceiling_factor") and wall.to_proto().clock == 0
    assert not SeatClock.start(wall).to_proto().HasField("ceiling_ms")


class SlowBot(Bot):
    """An in-process bot that takes 300 ms of the referee's own time per move."""

    name = "slow"
    version = "1"
    started: ClassVar[list[referee_pb2.MatchStart]] = []

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.started.append(start)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        time.sleep(0.3)
        return 0


async def test_a_seat_the_referee_cannot_meter_falls_back_to_the_wall_clock(
    tmp_path: Path,
) -> None:
    """An in-process seat has no CPU count of its own (as a bot that connects by itself has
    none): under a CPU clock it is timed by the wall clock, its MatchStart says so, and the
    record's header notes it per seat."""
    game = get_game("textactoe")
    control = TimeControl(move_ms=100, bank_ms=0, clock=ClockKind.CPU)
    config = MatchConfig(game, parse_options(game, {}), seed=3, match_id="fb", time_control=control)
    SlowBot.started = []
    outcome = await run_match(
        config, [InProcessSeat(SlowBot()), InProcessSeat(SlowBot())], tmp_path / "fb.jsonl"
    )
    assert {f.reason for f in outcome.faults} == {common_pb2.FAULT_REASON_TIMEOUT}
    assert "no reply within 100 ms" in outcome.faults[0].detail  # the wall clock's verdict
    assert [start.time_control.clock for start in SlowBot.started] == [0, 0]  # wall
    header = json.loads((tmp_path / "fb.jsonl").read_text().splitlines()[0])["header"]
    assert header["timeControl"]["clock"] == "CLOCK_KIND_CPU"
    assert [seat["clock"] for seat in header["seats"]] == ["CLOCK_KIND_WALL"] * 2


LADDER = """\
game = "xix"
matches_per_pairing = 4
{launch}
[time_control]
move_ms = {move_ms}
{clock}
[[bot]]
name = "a"
command = "a"
[[bot]]
name = "b"
command = "b"
"""


def ladder(tmp_path: Path, clock: str = "", move_ms: int = 500, launch: str = "") -> Any:
    text = LADDER.format(clock=clock, move_ms=move_ms, launch=launch)
    return parse(text, tmp_path / "ladder.toml")


def test_a_ladder_file_sets_a_cpu_clock_and_its_ceiling(tmp_path: Path) -> None:
    config = ladder(tmp_path, 'clock = "cpu"\nceiling_factor = 6')
    assert config.time_control.clock is ClockKind.CPU
    assert config.time_control.ceiling_factor == 6
    assert config.fingerprint()["time_control"] == {
        "move_ms": 500,
        "bank_ms": 10_000,
        "clock": "cpu",
        "ceiling_factor": 6,
    }
    wall = ladder(tmp_path)  # a wall clock's fingerprint is what it was before
    assert wall.fingerprint()["time_control"] == {"move_ms": 500, "bank_ms": 10_000}
    again = clocked(wall, ClockKind.CPU, None)  # `croupier ladder run --clock cpu`
    assert again.time_control.clock is ClockKind.CPU and again.time_control.ceiling_factor == 4


@pytest.mark.parametrize(
    ("clock", "move_ms", "launch", "message"),
    [
        ('clock = "sundial"', 500, "", "key 'time_control.clock': expected one of wall, cpu"),
        ('clock = "cpu"\nceiling_factor = 0', 500, "", "expected at least 1: a wall ceiling"),
        ('clock = "cpu"\nceiling_factor = 101', 500, "", "expected at most 100"),
        ("ceiling_factor = 4", 500, "", 'only clock = "cpu" has a ceiling'),
        ('clock = "cpu"', 0, "", "a cpu clock needs a time limit"),
        ('clock = "cpu"', 500, 'launch = "shared"', "key 'launch': a cpu clock needs launch"),
    ],
)
def test_a_ladder_file_refuses_a_clock_that_cannot_mean_anything(
    tmp_path: Path, clock: str, move_ms: int, launch: str, message: str
) -> None:
    with pytest.raises(LadderConfigError, match=message.replace("(", r"\(")):
        ladder(tmp_path, clock, move_ms, launch)


def test_ladder_run_refuses_a_cpu_clock_for_a_shared_launch(tmp_path: Path) -> None:
    config = ladder(tmp_path, launch='launch = "shared"')
    assert config.placement.launch is Launch.SHARED
    with pytest.raises(LadderConfigError, match="--clock 'cpu': a cpu clock needs launch"):
        clocked(config, ClockKind.CPU, None)
    with pytest.raises(LadderConfigError, match="--ceiling-factor is for --clock cpu"):
        clocked(config, ClockKind.WALL, 4)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--clock", "cpu", "--concurrency", "2", "--workers", "1"],
            "one bot process per match at once",
        ),
        (["--clock", "cpu", "--ceiling-factor", "0"], "--ceiling-factor 0: expected at least 1"),
        (["--ceiling-factor", "5"], "--ceiling-factor is for --clock cpu"),
        (["--clock", "cpu", "--move-ms", "0"], "--clock cpu with --move-ms 0"),
        (["--clock", "sundial"], "'sundial' is not one of"),
    ],
)
def test_croupier_match_refuses_a_clock_that_cannot_mean_anything(
    options: list[str], message: str
) -> None:
    result = runner.invoke(app, ["match", "textactoe", "--bot", RANDOM, *options])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output
