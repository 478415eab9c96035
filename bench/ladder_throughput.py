"""Ladder throughput: persistent bots against a bot process launched per match, same ladder.

The same XIX ladder (the heuristic against the random bot, duplicate deals, one master seed, so
the very same deals) runs twice through `croupier ladder`'s runner, records and SQLite included:
once with persistent bots (`launch = "per-slot"`: each bot launched once per concurrent slot,
playing every match over its session), once with `launch = "per-match"`, a fresh process per
bot per match that is ended afterwards, the way stdin/stdout harnesses work. Prints wall time,
matches per second and the speed-up (target: at least 5x).

Run: .venv/bin/python bench/ladder_throughput.py [--matches 1000] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from referee import transport
from referee.ladder import run_ladder
from referee.ladder.config import Launch, parse

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches in the ladder")
    parser.add_argument("--concurrency", type=int, default=2, help="matches at once")
    args = parser.parse_args()
    matches = args.matches + args.matches % 2  # two seat rotations per deal
    with tempfile.TemporaryDirectory() as folder:
        base = parse(ladder_text(matches, args.concurrency), Path(folder) / "bench.toml")
        print(f"XIX ladder: {matches} matches, concurrency {args.concurrency}, records + SQLite")
        print(f"{'launch':<10} {'matches':>7} {'seconds':>8} {'matches/s':>10} {'heuristic':>10}")
        seconds: dict[Launch, float] = {}
        for launch in (Launch.PER_SLOT, Launch.PER_MATCH):
            config = replace(
                base,
                launch=launch,
                database=Path(folder) / f"{launch}.sqlite",
                records=Path(folder) / f"{launch}-records",
            )
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
