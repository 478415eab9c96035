"""Colluding bots: python colluders.py MODE NAME [ARG...], MODE `probe` or `bot`.

Partners that sit in the same match (every seat one of these bots) try to show each other their
private hands through what the sandbox shares between bots, or to take over the referee's socket.

- `probe NAME [ARG...]`: no referee. A one-process version of the cheat (it plays both ends of a
  channel: writes, then reads back through a second fd or a child process). Prints one line:
  `CHEAT WORKED: <what>` (exit code 42) or `CHEAT FAILED: <why>` (exit code 0).
- `bot NAME [ARG...]`: plays random legal actions. The channels publish, on each ActionRequest,
  the bot's hand (match id, seat, hand, and a sha256 of the three) and read the partners' entries
  for the same match; an entry whose hash checks is a hand learnt: `CHEAT WORKED: <seat, hand>`,
  exit code 42. Otherwise `CHEAT FAILED: <why>` (once at the end of each match, or at the first
  error) and it plays on. The one-shot cheats work on the first decision (hijack at start-up).

NAMEs and ARGs:
  hijack [SOCKET]  hard-link the referee's socket aside, bind a listener, rename it over the
                   socket (SOCKET: default the path in CROUPIER_ADDRESS); the bot relays every
                   connection to the aside link and counts the bytes of other bots' frames.
  unlink [SOCKET]  remove the referee's socket (breaks the run for everyone: expected).
  file DIR         entries as files in DIR (/run/croupier, /tmp, /dev/shm...).
  dgram DIR        AF_UNIX datagram sockets bound at DIR/col-<match>-<seat>.sock.
  locks PATH       byte-range read locks (F_OFD_SETLK, else F_SETLK) on PATH, a file every bot
                   can read (/etc/hostname, /usr/lib/os-release): one locked byte per 1-bit;
                   flock(2) on PATH is tried too.
  fill DIR MB      write MB MiB into DIR in 16 MiB files (each under the file size limit), with
                   fsync; WORKED when all of it was written (the bot keeps the files; the probe
                   removes them after).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import random
import secrets
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from croupier.v1 import referee_pb2

DEFAULT_SOCKET = "/run/croupier/referee.sock"
MiB = 1024 * 1024


def worked(what: str) -> None:
    print(f"CHEAT WORKED: {what}", flush=True)
    os._exit(42)


def failed(why: object) -> None:
    print(f"CHEAT FAILED: {why}", flush=True)


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def socket_path(args: list[str]) -> Path:
    """The referee's socket: the argument, else CROUPIER_ADDRESS's unix: path."""
    if args:
        return Path(args[0])
    address = os.environ.get("CROUPIER_ADDRESS", f"unix:{DEFAULT_SOCKET}")
    return Path(address.removeprefix("unix:").removeprefix("//") or DEFAULT_SOCKET)


def tag(match_id: str) -> str:
    return hashlib.sha256(match_id.encode()).hexdigest()[:12]


# --- What partners publish


def digest(match_id: str, seat: int, hand: str) -> str:
    """What proves an entry: only the seat that holds the hand could have written it."""
    return hashlib.sha256(f"{match_id}\n{seat}\n{hand}".encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Entry:
    match_id: str
    seat: int
    hand: str

    def encode(self) -> bytes:
        proof = digest(self.match_id, self.seat, self.hand)
        data = {"match": self.match_id, "seat": self.seat, "hand": self.hand, "sha256": proof}
        return json.dumps(data).encode()

    @classmethod
    def decode(cls, data: bytes) -> Entry | None:
        """The entry, if its hash checks (else None: torn, stale or not an entry)."""
        try:
            fields = json.loads(data)
            entry = cls(str(fields["match"]), int(fields["seat"]), str(fields["hand"]))
            proof = fields["sha256"]
        except (ValueError, KeyError, TypeError):
            return None
        return entry if proof == digest(entry.match_id, entry.seat, entry.hand) else None


class Channel(Protocol):
    """Where partners meet: `open` at a match's start, `publish` and `read` at each decision."""

    where: str

    def open(self, match_id: str, seat: int) -> None: ...

    def publish(self, entry: Entry) -> None: ...

    def read(self, match_id: str, seat: int, players: int) -> list[Entry]: ...


