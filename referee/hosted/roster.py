"""Hosted bots at play: the active version of every hosted account, launched by the contest.

`Roster.run` runs beside a contest's referee (`croupier serve --db`) and keeps one launched bot
per account that has an active version (referee.hosted.store): its manifest's run command, in
its built folder, in the bubblewrap sandbox, with its manifest's sessions and limits and
`ponder = false`, as a ladder launches its bots. The bot reaches the referee through its own
door with a token minted for this launch, and plays in the contest's one lobby beside the bots
that connect from outside: one book, one set of standings.

Each version is its own entrant, `ACCOUNT@SHORTID` (SHORT_ID hex digits of its id): its
matches, its rating and its interval are its own, and its records say which version played.

When an account's active version changes (a new one qualified, or it was withdrawn, or the
account's token was revoked) the old version is retired: its sessions end as each comes back
from its match (Lobby.retire), so no match is cut short, and its process leaves once its last
session has. A revoked account's version is stopped at once, as its network sessions are.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import secrets
import shlex
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

from referee.clock_kind import ClockKind
from referee.hosted.house import ranked
from referee.hosted.manifest import ManifestError, load_manifest
from referee.hosted.pipeline import PipelineSettings, VersionFiles
from referee.hosted.store import Version, VersionId, VersionStore, entrant
from referee.hosted.submitting import DECISION_LINES, MATCH_LOGS
from referee.local.bot_log import tapped
from referee.local.launcher import BotProcess, LaunchError, supervise
from referee.local.sandbox import Sandbox, socket_folder
from referee.match.lobby import Lobby
from referee.match.spectators import LiveMatch

log = logging.getLogger("croupier.referee")

#: How often the roster looks at the store's active versions (seconds).
POLL_SECONDS = 1.0
#: How long a version that could not be kept running waits before it is launched again.
RELAUNCH_SECONDS = 60.0
#: A hosted bot's output, beside its folder in the store (capped by its limits' log_bytes).
PLAY_LOG = "play.log"
#: The most of a hosted bot's output its author gets per match: its last bytes.
MATCH_LOG_BYTES = 64 * 1024
#: What a match's log starts with when its output was longer than MATCH_LOG_BYTES.
CUT_LINE = "[... the first {cut:,} bytes cut: a match's log keeps its last {kept:,} bytes ...]\n"


@dataclass
class _Running:
    version: Version
    identity: str
    #: Set to let the process go (it has `exit_grace` to leave after its last Goodbye).
    done: trio.Event = field(default_factory=trio.Event)


class Roster:
    """Launches and retires the hosted versions of `store` in `lobby`; run it in a nursery."""

    def __init__(
        self,
        store: VersionStore,
        lobby: Lobby,
        address: str,
        settings: PipelineSettings,
        revoked: Callable[[], set[str]] = set,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.address = address
        self.settings = settings
        #: The accounts whose tokens are revoked now (the contest's TokenStore.revoked).
        self.revoked = revoked
        self._sandbox = Sandbox(enabled=True)
        self.running: dict[str, _Running] = {}
        #: Every version launched by this roster, by its identity (retired ones still finish
        #: their matches).
        self.launched: dict[str, Version] = {}
        #: When each version that failed to run may be launched again (trio time).
        self._resting: dict[VersionId, float] = {}

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Keep the store's active versions playing until cancelled."""
        with socket_folder() as doors:
            self._sandbox = Sandbox(
                enabled=True,
                socket_dir=doors,
                secrets=self.settings.secrets,
                runtime=self.settings.runtime,
            )
            await self._run(task_status)

    async def _run(self, task_status: trio.TaskStatus[None]) -> None:
        async with trio.open_nursery() as nursery:
            task_status.started()
            while True:
                active = ranked(await trio.to_thread.run_sync(self.store.active_versions))
                revoked = await trio.to_thread.run_sync(self.revoked)
                self._update(nursery, active, revoked)
                await trio.sleep(POLL_SECONDS)

    def _update(self, nursery: trio.Nursery, active: list[Version], revoked: set[str]) -> None:
        wanted = {v.account: v for v in active if v.account not in revoked}
        for account, running in list(self.running.items()):
            if account in revoked:
                self.lobby.revoke(running.identity, "token revoked")
                self._retire(account, "token revoked")
            elif account not in wanted or wanted[account].id != running.version.id:
                self._retire(account, "replaced by the account's new active version")
        now = trio.current_time()
        for account, version in wanted.items():
            if account not in self.running and self._resting.get(version.id, 0.0) <= now:
                running = _Running(version, entrant(version))
                self.running[account] = running
                self.launched[running.identity] = version
                nursery.start_soon(self._play, running)

    def _retire(self, account: str, reason: str) -> None:
        running = self.running.pop(account)
        log.info("hosted version retired", extra={"bot": running.identity, "why": reason})
        self.lobby.retire(running.identity, reason)
        running.done.set()

    async def _play(self, running: _Running) -> None:
        """Launch the version and keep it running until it is retired."""
        version = running.version
        files = VersionFiles(self.store.folder(version.id))
        try:
            manifest = load_manifest(files.src, self.settings.maxima)
        except ManifestError as error:  # it qualified with this manifest: the store was changed
            self._rest(running, "not launched", error)
            return
        token = secrets.token_urlsafe(24)
        self.lobby.admit(token, identity=running.identity)
        bot = BotProcess(
            command=shlex.join(manifest.run_argv()),
            token=token,
            log_path=files.root / PLAY_LOG,
            sessions=self._sessions(manifest.sessions),
            cwd=files.run_folder(manifest),
            own_folder=True,
            confined=True,
            limits=manifest.limits(self.settings.qualify.limits),
            sandbox=self._sandbox,
            ponder=False,
            finish_matches=True,
        )
        log.info("hosted version launched", extra={"bot": running.identity})
        try:
            await supervise(bot, self.address, self.lobby, running.done)
        except LaunchError as error:
            self._rest(running, "stopped", error)

    def _sessions(self, asked: int) -> int:
        """The sessions a version plays at once: those its manifest asks, but one under a CPU
        clock, which charges a decision the CPU of the whole process (every match it plays)."""
        return 1 if self.settings.qualify.time_control.clock is ClockKind.CPU else asked

    def _rest(self, running: _Running, what: str, error: Exception) -> None:
        """Let a version that cannot be kept running rest before its next launch."""
        why = f"{error}; launched again in {RELAUNCH_SECONDS:.0f} s"
        log.warning(f"hosted version {what}", extra={"bot": running.identity, "why": why})
        self._resting[running.version.id] = trio.current_time() + RELAUNCH_SECONDS
        if self.running.get(running.version.account) is running:
            del self.running[running.version.account]

    @asynccontextmanager
    async def match_output(
        self,
        identities: list[str],
        match_id: str,
        live: Callable[[], LiveMatch | None] = lambda: None,
    ) -> AsyncIterator[None]:
        """Keep what each hosted version among `identities` (in seat order) prints while the
        block (its match `match_id`) runs, as `kept_output` keeps it. A version that plays
        several matches at once prints into each of their logs."""
        seats: dict[str, list[int]] = {}
        for seat, name in enumerate(identities):
            if name in self.launched:
                seats.setdefault(name, []).append(seat)
        versions = [(self.launched[name], held) for name, held in seats.items()]
        players = [(version.id, PLAY_LOG, held) for version, held in versions]
        async with kept_output(self.store, players, match_id, live):
            yield
        for version, _ in versions:
            await trio.to_thread.run_sync(self.store.played, version.id, match_id)


