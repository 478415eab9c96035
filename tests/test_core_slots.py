"""How a contest deals cores to the slots of its hosted matches (referee.contest.slots); the
pinning itself is seen in tests/test_hosted_play.py, in the records of a real contest."""

from __future__ import annotations

from referee.contest.slots import CoreSlots, default_count


def test_each_seat_of_each_slot_gets_a_core_of_its_own_while_there_are_cores_enough() -> None:
    assert default_count(2, range(8)) == 4 and default_count(4, range(8)) == 2
    assert CoreSlots(4, 2, [7, 6, 5, 4, 3, 2, 1, 0]).cores == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert CoreSlots(2, 3, [0, 2, 4, 6, 8, 10]).cores == [(0, 2, 4), (6, 8, 10)]


def test_with_fewer_cores_than_seats_there_is_one_slot_and_it_deals_round_them() -> None:
    assert default_count(4, [0, 1]) == 1
    assert CoreSlots(1, 4, [0, 1]).cores == [(0, 1, 0, 1)]
    # More slots than the cores allow (the organiser's --hosted-slots): they share, in turn.
    assert CoreSlots(3, 2, [0, 1]).cores == [(0, 1), (0, 1), (0, 1)]
