"""Equal computers for hosted bots: each match with hosted bots plays in a slot of cores.

A contest plays matches as bots become idle; a match that seats hosted versions (bots the
referee runs, referee.hosted.roster) first takes one of `count` slots, waiting while all are
taken, and each hosted seat's bot is pinned to a core of its own in that slot for the match (its
whole process tree, Lobby-attached LaunchedBot.pin). So hosted matches at once never exceed what
the organiser set, by default what the cores allow with one core per seat, and no two hosted
seats of running matches share a core when there are cores enough. Matches of network bots only
take no slot: their bots run on their authors' machines.

A hosted bot with several sessions that plays k matches at once runs on the k cores its seats
of those matches hold (their union, narrowed again as each match ends): as much CPU a match as a
bot of one session gets, wherever its process schedules its threads. Records name the cores of
each pinned seat as they stood when its match started (RecordSeat.cores).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Container, Sequence
from contextlib import asynccontextmanager

import trio

from referee.match.launched import LaunchedBot
from referee.match.session import Session


def default_count(seats: int, cpus: Sequence[int]) -> int:
    """Slots that give every seat a core of its own: at least one."""
    return max(1, len(cpus) // seats)


class CoreSlots:
    """`count` slots of `seats` cores each, dealt from `cpus` (round the list again when there
    are fewer cores than seats in all slots: then slots share cores)."""

    def __init__(self, count: int, seats: int, cpus: Sequence[int]) -> None:
        ordered = sorted(cpus)
        self.cores = [
            tuple(ordered[(slot * seats + seat) % len(ordered)] for seat in range(seats))
            for slot in range(count)
        ]
        self._free = list(range(count))
        self._slots = trio.Semaphore(count)
        #: The core of each seat every pinned bot holds in a running match (a bot of several
        #: sessions may hold several).
        self._held: dict[LaunchedBot, list[int]] = {}

    @asynccontextmanager
    async def pinned(
        self, sessions: Sequence[Session], hosted: Container[str]
    ) -> AsyncIterator[None]:
        """While the block runs (a match of `sessions`), a slot for it if any session's identity
        is in `hosted`, each such session's bot pinned to its seat's core."""
        if not any(session.identity in hosted for session in sessions):
            yield
            return
        async with self._slots:
            slot = self._free.pop(0)
            seats = [
                (session.process, self.cores[slot][seat])
                for seat, session in enumerate(sessions)
                if session.identity in hosted and session.process is not None
            ]
            try:
                for process, core in seats:
                    self._held.setdefault(process, []).append(core)
                    process.pin(frozenset(self._held[process]))
                yield
            finally:
                for process, core in seats:
                    self._held[process].remove(core)
                    if self._held[process]:  # its other matches go on: their cores alone
                        process.pin(frozenset(self._held[process]))
                    else:
                        del self._held[process]
                self._free.append(slot)
