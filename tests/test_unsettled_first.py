"""A new entrant sits first while its rating is unsettled (issue 27.2), never past pacing's
max_lead: referee.contest.pairing.choose_table's rule, on its own."""

from __future__ import annotations

from collections import Counter

from croupier.v1 import referee_pb2
from referee.contest.pairing import Pacing, choose_table
from referee.match.session import Session

OLD = ("alice", "bob", "carol")
MAX_LEAD = 2


def session(bot: str) -> Session:
    return Session(
        identity=bot, hello=referee_pb2.Hello(), send=lambda _: None, finish=lambda _: None
    )


def pacing(counts: dict[str, int], max_lead: int = MAX_LEAD) -> Pacing:
    """Every bot in `counts` present, with that many matches this run."""
    paced = Pacing(max_lead, grace=0.0)
    paced.counts.update(counts)
    paced.observe(counts, now=0.0)
    paced.counts.clear()
    paced.counts.update(counts)  # as played, whatever credit arriving gave
    return paced


def bots(table: list[Session] | None) -> list[str]:
    assert table is not None
    return [s.identity for s in table]


def test_with_no_one_settled_the_fewest_matches_sit_first() -> None:
    idle = [session(bot) for bot in ("alice", "bob", "dave")]
    paced = pacing({"alice": 5, "bob": 5, "dave": 4})
    assert bots(choose_table(idle, 2, {}, Counter(), paced))[0] == "dave"
    assert bots(choose_table(idle, 2, {}, Counter(), paced, frozenset()))[0] == "dave"


def test_an_unsettled_entrant_sits_first_though_it_played_more() -> None:
    """dave is one match ahead of the settled field and still free: he sits, oldest or not."""
    idle = [session(bot) for bot in (*OLD, "dave")]
    paced = pacing({"alice": 5, "bob": 5, "carol": 5, "dave": 6})
    settled = frozenset(OLD)
    assert bots(choose_table(idle, 2, {}, Counter(), paced, settled))[0] == "dave"
    assert "dave" not in bots(choose_table(idle, 2, {}, Counter(), paced, frozenset({"dave"})))


def test_an_unsettled_entrant_max_lead_ahead_waits_for_the_field() -> None:
    """Pacing still holds: dave at the lead limit does not sit, the settled bots play."""
    idle = [session(bot) for bot in (*OLD, "dave")]
    paced = pacing({"alice": 5, "bob": 5, "carol": 5, "dave": 5 + MAX_LEAD})
    table = bots(choose_table(idle, 2, {}, Counter(), paced, frozenset(OLD)))
    assert "dave" not in table and len(table) == 2


def test_unsettled_bots_join_the_head_before_settled_ones_met_as_often() -> None:
    idle = [session(bot) for bot in ("alice", "bob", "erin", "dave")]
    paced = pacing({"alice": 5, "bob": 5, "erin": 5, "dave": 5})
    table = bots(choose_table(idle, 3, {}, Counter(), paced, frozenset({"alice", "bob"})))
    assert set(table[:2]) == {"erin", "dave"}


def test_when_the_floor_must_sit_an_unsettled_head_joins_it_if_there_is_room() -> None:
    """Three seats; alice alone is at the floor and bob is max_lead ahead, so the only table
    allowed holds alice: dave (unsettled, free) sits with her, and bob fills the last seat."""
    idle = [session(bot) for bot in ("bob", "alice", "dave")]
    paced = pacing({"alice": 3, "bob": 3 + MAX_LEAD, "dave": 4})
    table = bots(choose_table(idle, 3, {}, Counter(), paced, frozenset({"alice", "bob"})))
    assert sorted(table) == ["alice", "bob", "dave"]
    assert table[0] == "alice"


def play(settled: frozenset[str], tables: int) -> tuple[list[list[str]], Pacing]:
    """`tables` two-seat tables in a row, each played out before the next sits down, among three
    settled bots level at 10 matches and dave, who just arrived (pacing credits him)."""
    paced = Pacing(MAX_LEAD, grace=0.0)
    paced.observe(OLD, now=0.0)
    paced.counts.update(dict.fromkeys(OLD, 10))
    paced.observe((*OLD, "dave"), now=1.0)
    meetings: Counter[frozenset[str]] = Counter()
    seated = []
    for _ in range(tables):
        idle = [session(bot) for bot in (*OLD, "dave")]
        table = bots(choose_table(idle, 2, {}, meetings, paced, settled))
        paced.seated(table)
        meetings[frozenset(table)] += 1
        seated.append(table)
        floor = paced.floor()
        assert all(paced.counts[bot] - floor <= MAX_LEAD for bot in (*OLD, "dave"))
    return seated, paced


def test_a_new_entrant_plays_more_than_its_share_until_max_lead_ahead_then_its_share() -> None:
    """Settled, dave plays until he has caught up (pacing credits him MAX_LEAD behind) and one
    more; unsettled, until he is MAX_LEAD ahead: MAX_LEAD more tables in all. After that, his
    share (every other table, in a four-bot field of two seats), and no one ever more than
    MAX_LEAD ahead of the floor (`play` checks it at every table): he keeps the lead he took,
    where a settled newcomer trails the field."""
    unsettled, ahead = play(frozenset(OLD), 24)
    level, behind = play(frozenset((*OLD, "dave")), 24)
    first = next(i for i, table in enumerate(unsettled) if "dave" not in table)
    assert first == 2 * MAX_LEAD + 1, unsettled
    assert next(i for i, table in enumerate(level) if "dave" not in table) == MAX_LEAD + 1, level
    after = unsettled[first:]
    assert sum("dave" in table for table in after) == len(after) // 2, unsettled
    assert ahead.counts["dave"] == max(ahead.counts.values()), ahead.counts
    assert behind.counts["dave"] == min(behind.counts.values()), behind.counts
