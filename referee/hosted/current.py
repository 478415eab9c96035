"""Which rows of a contest's standings are current: by default, one per account.

The contest rates each hosted version as an entrant of its own, `ACCOUNT@SHORTID`
(referee.hosted.roster.entrant), so an account that replaced its version has a row per version.
The standings people read show each account's active version and every bot that connects by
itself (a network bot, a ladder's bot); the rows of retired versions (no longer active) stay in
the book, with their matches and ratings, and are shown on request (`croupier ladder standings
--all`, the site's `?all=1` and its collapsed list). The site and the CLI both ask here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.hosted.store import Listing, VersionId, entrant
from referee.ratings.standings import Row, Standings, among_shown


@dataclass(frozen=True, slots=True)
class Entrant:
    """Who a row of the standings (or a bot's page) is."""

    #: The account: a hosted version's author, or a bot that connects by itself (its own name).
    account: str
    #: The hosted version playing under this name; None for a bot that connects by itself.
    version: VersionId | None
    #: Shown by default: a bot that connects by itself, or its account's active version.
    current: bool
    #: The versions its account submitted, whatever became of them (issue 45's selection
    #: honesty: a reader judges a best-of-N); None for a bot that connects by itself.
    tried: int | None = None

    def fields(self) -> dict[str, Any]:
        """What the JSON of a standings row adds for its entrant."""
        return {
            "account": self.account,
            "version": self.version,
            "current": self.current,
            "versions_tried": self.tried,
        }


def entrants(bots: Iterable[str], listing: Listing) -> dict[str, Entrant]:
    """Each of `bots` (entrants' names) as the store's `listing` says: a name that is no hosted
    version's is a bot that connects by itself, always current."""
    hosted = {entrant(version): version for version in listing.versions}
    tried = Counter(version.account for version in listing.versions)
    found: dict[str, Entrant] = {}
    for bot in bots:
        version = hosted.get(bot)
        if version is None:
            found[bot] = Entrant(bot, None, True, tried.get(bot))
        else:
            active = version.id in listing.active
            found[bot] = Entrant(version.account, version.id, active, tried[version.account])
    return found


@dataclass(frozen=True, slots=True)
class Split:
    """The standings split into what is shown by default and what is not."""

    #: The current rows, ranked 1, 2, ... among themselves (a retired row leaves no gap).
    current: Standings
    #: The rows of retired versions, ranked as in the whole field.
    retired: tuple[Row, ...]


def split(standings: Standings, listing: Listing) -> Split:
    """The standings' current rows apart from their retired versions' rows (`entrants`)."""
    who = entrants((row.bot for row in standings.rows), listing)
    shown = [row for row in standings.rows if who[row.bot].current]
    shared = among_shown(standings, [row.bot for row in shown])
    ranked = tuple(
        replace(row, rank=rank, rank_top=shared[row.bot][0], rank_bottom=shared[row.bot][1])
        if row.bot in shared
        else replace(row, rank=rank)
        for rank, row in enumerate(shown, start=1)
    )
    retired = tuple(row for row in standings.rows if not who[row.bot].current)
    return Split(replace(standings, rows=ranked), retired)


def shown(standings: Standings, listing: Listing, *, everything: bool) -> Standings:
    """The standings as shown: the current rows, or with `everything` the whole field."""
    return standings if everything else split(standings, listing).current


def to_dict(
    standings: Standings,
    listing: Listing,
    *,
    everything: bool,
    teams: Mapping[str, tuple[str, ...]] | None = None,
) -> dict[str, Any]:
    """`Standings.to_dict` of the standings `shown`, each row with its account, version,
    whether it is current and its team's `members` (from `teams`, leader first: none for a
    ladder), and `all`: whether retired versions are in (the CLI's `--format json` and the
    site's /api/v1/standings)."""
    data = shown(standings, listing, everything=everything).to_dict()
    who = entrants((row["bot"] for row in data["standings"]), listing)
    data["standings"] = [row | who[row["bot"]].fields() for row in data["standings"]]
    for row in data["standings"]:
        row["members"] = list((teams or {}).get(row["account"], ()))
    return data | {"all": everything}
