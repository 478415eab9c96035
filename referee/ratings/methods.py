"""Rating methods: what a competition's ratings are fitted by, and what each can do.

A competition's plan names its method (`Plan.system`, kept in its database); everything outside
this package asks the method (`named`) rather than compare names: what its ratings are called,
whether they carry intervals, whether an SPRT can run on them. The method is chosen once, by
`chosen`: Elo where two sides of one bot each meet, the batch Plackett-Luce fit otherwise.

A new method is a class with this protocol's members and one line in `_METHODS`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol

from referee.games.base import Game as GameRules
from referee.games.options import Options
from referee.ratings import fits
from referee.ratings.batch_fit import BOOTSTRAP_REPLICATES, BOOTSTRAP_SEED
from referee.ratings.intervals import Estimates
from referee.results.matches import MatchResult

Fitted = tuple[dict[str, fits.Rating], Estimates | None]


class RatingMethod(Protocol):
    """How a competition's ratings are fitted from its results, and what they are."""

    #: The name a plan keeps in its database (and the site's JSON shows as `rating`).
    name: str
    #: What a rating is called: a table's column, a plot's title.
    heading: str
    label: str
    #: Whether a rating comes with a 95% interval (on the Elo scale, with two deals or more).
    has_intervals: bool
    #: Whether an SPRT can run on it: a logistic Elo difference between two bots.
    sprt: bool
    #: Seconds per result before a point of the ratings over time (the report's estimate).
    point_cost: float

    def fit(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> Fitted:
        """The ratings over `results` (bots not yet rated absent) and their joint covariance."""
        ...

    def over_time(
        self,
        results: Sequence[MatchResult],
        duplicate: bool,
        rotations: int,
        bots: Sequence[str],
        ks: Sequence[int],
    ) -> list[tuple[int, dict[str, fits.Rating]]]:
        """The ratings over the first k of `results`, for each k (a plot of ratings over time)."""
        ...

    def for_pairing(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> dict[str, fits.Rating]:
        """The ratings a contest pairs by, refitted every few seconds: no bootstrap needed
        (bench/pairing_fit.py measures what the batch fit would cost)."""
        ...

    def description(self, duplicate: bool) -> str:
        """How the ratings and their intervals were computed, in a line."""
        ...

    def note(self) -> str:
        """The same, short: the web site's line under its standings."""
        ...


class Elo:
    """The logistic (Bradley-Terry) model over all matches at once, with cluster-robust
    intervals (`fits.elo_fit`): two-player games."""

    name = "elo"
    heading = "Elo"
    label = "Elo"
    has_intervals = True
    sprt = True
    point_cost = 3e-6

    def fit(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> Fitted:
        return fits.elo_fit(fits.elo_games(results, duplicate, rotations), bots)

    def over_time(
        self,
        results: Sequence[MatchResult],
        duplicate: bool,
        rotations: int,
        bots: Sequence[str],
        ks: Sequence[int],
    ) -> list[tuple[int, dict[str, fits.Rating]]]:
        """Elo's games are made once for the longest prefix, not again for each k (most of a
        point's cost): the first k results' games are the first upto[k] games (a deal's once
        it is complete)."""
        if not ks:
            return []
        games: list[fits.Game] = []
        upto = [0]
        waiting: defaultdict[int, list[MatchResult]] = defaultdict(list)
        for result in results[: max(ks)]:
            if duplicate and rotations > 1:  # a deal counts once it is complete
                deal = waiting[result.match.deal]
                deal.append(result)
                if len(deal) == rotations:
                    games += fits.elo_games(deal, duplicate, rotations)
            else:
                games += fits.elo_games((result,), duplicate)
            upto.append(len(games))
        return [(k, fits.elo(games[: upto[k]], bots)) for k in ks]

    def for_pairing(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> dict[str, fits.Rating]:
        return fits.elo(fits.elo_games(results, duplicate, rotations), bots)

    def description(self, duplicate: bool) -> str:
        unit, units = ("deal", "deals") if duplicate else ("match", "matches")  # not "matchs"
        return (
            "ratings: Elo fitted over all matches at once; 95% intervals cluster-robust (one "
            f"{unit} one observation, small-sample t over the {units}); rank 95%: the rank's "
            "interval over draws from them"
        )

    def note(self) -> str:
        return "rating: Elo, with its 95% interval; score: mean score per match"


class PlackettLuce:
    """The batch Plackett-Luce fit over all matches at once, with cluster-bootstrap intervals
    (`fits.batch_fitted`): tables of three sides or more, and teams."""

    name = "plackett-luce"
    heading = "rating"
    label = "batch Plackett-Luce rating"
    has_intervals = True
    sprt = False
    point_cost = 5e-5

    def fit(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> Fitted:
        return fits.batch_fitted(results, duplicate, bots, rotations)

    def over_time(
        self,
        results: Sequence[MatchResult],
        duplicate: bool,
        rotations: int,
        bots: Sequence[str],
        ks: Sequence[int],
    ) -> list[tuple[int, dict[str, fits.Rating]]]:
        return [(k, self.fit(results[:k], duplicate, rotations, bots)[0]) for k in ks]

    def for_pairing(
        self, results: Sequence[MatchResult], duplicate: bool, rotations: int, bots: Sequence[str]
    ) -> dict[str, fits.Rating]:
        """openskill's running estimate: the batch fit's point estimate is cheaper among 50 bots
        but 2.6 times as dear among 200 (1.1 s of CPU over 10,000 matches of four seats,
        bench/pairing_fit.py), and a refit may take only a `Spacing` share of the time."""
        return fits.openskill(results, duplicate, rotations)

    def description(self, duplicate: bool) -> str:
        units = "deals" if duplicate else "matches"
        return (
            "ratings: a batch Plackett-Luce fit over all matches at once, on the Elo scale; 95% "
            f"intervals and rank 95% from a cluster bootstrap resampling whole {units} "
            f"(B {BOOTSTRAP_REPLICATES}, seed {BOOTSTRAP_SEED}; small-sample t over the {units})"
        )

    def note(self) -> str:
        return (
            "rating: a batch Plackett-Luce fit on the Elo scale, its 95% interval from a cluster "
            "bootstrap; score: mean rank score"
        )


ELO = Elo()
PLACKETT_LUCE = PlackettLuce()
_METHODS: dict[str, RatingMethod] = {
    ELO.name: ELO,
    PLACKETT_LUCE.name: PLACKETT_LUCE,
    # Databases from before the batch fit name openskill: rated the same way now.
    "openskill": PLACKETT_LUCE,
}


def named(name: str) -> RatingMethod:
    """The method a plan names; a name no method has is a database this croupier cannot rate."""
    try:
        return _METHODS[name]
    except KeyError:
        raise ValueError(f"no rating method named {name!r}; known: {', '.join(_METHODS)}") from None


def chosen(game: GameRules, options: Options) -> RatingMethod:
    """The one rule: Elo where two sides of one bot each meet (two seats, no teams: XERI-R1
    makes four-player Xeri a game of two teams), the batch fit for every other table."""
    seats = game.seat_count(options)
    return ELO if seats == 2 and game.info.sides(seats) is None else PLACKETT_LUCE
