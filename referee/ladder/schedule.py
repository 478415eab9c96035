"""Who meets whom, in which seats, with which deal: formats, seating, duplicate deals, seeds.

- Competitors are bots, or in team games teams (a pair of bots, possibly one bot twice).
- A *table* is the competitors of one pairing: two for two-sided games; for games of N seats,
  every N-bot combination (or, with fewer bots than seats, every multiset of N bots that seats
  each bot at least once).
- Seats rotate: rotation r moves everyone r seats on, so over a table's rotations every
  competitor holds every seat equally often (partners keep sitting opposite each other).
- Duplicate deals: a deal (one seed, hence one deck order and chance stream) is played once in
  every rotation, so each competitor holds each hand; without them every match has its own deal.
- Seeds anyone can check: deal d's seed is `referee.match.seeds.derive_seed(master, d)` (keyed
  by the master seed), whose SHA-256 is published when the ladder starts and which is revealed
  when it ends.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from referee.games.base import Game
from referee.games.options import Options
from referee.ladder.config import Format, LadderConfig, team_game
from referee.match.seeds import commitment, derive_seed, new_master_seed
from referee.results.matches import MatchResult, ScheduledMatch

__all__ = ["commitment", "derive_seed", "new_master_seed"]  # re-exported: the ladder's seeds

#: Pairing search steps before a Swiss round settles for a rematch.
_SWISS_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Entrant:
    """A competitor: one bot, or a team's two bots in seat order."""

    name: str
    members: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """Which seats each side holds before rotation: `sides[k]` for side k, members in order."""

    seats: int
    sides: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, game: Game, options: Options) -> Layout:
        seats = game.seat_count(options)
        return cls(seats, game.info.sides(seats) or tuple((seat,) for seat in range(seats)))

    @property
    def rotations(self) -> int:
        return self.seats

    def seating(
        self, table: Sequence[Entrant], rotation: int
    ) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """(bot per seat, side per seat) for `table` in `rotation`: seat s holds what seat
        s - rotation holds in rotation 0."""
        bots = [""] * self.seats
        sides = [0] * self.seats
        for side, (entrant, seats) in enumerate(zip(table, self.sides, strict=True)):
            for member, seat in zip(entrant.members, seats, strict=True):
                bots[seat] = member
                sides[seat] = side
        order = [(seat - rotation) % self.seats for seat in range(self.seats)]
        return tuple(bots[s] for s in order), tuple(sides[s] for s in order)


def entrants(config: LadderConfig) -> list[Entrant]:
    if team_game(config.game, config.options):
        return [Entrant("+".join(team), team) for team in config.teams]
    return [Entrant(bot.name, (bot.name,)) for bot in config.bots]


def _overlap(table: Sequence[Entrant]) -> bool:
    """Two teams that share a bot cannot meet: the bot would play against itself."""
    seen: set[str] = set()
    for entrant in table:
        members = set(entrant.members)
        if members & seen:
            return True
        seen |= members
    return False


def _groups(pool: Sequence[Entrant], size: int) -> Iterable[tuple[Entrant, ...]]:
    """Every `size`-group of the pool; with fewer competitors than places, every multiset that
    includes each one (so 2 bots at 4 seats meet as 3+1, 2+2 and 1+3)."""
    if len(pool) >= size:
        yield from itertools.combinations(pool, size)
        return
    for extra in itertools.combinations_with_replacement(pool, size - len(pool)):
        yield tuple(sorted((*pool, *extra), key=pool.index))


def tables(config: LadderConfig, field: Sequence[Entrant]) -> list[tuple[Entrant, ...]]:
    """The tables of a round-robin or a gauntlet, in a fixed order."""
    sides = len(Layout.of(config.game, config.options).sides)
    if config.format is Format.GAUNTLET:
        champions = [e for e in field if set(e.members) & set(config.challengers)]
        others = [e for e in field if not set(e.members) & set(config.challengers)]
        found = [(champion, *rest) for champion in champions for rest in _groups(others, sides - 1)]
    else:
        found = list(_groups(field, sides))
    if team_game(config.game, config.options):
        return [table for table in found if not _overlap(table)]
    return found


