"""How long `croupier ladder verify` and `ladder report` take on a big XIX ladder (issue 24.6).

Makes a real ladder database of N XIX matches (default 10,000) quickly: the ladder's own runner,
schedule, records and SQLite commits, with the matches played in this process between the SDK's
random bots (`InProcessVenue`, a venue of the bench's own: launching bot processes would take
the bench longer than what it measures). Then runs the CLI commands as a user would, each in a
fresh process, and prints their wall time:

- `ladder verify` cold (nothing verified before), then warm (every record unchanged: hashed
  again, not replayed);
- `ladder report` cold (an empty folder), then warm (nothing new), the index's size and the
  number of index pages.

Targets (quiet machine, 2 cores): verify 10,000 matches in under 60 s, report them in under
120 s. Run: .venv/bin/python bench/audit_scale.py [--matches 10000] [--workers N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from croupier.bots import RandomBot
from referee import transport
from referee.ladder import LadderObserver, run_ladder
from referee.ladder.config import LadderConfig, parse
from referee.ladder.venue import Work, match_id, record_path
from referee.match.records import partial_path
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.results.database import Finished

ROOT = Path(__file__).resolve().parent.parent


class InProcessVenue:
    """Plays each match in this process between random bots (seeded by the match's number):
    the ladder's records and commits, without bot processes."""

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        while (match := await work.next()) is not None:
            final = record_path(config, match.number)
            seats = []
            for seat, bot in enumerate(match.bots):
                player = InProcessSeat(RandomBot(match.number * 8 + seat))
                player.name = bot
                seats.append(player)
            started = time.monotonic()
            outcome = await run_match(
                MatchConfig(
                    game=config.game,
                    options=config.options,
                    seed=match.seed,
                    match_id=match_id(config, match.number),
                    time_control=config.time_control,
                    max_faults=config.max_faults,
                ),
                seats,
                partial_path(final),
            )
            await work.settle(
                Finished(
                    match=match,
                    match_id=match_id(config, match.number),
                    record=final,
                    record_sha256="",
                    result=outcome.result,
                    faults=outcome.faults,
                    seconds=time.monotonic() - started,
                )
            )


def ladder_text(per_pairing: int) -> str:
    return f"""
game = "xix"
root = "."
matches_per_pairing = {per_pairing}
duplicate = true
seed = "audit-scale"

[[bot]]
name = "north"
command = "none"

[[bot]]
name = "south"
command = "none"

[[bot]]
name = "east"
command = "none"

[[bot]]
name = "west"
command = "none"
"""


def make_ladder(folder: Path, matches: int) -> Path:
    """A finished XIX ladder of about `matches` matches (a multiple of 12) in `folder`."""
    per_pairing = max(2, round(matches / 6 / 2) * 2)  # four bots: six pairings, two seat orders
    folder.mkdir(parents=True, exist_ok=True)
    config = parse(ladder_text(per_pairing), folder / "bench.toml")
    config = config.kept_in(folder / "ladder.sqlite", folder / "records")
    began = time.perf_counter()
    summary = transport.run(run_ladder, config, None, None, InProcessVenue())
    done = summary.standings.matches_done
    size = sum(p.stat().st_size for p in config.placement.records.glob("*.jsonl"))
    print(
        f"ladder: {done} XIX matches made in {time.perf_counter() - began:.0f} s; records "
        f"{size / done / 1024:.1f} KB each, {size / 2**20:.0f} MB in all"
    )
    return config.placement.database


def timed(label: str, command: list[str]) -> float:
    began = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - began
    tail = (run.stdout.strip().splitlines() or [""])[-1]
    print(f"  {label:<30} {seconds:8.1f} s   exit {run.returncode}   {tail}")
    if run.returncode not in (0, 1):
        print(run.stderr, file=sys.stderr)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000, help="about this many matches")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("--keep", type=Path, help="make (or reuse) the ladder in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="croupier-audit-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    database = folder / "ladder.sqlite"
    if not database.exists():
        make_ladder(folder, args.matches)
    croupier = [sys.executable, "-m", "referee.cli"]
    workers = ["--workers", str(args.workers)] if args.workers else []
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cpus} CPUs; load average before: {os.getloadavg()[0]:.2f}")
    verify = [*croupier, "ladder", "verify", str(database), *workers]
    out = folder / "report"
    report = [*croupier, "ladder", "report", str(database), "--html", str(out), *workers]
    cache = folder / "verified"
    env_cache = ["env", f"XDG_CACHE_HOME={cache}"]
    shutil.rmtree(cache, ignore_errors=True)  # cold: nothing replayed before
    timed("verify, cold", [*env_cache, *verify])
    timed("verify, warm (unchanged)", [*env_cache, *verify])
    shutil.rmtree(out, ignore_errors=True)  # cold: no report before
    timed("report, cold", report)
    timed("report, warm (unchanged)", report)
    index = out / "index.html"
    pages = sorted(out.glob("index*.html"))
    print(
        f"  index.html {index.stat().st_size / 1024:.0f} KB; {len(pages)} index pages, "
        f"largest {max(p.stat().st_size for p in pages) / 1024:.0f} KB"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.keep is None:
        print(f"(ladder kept in {folder}; delete it when done)")


if __name__ == "__main__":
    main()