# --- Files


class FileChannel:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.where = f"files in {folder}"

    def path(self, match_id: str, seat: int) -> Path:
        return self.folder / f"colluder-{tag(match_id)}-{seat}.json"

    def open(self, match_id: str, seat: int) -> None:
        pass

    def publish(self, entry: Entry) -> None:
        path = self.path(entry.match_id, entry.seat)
        scratch = path.with_suffix(f".{secrets.token_hex(4)}")
        scratch.write_bytes(entry.encode())
        os.replace(scratch, path)  # a reader never sees half an entry

    def read(self, match_id: str, seat: int, players: int) -> list[Entry]:
        found = []
        for other in range(players):
            path = self.path(match_id, other)
            if other != seat and path.exists():
                entry = Entry.decode(path.read_bytes())
                if entry is not None and (entry.match_id, entry.seat) == (match_id, other):
                    found.append(entry)
        return found


# --- Datagram sockets


class DgramChannel:
    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.where = f"datagram sockets in {folder}"
        self.sock: socket.socket | None = None
        self.bound: Path | None = None
        self.heard: dict[tuple[str, int], Entry] = {}
        self.send_error = ""

    def path(self, match_id: str, seat: int) -> Path:
        return self.folder / f"col-{tag(match_id)}-{seat}.sock"

    def open(self, match_id: str, seat: int) -> None:
        self.close()
        path = self.path(match_id, seat)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            sock.bind(str(path))
        except OSError:
            sock.close()
            raise
        sock.setblocking(False)
        self.sock, self.bound = sock, path

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        if self.bound is not None:
            with contextlib.suppress(OSError):
                self.bound.unlink()
        self.sock = self.bound = None

    def publish(self, entry: Entry) -> None:
        if self.sock is None:
            raise OSError("no socket bound for this match")
        for path in self.folder.glob(f"col-{tag(entry.match_id)}-*.sock"):
            if path != self.bound:
                try:
                    self.sock.sendto(entry.encode(), str(path))
                except OSError as error:  # a partner gone, or its queue full
                    self.send_error = f"; sending to {path.name}: {describe(error)}"

    def read(self, match_id: str, seat: int, players: int) -> list[Entry]:
        while self.sock is not None:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                break
            entry = Entry.decode(data)
            if entry is not None:
                self.heard[entry.match_id, entry.seat] = entry
        return [
            entry
            for (match, other), entry in self.heard.items()
            if match == match_id and other != seat
        ]


# --- Byte-range locks

#: struct flock on x86_64 (and other LP64 Linux): short l_type, short l_whence, (4 bytes of
#: padding), off_t l_start, off_t l_len, pid_t l_pid, (4 bytes of padding): 32 bytes.
FLOCK = struct.Struct("hhqqi4x")
#: (set, get) commands: open file description locks (Linux 3.15+), then classic POSIX ones.
LOCK_COMMANDS = {
    "OFD": (getattr(fcntl, "F_OFD_SETLK", 37), getattr(fcntl, "F_OFD_GETLK", 36)),
    "POSIX": (fcntl.F_SETLK, fcntl.F_GETLK),
}


