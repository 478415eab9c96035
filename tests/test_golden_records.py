"""A seeded match's record keeps the same chance lines, actions, events, faults and result before
and after a change (timings aside), one per game, against the committed copies in tests/golden/
(issue 29: the per-decision transport is rewritten for speed, and must not change what is played).

Each case is played by `croupier match` in a process of its own, as a user runs it: a loopback
gRPC server and real bot processes (tests/bots/digest_bot.py, whose every choice depends on all
the referee sent it). Its own process also starts the referee's request ids afresh, which fault
lines quote. Only what tests/golden_helpers.py's VARYING_* name is left out of the comparison.
When a change is meant to alter the records, regenerate them: `.venv/bin/python
scripts/golden_records.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.match.replay import verify
from tests.golden_helpers import CASES, GoldenCase, difference, normalise, play


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_seeded_match_plays_its_golden_record(tmp_path: Path, case: GoldenCase) -> None:
    assert case.path.exists(), f"{case.path} is missing: run scripts/golden_records.py"
    report = verify(case.path)  # the committed copy is a real record (replays, luck and all)
    assert report.ok, report.problems
    golden = normalise(case.path.read_text(encoding="utf-8"))
    fresh = normalise(play(case, tmp_path))
    if fresh != golden:
        pytest.fail(
            f"{case.name}: the match no longer plays its golden record {case.path.name}; "
            f"{difference(golden, fresh)}\n(on purpose? scripts/golden_records.py {case.name})",
            pytrace=False,
        )


def test_the_normalised_record_keeps_all_but_what_varies() -> None:
    """Timings, start time, version, computer and match id go; every other field stays."""
    header = (
        '{"header":{"schemaVersion":2,"matchId":"xix-abc123-0000","game":"xix","seats":'
        '[{"name":"digest","version":"1","cores":[3]}],"seed":"7","softwareVersion":"0.1.0",'
        '"startedAt":"2026-11-27T07:12:11+00:00","computer":{"host":"vm","cpus":2}}}'
    )
    action = (
        '{"action":{"seat":1,"index":3,"text":"play 9","elapsedMs":1,"lagMs":1,"cpuMs":1,'
        '"starvedMs":0,"defaulted":true}}'
    )
    result = '{"result":{"result":{"text":"seat 1 wins 19-0"},"luck":[2.868194,-2.868194]}}'
    assert normalise("\n".join([header, action, result])) == [
        '{"header":{"schemaVersion":2,"game":"xix","seats":[{"name":"digest","version":"1"}],'
        '"seed":"7"}}',
        '{"action":{"seat":1,"index":3,"text":"play 9","defaulted":true}}',
        result,
    ]


def test_a_difference_shows_where_the_records_part() -> None:
    golden = [f'{{"action":{{"index":{i}}}}}' for i in range(10)]
    fresh = [*golden[:6], '{"action":{"index":60}}', *golden[7:]]
    shown = difference(golden, fresh)
    assert shown.startswith("first difference at line 7 (golden has 10 lines")
    assert '\n  golden: {"action":{"index":6}}\n  now:    {"action":{"index":60}}\n' in shown
    assert '-{"action":{"index":6}}' in shown
    assert '+{"action":{"index":60}}' in shown
    shorter = difference(golden[:3], golden[:5])
    assert "first difference at line 4 " in shorter
    assert '  golden: (the end)\n  now:    {"action":{"index":3}}' in shorter
