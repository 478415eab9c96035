"""Live matches and their spectators: only public events ever reach a spectator.

A plain object, no trio primitives: the transport's Watch handler (asyncio) and the runner (trio)
both call it directly, which is safe because both run on one thread (referee.transport.host).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from croupier.v1 import game_pb2, referee_pb2

Watcher = Callable[[referee_pb2.WatchMessage | None], None]
#: Builds the table a spectator sees now; called only when someone is watching.
TableMaker = Callable[[], game_pb2.Observation]


@dataclass(eq=False)
class LiveMatch:
    """One match's public story so far, and who is watching it."""

    start: referee_pb2.MatchStart
    history: list[referee_pb2.WatchMessage] = field(default_factory=list)
    watchers: list[Watcher] = field(default_factory=list)
    over: bool = False
    #: The table after the latest step (built lazily: most matches have no spectator). The web
    #: site reads it and `history` at its own pace, as no watcher, so no step builds one for it.
    table: TableMaker | None = None
    #: Steps so far: a reader builds `table()` again only when this has moved.
    steps: int = 0
    #: Each seat's bank (ms) as its clock stands, and the seats deciding now with the moment
    #: (time.monotonic()) each was asked: all a spectator's clock needs, and public (the bots
    #: see their own in ActionRequest.clock; the time a seat takes is in every record).
    banks_ms: list[float] = field(default_factory=list)
    deciding: dict[int, float] = field(default_factory=dict)
    #: Moves each time a clock starts or stops: a reader sends clocks again only then.
    clock_changes: int = 0
    #: Each seat's latest decision (1-based, as the record counts its action lines): what a
    #: hosted bot's output is tagged with as it arrives (referee.hosted.roster). Not told to
    #: spectators.
    decisions: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.history.append(referee_pb2.WatchMessage(match_start=self.start))

    def publish(self, event: game_pb2.Event) -> None:
        """A public event (the runner never passes a private one)."""
        self._send(
            referee_pb2.WatchMessage(
                event=referee_pb2.MatchEvent(match_id=self.start.match_id, event=event)
            )
        )

    def step(self, table: TableMaker) -> None:
        """A step's events are published: its table goes to whoever watches (not the history:
        a spectator who joins later gets the latest table only)."""
        self.table = table
        self.steps += 1
        if self.watchers:
            message = referee_pb2.WatchMessage(public_table=table())
            for watcher in self.watchers:
                watcher(message)

    def asked(
        self, seat: int, bank_ms: float, at: float | None = None, decision: int | None = None
    ) -> None:
        """The seat was sent a request with `bank_ms` in its bank (at `at`, time.monotonic(),
        if not now): its clock runs. `decision`: which of the match's decisions it is."""
        if decision is not None:
            self.decisions[seat] = decision
        self._bank(seat, bank_ms)
        self.deciding[seat] = time.monotonic() if at is None else at
        self.clock_changes += 1

    def answered(self, seat: int, bank_ms: float) -> None:
        """The seat's decision is over (replied, timed out or faulted): its clock stops."""
        self._bank(seat, bank_ms)
        self.deciding.pop(seat, None)
        self.clock_changes += 1

    def clocks(self) -> list[dict[str, int | None]]:
        """Each seat's bank and, while it decides, the time it has taken so far (ms)."""
        now = time.monotonic()
        return [
            {
                "bank_ms": round(bank),
                "thinking_ms": (
                    round((now - self.deciding[seat]) * 1000) if seat in self.deciding else None
                ),
            }
            for seat, bank in enumerate(self.banks_ms)
        ]

    def _bank(self, seat: int, bank_ms: float) -> None:
        if len(self.banks_ms) <= seat:
            self.banks_ms += [0.0] * (seat + 1 - len(self.banks_ms))
        self.banks_ms[seat] = bank_ms

    def finish(self, end: referee_pb2.MatchEnd) -> None:
        self._send(referee_pb2.WatchMessage(match_end=end))
        self.over = True
        for watcher in self.watchers:
            watcher(None)
        self.watchers.clear()

    def watch(self, watcher: Watcher) -> None:
        """Send everything so far and the latest table, then each new message; None marks the
        end."""
        for message in self.history:
            watcher(message)
        if self.table is not None and not self.over:
            watcher(referee_pb2.WatchMessage(public_table=self.table()))
        if self.over:
            watcher(None)
        else:
            self.watchers.append(watcher)

    def unwatch(self, watcher: Watcher) -> None:
        if watcher in self.watchers:
            self.watchers.remove(watcher)

    def _send(self, message: referee_pb2.WatchMessage) -> None:
        self.history.append(message)
        for watcher in self.watchers:
            watcher(message)


@dataclass
class LiveMatches:
    """The matches being played now, by id, and the spectators waiting for the next one."""

    matches: dict[str, LiveMatch] = field(default_factory=dict)
    #: Called with each match as it opens (spectators that follow the matches).
    openers: list[Callable[[LiveMatch], None]] = field(default_factory=list)

    def open(self, start: referee_pb2.MatchStart, banks_ms: Sequence[float] = ()) -> LiveMatch:
        """A match opens, each seat's clock with its bank (ms)."""
        live = LiveMatch(start, banks_ms=list(banks_ms))
        self.matches[start.match_id] = live
        for opener in list(self.openers):
            opener(live)
        return live

    def next_unseen(self, seen: set[str], bot: str = "") -> LiveMatch | None:
        """The oldest live match not in `seen` (with a seat named `bot`, if given); `seen`
        forgets the matches that are over, so it stays as small as the live list."""
        seen &= self.matches.keys()
        for match_id, live in self.matches.items():
            if match_id not in seen and (not bot or _plays(bot, live.start.seat_names)):
                return live
        return None

    def close(self, match_id: str) -> None:
        self.matches.pop(match_id, None)

    def get(self, match_id: str) -> LiveMatch | None:
        return self.matches.get(match_id)

    def listing(self) -> referee_pb2.ListMatchesResponse:
        return referee_pb2.ListMatchesResponse(
            matches=[
                referee_pb2.LiveMatch(
                    match_id=live.start.match_id,
                    game=live.start.game,
                    seat_names=live.start.seat_names,
                    options=live.start.options,
                )
                for live in self.matches.values()
            ]
        )


def _plays(bot: str, names: Sequence[str]) -> bool:
    """Whether `bot` sits at the table: a seat's name is the bot's, or in a contest its account's
    with the bot's own name beside it ("alice (random)")."""
    return any(name == bot or name.startswith(f"{bot} (") for name in names)
