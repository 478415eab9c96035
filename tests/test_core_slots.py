"""How a contest deals cores to the slots of its hosted matches (referee.contest.slots), and
pins a real process of several sessions to the cores of all its matches; the pinning of a real
contest is seen in tests/test_hosted_play.py, in its records."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from croupier.v1 import referee_pb2
from referee.contest.slots import CoreSlots, default_count
from referee.local.processes import BotProcessGroup
from referee.match.session import Session


def test_each_seat_of_each_slot_gets_a_core_of_its_own_while_there_are_cores_enough() -> None:
    assert default_count(2, range(8)) == 4 and default_count(4, range(8)) == 2
    assert CoreSlots(4, 2, [7, 6, 5, 4, 3, 2, 1, 0]).cores == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert CoreSlots(2, 3, [0, 2, 4, 6, 8, 10]).cores == [(0, 2, 4), (6, 8, 10)]


def test_with_fewer_cores_than_seats_there_is_one_slot_and_it_deals_round_them() -> None:
    assert default_count(4, [0, 1]) == 1
    assert CoreSlots(1, 4, [0, 1]).cores == [(0, 1, 0, 1)]
    # More slots than the cores allow (the organiser's --hosted-slots): they share, in turn.
    assert CoreSlots(3, 2, [0, 1]).cores == [(0, 1), (0, 1), (0, 1)]


def _session(identity: str, process: BotProcessGroup | None = None) -> Session:
    session = Session(identity, referee_pb2.Hello(), lambda message: None, lambda ending: None)
    session.process = process
    return session


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or not {0, 1} <= os.sched_getaffinity(0),
    reason="needs cores 0 and 1",
)
async def test_a_bot_in_two_matches_at_once_runs_on_the_cores_of_both() -> None:
    """alice's one process, at seat 0 of one match and seat 1 of another (two slots sharing
    cores 0 and 1): on core 0, then on both, then on the core of the match still going."""
    bot = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True
    )
    try:
        alice = BotProcessGroup(bot.pid)
        slots = CoreSlots(2, 2, [0, 1])
        first = slots.pinned([_session("alice", alice), _session("bob")], {"alice"})
        second = slots.pinned([_session("carol"), _session("alice", alice)], {"alice"})
        await first.__aenter__()
        assert os.sched_getaffinity(bot.pid) == {0} and alice.cores() == (0,)
        await second.__aenter__()
        assert os.sched_getaffinity(bot.pid) == {0, 1} and alice.cores() == (0, 1)
        await first.__aexit__(None, None, None)
        assert os.sched_getaffinity(bot.pid) == {1} and alice.cores() == (1,)
        await second.__aexit__(None, None, None)
        assert os.sched_getaffinity(bot.pid) == {1}  # as its last match left it
    finally:
        bot.kill()
        bot.wait()
