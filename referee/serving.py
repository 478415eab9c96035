"""`croupier serve`: a referee that bots connect to from anywhere, and that plays them.

Bots authenticate with a token from the contest's account store (or any token, on loopback
only); whoever is idle is seated, seats rotating as sessions come back. Spectators watch live
matches. On SIGINT or SIGTERM the referee drains: health turns NOT_SERVING, no match starts,
running matches get `drain_seconds` to finish and are then aborted with their records closed.
"""

from __future__ import annotations

import itertools
import logging
import signal
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
from referee.spectators import LiveMatches
from referee.tokens import TokenStore
from referee.transport import ServerControl, ServerSettings, serve

log = logging.getLogger("croupier.referee")

#: How often a running referee looks for revoked tokens.
REVOCATION_POLL_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class ServeConfig:
    game: Game
    options: Options
    settings: ServerSettings = field(default_factory=ServerSettings)
    #: The contest's account store; None accepts any token (only sensible on loopback).
    tokens: Path | None = None
    records: Path | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    seed: int = 0
    #: Stop after this many matches (None: serve until told to stop).
    matches: int | None = None
    max_faults: int = 3
    #: How long a seat waits for its bot to reconnect after losing its connection.
    reconnect_grace: float = 10.0
    #: Matches one session may play before the referee ends it (None: no limit).
    max_matches_per_session: int | None = None
    #: How long running matches may go on once a shutdown starts.
    drain_seconds: float = 30.0


async def serve_matches(
    config: ServeConfig,
    on_listening: Callable[[int], None],
    on_match: Callable[[MatchOutcome], None],
    stop: trio.Event | None = None,
) -> None:
    """Serve until `config.matches` were played, or `stop` is set, or a SIGINT/SIGTERM."""
    store = TokenStore(config.tokens) if config.tokens is not None else None
    lobby = Lobby(
        open_access=store is None,
        shared=True,
        authenticate=store.lookup if store is not None else None,
    )
    live = LiveMatches()
    control = ServerControl()
    stop = stop if stop is not None else trio.Event()
    seats = config.game.seat_count(config.options)
    played: dict[str, int] = {}
    async with serve(lobby, config.settings, live, control) as port, trio.open_nursery() as aux:
        on_listening(port)
        aux.start_soon(_stop_on_signals, stop)
        if store is not None:
            aux.start_soon(_enforce_revocations, store, lobby)
        async with trio.open_nursery() as matches:
            with trio.CancelScope() as matchmaking:
                aux.start_soon(_cancel_when, stop, matchmaking)
                indices = range(config.matches) if config.matches else itertools.count()
                for index in indices:
                    sessions = [await lobby.take(ANYONE) for _ in range(seats)]
                    matches.start_soon(_one, config, index, sessions, lobby, live, played, on_match)
            if stop.is_set():
                log.info("draining", extra={"seconds": config.drain_seconds})
                await control.drain()
                matches.cancel_scope.deadline = trio.current_time() + config.drain_seconds
        lobby.end_all("the referee is shutting down" if stop.is_set() else "the referee is done")
        aux.cancel_scope.cancel()


async def _one(
    config: ServeConfig,
    index: int,
    sessions: list[Session],
    lobby: Lobby,
    live: LiveMatches,
    played: dict[str, int],
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
    remote = [RemoteSeat(s, lobby, config.reconnect_grace) for s in sessions]
    log.info("match started", extra={"match": match_id, "bots": [s.token for s in sessions]})
    try:
        outcome = await run_match(match_config, remote, path, live)
    finally:
        for seat in remote:
            session = seat.session
            played[session.id] = played.get(session.id, 0) + 1
            limit = config.max_matches_per_session
            if limit is not None and played[session.id] >= limit:
                session.end(f"match limit: {limit} matches per session", "RESOURCE_EXHAUSTED")
            else:
                lobby.give_back(session)
    log.info("match over", extra={"match": match_id, "result": outcome.result.text})
    on_match(outcome)


async def _stop_on_signals(stop: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            stop.set()
            return


async def _cancel_when(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _enforce_revocations(store: TokenStore, lobby: Lobby) -> None:
    """A revoked token's sessions end at once, mid-match too (its seats then fault)."""
    enforced: set[str] = set()
    while True:
        revoked = await trio.to_thread.run_sync(store.revoked)
        for name in revoked - enforced:
            log.info("token revoked", extra={"bot": name})
            lobby.revoke(name, "token revoked")
        enforced = revoked
        await trio.sleep(REVOCATION_POLL_SECONDS)
