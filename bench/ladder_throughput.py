"""Ladder throughput: persistent bots against a process per match, and 1 referee against 2.

The same XIX ladder (the heuristic against the random bot, duplicate deals, one master seed, so
the very same deals) runs twice through `croupier ladder`'s runner, records and SQLite included:
once with persistent bots (`launch = "per-slot"`: each bot launched once per concurrent slot,
playing every match over its session), once with `launch = "per-match"`, a fresh process per
bot per match that is ended afterwards, the way stdin/stdout harnesses work. Prints wall time,
matches per second and the speed-up (target: at least 5x).

Then the matches are split over referee processes (`croupier ladder run --workers N`,
referee.ladder.process_venue): the same ladder at 1 and at 2 workers (`--concurrency`
matches at once either way), with instant bots (the heuristic and the random bot) and with two
bots that burn 5 ms of CPU per decision (bench/bots/burn_bot.py). Beside matches per second it
prints the CPU per match of this process (the referee with 1 worker; with workers the
coordinator alone: commits, SQLite, standings) and of its children (the bots with 1 worker; the
workers and their bots otherwise): what docs/ladders.md reasons from for machines of more cores.

Run: .venv/bin/python bench/ladder_throughput.py [--matches 1000] [--concurrency 2]
     [--instant-matches 400] [--burn-matches 60] [--scaling-concurrency 4] [--repeat 1]
     [--skip-launch]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from referee import transport
from referee.ladder import run_ladder
from referee.ladder.config import LadderConfig, Launch, parse
from referee.ladder.process_venue import ProcessVenue
from referee.match.records import read_all

ROOT = Path(__file__).resolve().parent.parent


def ladder_text(matches: int, concurrency: int) -> str:
    return f"""
game = "xix"
root = {json.dumps(str(ROOT))}
matches_per_pairing = {matches}
duplicate = true
concurrency = {concurrency}
seed = "ladder-throughput"

[time_control]
move_ms = 5000

[[bot]]
name = "heuristic"
command = "{{python}} examples/python/xix_heuristic.py"

[[bot]]
name = "random"
command = "{{python}} examples/python/random_bot.py"
"""


BURN_BOTS = """
[[bot]]
name = "burn-a"
command = "{python} bench/bots/burn_bot.py"
env = { BURN_MS = "5" }

[[bot]]
name = "burn-b"
command = "{python} bench/bots/burn_bot.py"
env = { BURN_MS = "5" }
"""


@dataclass(frozen=True, slots=True)
class Run:
    seconds: float
    matches: int
    #: CPU seconds of this process, of its children (the workers: waited for, so counted with
    #: what they waited for), and of the bots while they decided (the records' cpuMs: the bots'
    #: own children are not all waited for, so rusage misses them).
    own_cpu: float
    children_cpu: float
    bots_cpu: float
    #: CPU seconds the whole machine was busy (/proc/stat): everything above and the rest of
    #: what the bots used (receiving, replying), and whatever else ran meanwhile.
    machine_cpu: float


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _busy() -> float:
    """CPU seconds this machine has been busy since it booted (all cores)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def timed(config: LadderConfig, workers: int) -> Run:
    venue = ProcessVenue(workers) if workers > 1 else None
    own, children = _cpu()
    busy = _busy()
    began = time.perf_counter()
    summary = transport.run(run_ladder, config, None, None, venue)
    seconds = time.perf_counter() - began
    own_after, children_after = _cpu()
    machine = _busy() - busy
    bots = 0
    for path in config.placement.records.glob("*.jsonl"):
        lines, _ = read_all(path, strict=True)
        bots += sum(line.action.cpu_ms for line in lines if line.WhichOneof("line") == "action")
    return Run(
        seconds,
        summary.standings.matches_done,
        own_after - own,
        children_after - children,
        bots / 1000,
        machine,
    )


