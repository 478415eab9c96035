"""A series of matches among launched bot processes over gRPC: what `croupier match` runs.

The referee serves on a loopback port, launches every bot command with the address and a fresh
token, and plays the matches `concurrency` at a time. Seats rotate from match to match, so every
bot plays every seat equally often. Each match's seed derives from the series seed.
"""

from __future__ import annotations

import functools
import math
import re
import secrets
import shlex
import tempfile
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from croupier.v1 import common_pb2
from referee.errors import CroupierError
from referee.games import checked, get_game
from referee.games.base import Game
from referee.games.options import Options
from referee.local.launcher import BotProcess, last_words, supervise
from referee.local.limits import Limits
from referee.local.sandbox import Sandbox, check_bwrap, default_enabled, socket_folder
from referee.local.workers import (
    Entry,
    Link,
    Worker,
    WorkerError,
    failed,
    run_workers,
    shares,
)
from referee.match.clock import TimeControl
from referee.match.lobby import Lobby
from referee.match.runner import MatchOutcome
from referee.match.seating import play_match, seated, take_sessions
from referee.match.seeds import derive_seed
from referee.transport import ServerSettings, serve


class SeriesError(CroupierError):
    """A series that cannot go on (a bot that never connects, say)."""


@dataclass(frozen=True, slots=True)
class Launch:
    """A series' launch context for its bots, as the doctor's config holds it (DoctorConfig):
    what a hosted version's qualification gives both, so that a version plays its positions
    (referee.review.position_runs) exactly as it took the doctor's checks."""

    #: The bot's own folder (a hosted version's): it runs there, and the sandbox shows it.
    cwd: Path | None = None
    #: The organiser's runtime folder, shown to the bot read-only (Sandbox.runtime).
    runtime: Path | None = None
    #: Whether `cwd` is an author's upload: shown alone (referee.local.bot_root).
    confined: bool = False
    #: What no bot's folder may show, besides the records (Sandbox.secrets).
    secrets: tuple[Path, ...] = ()
    #: CROUPIER_SESSIONS (None: the series' concurrency).
    sessions: int | None = None
    #: Variables for the bot, as the doctor's `--env` (referee.local.sandbox: in the sandbox,
    #: the only ones beside PATH, the locale and CROUPIER_*).
    env: Mapping[str, str] = field(default_factory=dict)
    #: Restarts of a bot that exits before the series is over.
    max_restarts: int = 3


@dataclass(frozen=True, slots=True)
class SeriesConfig:
    game: Game
    options: Options
    commands: tuple[str, ...]
    matches: int = 1
    #: The master seed (secret until the series ends); each match seed is keyed by it.
    seed: str | int = 0
    deck: tuple[str, ...] | None = None
    records: Path | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    concurrency: int = 1
    max_faults: int = 3
    connect_timeout: float = 30.0
    #: Run each bot in the sandbox (referee.local.sandbox), with these limits.
    sandbox: bool = field(default_factory=default_enabled)
    limits: Limits = field(default_factory=Limits)
    #: Referee processes sharing the matches (referee.local.workers); 1 plays them here.
    workers: int = 1
    #: How each bot is launched beyond its command: a hosted version's context
    #: (referee.hosted.qualify), or the defaults, a command run from the current folder.
    launch: Launch = field(default_factory=Launch)
    #: Where the bots' output goes when no records are kept (None: a temporary folder).
    logs: Path | None = None


@dataclass
class Standing:
    """One bot's totals over the series."""

    label: str
    command: str
    matches: int = 0
    wins: int = 0
    points: int = 0
    rank_sum: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    @property
    def average_rank(self) -> float:
        return self.rank_sum / self.matches if self.matches else math.nan


def seat_roles(seats: int, index: int) -> list[int]:
    """Which bot (role) sits in each seat in match `index`: a rotation per match."""
    return [(seat + index) % seats for seat in range(seats)]


