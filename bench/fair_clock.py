"""Timeouts of instant bots beside a CPU hog: is a bot charged only for the time it had?

100 XIX matches at once over real gRPC between Python SDK random bots (examples/python/
random_bot.py, as bench/decision_rate.py; each bot runs as `--processes` processes, each with
its share of one session per match), a 100 ms move and no bank, while `--hogs` processes spin
on the CPU. The bots answer at once: a timeout is the referee charging them for its own lag, or
a bot process starved of CPU (its `cpu_ms` then stays low). Prints the decisions, the timeout
faults (target 0), and percentiles of the charged time (elapsed_ms), the referee's lag (lag_ms),
the bots' CPU time (cpu_ms) and their wait for a CPU, not charged (starved_ms; as root, with
cgroup v2), read back from the records. The referee raises its priority where it may
(referee.transport.host.raise_priority): `--same-priority` keeps it at the bots', to compare;
`--gc-default` runs it without its gc tuning.

Run: .venv/bin/python bench/fair_clock.py [--seconds 30] [--hogs 2] [--matches 100]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
from pathlib import Path

import trio

from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.local.launcher import BotProcess, supervise
from referee.match.clock import TimeControl
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, run_match
from referee.transport.host import REFEREE_NICE

ROOT = Path(__file__).resolve().parent.parent
BOT = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
GAME = get_game("xix")


def hog() -> None:
    """Spin: another program busy on the same cores."""
    while True:
        pass


async def play(matches: int, seconds: float, records: Path, processes: int) -> None:
    lobby = Lobby()
    bots = [
        BotProcess(BOT, f"fair-{i}-{k}", None, sessions=-(-matches // processes))
        for i in range(2)
        for k in range(processes)
    ]
    for bot in bots:
        lobby.admit(bot.token)
    done = trio.Event()
    async with (
        transport.serve(lobby, transport.ServerSettings()) as port,
        trio.open_nursery() as nursery,
    ):
        for bot in bots:
            nursery.start_soon(supervise, bot, f"127.0.0.1:{port}", lobby, done)
        while lobby.sessions_opened < sum(bot.sessions for bot in bots):
            await trio.sleep(0.05)
        deadline = trio.current_time() + seconds
        counter = iter(range(10**9))

        async def slot(number: int) -> None:
            while trio.current_time() < deadline:
                index = next(counter)
                k = number % processes  # the slot's processes, one of each bot
                sessions = [await lobby.take(f"fair-{i}-{k}") for i in range(2)]
                config = MatchConfig(
                    GAME,
                    parse_options(GAME, {}),
                    seed=index,
                    match_id=f"fair-{index}",
                    time_control=TimeControl(move_ms=100, bank_ms=0),
                    max_faults=10**6,  # no seat retires: every decision is asked and counted
                )
                await run_match(
                    config, [RemoteSeat(s) for s in sessions], records / f"{index}.jsonl"
                )
                for session in sessions:
                    lobby.give_back(session)

        async with trio.open_nursery() as slots:
            for number in range(matches):
                slots.start_soon(slot, number)
        done.set()
        lobby.end_all("bench over")


def percentiles(values: list[int]) -> str:
    if not values:
        return "n/a (not recorded)"
    values = sorted(values)
    cuts = statistics.quantiles(values, n=1000, method="inclusive")
    return f"p50 {cuts[499]:.0f}  p99 {cuts[989]:.0f}  p99.9 {cuts[998]:.0f}  max {values[-1]} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--processes", type=int, default=10, help="processes per bot")
    parser.add_argument("--gc-default", action="store_true", help="no gc tuning in the referee")
    parser.add_argument(
        "--same-priority", action="store_true", help="the referee at the bots' CPU priority"
    )
    args = parser.parse_args()
    records = Path(tempfile.mkdtemp(prefix="croupier-fair-"))
    hogs = [multiprocessing.Process(target=hog, daemon=True) for _ in range(args.hogs)]
    for process in hogs:
        process.start()
    try:
        transport.run(
            play,
            args.matches,
            args.seconds,
            records,
            args.processes,
            tune_gc=not args.gc_default,
            prioritise=not args.same_priority,
        )
    finally:
        for process in hogs:
            process.kill()
    decisions, timeouts, matches, recorded = 0, 0, 0, False
    elapsed: list[int] = []
    lag: list[int] = []
    cpu: list[int] = []
    starved: list[int] = []
    for path in records.glob("*.jsonl"):
        matches += 1
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "action" in record:
                action = record["action"]
                if action.get("defaulted") and "elapsedMs" not in action:
                    continue  # a retired seat's action: nobody was asked
                decisions += 1
                elapsed.append(int(action.get("elapsedMs", 0)))
                lag.append(int(action.get("lagMs", 0)))
                recorded = recorded or "lagMs" in action
                if "cpuMs" in action:
                    cpu.append(int(action["cpuMs"]))
                if "starvedMs" in action:
                    starved.append(int(action["starvedMs"]))
            elif "fault" in record and record["fault"]["fault"]["reason"] == "FAULT_REASON_TIMEOUT":
                timeouts += 1
    nice = 0 if args.same_priority else REFEREE_NICE
    print(
        f"{args.matches} matches at once, {args.processes} processes per bot, "
        f"{args.hogs} CPU hogs, {args.seconds:.0f} s, referee nice {nice} (where it may), "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
    )
    print(f"matches {matches}  decisions {decisions}  timeout faults {timeouts}")
    print(f"charged (elapsed_ms): {percentiles(elapsed)}")
    print(f"referee lag (lag_ms): {percentiles(lag if recorded else [])}")
    print(f"bot cpu (cpu_ms):     {percentiles(cpu)}")
    print(f"waited for a CPU, not charged (starved_ms): {percentiles(starved)}")


if __name__ == "__main__":
    main()