def scaling(folder: Path, args: argparse.Namespace) -> None:
    """Matches per second at 1 and 2 referee workers, instant bots and 5 ms bots."""
    load = os.getloadavg()
    print(
        f"\nreferee workers: XIX, concurrency {args.scaling_concurrency}, records + SQLite "
        f"(load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    print(
        "CPU ms per match: this process; its children (the workers); the bots deciding (the "
        "records' cpuMs, whole ms); the whole machine"
    )
    print(
        f"{'bots':<8} {'workers':>7} {'matches':>7} {'seconds':>8} {'matches/s':>10} "
        f"{'this':>7} {'workers':>8} {'bots':>7} {'machine':>8}"
    )
    for bots, matches in (("instant", args.instant_matches), ("5 ms", args.burn_matches)):
        matches += matches % 2
        text = ladder_text(matches, args.scaling_concurrency)
        if bots != "instant":
            text = text[: text.index("[[bot]]")] + BURN_BOTS
        base = parse(text, folder / f"{bots}.toml")
        rates: dict[int, list[float]] = {1: [], 2: []}
        for attempt, workers in enumerate([1, 2] * args.repeat):
            name = f"{bots.replace(' ', '')}-{workers}-{attempt}"
            config = base.kept_in(folder / f"{name}.sqlite", folder / f"{name}-records")
            run = timed(config, workers)
            if run.matches != matches:
                raise SystemExit(f"{name}: {run.matches} of {matches} matches were played")
            rates[workers].append(run.matches / run.seconds)
            print(
                f"{bots:<8} {workers:>7} {run.matches:>7} {run.seconds:>8.1f} "
                f"{rates[workers][-1]:>10.2f} {1000 * run.own_cpu / run.matches:>7.1f} "
                f"{1000 * run.children_cpu / run.matches:>8.1f} "
                f"{1000 * run.bots_cpu / run.matches:>7.1f} "
                f"{1000 * run.machine_cpu / run.matches:>8.1f}"
            )
        one, two = statistics.median(rates[1]), statistics.median(rates[2])
        print(f"{bots}: 2 workers play {two / one:.2f}x the matches per second of 1 (medians)")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches in the ladder")
    parser.add_argument("--concurrency", type=int, default=2, help="matches at once")
    parser.add_argument(
        "--instant-matches", type=int, default=400, help="matches per run, instant bots"
    )
    parser.add_argument("--burn-matches", type=int, default=60, help="matches per run, 5 ms bots")
    parser.add_argument(
        "--scaling-concurrency",
        type=int,
        default=4,
        help="matches at once in the workers' runs (in a two-player game one bot thinks at "
        "a time: 2 per core keep the cores busy with 5 ms bots)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs at 1 and 2 workers, alternated (noise)"
    )
    parser.add_argument(
        "--skip-launch", action="store_true", help="only the workers' runs (not per-match)"
    )
    args = parser.parse_args()
    matches = args.matches + args.matches % 2  # two seat rotations per deal
    with tempfile.TemporaryDirectory() as folder:
        if not args.skip_launch:
            launches(Path(folder), matches, args.concurrency)
        scaling(Path(folder), args)


def launches(folder: Path, matches: int, concurrency: int) -> None:
    """Persistent bots against a process per bot per match."""
    base = parse(ladder_text(matches, concurrency), folder / "bench.toml")
    print(f"XIX ladder: {matches} matches, concurrency {concurrency}, records + SQLite")
    print(f"{'launch':<10} {'matches':>7} {'seconds':>8} {'matches/s':>10} {'heuristic':>10}")
    seconds: dict[Launch, float] = {}
    for launch in (Launch.PER_SLOT, Launch.PER_MATCH):
        config = base.kept_in(folder / f"{launch}.sqlite", folder / f"{launch}-records")
        config = replace(config, placement=replace(config.placement, launch=launch))
        began = time.perf_counter()
        summary = transport.run(run_ladder, config)
        seconds[launch] = time.perf_counter() - began
        done = summary.standings.matches_done
        if done != matches:
            raise SystemExit(f"{launch}: {done} of {matches} matches were played")
        score = next(r.score for r in summary.standings.rows if r.bot == "heuristic")
        print(
            f"{launch!s:<10} {done:>7} {seconds[launch]:>8.1f} "
            f"{done / seconds[launch]:>10.1f} {score or 0:>10.1%}"
        )
    ratio = seconds[Launch.PER_MATCH] / seconds[Launch.PER_SLOT]
    verdict = "meets" if ratio >= 5 else "misses"
    print(f"persistent bots are {ratio:.1f}x faster than a process per match ({verdict} 5x)")


if __name__ == "__main__":
    main()
