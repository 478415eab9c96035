"""Hostile bots for the cheat suite (tests/test_cheats.py): python cheaters.py CHEAT [ARG...].

Each plays random legal actions, but first tries one cheat. It prints `CHEAT FAILED: <why>` and
plays on when the cheat is refused; when it works it prints `CHEAT WORKED: <what>` and exits with
code 42 (a crash the test sees as a fault). The limit cheats (memory, processes, disk, cpu) let the
error kill the process, so that the referee must name the limit in the fault.

Cheats: record FOLDER, database PATH, folder PATH, environ PID NAME, peek PID, home PATH, tcp
PORT, deal, memory, processes, disk, cpu, orphan MARKER, ponder, ponder-setsid, ponder-double-fork
(ponder's spinning done by a child that left the bot's process group: by setsid(), or by a new
process group and a second fork), counters (the machine's or other bots' live CPU counters),
relay (which then plays over its loopback TCP address, CROUPIER_TCP_ADDRESS, rather than its
door), chatter MIB (prints that many MiB, then plays on), chatter_disk MIB (prints, then fills its
scratch as `disk` does).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import random
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import croupier
from croupier.v1 import referee_pb2

CHEAT = sys.argv[1]
ARGS = sys.argv[2:]


def worked(what: str) -> None:
    print(f"CHEAT WORKED: {what}", flush=True)
    os._exit(42)


def failed(why: object) -> None:
    print(f"CHEAT FAILED: {why}", flush=True)


def read_record(folder: str) -> None:
    """The live record: its header holds the seed, its chance lines the deal."""
    for path in Path(folder).glob("*.jsonl*"):
        worked(f"read {path}: {path.read_text()[:80]!r}")
    failed(f"no record visible in {folder!r}")


def read_database(path: str) -> None:
    """The ladder database holds the master seed until the ladder ends."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        seed = db.execute("SELECT value FROM meta WHERE key = 'master_seed'").fetchone()
    worked(f"master seed {seed!r}")


def read_folder(path: str) -> None:
    """Another bot's folder (its files), or the logs of every bot."""
    folder = Path(path)
    entries = [entry.name for entry in folder.iterdir()]
    if not entries:
        failed(f"{path!r} is empty here")
        return
    for entry in folder.iterdir():
        if entry.is_file():
            worked(f"read {entry}: {entry.read_text()[:40]!r}")
    worked(f"listed {path!r}: {entries}")


def read_environ(pid: str, name: str) -> None:
    """The referee's environment (its tokens, its secrets), or the bot's own copy of it."""
    if name in os.environ:
        worked(f"{name} is in the bot's own environment")
    data = Path(f"/proc/{pid}/environ").read_bytes()
    if name.encode() in data:
        worked(f"{name} read from /proc/{pid}/environ")
    failed(f"/proc/{pid}/environ has no {name} here")


