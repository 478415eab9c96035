"""Who may connect, and the sessions waiting for their next match, per bot (token)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import trio

from referee.sessions import Session

#: The pool key for sessions when the lobby is open to any token (a loopback `croupier serve`).
ANYONE = "*"


@dataclass
class Lobby:
    """Sessions by token. Each session is idle here between matches; a match takes it out.

    With `open_access`, every token is accepted; with `shared`, all sessions wait in one pool
    (a referee that seats whoever is idle) instead of one pool per token.
    """

    open_access: bool = False
    shared: bool = False
    _pools: dict[
        str, tuple[trio.MemorySendChannel[Session], trio.MemoryReceiveChannel[Session]]
    ] = field(default_factory=dict)
    sessions_opened: int = 0
    #: Set by `end_all`: sessions that open later are ended at once.
    closing: str = ""
    #: Every session ever opened, by token (for telling a bot's sessions its process died).
    by_token: dict[str, list[Session]] = field(default_factory=dict)

    def admit(self, token: str) -> None:
        """Accept sessions that present `token`."""
        if token not in self._pools:
            self._pools[token] = trio.open_memory_channel[Session](math.inf)

    def accepts(self, token: str) -> bool:
        return self.open_access or (token in self._pools and token != ANYONE)

    def _pool(self, token: str) -> str:
        if self.shared:
            if ANYONE not in self._pools:
                self._pools[ANYONE] = trio.open_memory_channel[Session](math.inf)
            return ANYONE
        return token

    def open(self, session: Session) -> None:
        """A new authenticated session joins its pool (called by the transport)."""
        self.sessions_opened += 1
        self.by_token.setdefault(session.token, []).append(session)
        if self.closing:
            session.end(self.closing)
            return
        self.give_back(session)

    def process_exited(self, token: str, detail: str) -> None:
        """The process behind `token` exited: its open sessions' faults become crashes."""
        for session in self.by_token.get(token, []):
            if not session.process_exited.is_set():
                session.exit_detail = detail
                session.process_exited.set()

    def end_all(self, reason: str) -> None:
        """Say Goodbye on every open session, and on any that opens from now on."""
        self.closing = reason
        for sessions in self.by_token.values():
            for session in sessions:
                session.end(reason)

    def give_back(self, session: Session) -> None:
        """A session that finished a match waits for the next one (dropped if it closed)."""
        if not session.closed.is_set():
            self._pools[self._pool(session.token)][0].send_nowait(session)

    async def take(self, token: str = ANYONE) -> Session:
        """The next idle, still-open session for `token` (or from the shared pool)."""
        receive = self._pools[self._pool(token)][1]
        while True:
            session = await receive.receive()
            if not session.closed.is_set():
                return session
