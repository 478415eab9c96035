"""Seating and playing a match over bots' sessions: the one way every player of matches does it.

A series (`croupier match`), a ladder's local slots, the contest server and the doctor all take
sessions from the lobby, seat them as `RemoteSeat`s, build the match's config from settings of
their own, play it, and hand the sessions back. Done here once, they agree on what is easy to
get wrong: a session that does not come in time gives back those already taken, and the session
handed back is the one that holds the seat at the end (a reconnect may have replaced it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Protocol

import trio

from referee.games.base import Game
from referee.games.options import Options
from referee.match.clock import TimeControl
from referee.match.lobby import Lobby
from referee.match.records import ChallengeMark
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, MatchOutcome, run_match
from referee.match.seats import Seat
from referee.match.session import Session
from referee.match.spectators import LiveMatches


class MatchRules(Protocol):
    """What a series, a ladder, a contest or a doctor run fixes for every match it plays."""

    @property
    def game(self) -> Game: ...

    @property
    def options(self) -> Options: ...

    @property
    def time_control(self) -> TimeControl: ...

    @property
    def max_faults(self) -> int: ...


async def take_sessions(
    lobby: Lobby,
    identities: Sequence[str],
    timeout: float,
    late: Callable[[int], Exception],
) -> list[Session]:
    """An idle session of each identity, in seat order, each waited for up to `timeout`
    seconds. If one does not come, the sessions taken are given back and `late(seat)` (the
    caller's error, which knows how to name the bot) is raised."""
    sessions: list[Session] = []
    for seat, identity in enumerate(identities):
        with trio.move_on_after(timeout):
            sessions.append(await lobby.take(identity))
            continue
        for session in sessions:
            lobby.give_back(session)
        raise late(seat)
    return sessions


@asynccontextmanager
async def seated(
    sessions: Sequence[Session],
    lobby: Lobby,
    *,
    grace: float = 0.0,
    names: Sequence[str] | None = None,
    leave: Callable[[Session], None] | None = None,
) -> AsyncIterator[list[RemoteSeat]]:
    """The sessions seated, in order, as remote seats that may wait `grace` seconds for their
    bot to reconnect (see RemoteSeat), shown as `names` where given (a ladder's or contest's
    name for the bot, in the record and MatchStart). As the block ends, each seat's session
    goes to `leave` (by default back to the lobby's pool)."""
    seats = [RemoteSeat(session, lobby, grace) for session in sessions]
    if names is not None:
        for seat, name in zip(seats, names, strict=True):
            seat.name = name
    try:
        yield seats
    finally:
        for seat in seats:
            (leave or lobby.give_back)(seat.session)


async def play_match(
    rules: MatchRules,
    seats: Sequence[Seat],
    *,
    seed: int,
    match_id: str,
    record: Path | None = None,
    live: LiveMatches | None = None,
    deck: tuple[str, ...] | None = None,
    time_control: TimeControl | None = None,
    challenge: ChallengeMark | None = None,
) -> MatchOutcome:
    """Play one match under `rules` (with another `time_control` if given) and return how it
    ended; writes its record at `record` (naming the `challenge` it is played for, if any) and
    shows it to spectators in `live` if given."""
    config = MatchConfig(
        game=rules.game,
        options=rules.options,
        seed=seed,
        match_id=match_id,
        deck=deck,
        time_control=time_control or rules.time_control,
        max_faults=rules.max_faults,
        challenge=challenge,
    )
    return await run_match(config, seats, record, live)
