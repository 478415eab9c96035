"""Who sits down next in a contest, so that every bot plays about as often as the slowest.

A contest seats bots as they become idle, so with no rule a fast bot plays many matches while
a slow one plays few, mostly against the other fast bots (issue 24.4: 93 matches against 2,270).
Two rules keep it fair, whatever a bot's speed:

- `Pacing`: a table sits down only if it leaves no bot at it more than `max_lead` matches ahead
  of the slowest present bot (or further ahead than it already was): fast bots wait for it;
- `choose_table`: the idle bot with the fewest matches sits first, joined by the bots it has
  met least, then those with the fewest matches, the closest in rating, the longest waiting.

A new entrant (a new version of a hosted bot, a bot that just connected) also sits first while
its rating is *unsettled*, so that it reaches its place soon (CodinGame's authors complain that a
late submission never does): every entrant of the contest is unsettled but those the standings
do not mark provisional (referee.ratings.fits.provisional: rated, with their own 95% interval
at most PROVISIONAL_WIDTH times the median of the rated entrants'). Why that rule:

- the median, not the mean, of every rated entrant's interval (the retired versions' too, each
  with all its matches): a few new versions, however wide, barely move it;
- a margin over the median: half the field is wider than its median by definition, and an
  entrant that wins (or loses) nearly every match has a wider interval than an even one after
  as many matches; with no margin these would sit first for good. Twice the median is about a
  quarter of the field's typical matches (the interval narrows as 1/sqrt(matches));
- it is the provisional mark authors see beside a rating: a version sits first exactly while
  its rating is marked so.

The head start is bounded by `Pacing` all the same: an unsettled entrant sits first only while
it is free, so it gets at most `max_lead` matches ahead of the slowest present bot, and no one
waits longer than that rule lets them.

Two rules keep a bot's opponents and seats spread (issue 42.5: a late entrant's provisional
matches went 22 of 24 against the weakest bot, which came back from each of their matches as it
did, while the others were still playing; and the bot that sat first always took seat 0):

- a bot meets no opponent more than once more than the present bot it has met least (those
  playing included), unless it has waited `rematch_wait` (a few seconds, or two matches'
  length on a busy machine) for one of them to come back;
- `seat_order`: each bot at a table takes the seat it has sat in least, so that over a contest
  every bot sits in every seat about as often.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

#: How long an idle bot waits at least for an opponent it has met less often to come back from
#: its match, rather than meet again the one that came back beside it (seconds): a few matches'
#: length, a small price for an even spread of opponents.
REMATCH_WAIT_SECONDS = 3.0

#: ... and at most, in matches' lengths (`rematch_wait`): on a busy machine a match takes
#: longer than REMATCH_WAIT_SECONDS, and a wait of fixed seconds would give up on an opponent
#: mid-match every time (issue 50).
REMATCH_WAIT_MATCHES = 2.0


def rematch_wait(took: Sequence[float]) -> float:
    """How long a bot waits for an opponent it has met less often, given how long recent
    matches `took` (seconds): REMATCH_WAIT_MATCHES times the longest, REMATCH_WAIT_SECONDS at
    least. The longest, not a median: the opponent waited for is often the slow one, whose
    matches a field of fast bots would outnumber (a late entrant met the fast bot 7 times in
    12 on a busy machine)."""
    return max(REMATCH_WAIT_SECONDS, REMATCH_WAIT_MATCHES * max(took, default=0.0))


class Seatable(Protocol):
    """What pairing needs of a seat's claimant: a session, or a hosted version on a cluster."""

    @property
    def identity(self) -> str: ...


S = TypeVar("S", bound=Seatable)


class Pacing:
    """Each bot's match count in this run of the contest, and who is present.

    A bot is present while it has a session open or a match going, and for `grace` seconds
    after (it may be reconnecting), so a bot that left does not hold the others up. A bot that
    arrives (or comes back) more than `max_lead` matches behind the slowest present bot is
    credited up to `max_lead` behind it: it catches up first, but does not stop everyone else
    until it has played every match it missed.
    """

    def __init__(self, max_lead: int, grace: float) -> None:
        if max_lead < 1:
            raise ValueError(f"max_lead must be at least 1, got {max_lead!r}")
        self.max_lead = max_lead
        self.grace = grace
        #: Matches seated this run per bot, plus any credit.
        self.counts: Counter[str] = Counter()
        self._seen: dict[str, float] = {}
        self._present: frozenset[str] = frozenset()

    def observe(self, here: Iterable[str], now: float) -> None:
        """Note the bots connected or playing at `now` (call before each `choose_table`)."""
        before = self._present
        floor = min((self.counts[bot] for bot in before), default=None)
        for bot in here:
            if bot not in before and floor is not None:
                self.counts[bot] = max(self.counts[bot], floor - self.max_lead)
            self._seen[bot] = now
        self._present = frozenset(b for b, seen in self._seen.items() if now - seen <= self.grace)

    def seated(self, bots: Iterable[str]) -> None:
        for bot in set(bots):
            self.counts[bot] += 1

    def floor(self) -> int:
        """The slowest present bot's count."""
        return min((self.counts[bot] for bot in self._present), default=0)

    def behind(self) -> frozenset[str]:
        """The present bots at the floor."""
        floor = self.floor()
        return frozenset(bot for bot in self._present if self.counts[bot] == floor)

    @property
    def present(self) -> frozenset[str]:
        return self._present

    def free(self, bot: str) -> bool:
        """Whether `bot` may sit at any table: less than `max_lead` ahead of the floor.

        A table is allowed iff all its bots are free, or it holds every bot at the floor: then
        the floor rises with the table and no one's lead grows. Otherwise the floor stays and
        each seated bot's lead grows by one, to at most `max_lead`. A contest on a cluster has
        two kinds of table (choose_table's `elsewhere`): there a table need hold only the bots
        at the floor of its kind, and a lead may reach `max_lead` + 1 until the other kind's
        move."""
        return self.counts[bot] - self.floor() < self.max_lead