def read_memory(pid: str) -> None:
    """The referee's memory (its RNG state, the deal, tokens): any readable byte of it."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    with open(f"/proc/{pid}/mem", "rb") as memory:
        for line in maps:
            span, permissions = line.split()[:2]
            if permissions.startswith("r"):
                start = int(span.split("-")[0], 16)
                memory.seek(start)
                data = memory.read(64)
                worked(f"read {len(data)} bytes of /proc/{pid}/mem at {start:#x}")
    failed(f"no readable mapping in /proc/{pid}/maps")


class Spinner(threading.Thread):
    """Keeps a CPU busy all the time (thinking on the opponent's clock), and notes the longest
    pause in its spinning since `since()`: a pause that spans the opponent's time means the
    referee stopped the bot while it was not to move."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.last = time.monotonic()
        self.longest_pause = 0.0

    def run(self) -> None:
        while True:
            now = time.monotonic()
            self.longest_pause = max(self.longest_pause, now - self.last)
            self.last = now

    def since(self) -> float:
        """The longest pause since the last call, the one going on included (after a SIGCONT
        the thread that asks may run before the spinner has noted its pause)."""
        pause = max(self.longest_pause, time.monotonic() - self.last)
        self.longest_pause = 0.0
        return pause


class EscapedSpinner:
    """A Spinner in a child process out of the bot's process group (`how`: "setsid", or
    "double-fork": a process group of its own, then a grandchild the bot does not parent), so
    that a SIGSTOP of the bot's group misses it. Its pauses are read from the kernel: the wall
    time since the last look less the CPU time the spinner had meanwhile (its process CPU
    clock). It ends when the bot does."""

    def __init__(self, how: str) -> None:
        shared = mmap.mmap(-1, 8)  # the spinner's pid, which it writes once
        bot = os.getpid()
        child = os.fork()
        if child == 0:
            try:
                if how == "setsid":
                    os.setsid()
                else:
                    os.setpgid(0, 0)
                    if os.fork() != 0:
                        os._exit(0)  # the grandchild spins on, reparented away from the bot
                struct.pack_into("q", shared, 0, os.getpid())
                spin(bot)
            finally:
                os._exit(0)
        if how != "setsid":
            os.waitpid(child, 0)
        while not struct.unpack_from("q", shared, 0)[0]:
            time.sleep(0.001)
        pid = int(struct.unpack_from("q", shared, 0)[0])
        self.clock = ((~pid) << 3) | 2  # Linux's CPU-time clock of process `pid`
        self.wall, self.cpu = time.monotonic(), time.clock_gettime(self.clock)

    def start(self) -> None:
        """(Spinning since the fork.)"""

    def since(self) -> float:
        """As Spinner.since, but the time the spinner did not run in all since the last call."""
        wall, cpu = time.monotonic(), time.clock_gettime(self.clock)
        pause = (wall - self.wall) - (cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return max(0.0, pause)


def spin(bot: int) -> None:
    """Keep a CPU busy until the bot is gone."""
    spins = 0
    while True:
        spins += 1
        if spins % 1_000_000 == 0 and not _alive(bot):
            os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class PonderWatch:
    """Judges the ponder cheat over the decisions that followed the opponent's time (a gap of
    at least OPPONENT_GAP between this bot's reply and its next request in the same match)."""

    OPPONENT_GAP = 0.06

    def __init__(self, spinner: Spinner | EscapedSpinner) -> None:
        self.spinner = spinner
        self.spinner.start()
        self.replied = 0.0
        self.stopped = 0

    def on_request(self, request: referee_pb2.ActionRequest, seat: int) -> None:
        gap = time.monotonic() - self.replied
        pause = self.spinner.since()
        # Only a gap the opponent moved in is the opponent's time (not the referee's own lag
        # between two decisions of this seat, during which the bot is stopped only once the
        # referee has handled its reply).
        moves = ("played", "struck", "drafted", "traded")
        opponent_moved = any(
            (kind := event.xix.WhichOneof("kind")) in moves
            and getattr(event.xix, kind).seat != seat
            for event in request.events
        )
        if self.replied and gap >= self.OPPONENT_GAP and opponent_moved:
            if pause < 0.015:
                worked(f"spun through {gap * 1000:.0f} ms of the opponent's time")
            if pause >= 0.04:
                self.stopped += 1
                if self.stopped == 5:
                    failed("stopped while not to move (5 times in a row)")

    def on_reply(self) -> None:
        self.replied = time.monotonic()
        self.spinner.since()


def read_home(path: str) -> None:
    """A file in the organiser's home folder."""
    worked(f"read {path}: {Path(path).read_text()[:40]!r}")


def connect_tcp(port: str) -> None:
    """Anything over the network: here a listener on the host's loopback."""
    with socket.create_connection(("127.0.0.1", int(port)), timeout=2):
        worked(f"connected to 127.0.0.1:{port}")


#: Loopback ports a bot might hope to find something on (the relay's own is 50051).
OTHER_PORTS = (22, 80, 443, 2375, 6379, 8080, 50052)


def use_the_relay() -> None:
    """Through its loopback relay, anything but its own door: another port, another address,
    or a proxy request the relay might obey (a proxy would answer it in HTTP/1.1)."""
    host, _, port = os.environ["CROUPIER_TCP_ADDRESS"].rpartition(":")
    for target in [(host, p) for p in OTHER_PORTS] + [("::1", int(port))]:
        with contextlib.suppress(OSError), socket.create_connection(target, timeout=2):
            worked(f"connected to {target}")
    for ask in (b"CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n", b"PROXY TCP4 1.2.3.4 127.0.0.1 1 22\r\n"):
        with socket.create_connection((host, int(port)), timeout=5) as relay:
            relay.sendall(ask)
            answer = relay.recv(64)
        if answer.startswith(b"HTTP/1"):
            worked(f"the relay answered {ask!r} with {answer!r}")
    failed("the relay's loopback holds only the bot's own door, which speaks HTTP/2 alone")


def exhaust_memory() -> None:
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))


#: A fork bomb: children that sleep, until fork fails (then the error kills it).
FORK_BOMB = """
import os
while True:
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "30"])
"""


def exhaust_processes() -> None:
    """The bot's process becomes a fork bomb (with no gRPC threads left to muddy the exit)."""
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-c", FORK_BOMB])


def exhaust_disk() -> None:
    with open(Path(os.environ.get("TMPDIR", "/tmp")) / "filler", "wb") as filler:
        while True:
            filler.write(b"x" * (1024 * 1024))
            filler.flush()


