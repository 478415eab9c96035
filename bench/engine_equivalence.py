"""Do this checkout's engines show the referee exactly what a git revision's engines showed?

Plays `--games` seeded random games of every case of `tests/engine_trace.py` (every game, with
every option and variation) with the engines of REV, checked out in a temporary worktree, and
with this checkout's, each in its own process, and compares the traces: chance nodes, events
(text, payload bytes, seats), legal actions (text, protocol bytes, what parse_action makes of
the text), every seat's observation at every state (bytes), results. For a game that differs
it prints the first line that differs. Exits 1 if any game differs.

Run: `.venv/bin/python bench/engine_equivalence.py --against 8d3b4b3 [--games 10]`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from game_speed import ROOT, revision_worktree, run_with_engines

TRACE = ROOT / "tests" / "engine_trace.py"


def first_difference(old: list[str], new: list[str]) -> str:
    for number, (before, after) in enumerate(zip(old, new, strict=False)):
        if before != after:
            return f"line {number}:\n  old {before[:300]}\n  new {after[:300]}"
    return f"one trace is a prefix of the other ({len(old)} against {len(new)} lines)"


def main() -> None:
    parser = argparse.ArgumentParser(description="Compare engine traces with a git revision's.")
    parser.add_argument("--against", required=True, metavar="REV", help="the reference revision")
    parser.add_argument("--games", type=int, default=10, help="seeded games per case")
    args = parser.parse_args()
    with revision_worktree(args.against) as old_root:

        def run(root: Path, *arguments: str) -> dict[str, Any]:
            reply: dict[str, Any] = json.loads(run_with_engines(root, TRACE, list(arguments)))
            assert Path(reply["engines"]) == root, f"ran {reply['engines']}, not {root}"
            return reply

        old_reply = run(old_root, "digests", "--games", str(args.games))
        new_reply = run(ROOT, "digests", "--games", str(args.games))
        old, new = old_reply["digests"], new_reply["digests"]
        differing = [
            (case, seed)
            for case in sorted(old)
            for seed, (before, after) in enumerate(zip(old[case], new[case], strict=True))
            if before != after
        ]
        for case, seed in differing:
            old_lines = run(old_root, "lines", case, str(seed))["lines"]
            new_lines = run(ROOT, "lines", case, str(seed))["lines"]
            print(f"{case} seed {seed} differs at {first_difference(old_lines, new_lines)}")
    games = sum(len(digests) for digests in old.values())
    print(
        f"{games - len(differing)} of {games} games identical ({len(old)} cases of "
        f"{args.games} seeded games, {old_reply['decisions']} decisions) against {args.against}"
    )
    if differing:
        sys.exit(1)


if __name__ == "__main__":
    main()