class LockBits:
    """Bits as read locks on a file anyone may read: bit i at `start` is 1 while a lock covers
    byte start+i (past the file's end is fine). `holder` takes the locks, `prober` asks about them
    (its own open file description: an OFD never conflicts with itself)."""

    def __init__(self, path: str, method: str) -> None:
        self.setlk, self.getlk = LOCK_COMMANDS[method]
        self.holder = os.open(path, os.O_RDONLY)
        self.prober = os.open(path, os.O_RDONLY)

    def close(self) -> None:
        os.close(self.holder)
        os.close(self.prober)

    def lock(self, kind: int, start: int, length: int) -> None:
        fcntl.fcntl(self.holder, self.setlk, FLOCK.pack(kind, os.SEEK_SET, start, length, 0))

    def write(self, start: int, data: bytes, span: int) -> None:
        """Clear `span` bits at `start`, then set the 1-bits of `data` (a lock per run of them)."""
        self.lock(fcntl.F_UNLCK, start, span)
        bits = [(byte >> (7 - i)) & 1 for byte in data for i in range(8)]
        run = None
        for index, bit in enumerate([*bits, 0]):
            if bit and run is None:
                run = index
            elif not bit and run is not None:
                self.lock(fcntl.F_RDLCK, start + run, index - run)
                run = None

    def bit(self, offset: int) -> int:
        probe = FLOCK.pack(fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
        kind = FLOCK.unpack(fcntl.fcntl(self.prober, self.getlk, probe))[0]
        return int(kind != fcntl.F_UNLCK)

    def read(self, start: int, size: int) -> bytes:
        return bytes(
            sum(self.bit(start + 8 * byte + i) << (7 - i) for i in range(8)) for byte in range(size)
        )


def open_lock_bits(path: str) -> LockBits:
    """OFD locks, else POSIX ones: whichever this system (or its seccomp filter) allows."""
    errors = []
    for method in LOCK_COMMANDS:
        bits = LockBits(path, method)
        try:
            bits.lock(fcntl.F_RDLCK, 1 << 40, 1)
            bits.lock(fcntl.F_UNLCK, 1 << 40, 1)
        except OSError as error:
            bits.close()
            errors.append(f"{method} lock: {describe(error)}")
            continue
        return bits
    raise OSError(f"no byte-range locks on {path}: {'; '.join(errors)}")


def try_flock(path: str) -> str:
    """Whether flock(2) takes a shared lock on `path` (a second channel of one bit per file)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        return f"no flock ({describe(error)})"
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError as error:
        return f"flock refused ({describe(error)})"
    finally:
        os.close(fd)
    return "flock allowed"


class LockChannel:
    """Each seat owns REGION bits at an offset from the match id's hash and its seat. Its payload:
    the hand's length (2 bytes), the hand (utf-8), its digest (8 bytes)."""

    REGION = 1 << 14
    LARGEST = REGION // 8 - 10

    def __init__(self, path: str) -> None:
        self.path = path
        self.bits: LockBits | None = None
        self.where = f"locks on {path}"

    def base(self, match_id: str, seat: int) -> int:
        high = int(tag(match_id)[:10], 16)  # 40 bits: offsets stay under 2**63
        return (high << 20) | (seat << 14)

    def open(self, match_id: str, seat: int) -> None:
        if self.bits is None:
            try:
                self.bits = open_lock_bits(self.path)
            except OSError as error:
                raise OSError(f"{error}; {try_flock(self.path)}") from error
            method = "OFD" if self.bits.setlk == LOCK_COMMANDS["OFD"][0] else "POSIX"
            self.where = f"{method} locks on {self.path}, {try_flock(self.path)}"

    def publish(self, entry: Entry) -> None:
        assert self.bits is not None
        hand = entry.hand.encode()[: self.LARGEST]
        proof = bytes.fromhex(digest(entry.match_id, entry.seat, hand.decode(errors="replace")))
        payload = len(hand).to_bytes(2, "big") + hand + proof
        self.bits.write(self.base(entry.match_id, entry.seat), payload, self.REGION)

    def read(self, match_id: str, seat: int, players: int) -> list[Entry]:
        assert self.bits is not None
        found = []
        for other in range(players):
            if other == seat:
                continue
            start = self.base(match_id, other)
            size = int.from_bytes(self.bits.read(start, 2), "big")
            if size > self.LARGEST:
                continue
            data = self.bits.read(start + 16, size + 8)
            hand = data[:size].decode(errors="replace")
            if data[size:].hex() == digest(match_id, other, hand):
                found.append(Entry(match_id, other, hand))
        return found


# --- The socket


class Hijack:
    """The referee's socket taken over: its inode linked aside, a listener renamed over its path,
    every connection relayed to the aside link. Counts what passes (and keeps the start of what
    the referee sent, to look for a match id in other bots' frames)."""

    KEPT = 1 << 16

    def __init__(self, sock: Path) -> None:
        self.sock = sock
        token = secrets.token_hex(4)
        self.aside = sock.parent / f"aside-{token}.sock"
        self.evil = sock.parent / f"evil-{token}.sock"
        self.listener: socket.socket | None = None
        self.connections = 0
        self.to_referee = 0
        self.to_bots = 0
        self.seen = bytearray()
        self.lock = threading.Lock()

    def take(self) -> None:
        """Link aside, bind, rename over; on any failure, leave the socket as it was."""
        os.link(self.sock, self.aside)
        try:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(self.evil))
            listener.listen(16)
            os.rename(self.evil, self.sock)
        except OSError:
            with contextlib.suppress(OSError):
                self.evil.unlink()
            with contextlib.suppress(OSError):
                self.aside.unlink()
            raise
        self.listener = listener

    def restore(self) -> None:
        """The referee's own socket back at its path (the aside link renamed over ours)."""
        with contextlib.suppress(OSError):
            os.rename(self.aside, self.sock)

    def relay(self) -> None:
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        assert self.listener is not None
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                upstream.connect(str(self.aside))
            except OSError:
                client.close()
                upstream.close()
                continue
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, to_referee: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
                with self.lock:
                    if to_referee:
                        self.to_referee += len(data)
                    else:
                        self.to_bots += len(data)
                        self.seen += data[: max(0, self.KEPT - len(self.seen))]
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def summary(self, match_id: str = "") -> str:
        with self.lock:
            text = (
                f"{self.connections} other connection(s) relayed, {self.to_referee} bytes to the "
                f"referee and {self.to_bots} to the bots"
            )
            if match_id and match_id.encode() in self.seen:
                text += f" (their frames name {match_id})"
        return text


