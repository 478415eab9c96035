"""bench/serve_capacity.py's smoke run (--quick: 10 matches held 3 s against a real `croupier
serve`), so that the bench cannot rot: it holds its matches with no fault and reports each
figure."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "serve_capacity.py"


def test_quick_run_holds_ten_matches() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--gc"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    row = re.search(r"^\s+10\s+(\d+) \(\s*(\d+)\)\s+[\d.]+\s+(\d+)\s+(\d+)\s+(\d+)%", out, re.M)
    assert row is not None, out
    mean, least, rate, faults, cpu = map(int, row.groups())
    assert (mean, least, faults) == (10, 10, 0), out
    assert rate > 0
    assert cpu > 0
    assert "garbage collections of 1 ms or more" in out
    assert re.search(r"referee's own lag \(records' lagMs\), [1-9]\d* decisions", out), out
    assert "largest count held with 0 harness faults: 10" in out
