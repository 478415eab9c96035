"""The venue of several referee processes on this machine (`croupier ladder run --workers N`).

One referee process uses at most one core, however many matches it plays at once; `ProcessVenue`
splits the ladder's `concurrency` over N worker processes (referee.local.workers), each a whole
`LocalVenue` referee (`play_matches`: its own loopback server, socket folder and launch of every
bot, persistent over its matches) playing slots of its own: worker w's slots are numbered after
the workers' before it, so bot logs (`<bot>-<slot>.log`), restarts and `cpus` pinning are those
of one referee with as many slots. Each worker writes its records into the ladder's records
folder as `<id>.jsonl.partial` and asks this process, the coordinator, to commit each match:
the ladder's own commit (flush, rename, hash, one SQLite transaction) on the runner's thread,
as for one referee. Nothing about a match depends on which process plays it.

A worker that dies (kill -9, the OOM killer) loses only the matches it held: they are handed
back to the ladder (`Work.give_back`) and played again from scratch, by whichever worker asks
first, and the dead worker is started again (referee.local.workers.RESTARTS times at most).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from referee.games import get_game
from referee.ladder.config import LadderConfig
from referee.ladder.local_venue import play_matches
from referee.ladder.venue import LadderError, LadderObserver, Work
from referee.ladder.view import Presence
from referee.local import workers as pool
from referee.match import live_relay
from referee.match.spectators import LiveMatches
from referee.results.database import Finished
from referee.results.matches import ScheduledMatch


class ProcessVenue:
    """`config.concurrency` matches at once, played by `workers` referee processes."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        host = _Coordinator(config, work, pool.shares(config.placement.concurrency, self.workers))
        if work.view is not None:
            work.view.connected = host.presence
        try:
            await pool.run_workers(
                len(host.shares), host.start, host, config.placement.records / "logs"
            )
        except pool.WorkerError as error:
            raise pool.failed(error, LadderError) from None


class _Coordinator:
    """The ladder's side of its workers' calls: `next` (a match to play, or None) and `settle`
    (a finished match to commit)."""

    def __init__(self, config: LadderConfig, work: Work, shares: list[int]) -> None:
        if work.give_back is None:
            raise LadderError("referee workers need a ladder that takes matches back")
        self.config = config
        self.work = work
        self.give_back: Callable[[ScheduledMatch], None] = work.give_back
        self.shares = shares
        #: The latest process of each worker (by number), as its calls name it.
        self.current: dict[int, pool.Worker] = {}
        #: The workers' live matches, for the site (None: no site, so none are relayed).
        self.mirror = live_relay.Mirror(work.view.live) if work.view is not None else None

    def start(self, number: int) -> tuple[pool.Entry, tuple[object, ...]]:
        first = sum(self.shares[:number])
        # launch = "shared": one process per bot in each worker, with the worker's sessions
        placement = replace(self.config.placement, concurrency=self.shares[number])
        config = replace(self.config, placement=placement)
        return play_here, (config, first, self.mirror is not None)

    def call(self, worker: pool.Worker, method: str, payload: Any) -> Callable[[], Awaitable[Any]]:
        self.current[worker.number] = worker
        if method == "next":
            return functools.partial(self._next, worker)
        if method == "settle":
            finished: Finished = payload
            # Before any await: once its result is here the match is the ladder's to commit,
            # whatever becomes of the worker.
            worker.held.pop(finished.match.number, None)
            return functools.partial(self.work.settle, finished)
        if method == "live" and self.mirror is not None:
            self.mirror.apply(worker.number, payload)
            return _nothing
        raise LadderError(f"a referee worker asked for {method!r}")

    async def _next(self, worker: pool.Worker) -> ScheduledMatch | None:
        match = await self.work.next()
        if match is None:
            return None
        if not worker.alive:  # it died while the match was found: someone else plays it
            self.give_back(match)
            return None
        worker.held[match.number] = match
        return match

    def lost(self, worker: pool.Worker) -> None:
        if self.mirror is not None:  # its viewers first: its matches are about to start again
            self.mirror.lost(worker.number)
        for match in sorted(worker.held.values(), key=lambda m: -m.number):
            self.give_back(match)  # each to the front: the lowest number first
        worker.held.clear()

    def presence(self) -> dict[str, Presence]:
        """Who plays, from the matches the workers hold; a bot counts as connected while a
        worker that launched it is alive (each worker's lobby is in its own process)."""
        playing: Counter[str] = Counter()
        slots = 0
        for worker in self.current.values():
            if worker.alive:
                slots += self.shares[worker.number]
                for match in worker.held.values():
                    playing.update(set(match.bots))
        return {bot.name: Presence(slots, playing[bot.name]) for bot in self.config.bots}


async def _nothing() -> None:
    return None


async def play_here(link: pool.Link, config: LadderConfig, first_slot: int, relayed: bool) -> None:
    """A worker's entry: play what the coordinator hands out with `play_matches`, slots
    numbered from `first_slot`, and have it commit each match; `relayed`: send the
    coordinator what a spectator may see of each match as it is played, for its site."""
    config = replace(config, game=get_game(config.game.id))

    async def next_match() -> ScheduledMatch | None:
        match: ScheduledMatch | None = await link.call("next")
        return match

    async def settle(finished: Finished) -> None:
        await link.call("settle", finished)

    async def play(live: LiveMatches | None = None) -> None:
        await play_matches(config, next_match, settle, first_slot=first_slot, live=live)

    if relayed:
        await live_relay.relayed(play, functools.partial(link.call, "live"))
    else:
        await play()


__all__ = ["ProcessVenue"]
