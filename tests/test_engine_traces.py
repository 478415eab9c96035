"""The engines show the referee exactly what revision 8d3b4b3's engines showed, over seeded games.

`tests/data/engine_traces.json` holds, per case of `tests/engine_trace.py`, the digests of the
traces (chance nodes, events, legal actions, every seat's observation at every state, results,
parsed actions) that 8d3b4b3's engines produced for seeds 0, 1, 2. An optimisation that changes
any of it fails here; `bench/engine_equivalence.py --against 8d3b4b3` then shows the first line
that differs. XIX's and Xactika's were regenerated once since, for the fields they gained
(`XixObservation.hand_sizes`, issue 24.2; `XactikaObservation.bids_v1`, issue 24.0), after
checking that their traces without that field still give 8d3b4b3's digests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine_trace import CASES, digest, trace

EXPECTED: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "engine_traces.json").read_text()
)


def test_every_case_has_digests() -> None:
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_traces_match_the_reference_engines(case: str) -> None:
    for seed, expected in enumerate(EXPECTED[case]):
        assert digest(trace(case, seed)) == expected, f"{case} seed {seed} differs"
