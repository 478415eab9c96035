"""Who may connect, and the sessions waiting for their next match, per bot identity.

A session's identity is the bot it belongs to: the admitted token itself (bots that `croupier
match` launches), the identity it was admitted with (a contest's hosted version, "alice@4e63..."),
or the account name a contest's token store gives for the token.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from croupier.v1 import common_pb2, referee_pb2
from referee.match.launched import LaunchedBot
from referee.match.remote_seat import RemoteSeat
from referee.match.session import Session, protocol_of

#: The pool key for sessions when all wait in one pool (a referee that seats whoever is idle).
ANYONE = "*"

#: The newest session protocol this referee speaks (Hello.protocol_version), and every version
#: it still serves with its own meaning (docs/bots.md, "Protocol versions"): 1 is the protocol
#: of bots built before ActionReply.action_index had presence (an unset index there is 0), 2
#: the current one (an unset index is a malformed reply).
PROTOCOL_VERSION = 2
PROTOCOL_VERSIONS = (1, 2)

#: What a bot is told when its token is missing or unknown.
UNKNOWN_TOKEN = "missing or unknown token: send metadata 'authorization: Bearer <token>'"

_Pool = tuple[trio.MemorySendChannel[Session], trio.MemoryReceiveChannel[Session]]


@dataclass
class Lobby:
    """Sessions by identity. Each session is idle here between matches; a match takes it out.

    With `open_access`, every token is accepted (its identity is the token); with
    `authenticate`, a token's identity is what it returns (None refuses the token); with
    `shared`, all sessions wait in one pool instead of one pool per identity.
    """

    open_access: bool = False
    shared: bool = False
    authenticate: Callable[[str], str | None] | None = None
    #: Why `authenticate` refused a token, when there is more to say than "unknown" (a revoked
    #: account's token): the detail of the UNAUTHENTICATED status the bot gets.
    explain_refusal: Callable[[str], str | None] | None = None
    #: The games this referee seats bots in (empty: not known here, e.g. the doctor's, which
    #: checks Hello.games itself). A bot whose Hello lists none of them is refused.
    games: frozenset[str] = frozenset()
    #: The last reason a Hello was refused, by identity (for the launcher's error message).
    refused: dict[str, str] = field(default_factory=dict)
    sessions_opened: int = 0
    #: Set by `end_all`: sessions that open later are ended at once.
    closing: str = ""
    #: Every session ever opened, by identity (to tell a bot's sessions its process died).
    by_identity: dict[str, list[Session]] = field(default_factory=dict)
    #: Admitted tokens (launched bots), each with its identity: the token itself unless given.
    _admitted: dict[str, str] = field(default_factory=dict)
    #: The identities of admitted tokens: their closed sessions are kept (see `open`).
    _launched: set[str] = field(default_factory=set)
    _pools: dict[str, _Pool] = field(default_factory=dict)
    #: Remote seats in a match now, by identity: a bot that comes back after losing its
    #: connection takes such a seat back (see RemoteSeat).
    _in_play: dict[str, list[RemoteSeat]] = field(default_factory=dict)
    #: The launched process behind each identity that has one (see `attach`).
    _processes: dict[str, LaunchedBot] = field(default_factory=dict)

    #: Names to show and log for admitted tokens' identities (see `label`).
    _labels: dict[str, str] = field(default_factory=dict)
    #: The door (a sandboxed bot's own socket, referee.local.doors) each such token must come
    #: through; a token without one is accepted at the referee's main address only.
    _doors: dict[str, str] = field(default_factory=dict)
    #: Identities retired (see `retire`), with the reason their sessions are told.
    _retired: dict[str, str] = field(default_factory=dict)

    def admit(self, token: str, label: str = "", door: str = "", identity: str = "") -> None:
        """Accept sessions that present `token`; their identity is `identity` (else the token,
        kept from an earlier call), shown as `label`. With `door`, only sessions that come
        through that door (issue 31)."""
        who = identity or self._admitted.get(token, token)
        self._admitted[token] = who
        self._launched.add(who)
        if label:
            self._labels[who] = label
        if door:
            self._doors[token] = door

    def launched_identity(self, token: str) -> str:
        """The identity an admitted token was given: the launcher's key for its bot."""
        return self._admitted.get(token, token)

    def identity(self, token: str, door: str = "") -> str | None:
        """Who `token` belongs to, or None to refuse it: also when it came through another door
        than its own (`door` "": the main address). Called by the transport."""
        if self._doors.get(token, "") != door:
            return None
        if token in self._admitted:
            return self._admitted[token]
        if self.authenticate is not None:
            return self.authenticate(token)
        if self.open_access and token:  # any token, but a token (docs/bots.md)
            return token
        return None

    def credential(self, token: str) -> str:
        """What a session keeps of the token it came with: its SHA-256 when the contest's
        accounts admitted it (a team member's), else "" (a launched bot's, or any token on an
        open referee), so that `revoke_tokens` can end one member's sessions alone."""
        if self.authenticate is None or token in self._admitted:
            return ""
        return hashlib.sha256(token.encode()).hexdigest()

    def refusal(self, token: str) -> str:
        """What a bot whose token `identity` refused is told."""
        said = self.explain_refusal(token) if self.explain_refusal is not None and token else None
        return said or UNKNOWN_TOKEN

    def refuse_hello(self, identity: str, hello: referee_pb2.Hello) -> str | None:
        """Why this Hello cannot be served (None: it can). Called by the transport, which ends
        the stream with FAILED_PRECONDITION and this reason."""
        reason = None
        version = protocol_of(hello)
        if version not in PROTOCOL_VERSIONS:
            reason = (
                f"protocol version {version!r} is not supported: this referee speaks "
                f"{', '.join(map(str, PROTOCOL_VERSIONS))}"
            )
        elif self.games and hello.games and not self.games & set(hello.games):
            reason = (
                f"the bot plays only {sorted(hello.games)!r}; "
                f"this referee runs {sorted(self.games)!r}"
            )
        if reason is not None:
            self.refused[identity] = reason
        return reason

    def label(self, identity: str) -> str:
        """What to show and log for `identity`, never a secret: an account name, the label it
        was admitted with, or else a fingerprint of the token (which is the identity then)."""
        if identity in self._labels:
            return self._labels[identity]
        if self.authenticate is not None and identity not in self._admitted:
            return identity  # an account name from the token store
        return f"token-{hashlib.sha256(identity.encode()).hexdigest()[:8]}"

    def active(self, identity: str) -> int:
        """How many of the identity's sessions are open now."""
        return sum(not s.closed.is_set() for s in self.by_identity.get(identity, ()))

    def _pool(self, identity: str) -> _Pool:
        key = ANYONE if self.shared else identity
        if key not in self._pools:
            self._pools[key] = trio.open_memory_channel[Session](math.inf)
        return self._pools[key]

    def attach(self, identity: str, process: LaunchedBot) -> None:
        """`identity`'s bot runs as `process` (just launched): its sessions carry it, for CPU
        time and pondering. Called by the launcher before the process can connect."""
        self._processes[identity] = process

    def open(self, session: Session) -> None:
        """A new authenticated session: to a seat waiting for its bot, else to its pool."""
        self.sessions_opened += 1
        session.process = self._processes.get(session.identity)
        sessions = self.by_identity.setdefault(session.identity, [])
        if session.identity not in self._launched:
            # Only a launched (admitted) bot's process can exit under a closed session that a
            # seat still holds (see process_exited); other closed sessions are let go.
            sessions[:] = [s for s in sessions if not s.closed.is_set()]
        sessions.append(session)
        if self.closing or session.identity in self._retired:
            session.end(self.closing or self._retired[session.identity])
            return
        for seat in self._in_play.get(session.identity, ()):
            if seat.offer(session):
                return
        self.give_back(session)

    def give_back(self, session: Session) -> None:
        """A session that finished a match waits for the next one (dropped if it closed; ended
        if its identity was retired meanwhile)."""
        if session.identity in self._retired:
            session.end(self._retired[session.identity])
        elif not session.closed.is_set():
            self._pool(session.identity)[0].send_nowait(session)

    def retire(self, identity: str, reason: str) -> None:
        """Seat `identity` no more: each of its sessions ends with Goodbye and `reason` when it
        is next taken from the lobby (`wanted`) or comes back from a match (a replaced hosted
        version finishes the matches it was seated in, even one still waiting to start), and
        any it opens later at once."""
        self._retired[identity] = reason

    def wanted(self, session: Session) -> bool:
        """Whether an idle session may still be seated: open, and not of a retired identity
        (which it ends now)."""
        if session.identity in self._retired:
            session.end(self._retired[session.identity])
        return not session.closed.is_set()

    async def take(self, identity: str = ANYONE) -> Session:
        """The next idle, still-open session for `identity` (or from the shared pool)."""
        receive = self._pool(identity)[1]
        while True:
            session = await receive.receive()
            if self.wanted(session):
                return session

    def take_nowait(self, identity: str = ANYONE) -> Session | None:
        """An idle, still-open session if one is waiting now, else None."""
        receive = self._pool(identity)[1]
        while True:
            try:
                session = receive.receive_nowait()
            except trio.WouldBlock:
                return None
            if self.wanted(session):
                return session

    def enlist(self, seat: RemoteSeat) -> None:
        """The seat is in a match: a new session of its bot may take it back."""
        self._in_play.setdefault(seat.session.identity, []).append(seat)

    def release(self, seat: RemoteSeat) -> None:
        seats = self._in_play.get(seat.session.identity, [])
        if seat in seats:
            seats.remove(seat)

    def process_exited(
        self,
        identity: str,
        detail: str,
        reason: common_pb2.FaultReason = common_pb2.FAULT_REASON_CRASHED,
    ) -> None:
        """The process behind `identity` exited: its open sessions' faults become crashes, or
        the limit it went over (`reason`) when the launcher could tell."""
        for session in self.by_identity.get(identity, []):
            if not session.process_exited.is_set():
                session.exit_detail = detail
                session.exit_reason = reason
                session.process_exited.set()

    def revoke(self, identity: str, reason: str) -> None:
        """Close every session of `identity` now (its token was revoked); its seats fault."""
        for session in self.by_identity.get(identity, []):
            session.abort(reason)

    def revoke_tokens(self, revoked: dict[str, str]) -> int:
        """Close now every session that came with a token in `revoked` (its SHA-256, with the
        reason it is told): a team member removed, or a token replaced. Returns how many."""
        ended = 0
        for sessions in self.by_identity.values():
            for session in sessions:
                why = revoked.get(session.credential) if session.credential else None
                if why is not None and not session.closed.is_set():
                    session.abort(why, "UNAUTHENTICATED")
                    ended += 1
        return ended

    def end_all(self, reason: str) -> None:
        """Say Goodbye on every open session, and on any that opens from now on."""
        self.closing = reason
        for sessions in self.by_identity.values():
            for session in sessions:
                session.end(reason)