# --- Filling memory

CHUNK = 16 * MiB


def fill(folder: str, megabytes: int) -> tuple[int, list[Path], str]:
    """Writes `megabytes` MiB into `folder`, one 16 MiB file per chunk (so that no file goes over
    the file size limit). Returns the bytes written, the files, and the error that stopped it."""
    chunk = b"\xa5" * CHUNK
    token = secrets.token_hex(4)
    written, files = 0, list[Path]()
    target = megabytes * MiB
    while written < target:
        path = Path(folder) / f"colluder-fill-{token}-{len(files):04d}"
        files.append(path)
        try:
            with open(path, "wb", buffering=0) as out:  # short writes counted
                size = min(CHUNK, target - written)
                view = memoryview(chunk)[:size]
                while view:
                    done = out.write(view)
                    written += done or 0
                    view = view[done or 0 :]
                os.fsync(out.fileno())
        except OSError as error:
            return written, files, describe(error)
    return written, files, ""


def fill_report(folder: str, megabytes: int, written: int, error: str) -> str:
    got = f"{written / MiB:.1f} of {megabytes} MiB into {folder}"
    return f"wrote {got}" if not error else f"wrote only {got} before {error}"


# --- Probes (no referee)


def in_child(job: Callable[[], str]) -> str:
    """`job`'s answer, computed in a child process (fork: probe mode imports no threads)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        try:
            answer = job()
        except BaseException as error:
            answer = f"child: {describe(error)}"
        os.write(writer, answer.encode())
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


def probe_hijack(args: list[str]) -> None:
    sock = socket_path(args)
    hijack = Hijack(sock)
    hijack.take()
    try:
        assert hijack.listener is not None
        hijack.listener.settimeout(2)
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(sock))
        accepted, _ = hijack.listener.accept()
        accepted.close()
        client.close()
    finally:
        hijack.restore()
        if hijack.listener is not None:
            hijack.listener.close()
    worked(f"renamed a listener over {sock} (a connection to it reached us; restored after)")


def probe_unlink(args: list[str]) -> None:
    sock = socket_path(args)
    aside = sock.parent / f"aside-{secrets.token_hex(4)}.sock"
    with contextlib.suppress(OSError):
        os.link(sock, aside)  # to put it back after
    try:
        os.unlink(sock)
    except OSError:
        with contextlib.suppress(OSError):
            aside.unlink()
        raise
    restored = False
    with contextlib.suppress(OSError):
        os.rename(aside, sock)
        restored = True
    worked(f"unlinked {sock}" + (" (restored after)" if restored else " (not restored)"))


def probe_file(args: list[str]) -> None:
    channel = FileChannel(args[0])
    entry = Entry("probe-match", 1, f"probe {secrets.token_hex(4)}")
    channel.publish(entry)
    path = channel.path(entry.match_id, entry.seat)
    try:
        back = in_child(lambda: json.dumps(channel.read(entry.match_id, 0, 2)[0].hand))
    finally:
        path.unlink()
    if back != json.dumps(entry.hand):
        failed(f"wrote {path} but read back {back!r}")
        return
    worked(f"wrote {path} and read it back from another process: {entry.hand!r}")


def probe_dgram(args: list[str]) -> None:
    writer, reader = DgramChannel(args[0]), DgramChannel(args[0])
    reader.open("probe-match", 0)
    writer.open("probe-match", 1)
    entry = Entry("probe-match", 1, f"probe {secrets.token_hex(4)}")
    try:
        writer.publish(entry)
        time.sleep(0.05)
        found = reader.read("probe-match", 0, 2)
    finally:
        writer.close()
        reader.close()
    if found != [entry]:
        failed(f"bound in {args[0]} but nothing came through{writer.send_error}")
        return
    worked(f"bound two datagram sockets in {args[0]}, one heard the other: {entry.hand!r}")


def read_locks(path: str, method: str, start: int, size: int) -> str:
    """`size` bytes of lock bits at `start` in `path`, in hex, as another process sees them."""
    return LockBits(path, method).read(start, size).hex()


def probe_locks(args: list[str]) -> None:
    path = args[0]
    value = secrets.token_bytes(4)
    start = 1 << 41
    results: list[tuple[bool, str]] = []
    for method in LOCK_COMMANDS:
        try:
            bits = LockBits(path, method)
        except OSError as error:
            results.append((False, f"open {path}: {describe(error)}"))
            continue
        try:
            bits.write(start, value, 64)
        except OSError as error:
            results.append((False, f"{method} lock: {describe(error)}"))
            bits.close()
            continue
        back = in_child(functools.partial(read_locks, path, method, start, len(value)))
        bits.close()
        ok = back == value.hex()
        results.append((ok, f"{method} locks carried {value.hex()} -> {back}"))
    fd = os.open(path, os.O_RDONLY)

    def contended() -> str:
        other = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "1"
        except OSError as error:
            return f"child: {describe(error)}"
        finally:
            os.close(other)
        return "0"

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        one = in_child(contended)
        fcntl.flock(fd, fcntl.LOCK_UN)
        zero = in_child(contended)
        results.append(((one, zero) == ("1", "0"), f"flock carried 1 -> {one}, 0 -> {zero}"))
    except OSError as error:
        results.append((False, f"flock: {describe(error)}"))
    finally:
        os.close(fd)
    text = f"on {path}: " + "; ".join(text for _, text in results)
    if any(ok for ok, _ in results):
        worked(text)
    failed(text)


def probe_fill(args: list[str]) -> None:
    folder, megabytes = args[0], int(args[1])
    written, files, error = fill(folder, megabytes)
    for path in files:
        with contextlib.suppress(OSError):
            path.unlink()
    report = fill_report(folder, megabytes, written, error) + " (removed after)"
    if error:
        failed(report)
        return
    worked(report)


PROBES: dict[str, Callable[[list[str]], None]] = {
    "hijack": probe_hijack,
    "unlink": probe_unlink,
    "file": probe_file,
    "dgram": probe_dgram,
    "locks": probe_locks,
    "fill": probe_fill,
}


def probe(name: str, args: list[str]) -> None:
    try:
        PROBES[name](args)
    except OSError as error:
        failed(describe(error))


# --- The bot


def private_hand(request: referee_pb2.ActionRequest) -> str:
    """The seat's private cards in text (the typed observation's hand, or stash), else the
    whole observation in hex."""
    observation = request.observation
    kind = observation.WhichOneof("game")
    if kind is None:
        return observation.SerializeToString().hex()
    typed = getattr(observation, kind)
    for name in ("hand", "stash"):
        field = typed.DESCRIPTOR.fields_by_name.get(name)
        if field is not None and field.is_repeated:
            return " ".join(str(card) for card in getattr(typed, name))
    data: bytes = typed.SerializeToString()
    return data.hex()


CHANNELS: dict[str, Callable[[list[str]], Channel]] = {
    "file": lambda args: FileChannel(args[0]),
    "dgram": lambda args: DgramChannel(args[0]),
    "locks": lambda args: LockChannel(args[0]),
}


class Colluder:
    """The bot's behaviour; `run_bot` mixes it with croupier.Bot (imported only in bot mode)."""

    name = "colluder"
    version = "1"

    def __init__(self, cheat: str, args: list[str], hijack: Hijack | None) -> None:
        self.cheat, self.args, self.hijack = cheat, args, hijack
        self.channel = CHANNELS[cheat](args) if cheat in CHANNELS else None
        self.broken = ""
        self.seat = self.players = self.decisions = 0
        self.match_id = ""
        self.tried = False

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.seat, self.match_id = start.seat, start.match_id
        self.players, self.decisions = len(start.seat_names), 0
        if self.channel is not None and not self.broken:
            try:
                self.channel.open(self.match_id, self.seat)
            except OSError as error:
                self.broken = f"{self.channel.where}: {describe(error)}"
                failed(self.broken)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        self.decisions += 1
        if not self.tried:
            self.tried = True
            self.once()
        if self.channel is not None and not self.broken:
            self.collude(request)
        return random.randrange(len(request.legal_actions))

    def once(self) -> None:
        """The one-shot cheats, on the first decision (mid-match, with a seat)."""
        if self.cheat == "hijack":
            if self.hijack is not None:
                summary = self.hijack.summary(self.match_id)
                print(f"CHEAT WORKED: took over {self.hijack.sock}; so far {summary}", flush=True)
        elif self.cheat == "unlink":
            sock = socket_path(self.args)
            try:
                os.unlink(sock)
            except OSError as error:
                failed(f"unlink {sock}: {describe(error)}")
                return
            worked(f"unlinked {sock}")
        elif self.cheat == "fill":
            folder, megabytes = self.args[0], int(self.args[1])
            written, _, stop = fill(folder, megabytes)  # the files stay, in the bot's memory
            report = fill_report(folder, megabytes, written, stop)
            if stop:
                failed(report)
                return
            worked(report)

    def collude(self, request: referee_pb2.ActionRequest) -> None:
        assert self.channel is not None
        entry = Entry(request.match_id, self.seat, private_hand(request))
        try:
            self.channel.publish(entry)
            found = self.channel.read(request.match_id, self.seat, self.players)
        except OSError as error:
            self.broken = f"{self.channel.where}: {describe(error)}"
            failed(self.broken)
            return
        for partner in found:
            worked(
                f"read seat {partner.seat}'s hand in {partner.match_id} through "
                f"{self.channel.where}: {partner.hand!r} (my seat {self.seat}: {entry.hand!r})"
            )

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        if self.channel is not None and not self.broken:
            note = getattr(self.channel, "send_error", "")
            failed(
                f"read no partner's hand in {end.match_id} after {self.decisions} decisions "
                f"through {self.channel.where}{note}"
            )