@asynccontextmanager
async def kept_output(
    store: VersionStore,
    players: Sequence[tuple[VersionId, str, Sequence[int]]],
    match_id: str,
    live: Callable[[], LiveMatch | None],
) -> AsyncIterator[None]:
    """Keep what each of `players` (a version, the log in its folder its process prints to,
    the seats it holds) prints while the block (its match `match_id`) runs: the last
    MATCH_LOG_BYTES, in its folder, for its author, and each line with the decision `live()`
    (the match as it is played) was at when the line arrived (DecisionLines). The one way a
    contest's match and a challenge's keep their hosted versions' output (issue 45.4)."""
    kept = [
        (vid, store.folder(vid), log, OutputTail(), DecisionLines(seats, live))
        for vid, log, seats in players
    ]
    async with contextlib.AsyncExitStack() as taps:
        for _, folder, log, tail, lines in kept:
            taps.enter_context(tapped(folder / log, tail.add))
            taps.enter_context(tapped(folder / log, lines.add))
        yield
    for _, folder, _, tail, lines in kept:
        await trio.to_thread.run_sync(tail.save, folder / MATCH_LOGS / f"{match_id}.log")
        path = folder / MATCH_LOGS / f"{match_id}{DECISION_LINES}"
        await trio.to_thread.run_sync(lines.save, path)


class DecisionLines:
    """A hosted version's output during one match, a line at a time, each tagged with the
    latest decision of its seats (all of a side's, in a team game) when the line arrived: a
    hosted bot is stopped outside its turns (`ponder = false`), so what it prints belongs to its
    own decisions. The last MATCH_LOG_BYTES of lines
    are kept, as the match's log keeps its bytes; a line unfinished at the end is kept too."""

    def __init__(self, seats: Sequence[int], live: Callable[[], LiveMatch | None]) -> None:
        self.seats = tuple(seats)
        self.live = live
        self.lines: collections.deque[tuple[int, str]] = collections.deque()
        self.bytes = 0
        self._partial = bytearray()

    def add(self, data: bytes) -> None:
        self._partial += data
        *done, rest = self._partial.split(b"\n")
        if done:
            match = self.live()
            said = match.decisions if match is not None else {}
            decision = max((said.get(seat, 0) for seat in self.seats), default=0)
            for line in done:
                self._keep(decision, line)
            self._partial = rest

    def _keep(self, decision: int, line: bytes | bytearray) -> None:
        self.lines.append((decision, line.decode(errors="replace")))
        self.bytes += len(line) + 1
        while self.bytes > MATCH_LOG_BYTES and len(self.lines) > 1:
            self.bytes -= len(self.lines.popleft()[1].encode()) + 1

    def save(self, path: Path) -> None:
        """Write the lines as JSON Lines: `{"decision": N, "line": "..."}` (decision 0: before
        the seat's first)."""
        if self._partial:
            self.add(b"\n")
        path.parent.mkdir(exist_ok=True)
        with path.open("w") as file:
            for decision, line in self.lines:
                file.write(json.dumps({"decision": decision, "line": line}) + "\n")


class OutputTail:
    """The last MATCH_LOG_BYTES of a stream of output, and how much came before them."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.cut = 0

    def add(self, data: bytes) -> None:
        self.data += data
        if len(self.data) > 2 * MATCH_LOG_BYTES:  # trimmed now and then, not at every write
            self._trim()

    def _trim(self) -> None:
        over = max(0, len(self.data) - MATCH_LOG_BYTES)
        self.cut += over
        del self.data[:over]

    def save(self, path: Path) -> None:
        self._trim()
        path.parent.mkdir(exist_ok=True)
        head = CUT_LINE.format(cut=self.cut, kept=MATCH_LOG_BYTES).encode() if self.cut else b""
        path.write_bytes(head + self.data)
