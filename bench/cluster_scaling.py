"""One ladder on a local Dask cluster of 1 and of 2 worker processes: matches per second, where
the time goes, and what the coordinator spends per match.

The same XIX ladder (the heuristic against the random bot, duplicate deals, one master seed)
runs on one machine (`croupier ladder run`, concurrency 1 and 2) and then on `croupier cluster
local --workers N` (one thread each) through `--cluster`: the scheduler and the workers are
other processes, so this process is the coordinator alone and its CPU time is the
coordinator's cost (receiving results, writing records, SQLite commits, ratings, the Dask
client). Per batch the workers report how long starting the referee and the bots took against
playing; the split is printed per run.

Run: .venv/bin/python bench/cluster_scaling.py [--matches 400] [--batch N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee import transport
from referee.cluster import venue_for
from referee.ladder import run_ladder
from referee.ladder.config import ClusterConfig, LadderConfig, parse
from referee.ladder.venue import BatchReport, LadderObserver

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from referee.cli import main; main()"]


def ladder_text(matches: int) -> str:
    return f"""
game = "xix"
root = {json.dumps(str(ROOT))}
matches_per_pairing = {matches}
duplicate = true
seed = "cluster-scaling"

[time_control]
move_ms = 5000
bank_ms = 30000

[[bot]]
name = "heuristic"
command = "{{python}} examples/python/xix_heuristic.py"

[[bot]]
name = "random"
command = "{{python}} examples/python/random_bot.py"
"""


@dataclass
class Batches(LadderObserver):
    reports: list[BatchReport] = field(default_factory=list)

    def batch(self, report: BatchReport) -> None:
        self.reports.append(report)


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Run:
    label: str
    matches: int
    seconds: float
    coordinator_cpu: float
    reports: list[BatchReport]

    @property
    def rate(self) -> float:
        return self.matches / self.seconds


def play(config: LadderConfig, label: str) -> Run:
    observer = Batches()
    began, spent = time.perf_counter(), cpu()
    summary = transport.run(run_ladder, config, None, observer, venue_for(config))
    seconds, spent = time.perf_counter() - began, cpu() - spent
    done = summary.standings.matches_done
    if not summary.complete:
        raise SystemExit(f"{label}: the ladder did not complete ({done} matches)")
    return Run(label, done, seconds, spent, observer.reports)


def start_cluster(workers: int) -> tuple[str, subprocess.Popen[str]]:
    process = subprocess.Popen(
        [*CLI, "cluster", "local", "--workers", str(workers), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    address = process.stdout.readline().strip()
    if not address.startswith("tcp://"):
        process.kill()
        raise SystemExit(f"`croupier cluster local` did not start: {address!r}")
    return address, process


def stop_cluster(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400, help="matches in the ladder")
    parser.add_argument("--batch", type=int, default=None, help="matches per task (auto)")
    args = parser.parse_args()
    matches = args.matches + args.matches % 2  # two seat rotations per deal
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as folder:
        base = parse(ladder_text(matches), Path(folder) / "bench.toml")

        def where(name: str) -> LadderConfig:
            return base.kept_in(Path(folder) / f"{name}.sqlite", Path(folder) / f"{name}-records")

        print(f"XIX ladder: {matches} matches, records + SQLite, {os.cpu_count()} CPUs")
        for concurrency in (1, 2):
            label = f"local, concurrency {concurrency}"
            local = where(f"local{concurrency}")
            placed = replace(local.placement, concurrency=concurrency)
            runs.append(play(replace(local, placement=placed), label))
            report(runs[-1])
        for workers in (1, 2):
            address, process = start_cluster(workers)
            try:
                cluster = ClusterConfig(scheduler=address, batch=args.batch)
                config = where(f"cluster{workers}")
                config = replace(config, placement=replace(config.placement, cluster=cluster))
                runs.append(play(config, f"cluster, {workers} worker{'s' * (workers > 1)}"))
            finally:
                stop_cluster(process)
            report(runs[-1])
    one, two = runs[2], runs[3]
    print(
        f"\n2 workers against 1: {two.rate / one.rate:.2f}x the matches per second "
        f"({one.rate:.1f} -> {two.rate:.1f}); the local runner at concurrency 2 does "
        f"{runs[1].rate:.1f}"
    )


def report(run: Run) -> None:
    line = f"{run.label:<22} {run.matches:>5} matches {run.seconds:>6.1f} s {run.rate:>6.1f}/s"
    per_match = run.coordinator_cpu / run.matches * 1000
    print(f"{line}   this process: {per_match:.1f} ms CPU per match")
    if not run.reports:
        return
    batches = run.reports
    worker = sum(b.seconds for b in batches)
    overhead = sum(b.overhead for b in batches)
    playing = sum(b.playing for b in batches)
    commit = sum(b.commit for b in batches)
    sizes = [b.matches for b in batches]
    sent, size = sum(b.sent_bytes for b in batches), sum(b.record_bytes for b in batches)
    print(
        f"    {len(batches)} batches of {min(sizes)}-{max(sizes)} matches "
        f"(mean {sum(sizes) / len(sizes):.1f}); worker time {worker:.1f} s: "
        f"{overhead / worker:.0%} starting and stopping the referee and bots, "
        f"{playing / worker:.0%} playing "
        f"({playing / run.matches * 1000:.0f} ms a match)"
    )
    print(
        f"    coordinator: {commit / run.matches * 1000:.1f} ms a match writing records and "
        f"committing; records {size / run.matches / 1024:.1f} KiB a match, "
        f"{sent / run.matches / 1024:.1f} KiB sent (zlib, {size / max(sent, 1):.1f}x)"
    )


if __name__ == "__main__":
    main()
