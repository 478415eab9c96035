"""bench/luck_variance.py's core on a tiny pool of XIX deals (issue 28.5): every deal is played in
both rotations, the corrections it computes from each record are those the referee wrote, and the
ratios it reports are finite and positive."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

from referee.games.values import value_function

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))  # as when the file is run: it imports its siblings
    monkeypatch.setattr(sys, "path", list(sys.path))  # and it appends scripts/: undo that too
    spec = importlib.util.spec_from_file_location("luck_variance", BENCH / "luck_variance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "luck_variance", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_tiny_xix_pool(bench: ModuleType) -> None:
    pool = bench.play_pool("xix", 4, "test-luck-variance", jobs=1)
    assert len(pool) == 4
    for deal in pool:
        assert len(deal.margins) == 2
        if value_function("xix") is not None:
            # The referee wrote its own corrections on each result line: they agree with ours.
            assert (deal.checked, deal.mismatched) == (2, 0)
            assert deal.corrections is not None
            assert len(deal.corrections) == 2
    row = bench.summarise(pool)
    assert (row.deals, row.seats) == (4, 2)
    assert row.plain > 0
    assert set(row.ratios) == {"duplicate", "correction", "both"}
    for method in ("duplicate", "correction", "both"):
        ratio = row.ratios[method]
        if method == "duplicate" or value_function("xix") is not None:
            assert ratio is not None
            assert math.isfinite(ratio.value)
            assert ratio.value > 0
            assert 0 < ratio.low <= ratio.high
