"""`croupier serve`: a referee that listens and plays matches among the bots that connect.

Minimal for now: whoever is idle is seated, first come first served, seats rotating as sessions
come back. Contest features (accounts, TLS, ratings, spectators) build on this.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.clock import TimeControl
from referee.games.base import Game
from referee.games.options import Options
from referee.lobby import ANYONE, Lobby
from referee.match import MatchConfig, MatchOutcome, run_match
from referee.series import derive_seed
from referee.sessions import RemoteSeat, Session
from referee.transport import ServerSettings, serve


@dataclass(frozen=True, slots=True)
class ServeConfig:
    game: Game
    options: Options
    settings: ServerSettings = field(default_factory=ServerSettings)
    #: Tokens accepted; empty means any token (only sensible on loopback).
    tokens: tuple[str, ...] = ()
    records: Path | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    seed: int = 0
    #: Stop after this many matches (None: serve until interrupted).
    matches: int | None = None
    max_faults: int = 3


async def serve_matches(
    config: ServeConfig,
    on_listening: Callable[[int], None],
    on_match: Callable[[MatchOutcome], None],
) -> None:
    lobby = Lobby(open_access=not config.tokens, shared=True)
    for token in config.tokens:
        lobby.admit(token)
    seats = config.game.seat_count(config.options)
    async with serve(lobby, config.settings) as port:
        on_listening(port)
        async with trio.open_nursery() as nursery:
            indices = range(config.matches) if config.matches is not None else itertools.count()
            for index in indices:
                sessions = [await lobby.take(ANYONE) for _ in range(seats)]
                nursery.start_soon(_one, config, index, sessions, lobby, on_match)
        lobby.end_all("the referee is done")


async def _one(
    config: ServeConfig,
    index: int,
    sessions: list[Session],
    lobby: Lobby,
    on_match: Callable[[MatchOutcome], None],
) -> None:
    match_id = f"{config.game.id}-{index:05d}"
    match_config = MatchConfig(
        game=config.game,
        options=config.options,
        seed=derive_seed(config.seed, index),
        match_id=match_id,
        time_control=config.time_control,
        max_faults=config.max_faults,
    )
    path = config.records / f"{match_id}.jsonl" if config.records is not None else None
    remote = [RemoteSeat(s) for s in sessions]
    try:
        on_match(await run_match(match_config, remote, path))
    finally:
        for seat in remote:
            lobby.give_back(seat.session)
