"""Regenerate the golden records under tests/golden/: one seeded match per game, played by
`croupier match` (real gRPC, real bot processes: tests/bots/digest_bot.py) with the cases of
tests/golden_helpers.py, each stored with its clock readings, start time, software version,
computer and match id taken out. tests/test_golden_records.py plays them again and compares.

Regenerate only on purpose, when a change is meant to alter what a match plays or records (a
rules change, a new record field), never to make a failing comparison pass; review the diff.

    .venv/bin/python scripts/golden_records.py              # every case
    .venv/bin/python scripts/golden_records.py xix xeri     # only these (names: tests/golden/)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.golden_helpers

from tests.golden_helpers import CASES, ROOT, write


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [case.name for case in CASES]
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"one of {', '.join(names)}")
    chosen = parser.parse_args().cases or names
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}; the cases are {', '.join(names)}")
    with tempfile.TemporaryDirectory(prefix="croupier-golden-") as folder:
        for case in CASES:
            if case.name in chosen:
                count = write(case, Path(folder))
                print(f"{case.path.relative_to(ROOT)}: {count} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