def plan(
    config: LadderConfig,
    master: str,
    tables_: Sequence[tuple[Entrant, ...]],
    *,
    round_: int = 1,
    first_number: int = 1,
    first_deal: int = 1,
) -> list[ScheduledMatch]:
    """The matches of one round: `matches_per_pairing` at every table, interleaved so that
    every table progresses together (early standings already compare like with like).

    With duplicate deals each deal is played in every rotation, back to back; without, match k
    of a table plays rotation k mod seats with its own deal."""
    layout = Layout.of(config.game, config.options)
    matches: list[ScheduledMatch] = []
    number, deal = first_number, first_deal
    turns = layout.rotations
    cycles = config.matches_per_pairing // turns if config.duplicate else config.matches_per_pairing
    for cycle in range(cycles):
        for table_number, table in enumerate(tables_, start=1):
            names = tuple(entrant.name for entrant in table)
            rotations = range(turns) if config.duplicate else [cycle % turns]
            for rotation in rotations:
                bots, sides = layout.seating(table, rotation)
                matches.append(
                    ScheduledMatch(
                        number=number,
                        round=round_,
                        table=table_number,
                        deal=deal,
                        rotation=rotation,
                        seed=derive_seed(master, deal),
                        bots=bots,
                        sides=sides,
                        entrants=names,
                    )
                )
                number += 1
                if not config.duplicate:
                    deal += 1
            if config.duplicate:
                deal += 1
    return matches


def first_schedule(config: LadderConfig, master: str) -> list[ScheduledMatch]:
    """Everything a round-robin or gauntlet plays, or a Swiss ladder's first round."""
    field = entrants(config)
    if config.format is Format.SWISS:
        return swiss_round(config, master, [], [])
    return plan(config, master, tables(config, field))


def swiss_round(
    config: LadderConfig,
    master: str,
    scheduled: Sequence[ScheduledMatch],
    results: Sequence[MatchResult],
) -> list[ScheduledMatch]:
    """The next Swiss round, from the rounds before it (all finished): competitors ordered by
    points (a round's points: the table's mean match score; a bye: 1), then by the file's
    order; two-sided games avoid rematches where possible, N-seat games fill tables top down.
    The lowest-placed competitor with the fewest byes sits out when the field does not divide.
    """
    field = entrants(config)
    sides = len(Layout.of(config.game, config.options).sides)
    round_ = max((m.round for m in scheduled), default=0) + 1
    points: defaultdict[str, float] = defaultdict(float)
    per_round: dict[tuple[int, str], list[float]] = {}
    for result in results:
        for side, score in enumerate(result.side_results()):
            key = (result.match.round, result.match.entrants[side])
            per_round.setdefault(key, []).append(score)
    for (_, name), scores in per_round.items():
        points[name] += sum(scores) / len(scores)
    byes: Counter[str] = Counter()
    met: set[frozenset[str]] = set()
    for past in range(1, round_):
        playing = {name for match in scheduled if match.round == past for name in match.entrants}
        for entrant in field:
            if entrant.name not in playing:
                byes[entrant.name] += 1
                points[entrant.name] += 1
    for match in scheduled:
        met.add(frozenset(match.entrants))
    position = {entrant.name: index for index, entrant in enumerate(field)}
    order = sorted(field, key=lambda e: (-points[e.name], position[e.name]))
    sitting_out: list[Entrant] = []
    while len(order) % sides:
        out = min(reversed(order), key=lambda e: byes[e.name])
        order.remove(out)
        sitting_out.append(out)
    if sides == 2:
        paired = _pair(order, met, [_SWISS_BUDGET], team_game(config.game, config.options)) or [
            (order[i], order[i + 1]) for i in range(0, len(order), 2)
        ]
        chosen: list[tuple[Entrant, ...]] = list(paired)
    else:
        chosen = [tuple(order[i : i + sides]) for i in range(0, len(order), sides)]
    first_number = max((m.number for m in scheduled), default=0) + 1
    first_deal = max((m.deal for m in scheduled), default=0) + 1
    return plan(
        config, master, chosen, round_=round_, first_number=first_number, first_deal=first_deal
    )


def _pair(
    order: list[Entrant], met: set[frozenset[str]], budget: list[int], teams: bool
) -> list[tuple[Entrant, Entrant]] | None:
    """Pair the field top down with no rematch and no shared bot, backtracking; None if the
    search budget runs out or no such pairing exists."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for index, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if frozenset((first.name, other.name)) in met or (teams and _overlap((first, other))):
            continue
        tail = _pair(rest[:index] + rest[index + 1 :], met, budget, teams)
        if tail is not None:
            return [(first, other), *tail]
    return None


def rounds_planned(scheduled: Sequence[ScheduledMatch]) -> int:
    return max((m.round for m in scheduled), default=0)


def max_seats_per_bot(config: LadderConfig) -> Mapping[str, int]:
    """The most seats a bot can hold in one match: how many sessions each of its processes
    needs per slot (a bot partnering itself holds two; 2 bots at 4 seats hold up to 3)."""
    layout = Layout.of(config.game, config.options)
    field = entrants(config)
    most: Counter[str] = Counter()
    if len(layout.sides) == 2 and team_game(config.game, config.options):
        for entrant in field:
            for bot, count in Counter(entrant.members).items():
                most[bot] = max(most[bot], count)
        return most
    for spec in config.bots:
        most[spec.name] = max(1, layout.seats - len(field) + 1)
    return most