def start_hijack(args: list[str]) -> Hijack | None:
    """At start-up, before connecting (so as to catch the other bots' connections)."""
    hijack = Hijack(socket_path(args))
    try:
        hijack.take()
    except OSError as error:
        failed(f"hijack {hijack.sock}: {describe(error)}")
        return None
    hijack.relay()
    print(f"CHEAT HIJACKED: {hijack.sock} (the referee's is at {hijack.aside})", flush=True)
    return hijack


def run_bot(cheat: str, args: list[str]) -> None:
    hijack = start_hijack(args) if cheat == "hijack" else None

    import croupier

    class ColluderBot(Colluder, croupier.Bot):
        pass

    address = f"unix:{hijack.aside}" if hijack is not None else None  # ours goes straight through
    try:
        croupier.run(lambda: ColluderBot(cheat, args, hijack), address=address)
    finally:
        if hijack is not None:
            print(f"CHEAT RELAYED: {hijack.summary()}", flush=True)
            hijack.restore()
    if hijack is not None:
        os._exit(42)


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("probe", "bot"):
        sys.exit(__doc__)
    mode, cheat, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    needed = {"file": 1, "dgram": 1, "locks": 1, "fill": 2}
    if cheat not in PROBES or len(args) < needed.get(cheat, 0):
        sys.exit(f"unknown NAME or missing ARG: {cheat} {args}; see:\n{__doc__}")
    if mode == "probe":
        probe(cheat, args)
        sys.exit(0)
    run_bot(cheat, args)


if __name__ == "__main__":
    main()
