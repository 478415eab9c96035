"""Value functions of earlier croupier releases that give the same luck corrections as this
one's: their digests differ only because the sources the digest covers changed in their words
(a docstring, how the catalogue names a game's parts), not in their features or weights.

A record, a ladder or a contest committed to one of these digests is checked against this
referee's corrections as if it named this referee's own (referee.match.replay, the contest
book, the ladder runner): a release that edits a comment must not make every earlier record
fail to verify. A digest joins this table only with a test that replays a record made under it
(tests/test_luck_history.py); one whose corrections differ never does.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from referee.match.luck import value_digest

#: Per game id: digests of earlier releases whose corrections are this referee's.
SAME_CORRECTIONS: Final = MappingProxyType(
    {
        # Before the digest covered values.py and the engines' constants (issue 44.5).
        "xix": frozenset(
            {"xix-hand-1:b4d3e5b8bf9f652ff2e95b3b471c227d3f7596cc4f787bd302aa9f3d17a0c604"}
        ),
        "xactika": frozenset(
            {"xactika-hand-1:f5c85ddb1aecae7cf8597952491b23a1dee624634ae50b6a6750e85536e1455f"}
        ),
        "xeri": frozenset(
            {"xeri-deal-1:9b52db21d7fa4d5aeaa8ddebeedd2057aaf231da88ba09965e0fde2929929032"}
        ),
        "textactoe": frozenset(
            {"textactoe-jokers-2:ead94cdfeeb2bab4846728519f82e024d3ddef5837755f49b1cef114cdc1d767"}
        ),
    }
)


def same_corrections(game_id: str, digest: str | None) -> bool:
    """Whether corrections committed to `digest` are the ones this referee computes for the
    game: its own digest, or an earlier release's listed in SAME_CORRECTIONS."""
    current = value_digest(game_id) or ""
    return (digest or "") == current or (digest or "") in SAME_CORRECTIONS.get(game_id, ())
