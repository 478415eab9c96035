"""Records made under an earlier release's value-function digest still verify (issue 44.5 made
the digest cover more sources, which changed it without changing one correction): each game's
`earlier_values` (referee.match.luck_history) is held to a record made under it, the golden
records as release bc1906d committed them. A digest that is not listed still refuses its
record."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.games.catalog import CATALOG
from referee.match.luck import value_digest
from referee.match.luck_history import same_corrections
from referee.match.replay import verify

HISTORY = Path(__file__).resolve().parent / "data" / "luck-history"


@pytest.mark.parametrize("game_id", sorted(CATALOG))
def test_a_record_of_an_earlier_digest_with_the_same_corrections_verifies(game_id: str) -> None:
    record = HISTORY / f"{game_id}-bc1906d.jsonl"
    found = verify(record)
    assert found.ok and found.luck_checked, found.problems
    made_under = record.read_text().splitlines()[-1]
    assert any(digest in made_under for digest in CATALOG[game_id].earlier_values)
    assert str(value_digest(game_id)) not in made_under  # an earlier digest, not today's


@pytest.mark.parametrize("game_id", sorted(CATALOG))
def test_an_unlisted_digest_still_refuses_its_record(game_id: str, tmp_path: Path) -> None:
    record = HISTORY / f"{game_id}-bc1906d.jsonl"
    (old,) = CATALOG[game_id].earlier_values
    name, _, digest = old.partition(":")
    forged = tmp_path / record.name
    forged.write_text(record.read_text().replace(digest, "0" * 64))
    assert not same_corrections(game_id, f"{name}:{'0' * 64}")
    found = verify(forged)
    assert not found.ok
    assert any("luck corrections made by value function" in p for p in found.problems)
