"""Luck corrections end to end (issue 28.3, 28.4): a real match's record carries each seat's
correction and verifies, a tampered correction or value function does not; a ladder of real bot
processes stores them, commits to the value function at its start and refuses to resume with
another; a schema 1 database is migrated; the margin rating by hand, in any order, ordering the
table when the ladder file says so.
"""

from __future__ import annotations

import json
import random
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee import transport
from referee.cli import app
from referee.ladder import load, run_ladder
from referee.match.luck import value_digest
from referee.match.replay import verify
from referee.ratings.margins import bot_margins
from referee.ratings.standings import Plan, compute
from referee.results.database import Finished, Store
from referee.results.matches import MatchResult
from tests.records_helpers import record_xix_match
from tests.test_head_to_head import played
from tests.test_ladder_run import HEURISTIC, RANDOM, xix_ladder

runner = CliRunner()


def xix_record(tmp_path: Path, seed: int = 11) -> tuple[Path, tuple[float, ...]]:
    path = tmp_path / f"luck-{seed}.jsonl"
    return path, record_xix_match(path, seed).luck


def rewrite_result(path: Path, change: dict[str, object]) -> None:
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    last["result"].update(change)
    lines[-1] = json.dumps(last, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")


def test_a_record_carries_each_seats_correction_and_verifies(tmp_path: Path) -> None:
    path, luck = xix_record(tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["header"]["schemaVersion"] == 2
    result = lines[-1]["result"]
    assert len(luck) == 2 and result["luck"] == list(luck)
    assert result["luckValue"] == value_digest("xix")
    assert any(value != 0 for value in luck)  # two chance nodes: a deal and the first leader
    report = verify(path)
    assert report.ok, report.problems


def test_a_tampered_correction_or_value_function_does_not_verify(tmp_path: Path) -> None:
    path, luck = xix_record(tmp_path)
    rewrite_result(path, {"luck": [luck[0] + 0.5, luck[1]]})
    assert "luck corrections" in verify(path).problems[0]
    path, luck = xix_record(tmp_path, seed=12)
    digest = value_digest("xix")
    assert digest is not None
    rewrite_result(path, {"luckValue": digest.replace(digest[-4:], "0000")})
    assert "value function" in verify(path).problems[0]
    path, _ = xix_record(tmp_path, seed=13)
    rewrite_result(path, {"luck": []})  # dropped from a schema 2 record
    assert "luck corrections" in verify(path).problems[0]


def test_the_same_seed_gives_the_same_corrections(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert xix_record(tmp_path / "a", 21)[1] == xix_record(tmp_path / "b", 21)[1]


def test_a_ladder_stores_corrections_and_commits_to_its_value_function(tmp_path: Path) -> None:
    path = xix_ladder(
        tmp_path, [HEURISTIC, RANDOM], 'matches_per_pairing = 4\nseed = "luck"\norder = "margin"'
    )
    config = load(path)
    summary = transport.run(run_ladder, config)
    assert summary.complete
    store = Store(config.placement.database, create=False)
    try:
        assert store.meta("luck_value") == value_digest("xix")
        results = store.results()
        assert results and all(r.luck is not None and len(r.luck) == 2 for r in results)
    finally:
        store.close()
    rows = summary.standings.rows
    assert all(row.margin is not None and row.corrected is not None for row in rows)
    margins = [row.margin or 0.0 for row in rows]
    assert margins == sorted(margins, reverse=True)  # order = "margin"
    shown = runner.invoke(
        app, ["ladder", "standings", str(config.placement.database), "--format", "json"]
    )
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["standings"][0]["corrected"] == rows[0].corrected
    table = runner.invoke(app, ["ladder", "standings", str(config.placement.database)])
    assert "luck-corrected" in table.output and "ordered by margin" in table.output
    # Another value function (a retuned V) may not resume the ladder.
    with sqlite3.connect(config.placement.database) as db:
        db.execute("UPDATE meta SET value = 'xix-hand-0:1234' WHERE key = 'luck_value'")
    again = runner.invoke(app, ["ladder", "run", str(path), "--no-live"])
    assert again.exit_code != 0
    assert "luck value function 'xix-hand-0:1234'" in again.output


def test_a_schema_1_database_is_migrated_and_keeps_its_matches(tmp_path: Path) -> None:
    database = tmp_path / "old.sqlite"
    store = Store(database, create=True)
    first = played(1, ("a", "b"), (10, 4))
    store.initialise({"plan": "{}"}, [first.match, replace(first.match, number=2)])
    store.commit(_finished(first, ()))
    store.close()
    with sqlite3.connect(database) as db:  # as schema 1 made it: no luck column
        db.execute("ALTER TABLE seats DROP COLUMN luck")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    store = Store(database, create=False)
    try:
        assert store.meta("schema_version") == "2"
        second = played(2, ("b", "a"), (7, 7))
        store.commit(_finished(second, (1.25, -1.25)))
        old, new = store.results()
        assert old.luck is None and old.scores == (10, 4)
        assert new.luck == (1.25, -1.25)
    finally:
        store.close()


def _finished(result: MatchResult, luck: tuple[float, ...]) -> Finished:
    from croupier.v1 import common_pb2

    seats = [
        common_pb2.SeatResult(seat=s, name=b, score=result.scores[s], rank=result.ranks[s])
        for s, b in enumerate(result.match.bots)
    ]
    return Finished(
        match=result.match,
        match_id=f"m{result.match.number}",
        record=Path(f"m{result.match.number}.jsonl"),
        record_sha256="",
        result=common_pb2.Result(seats=seats),
        faults=(),
        seconds=0.0,
        luck=luck,
    )


def test_margins_by_hand_and_in_any_order() -> None:
    results = [
        replace(played(1, ("a", "b"), (10, 4)), luck=(-2.0, 2.0)),
        replace(played(2, ("b", "a"), (6, 6)), luck=(0.5, -0.5)),
        replace(played(3, ("a", "b"), (3, 9)), luck=(1.0, -1.0)),
    ]
    raw = bot_margins(results, duplicate=False)
    assert raw["a"].mean == pytest.approx((6 + 0 - 6) / 3)
    assert raw["b"].mean == pytest.approx(0.0)
    corrected = bot_margins(results, duplicate=False, corrected=True)
    assert corrected["a"].mean == pytest.approx((4 - 0.5 - 5) / 3)
    shuffled = results[:]
    random.Random(3).shuffle(shuffled)
    assert bot_margins(shuffled, duplicate=False, corrected=True) == corrected
    # A match without corrections: no corrected margins at all, never a partial mean.
    assert bot_margins([*results, played(4, ("a", "b"), (1, 0))], False, corrected=True) == {}
    # One match: a mean with no interval, not a NaN.
    single = bot_margins(results[:1], duplicate=False)
    assert single["a"].low is None and single["a"].mean == 6


def test_teams_and_a_bot_at_several_seats_are_one_unit() -> None:
    teams = replace(played(1, ("a", "b", "a", "b"), (5, 2, 5, 2), sides=(0, 1, 0, 1)))
    teams = replace(teams, luck=(1.0, 0.0, 3.0, -4.0))
    raw = bot_margins([teams], duplicate=False)
    assert raw["a"].mean == 3 and raw["b"].mean == -3
    corrected = bot_margins([teams], duplicate=False, corrected=True)
    assert corrected["a"].mean == 5 and corrected["b"].mean == -5  # partners' mean correction


def test_the_ladder_file_picks_the_order_and_all_are_shown() -> None:
    results = [
        played(n, ("a", "b", "c"), scores)
        for n, scores in enumerate([(1, 0, 0), (1, 0, 0), (0, 1, 0), (0, 30, 0)], start=1)
    ]  # b wins less, by more
    plan = Plan("t", "xactika", {}, ("a", "b", "c"), "plackett-luce", False, 3, "round-robin")
    by_rating = compute(plan, results, [], scheduled=4, seed_sha256="")
    by_margin = compute(replace(plan, order="margin"), results, [], scheduled=4, seed_sha256="")
    assert by_rating.rows[0].bot == "a"
    assert by_margin.rows[0].bot == "b"
    assert {r.bot: r.margin for r in by_rating.rows} == {r.bot: r.margin for r in by_margin.rows}


def test_an_sprt_on_the_corrected_margin_decides_and_says_so(tmp_path: Path) -> None:
    path = xix_ladder(tmp_path, [HEURISTIC, RANDOM], 'matches_per_pairing = 60\nseed = "sprt"')
    run = ["ladder", "run", str(path), "--no-live", "--sprt", "0", "2", "0.05", "0.05"]
    result = runner.invoke(app, [*run, "--sprt-on", "corrected"])
    assert result.exit_code == 0, result.output
    store = Store(tmp_path / "ladder.sqlite", create=False)
    try:
        report = store.meta("sprt_report") or ""
        assert store.meta_json("sprt")["on"] == "corrected"
        assert len(store.results()) < 60  # decided before the schedule's end
    finally:
        store.close()
    assert "SPRT on corrected heuristic vs random" in report
    assert "H1 accepted (heuristic is at least 2 points of corrected margin stronger)" in report


def test_the_margin_sprt_by_hand() -> None:
    from referee.ratings.sprt import Sprt, sprt

    test = Sprt(0.0, 2.0, on="margin")
    assert sprt(test, [3.0]).verdict is None  # one unit: no variance yet
    units = [4.0, 2.0, 3.0, 5.0, 1.0, 3.0, 4.0, 2.0]
    mean, n = sum(units) / len(units), len(units)
    variance = sum((u - mean) ** 2 for u in units) / n
    state = sprt(test, units)
    assert state.llr == pytest.approx(n * 2.0 * (2 * mean - 2.0) / (2 * variance))
    assert state.verdict == "H1"
    assert sprt(test, [-u for u in units]).verdict == "H0"
    assert Sprt(0.0, 2.0, on="luck").check() is not None
