"""How long `croupier ladder report` takes for a ladder of N matches, cold and warm.

Plays a real ladder first (an example ladder scaled to about N matches, real bot processes,
SQLite and records), then times the report: from scratch in this one process, from scratch with
a process pool (one process per CPU), again with nothing new (the regeneration of a report that
is up to date), and after a tenth of its match pages were deleted. Also prints the ratings over
time alone (one point per committed match, each computed by the ladder's own rating functions
over the matches before it), which grows with N squared.

Run: .venv/bin/python bench/report_speed.py [--ladder xix|xactika] [--matches 400]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from referee import transport
from referee.ladder import load, run_ladder
from referee.ladder.schedule import entrants, tables
from referee.ratings.standings import from_store
from referee.results.database import Store
from referee.web.report import PAGES, rating_points, write_report

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ladder", choices=["xix", "xactika"], default="xix")
    parser.add_argument("--matches", type=int, default=400, help="about this many matches")
    args = parser.parse_args()
    config = load(ROOT / "examples" / "ladders" / f"{args.ladder}.toml")
    count = len(tables(config, entrants(config)))
    seats = config.seats
    per_table = max(seats, round(args.matches / count / seats) * seats)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        config = replace(
            config.kept_in(base / "ladder.sqlite", base / "records"),
            matches_per_pairing=per_table,
            seed="report-speed",
        )
        started = time.perf_counter()
        summary = transport.run(run_ladder, config)
        played = summary.standings.matches_done
        size = sum(p.stat().st_size for p in config.placement.records.glob("*.jsonl"))
        print(
            f"{args.ladder} ladder: {played} matches played in "
            f"{time.perf_counter() - started:.1f} s; records {size / played / 1024:.0f} KB "
            f"each; {cpus} CPUs"
        )
        store = Store(config.placement.database, create=False)
        plan = from_store(store).plan
        results = store.results()
        store.close()
        started = time.perf_counter()
        rating_points(plan, results, range(1, len(results) + 1))
        print(f"  ratings over time alone ({plan.system}): {time.perf_counter() - started:.2f} s")
        print(f"  {'report':<34} {'seconds':>8} {'pages':>6} {'processes':>9}")

        def run(label: str, out: Path, pool: bool | None = None) -> None:
            report = write_report(config.placement.database, out, pool=pool)
            print(
                f"  {label:<34} {report.seconds:8.2f} {report.pages_written:6d} "
                f"{report.processes:9d}"
            )

        run("from scratch, this process", base / "one", pool=False)
        run("from scratch, a process pool", base / "pool", pool=True)
        run("again, nothing new", base / "pool")
        pages = sorted((base / "pool" / PAGES).glob("*.html"))
        for page in pages[::10]:
            page.unlink()
        run("again, a tenth of the pages gone", base / "pool")
        index = (base / "pool" / "index.html").stat().st_size
        print(f"  index.html: {index / 1024:.0f} KB")


if __name__ == "__main__":
    main()