def log_name(command: str) -> str:
    """The name a bot's log goes by: its program's (`xix_heuristic` for `python
    examples/python/xix_heuristic.py`, `bot` for `node dist/bot.js`, the module for `python -m
    mybot`), so that a folder of logs says whose each is; the launch order (`-botN`) still tells
    two copies apart."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not words:
        return "bot"
    named = words[0]
    if "-m" in words[1:-1]:
        named = words[words.index("-m", 1) + 1].rsplit(".", 1)[-1]
    elif "-c" in words[1:] or "-e" in words[1:]:  # a program given as text: the interpreter's
        named = Path(named).name
    else:
        files = [w for w in words[1:] if not w.startswith("-") and ("/" in w or "." in w)]
        named = Path(files[0] if files else named).stem
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", named).strip("._")[:40] or "bot"


async def play_series(
    config: SeriesConfig, on_match: Callable[[MatchOutcome], None] | None = None
) -> tuple[list[Standing], list[MatchOutcome]]:
    """Launch the bots, play every match, end the sessions; returns standings and outcomes.
    With `config.workers` above 1 the matches are shared among that many referee processes
    (referee.local.workers), each launching the bots for its share of `concurrency`."""
    if config.deck is not None:  # a bad deck is the user's mistake: say so before launching
        checked.check_deck(config.game.new_game(config.options), config.deck)
    if config.sandbox:
        check_bwrap()  # a clear error before anything starts
    seats = config.game.seat_count(config.options)
    standings = [
        Standing(label=f"bot{role}", command=config.commands[role % len(config.commands)])
        for role in range(seats)
    ]
    outcomes: list[MatchOutcome] = []

    def count(index: int, outcome: MatchOutcome) -> None:
        roles = seat_roles(seats, index)
        for result in outcome.result.seats:
            standing = standings[roles[result.seat]]
            standing.label = result.name if standing.label.startswith("bot") else standing.label
            standing.matches += 1
            standing.wins += result.rank == 1
            standing.points += result.score
            standing.rank_sum += result.rank
        for fault in outcome.faults:
            reason = common_pb2.FaultReason.Name(fault.reason).removeprefix("FAULT_REASON_")
            standings[roles[fault.seat]].faults[reason.lower()] += 1
        outcomes.append(outcome)
        if on_match is not None:
            on_match(outcome)

    run_id = secrets.token_hex(3)
    if config.workers > 1:
        await _on_workers(config, run_id, count)
    else:
        send, receive = trio.open_memory_channel[int](math.inf)
        for index in range(config.matches):
            send.send_nowait(index)
        send.close()

        async def next_index() -> int | None:
            try:
                return await receive.receive()
            except trio.EndOfChannel:
                return None

        async def finished(index: int, outcome: MatchOutcome) -> None:
            count(index, outcome)

        await _play_series(config, run_id, "", next_index, finished)
    _disambiguate(standings)
    return standings, sorted(outcomes, key=lambda o: o.match_id)


async def _play_series(
    config: SeriesConfig,
    run_id: str,
    prefix: str,
    next_index: Callable[[], Awaitable[int | None]],
    finished: Callable[[int, MatchOutcome], Awaitable[None]],
) -> None:
    """Serve, launch the bots (their logs `<run_id>-<prefix><program>-bot<role>.log`), and play the
    matches `next_index` hands out, `config.concurrency` at a time."""
    with socket_folder() as folder, tempfile.TemporaryDirectory(prefix="croupier-logs-") as kept:
        launch = config.launch
        kept_apart = tuple(path for path in (config.records, config.logs) if path is not None)
        sandbox = Sandbox(
            enabled=config.sandbox,
            socket_dir=folder,
            secrets=(*kept_apart, *launch.secrets),
            runtime=launch.runtime,
        )
        # Without records the bots' output still goes somewhere: a bot that dies says why.
        logs = config.records / "logs" if config.records is not None else config.logs
        logs = logs or Path(kept)
        seats = config.game.seat_count(config.options)
        commands = [config.commands[i % len(config.commands)] for i in range(seats)]
        logs.mkdir(parents=True, exist_ok=True)
        bots = [
            BotProcess(
                command=command,
                token=secrets.token_urlsafe(24),
                log_path=logs / f"{run_id}-{prefix}{log_name(command)}-bot{role}.log",
                log_kept=config.records is not None or config.logs is not None,
                sessions=launch.sessions or config.concurrency,
                max_restarts=launch.max_restarts,
                limits=config.limits,
                sandbox=sandbox,
                cwd=launch.cwd,
                env=dict(launch.env),
                own_folder=launch.cwd is not None,
                confined=launch.confined,
            )
            for role, command in enumerate(commands)
        ]
        lobby = Lobby(games=frozenset({config.game.id}))
        for role, bot in enumerate(bots):
            lobby.admit(bot.token, label=f"bot{role}")
        done = trio.Event()
        settings = ServerSettings()
        async with serve(lobby, settings) as port, trio.open_nursery() as nursery:
            for bot in bots:
                nursery.start_soon(supervise, bot, f"127.0.0.1:{port}", lobby, done)

            async def worker() -> None:
                while (index := await next_index()) is not None:
                    await finished(index, await _play_one(config, run_id, index, bots, lobby))

            async with trio.open_nursery() as workers:
                for _ in range(min(config.concurrency, config.matches)):
                    workers.start_soon(worker)
            done.set()
            lobby.end_all("the series is over")


async def _on_workers(
    config: SeriesConfig, run_id: str, count: Callable[[int, MatchOutcome], None]
) -> None:
    """The series played by `config.workers` referee processes; a worker that dies has its
    unfinished matches played again."""

    def forget(index: int) -> None:  # what a dead worker left of a match it was playing
        if config.records is not None:
            (config.records / f"{_match_id(config, run_id, index)}.jsonl").unlink(missing_ok=True)

    host = _SeriesHost(config.matches, count, forget)
    split = shares(config.concurrency, config.workers)

    def start(number: int) -> tuple[Entry, tuple[object, ...]]:
        share = replace(config, concurrency=split[number], workers=1)
        return series_here, (share, run_id, number)

    with tempfile.TemporaryDirectory(prefix="croupier-logs-") as logs:
        folder = config.records / "logs" if config.records is not None else Path(logs)
        try:
            await run_workers(len(split), start, host, folder)
        except WorkerError as error:
            raise failed(error, SeriesError) from None


class _SeriesHost:
    """The series' side of its workers' calls: `next` (a match's index, or None) and
    `finished` (its outcome)."""

    def __init__(
        self,
        matches: int,
        count: Callable[[int, MatchOutcome], None],
        forget: Callable[[int], None],
    ) -> None:
        self.queue = deque(range(matches))
        self.count = count
        self.forget = forget

    def call(self, worker: Worker, method: str, payload: Any) -> Callable[[], Awaitable[Any]]:
        if method == "next":
            index = self.queue.popleft() if self.queue else None
            if index is not None:
                worker.held[index] = index
            return functools.partial(_value, index)
        if method == "finished":
            index, outcome = payload
            worker.held.pop(index, None)
            self.count(index, outcome)
            return functools.partial(_value, None)
        raise SeriesError(f"a referee worker asked for {method!r}")

    def lost(self, worker: Worker) -> None:
        for index in worker.held:
            self.forget(index)
        self.queue.extendleft(sorted(worker.held, reverse=True))
        worker.held.clear()


async def _value(value: object) -> object:
    return value


async def series_here(link: Link, config: SeriesConfig, run_id: str, number: int) -> None:
    """A worker's entry: launch the bots for this worker's share and play what the
    coordinator hands out."""
    config = replace(config, game=get_game(config.game.id))

    async def next_index() -> int | None:
        index: int | None = await link.call("next")
        return index

    async def finished(index: int, outcome: MatchOutcome) -> None:
        await link.call("finished", (index, outcome))

    await _play_series(config, run_id, f"w{number}-", next_index, finished)


async def _play_one(
    config: SeriesConfig, run_id: str, index: int, bots: list[BotProcess], lobby: Lobby
) -> MatchOutcome:
    roles = seat_roles(len(bots), index)

    def late(seat: int) -> SeriesError:
        bot = bots[roles[seat]]
        return SeriesError(
            f"bot {bot.command!r} did not connect within {config.connect_timeout:.0f} s"
            + last_words(bot)
        )

    tokens = [bots[role].token for role in roles]
    sessions = await take_sessions(lobby, tokens, config.connect_timeout, late)
    match_id = _match_id(config, run_id, index)
    path = config.records / f"{match_id}.jsonl" if config.records is not None else None
    async with seated(sessions, lobby) as seats:
        return await play_match(
            config,
            seats,
            seed=derive_seed(config.seed, index),
            match_id=match_id,
            record=path,
            deck=config.deck,
        )


def _match_id(config: SeriesConfig, run_id: str, index: int) -> str:
    return f"{config.game.id}-{run_id}-{index:04d}"


def _disambiguate(standings: list[Standing]) -> None:
    """Bots with the same name get their role number appended."""
    counts = Counter(s.label for s in standings)
    for role, standing in enumerate(standings):
        if counts[standing.label] > 1:
            standing.label = f"{standing.label}#{role}"