def chatter(mebibytes: str) -> None:
    """Print `mebibytes` MiB of numbered lines, then `CHATTER ENDS`: more than its log holds."""
    line = "x" * 80
    for number in range(int(float(mebibytes) * 1024 * 1024) // 100):
        print(f"chatter {number:09d} {line}")
    print("CHATTER ENDS", flush=True)


def chatter_then_fill_disk(mebibytes: str) -> None:
    chatter(mebibytes)
    exhaust_disk()


def exhaust_cpu() -> None:
    while True:
        pass


#: Files that count CPU time as it goes: the machine's, and other bots' cgroups'.
COUNTERS = (
    "/proc/stat",
    "/proc/schedstat",
    "/proc/uptime",
    "/proc/loadavg",
    "/proc/interrupts",
    "/proc/softirqs",
    "/proc/pressure/cpu",
    "/sys/fs/cgroup/cpu.stat",
)


def read_counters() -> None:
    """Live CPU counters, by which a bot could time other bots: worked if any moves while the
    bot spins for a moment."""
    paths = [Path(name) for name in COUNTERS]
    for pattern in ("/sys/fs/cgroup/*/cpu.stat", "/sys/fs/cgroup/unified/*/cpu.stat"):
        paths += sorted(Path("/").glob(pattern.lstrip("/")))[:20]
    before = {path: _read_or_empty(path) for path in paths}
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    moved = [str(p) for p in paths if before[p] and _read_or_empty(p) != before[p]]
    if moved:
        worked(f"live CPU counters in {moved}")
    failed(f"no live CPU counter among {len(paths)} files")


def _read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def leave_orphan(marker: str) -> None:
    """A child in its own session (out of the bot's process group): it must not outlive the
    bot, which plays on and exits when the run ends."""
    subprocess.Popen(
        ["/bin/sleep", marker],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    print("CHEAT ORPHAN STARTED", flush=True)


class Cheater(croupier.Bot):
    name = "cheater"
    version = "1"

    def __init__(self) -> None:
        self.seat = 0
        self.match_id = ""

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.seat, self.match_id = start.seat, start.match_id
        if _ponder is not None:
            _ponder.replied = 0.0  # between matches the bot runs freely: nobody's time

    def act(self, request: referee_pb2.ActionRequest) -> int:
        if CHEAT == "deal":
            guess_deal(self.match_id, self.seat, request)
        elif _ponder is not None:
            _ponder.on_request(request, self.seat)
        elif not _tried:
            _tried.append(CHEAT)  # mid-match: the live record exists, the bot has a seat
            cheat()
        index = random.randrange(len(request.legal_actions))
        if _ponder is not None:
            _ponder.on_reply()
        return index


_tried: list[str] = []
_ponder = None
if CHEAT == "ponder":
    _ponder = PonderWatch(Spinner())
elif CHEAT.startswith("ponder-"):  # before croupier.run starts a thread: a fork keeps just one
    _ponder = PonderWatch(EscapedSpinner(CHEAT.removeprefix("ponder-")))


_guessed: set[str] = set()


def guess_deal(match_id: str, seat: int, request: referee_pb2.ActionRequest) -> None:
    """From the match id's index, try the seeds a default run used to have (seed 0, unkeyed) and
    the keyed formula with the old default master seed; compare the predicted observation with
    the one received. Only the first request of a match is a fresh deal."""
    if match_id in _guessed:
        return
    _guessed.add(match_id)
    import hashlib
    import random as stdlib_random

    from referee.games import GAMES
    from referee.games.base import parse_options
    from referee.match.runner import draw_chance
    from referee.match.seeds import derive_seed

    index = int(match_id.rsplit("-", 1)[1])
    unkeyed = hashlib.sha256(f"croupier/0/{index}".encode()).digest()
    candidates = [int.from_bytes(unkeyed[:8], "big") >> 1, derive_seed(0, index), index]
    game = GAMES["xix"]
    seen = request.observation.xix.SerializeToString()
    for seed in candidates:
        rng = stdlib_random.Random(seed)
        state = game.new_game(parse_options(game, {}))
        while (node := state.chance()) is not None:
            state = state.apply_chance(draw_chance(node, rng))
        if state.observation(seat).SerializeToString() == seen:
            worked(f"predicted the deal of {match_id} from seed {seed}")
    failed(f"no guessed seed reproduces the deal of {match_id}")


def cheat() -> None:
    cheats: dict[str, Callable[[], None]] = {
        "record": lambda: read_record(ARGS[0]),
        "database": lambda: read_database(ARGS[0]),
        "folder": lambda: read_folder(ARGS[0]),
        "environ": lambda: read_environ(ARGS[0], ARGS[1]),
        "peek": lambda: read_memory(ARGS[0]),
        "home": lambda: read_home(ARGS[0]),
        "tcp": lambda: connect_tcp(ARGS[0]),
        "relay": use_the_relay,
        "memory": exhaust_memory,
        "processes": exhaust_processes,
        "disk": exhaust_disk,
        "cpu": exhaust_cpu,
        "orphan": lambda: leave_orphan(ARGS[0]),
        "chatter": lambda: chatter(ARGS[0]),
        "chatter_disk": lambda: chatter_then_fill_disk(ARGS[0]),
        "counters": read_counters,
    }
    try:
        cheats[CHEAT]()
    except BaseException as error:
        if CHEAT in ("memory", "processes", "disk", "cpu", "chatter_disk"):
            # The limit's error kills the bot, as it would an unprepared one: the referee must
            # name the limit in the fault.
            traceback.print_exc()
            sys.stdout.flush()
            os._exit(1)
        failed(f"{type(error).__name__}: {error}")


if __name__ == "__main__":
    if CHEAT == "relay":  # an address with no door behind it would be a crash, hence a fault
        os.environ["CROUPIER_ADDRESS"] = os.environ["CROUPIER_TCP_ADDRESS"]
    croupier.run(Cheater)