def choose_table(
    idle: Sequence[S],
    seats: int,
    ratings: dict[str, float],
    meetings: Counter[frozenset[str]],
    pacing: Pacing | None = None,
    settled: frozenset[str] = frozenset(),
    elsewhere: frozenset[str] = frozenset(),
    waited: Callable[[S], float] | None = None,
    patience: float = REMATCH_WAIT_SECONDS,
) -> list[S] | None:
    """The next table from the idle sessions (oldest first), or None if none may sit down.

    One session per bot at a table (a bot must not play itself). With `pacing` (a contest) the
    free idle bot that is not `settled` (see the module's docstring) sits first, else the one
    with the fewest matches (the longest waiting among equals), and a table must be allowed
    (`Pacing.free`); among the bots it has met as often, unsettled ones join it first. Without
    pacing (a referee with no accounts, where every token is anyone's) any idle sessions make a
    table, two copies of one bot included.

    `elsewhere` are the present bots that never sit at these tables: a contest on a cluster
    seats its network bots here and its hosted versions there. The bots at the floor elsewhere
    do not hold these tables up. If they did, a network bot and a hosted version alone at the
    floor could never sit at one table, and with their tablemates `max_lead` ahead, no table of
    either kind could sit down again.

    `waited(session)`: how long it has been idle. With it, a table of free bots waits (None)
    while its head would meet an opponent more than once more than the present bot it has met
    least, until the head has waited `patience` seconds (`rematch_wait`; the module's docstring
    says why).
    """
    if pacing is None:
        return list(idle[:seats]) if len(idle) >= seats else None
    first_per_bot: dict[str, S] = {}
    for session in idle:
        first_per_bot.setdefault(session.identity, session)
    if len(first_per_bot) < seats:
        return None
    count = pacing.counts
    waiting = sorted(  # stable: the oldest first among equals
        first_per_bot.values(), key=lambda s: (s.identity in settled, count[s.identity])
    )
    head = next((s for s in waiting if pacing.free(s.identity)), None)
    if head is None:
        return None  # the fewest among the idle is not free: no idle bot is
    rating = ratings.get(head.identity, 0.0)
    others = sorted(
        (s for s in waiting if s is not head),
        key=lambda s: (
            meetings[frozenset((head.identity, s.identity))],
            s.identity in settled,
            count[s.identity],
            abs(ratings.get(s.identity, 0.0) - rating),
        ),
    )
    free = [s for s in others if pacing.free(s.identity)]
    if len(free) >= seats - 1:
        table = [head, *free[: seats - 1]]
        if waited is not None and waited(head) < patience:
            least = min(
                (
                    meetings[frozenset((head.identity, bot))]
                    for bot in pacing.present - elsewhere - {head.identity}
                ),
                default=0,
            )
            most = max(meetings[frozenset((head.identity, s.identity))] for s in table[1:])
            if most > least + 1:
                return None  # an opponent it has met less often is playing: wait for it
        return table
    floor_bots = pacing.behind()
    behind = floor_bots - elsewhere
    if floor_bots and not behind:
        return None  # every bot at the floor is elsewhere: only bots all free may sit here
    idle_bots = set(first_per_bot)
    if not behind <= idle_bots or len(behind) > seats:
        return None
    # Every bot at the floor that may sit here does, so no one's lead grows: the rest of the
    # seats go by preference (the head too, when an unsettled head is not at the floor and there
    # is room for it).
    candidates = [head, *others]
    table = [s for s in candidates if s.identity in behind]
    table += [s for s in candidates if s.identity not in behind][: seats - len(table)]
    return table


def seat_order(bots: Sequence[str], seated: Counter[tuple[str, int]]) -> list[int]:
    """The order in which a table's `bots` take its seats: for each seat in turn, the bot that
    has sat there least (`seated[(bot, seat)]`), relative to its matches (ties: table order).
    The index into `bots` of each seat's bot."""
    left = list(range(len(bots)))
    order = []
    for seat in range(len(bots)):
        totals = {i: sum(seated[(bots[i], s)] for s in range(len(bots))) for i in left}
        pick = min(
            left, key=lambda i: (seated[(bots[i], seat)] * len(bots) - totals[i], left.index(i))
        )
        order.append(pick)
        left.remove(pick)
    return order
