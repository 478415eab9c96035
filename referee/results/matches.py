"""The values a ladder passes around: a scheduled match, a finished match's result, sides.

A *side* is one competitor at a table: a bot, or a team (Xeri with 4 players: two seats, a pair
of bots). Statistics work on sides, standings on bots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.games.values import margins


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of the schedule; everything about it is fixed before it is played."""

    #: 1-based place in the schedule; also names the match (`<ladder>-<number>`) and its record.
    number: int
    #: Swiss round (1-based); 1 for round-robin and gauntlet.
    round: int
    #: The table (the competitors that meet) within its round.
    table: int
    #: The deal: matches with the same deal share the seed, hence the whole chance stream.
    deal: int
    #: Which rotation of the seats this match plays (0 .. seats-1).
    rotation: int
    seed: int
    #: The bot in each seat.
    bots: tuple[str, ...]
    #: The side (index into `entrants`) of each seat.
    sides: tuple[int, ...]
    #: The table's competitors, by side: a bot's name, or a team's (`a+b`).
    entrants: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A finished, committed match as the statistics see it."""

    match: ScheduledMatch
    #: Per seat: the game score, and the rank (1 best, ties share; retired seats rank last).
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    #: Every fault of the match as (seat, reason), the reason in lower case (`timeout`).
    faults: tuple[tuple[int, str], ...] = ()
    #: Per seat: the luck correction of its margin (referee.match.luck), or None for a match
    #: recorded without one (a game with no value function, a ladder older than them).
    luck: tuple[float, ...] | None = None

    @property
    def side_count(self) -> int:
        return len(self.match.entrants)

    def side_ranks(self) -> list[int]:
        """Each side's rank: the best rank among its seats (partners share a rank anyway)."""
        ranks = [10**9] * self.side_count
        for seat, side in enumerate(self.match.sides):
            ranks[side] = min(ranks[side], self.ranks[seat])
        return ranks

    def side_scores(self) -> list[float]:
        """Each side's game points: the mean over its seats (partners hold the team's score)."""
        totals = [0.0] * self.side_count
        counts = [0] * self.side_count
        for seat, side in enumerate(self.match.sides):
            totals[side] += self.scores[seat]
            counts[side] += 1
        return [total / max(count, 1) for total, count in zip(totals, counts, strict=True)]

    def side_margins(self, *, corrected: bool = False) -> list[float]:
        """Each side's point margin: its points less the mean points of the other sides; with
        `corrected`, plus its seats' mean luck correction (referee.match.luck: partners'
        corrections estimate the same team margin). The margin rating's and its SPRT's unit."""
        out = list(margins(self.side_scores(), None))  # the value functions' own margin
        if corrected and self.luck is not None:
            luck = [0.0] * len(out)
            seats = [0] * len(out)
            for seat, side in enumerate(self.match.sides):
                luck[side] += self.luck[seat]
                seats[side] += 1
            out = [m + c / max(n, 1) for m, c, n in zip(out, luck, seats, strict=True)]
        return out

    def side_results(self) -> list[float]:
        """Each side's match score in [0, 1]: sides beaten plus half the sides tied, over the
        other sides. In two-sided games that is 1 for a win, 0.5 for a draw, 0 for a loss."""
        return match_scores(self.side_ranks())


def match_scores(ranks: Sequence[float]) -> list[float]:
    """Match scores in [0, 1] from ranks (lower is better): the chess score, generalised."""
    others = max(len(ranks) - 1, 1)
    return [
        sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0 for theirs in ranks) / others
        - 0.5 / others  # a side ties with itself
        for mine in ranks
    ]


def competition_ranks(keys: Sequence[tuple[float, ...]]) -> list[int]:
    """Ranks 1.. with ties sharing the better rank, lowest key first: (3, 1, 3) ranks (2, 1, 2)."""
    return [1 + sum(other < key for other in keys) for key in keys]


def complete_deals(
    results: Sequence[MatchResult], duplicate: bool, rotations: int
) -> list[MatchResult]:
    """The results every rating counts: with duplicate deals, those of deals whose `rotations`
    are all in (a partial deal, its duplicate half missing, would favour whoever held its good
    hands, so it waits until it is complete); without, all of them. One rule for Elo, the batch
    fit, the margins, the head-to-head and the SPRT."""
    if not duplicate or rotations <= 1:
        return list(results)
    played: dict[int, int] = {}
    for result in results:
        played[result.match.deal] = played.get(result.match.deal, 0) + 1
    return [r for r in results if played[r.match.deal] >= rotations]
