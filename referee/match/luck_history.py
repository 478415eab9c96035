"""Earlier releases' value functions that give this release's luck corrections.

A digest (referee.match.luck.value_digest) covers the sources a value function depends on, so
a release that only rewords them (a docstring, how the catalogue names a game's parts) changes
it without changing one correction. The game's catalogue entry lists such earlier digests
(`GameInfo.earlier_values`); a record, ladder or contest committed to one is checked as if it
named this referee's own (referee.match.replay, the contest book, the ladder runner), so that
earlier records still verify. This module stays apart from luck's, which the digest covers.
"""

from __future__ import annotations

from referee.games.catalog import CATALOG
from referee.match.luck import value_digest


def same_corrections(game_id: str, digest: str | None) -> bool:
    """Whether corrections committed to `digest` are the ones this referee computes for the
    game: its own digest, or an earlier release's its catalogue entry lists."""
    given = digest or ""
    info = CATALOG.get(game_id)
    listed = info is not None and given in info.earlier_values
    return listed or given == (value_digest(game_id) or "")
