"""The local venue: a loopback referee and the ladder's bot processes on this machine.

`play_matches` serves on a loopback port and launches each bot once per slot (a lane of play:
one match at a time), once in all with as many sessions (`launch = "shared"`), or once per
match (`launch = "per-match"`); processes play match after match over their sessions, and one that
exits is restarted, its exit counted against its bot. A cluster worker plays its batches with the
same function (referee.cluster.batch).

Given the ladder's `RefereeView` (someone watches: the web site), the matches are opened in its
live registry for spectators (public events only, as `croupier watch` sees them), and the view
asks the lobby who is connected.
"""

from __future__ import annotations

import secrets
import shlex
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trio

from referee.ladder import schedule as planning
from referee.ladder.config import BotSpec, LadderConfig, Launch
from referee.ladder.venue import (
    LadderError,
    LadderObserver,
    Work,
    match_id,
    record_path,
)
from referee.ladder.view import Presence, RefereeView
from referee.local.bot_root import bot_folder
from referee.local.launcher import BotProcess, LaunchError, launch_problem, supervise
from referee.local.sandbox import Sandbox, check_bwrap, socket_folder
from referee.match.lobby import Lobby
from referee.match.records import partial_path
from referee.match.seating import play_match, seated, take_sessions
from referee.match.spectators import LiveMatches
from referee.results.database import Exit, Finished
from referee.results.matches import ScheduledMatch
from referee.transport import ServerSettings, serve


class LocalVenue:
    """The venue on this machine: `config.placement.concurrency` matches at once (see
    `play_matches`)."""

    async def play(self, config: LadderConfig, work: Work, observer: LadderObserver) -> None:
        await play_matches(config, work.next, work.settle, work.view)


@dataclass
class _Slot:
    """The processes one slot plays with: a bot's process (and token) per bot."""

    number: int
    processes: dict[str, BotProcess]
    #: How many of each process's exits were already committed (by id of the process).
    reported: dict[int, int]


class _LoopbackReferee:
    """A loopback referee and its bot processes: what plays matches, here or on a cluster
    worker. `play_matches` is its only entry point."""

    def __init__(
        self,
        config: LadderConfig,
        sandbox: Sandbox,
        view: RefereeView | None = None,
        first_slot: int = 0,
        live: LiveMatches | None = None,
    ) -> None:
        self.config = config
        #: The number of this referee's first slot: its slots are the ladder's from here on
        #: (a referee worker process plays some of the ladder's slots: ladder.process_venue).
        self.first_slot = first_slot
        self.lobby = Lobby(games=frozenset({config.game.id}))
        self.address = ""
        self.sandbox = sandbox
        self.view = view
        #: Where each match is live while it is played (the view's, else the one given).
        self.live = view.live if view is not None else live
        #: The bot of each process's token, while the process is the bot's (for `presence`).
        self.tokens: dict[str, str] = {}
        #: Live matches per bot (a bot at two seats of a match counts once).
        self.playing: Counter[str] = Counter()

    def admit(self, process: BotProcess, bot: str) -> None:
        self.lobby.admit(process.token, label=bot)
        self.tokens[process.token] = bot

    def presence(self) -> dict[str, Presence]:
        """Every bot of the ladder: its processes' open sessions and its live matches."""
        sessions: Counter[str] = Counter()
        for token, bot in self.tokens.items():
            sessions[bot] += self.lobby.active(token)
        return {
            bot.name: Presence(sessions[bot.name], self.playing[bot.name])
            for bot in self.config.bots
        }

    def slots(self) -> list[_Slot]:
        """Processes for every bot: one per worker (per-slot), or one shared by all workers;
        none with launch per match (each match launches its own)."""
        config = self.config
        seats = planning.max_seats_per_bot(config)
        shared = config.placement.launch is Launch.SHARED
        logs = config.placement.records / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        first = self.first_slot
        if config.placement.launch is Launch.PER_MATCH:
            return [
                _Slot(slot, {}, {}) for slot in range(first, first + config.placement.concurrency)
            ]
        count = 1 if shared else config.placement.concurrency
        made = []
        for slot in range(first, first + count):
            processes = {
                bot.name: self.process(
                    bot,
                    slot,
                    logs / f"{bot.name}-{slot}.log",
                    seats[bot.name] * (config.placement.concurrency if shared else 1),
                )
                for bot in config.bots
            }
            made.append(_Slot(slot, processes, {}))
        return made if not shared else made * config.placement.concurrency

    def process(self, bot: BotSpec, slot: int, log_path: Path, sessions: int) -> BotProcess:
        """A process of `bot` for slot `slot`, with a fresh token."""
        config = self.config
        return BotProcess(
            command=bot.command_line(),
            token=secrets.token_urlsafe(24),
            log_path=log_path,
            sessions=sessions,
            max_restarts=config.placement.max_restarts,
            cwd=bot.cwd,
            env=dict(bot.env),
            limits=bot.limits,
            sandbox=self.sandbox,
            ponder=config.ponder,
            cpus=config.placement.slot_cpus(slot),
            own_folder=bot.own_folder,
            confined=bot.confined,
        )

    def new_exits(self, slot: _Slot) -> list[Exit]:
        """Exits of the slot's processes since the last commit (each reported once)."""
        found: list[Exit] = []
        for name, process in slot.processes.items():
            seen = slot.reported.get(id(process), 0)
            found.extend(Exit(name, slot.number, detail) for detail in process.exits[seen:])
            slot.reported[id(process)] = len(process.exits)
        return found

    async def play(self, match: ScheduledMatch, slot: _Slot) -> Finished:
        if self.config.placement.launch is not Launch.PER_MATCH:
            return await self._play(match, slot)
        async with self._launched_for(match, slot) as fresh:
            return await self._play(match, fresh)

    @asynccontextmanager
    async def _launched_for(self, match: ScheduledMatch, slot: _Slot) -> AsyncIterator[_Slot]:
        """Launch each bot of the match for it alone, and see the processes out afterwards:
        what a harness without sessions (a process per match over stdin/stdout) pays."""
        config = self.config
        seats = Counter(match.bots)
        logs = config.placement.records / "logs"
        # A referee worker's own file (they write in place): `<bot>-per-match-<first slot>.log`
        where = f"-{self.first_slot}" if self.first_slot else ""
        processes = {
            bot.name: self.process(
                bot, slot.number, logs / f"{bot.name}-per-match{where}.log", seats[bot.name]
            )
            for bot in config.bots
            if bot.name in seats
        }
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            for name, process in processes.items():
                self.admit(process, name)
                nursery.start_soon(supervise, process, self.address, self.lobby, done)
            try:
                yield _Slot(slot.number, processes, {})
            finally:
                done.set()
                for process in processes.values():
                    self.tokens.pop(process.token, None)
                    for session in self.lobby.by_identity.get(process.token, []):
                        session.end("the match is over")

    async def _play(self, match: ScheduledMatch, slot: _Slot) -> Finished:
        config = self.config

        def late(seat: int) -> LadderError:
            bot = match.bots[seat]
            return LadderError(
                f"bot {bot!r} did not connect within {config.placement.connect_timeout:g} s; "
                f"see {slot.processes[bot].log_path}"
            )

        tokens = [slot.processes[bot].token for bot in match.bots]
        sessions = await take_sessions(self.lobby, tokens, config.placement.connect_timeout, late)
        # The ladder's name for each bot, in the record and MatchStart.
        async with seated(sessions, self.lobby, names=match.bots) as seats:
            identifier = match_id(config, match.number)
            final = record_path(config, match.number)
            partial = partial_path(final)
            partial.unlink(missing_ok=True)
            started = time.monotonic()
            bots = set(match.bots)
            self.playing.update(bots)
            try:
                outcome = await play_match(
                    config,
                    seats,
                    seed=match.seed,
                    match_id=identifier,
                    record=partial,
                    live=self.live,
                )
            finally:
                self.playing.subtract(bots)
        return Finished(
            match=match,
            match_id=identifier,
            record=final,
            record_sha256="",
            result=outcome.result,
            faults=outcome.faults,
            seconds=time.monotonic() - started,
            exits=tuple(self.new_exits(slot)),
            luck=outcome.luck,
        )


async def play_matches(
    config: LadderConfig,
    next_match: Callable[[], Awaitable[ScheduledMatch | None]],
    settle: Callable[[Finished], Awaitable[None]],
    view: RefereeView | None = None,
    first_slot: int = 0,
    live: LiveMatches | None = None,
) -> None:
    """Serve on a loopback port, launch the bots, and play what `next_match` hands out until
    it returns None, `config.placement.concurrency` matches at a time (slots numbered from
    `first_slot`, which name the bots' logs and pick their `cpus`). Each finished match's record is
    left at `<record>.jsonl.partial` for `settle`, which must move it (the ladder commits it;
    a cluster worker sends it back). The one way matches are played, locally and on a cluster.
    With `view`, each match is live in `view.live` while it is played, and `view.presence()`
    reads this referee's lobby; without, in `live` if given (a worker's, relayed).
    """
    if config.placement.sandbox:
        check_bwrap()  # a clear error before anything starts
    for bot in config.bots:  # a typo in a script's path, before it is taken for a folder
        problem = launch_problem(shlex.split(bot.command_line()), bot.cwd)
        if problem is not None:
            raise LaunchError(f"cannot start bot {bot.name!r}: {problem}", problem)
    with socket_folder() as folder:
        private = out_of_sight(config)
        sandbox = Sandbox(
            enabled=config.placement.sandbox,
            socket_dir=folder,
            secrets=private,
            runtime=config.placement.runtime,
        )
        await _play_matches(config, sandbox, next_match, settle, view, first_slot, live)


def out_of_sight(config: LadderConfig) -> tuple[Path, ...]:
    """What no bot's folder may show: the records and logs, the database, and every bot's
    folder (a bot sees its own; bots that share one folder share what is in it)."""
    folders = (
        bot_folder(shlex.split(bot.command_line()), bot.cwd, own=bot.own_folder)
        for bot in config.bots
    )
    return (config.placement.records, config.placement.database, *folders)


async def _play_matches(
    config: LadderConfig,
    sandbox: Sandbox,
    next_match: Callable[[], Awaitable[ScheduledMatch | None]],
    settle: Callable[[Finished], Awaitable[None]],
    view: RefereeView | None,
    first_slot: int = 0,
    live: LiveMatches | None = None,
) -> None:
    referee = _LoopbackReferee(config, sandbox, view, first_slot, live)
    if view is not None:
        view.connected = referee.presence
    slots = referee.slots()
    done = trio.Event()
    config.placement.records.mkdir(parents=True, exist_ok=True)
    settings = ServerSettings()
    async with serve(referee.lobby, settings) as port, trio.open_nursery() as nursery:
        referee.address = f"127.0.0.1:{port}"
        for slot_ in {id(s): s for s in slots}.values():
            for name, process in slot_.processes.items():
                referee.admit(process, name)
                nursery.start_soon(supervise, process, referee.address, referee.lobby, done)

        async def worker(slot: int) -> None:
            while (match := await next_match()) is not None:
                await settle(await referee.play(match, slots[slot]))

        async with trio.open_nursery() as workers:
            for slot in range(config.placement.concurrency):
                workers.start_soon(worker, slot)
        done.set()
        referee.lobby.end_all("the ladder is over")
