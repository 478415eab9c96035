"""Match records: JSON Lines of `croupier.v1.Record` in protobuf's JSON mapping.

The writer flushes every line, so a crash leaves a valid prefix. The reader streams records and
collects errors instead of dying on the first bad line (python-chess's PGN reader does the same);
strict callers turn errors into a RecordError.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from google.protobuf import json_format
from google.protobuf.message import Message

from croupier.v1 import game_pb2, record_pb2
from referee import private
from referee.errors import RecordError, RecordWriteError
from referee.match.protojson import json_string, message_to_json

#: 2: the result line carries each seat's luck correction (referee.match.luck); 1 does not.
SCHEMA_VERSION = 2
#: Every version a reader accepts: a record of schema 1 reads and verifies as before.
SCHEMA_VERSIONS = frozenset({1, 2})
#: The largest record file read: a match's record is a few hundred kilobytes (a bot's message
#: is capped at 64 KiB by default), so this is far past any real one and keeps a reader's
#: memory bounded whatever file it is handed.
MAX_RECORD_BYTES = 256 * 1024 * 1024
#: Distinct record lines kept parsed, each up to PARSED_CHARS long (at most ~50 MB).
PARSED_LINES = 16384
PARSED_CHARS = 2000


#: How much of a bad line's parse error a reason quotes (protobuf quotes the offending value,
#: which may be megabytes long).
QUOTED_CHARS = 200


def _quoted(text: str) -> str:
    if len(text) <= QUOTED_CHARS:
        return text
    return f"{text[:QUOTED_CHARS]}... ({len(text) - QUOTED_CHARS} more characters)"


@dataclass(frozen=True, slots=True)
class ChallengeMark:
    """The challenge a match was played for, as its record's header names it (issue 45.5):
    what `croupier ladder verify` holds against the contest database, and viewers show."""

    id: int
    ranked: bool

    def __str__(self) -> str:
        return f"challenge {self.id} ({'ranked' if self.ranked else 'unranked'})"

    def to_proto(self) -> record_pb2.RecordChallenge:
        return record_pb2.RecordChallenge(id=self.id, ranked=self.ranked)

    @classmethod
    def of(cls, header: record_pb2.RecordHeader) -> ChallengeMark | None:
        """The header's challenge; None for any other match, and in records written before
        challenges were recorded (which read, replay and verify as before)."""
        if not header.HasField("challenge"):
            return None
        return cls(header.challenge.id, header.challenge.ranked)


def to_json_line(record: record_pb2.Record) -> str:
    """One record as a compact JSON line (no trailing newline)."""
    return message_to_json(record)


# The two lines written at every decision (an action, and its events) are encoded directly
# rather than built as a Record and converted: about 2 µs against 15-30. Each gives exactly what
# `to_json_line` gives for the same Record (tests/test_records.py checks it field by field).


#: Each action's text field as `action_line` writes it: a game has few action texts.
_texts: dict[str, str] = {}
_TEXTS_MAX = 4096


def action_line(
    seat: int,
    index: int,
    text: str,
    elapsed_ms: int,
    defaulted: bool,
    lag_ms: int,
    cpu_ms: int | None,
    starved_ms: int | None,
) -> str:
    """`to_json_line` of an ActionRecord with these fields, in the proto's field order, leaving
    out what proto3's JSON mapping leaves out (zeros and false; unset optionals)."""
    parts = []
    if seat:
        parts.append(f'"seat":{seat}')
    if index:
        parts.append(f'"index":{index}')
    if text:
        quoted = _texts.get(text)
        if quoted is None:
            if len(_texts) >= _TEXTS_MAX:
                _texts.clear()
            quoted = _texts[text] = f'"text":{json_string(text)}'
        parts.append(quoted)
    if elapsed_ms:
        parts.append(f'"elapsedMs":{elapsed_ms}')
    if defaulted:
        parts.append('"defaulted":true')
    if lag_ms:
        parts.append(f'"lagMs":{lag_ms}')
    if cpu_ms is not None:
        parts.append(f'"cpuMs":{cpu_ms}')
    if starved_ms is not None:
        parts.append(f'"starvedMs":{starved_ms}')
    return '{"action":{' + ",".join(parts) + "}}"


def event_line(event: game_pb2.Event, seats: Sequence[int] | None) -> str:
    """`to_json_line` of an EventRecord of `event`, public when `seats` is None."""
    parts = [f'"event":{message_to_json(event)}']
    if seats is None:
        parts.append('"public":true')
    elif seats:
        parts.append(f'"seats":[{",".join(map(str, seats))}]')
    return '{"event":{' + ",".join(parts) + "}}"


class RecordWriter:
    """Appends records to a file, one line each. Lines are kept until `flush`, which writes
    them whole: the runner flushes before it asks for each decision and at the end, so a crash
    leaves whole lines, every one of them that a bot could have acted on. A flush that fails
    (a full disk, a file size limit) leaves no part of its lines either. Close it (or use
    `with`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            # Every hand of the match is in it: owner-only, in an owner-only folder if new.
            self._file: IO[bytes] = os.fdopen(private.open_new(path), "wb", buffering=0)
        except OSError as error:  # it exists, or no file descriptor or space is left
            raise RecordWriteError(error.errno, error.strerror, str(path)) from None
        self._lines: list[str] = []
        #: Bytes written whole so far: where a failed flush cuts the file back to.
        self._size = 0

    def write(self, record: record_pb2.Record) -> None:
        self.write_line(to_json_line(record))

    def write_line(self, line: str) -> None:
        """A line already encoded (see `action_line`, `event_line`)."""
        self._lines.append(line)

    def flush(self) -> None:
        """Write the kept lines, in one system call unless the disk takes less. A write the
        disk cut short (its last free block, RLIMIT_FSIZE) is followed by one that fails; the
        file is then cut back to its whole lines, and RecordWriteError names the record."""
        if not self._lines:
            return
        data = ("\n".join(self._lines) + "\n").encode()
        self._lines = []
        left = memoryview(data)
        try:
            while left:
                left = left[self._file.write(left) or 0 :]
        except OSError as error:  # a full disk: say which record could not be written
            with contextlib.suppress(OSError):
                self._file.truncate(self._size)
            raise RecordWriteError(error.errno, error.strerror, str(self.path)) from None
        self._size += len(data)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class RecordReader:
    """Iterate over a record file's lines as messages; bad lines land in `errors`.

    A last line with no newline that does not parse is a truncated write (the referee was killed
    mid-line): it is reported in `errors` and flagged in `truncated`.
    """

    path: Path
    errors: list[str] = field(default_factory=list)
    truncated: bool = False

    def __iter__(self) -> Iterator[record_pb2.Record]:
        try:
            text = read_record_text(self.path)
        except (OSError, UnicodeDecodeError) as error:
            self.errors.append(f"cannot read record {str(self.path)!r}: {error}")
            return
        except RecordError as error:
            self.errors.append(str(error))
            return
        lines = text.split("\n")
        complete = len(lines) - 1  # text after the last newline is an unfinished line
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = _parse(line)
            except json_format.ParseError as error:
                if number > complete:
                    self.truncated = True
                    self.errors.append(f"line {number} is truncated (the match did not finish)")
                else:
                    self.errors.append(f"line {number} is not a record: {_quoted(str(error))}")
                continue
            if record.WhichOneof("line") is None:
                self.errors.append(f"line {number} is an empty record")
                continue
            _fill_zeros(record)
            yield record


def read_record_text(path: Path) -> str:
    """A record file's text, refusing (RecordError) what is no regular file or is larger than
    MAX_RECORD_BYTES. Opened without blocking, so a FIFO with no writer is refused, not waited
    on; a device such as /dev/zero is refused before a byte is read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as file:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise RecordError(f"{str(path)!r} is not a regular file: give a record file")
        data = b"" if found.st_size > MAX_RECORD_BYTES else file.read(MAX_RECORD_BYTES + 1)
    if found.st_size > MAX_RECORD_BYTES or len(data) > MAX_RECORD_BYTES:  # or it grew
        raise RecordError(
            f"{str(path)!r} is larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB: no match's "
            "record is"
        )
    # newlines as text mode reads them (Path.read_text, which this replaces)
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _parse(line: str) -> record_pb2.Record:
    if len(line) > PARSED_CHARS:
        return json_format.Parse(line, record_pb2.Record())
    record = record_pb2.Record()
    record.CopyFrom(_parsed(line))  # a copy: the cached message stays as parsed
    return record


@functools.lru_cache(maxsize=PARSED_LINES)
def _parsed(line: str) -> record_pb2.Record:
    """A record line parsed; never to be changed (callers copy it). Protobuf's JSON parser is
    pure Python (~40 µs a line, most of what replaying a record costs), and records repeat
    lines (the same events, actions with the same times), in a match and across a ladder's
    matches, which `ladder verify` and `ladder report` read by the thousand."""
    return json_format.Parse(line, record_pb2.Record())


def _fill_zeros(record: record_pb2.Record) -> None:
    """Restore the zeros a record omitted before those fields had presence (proto3 `optional`).

    Records of the same schema written before issue 16 left out a zero team and a zero winning
    seat, as protobuf's JSON mapping leaves out every zero without presence; now an unset field
    means "none". Where the context says a value exists, the missing one was 0. Records written
    since always set them, so this changes nothing there. (A fault's request id, a time control's
    move_ms: 0 already meant none, as unset does now.)
    """
    kind = record.WhichOneof("line")
    if kind == "result":
        seats = record.result.result.seats
        if any(seat.HasField("team") for seat in seats):  # a team game: every seat has a team
            for seat in seats:
                if not seat.HasField("team"):
                    seat.team = 0
    elif kind == "event":
        event = record.event.event
        game = event.WhichOneof("game")
        for name in _winner_kinds(game):
            payload = getattr(event, game)  # a game with such kinds: never None here
            if payload.HasField(name):
                scored = getattr(payload, name)
                if not scored.tie and not scored.HasField("seat"):  # a winner, and it was seat 0
                    scored.seat = 0


@functools.cache
def _winner_kinds(game: str | None) -> tuple[str, ...]:
    """The game's events that name a winner (Tex-Tac-Toe's hand_scored): a `tie` flag and an
    optional `seat`, unset only on a tie. Read from the schema once per game, so no game is
    named here and another game's events cost a lookup."""
    if game is None:
        return ()
    payload = getattr(game_pb2.Event(), game)
    return tuple(
        field.name
        for field in payload.DESCRIPTOR.fields
        if field.message_type is not None and _names_winner(getattr(payload, field.name))
    )


def _names_winner(kind: Message) -> bool:
    fields = kind.DESCRIPTOR.fields_by_name
    return "tie" in fields and "seat" in fields and fields["seat"].has_presence


def read_all(path: Path, *, strict: bool) -> tuple[list[record_pb2.Record], list[str]]:
    """Every readable record and the errors; with `strict`, any error raises RecordError."""
    reader = RecordReader(path)
    records = list(reader)
    if records and records[0].WhichOneof("line") != "header":
        reader.errors.insert(0, "the first line is not a header")
    elif not records:
        reader.errors.append(f"record {str(path)!r} holds no records")
    elif records[0].header.schema_version not in SCHEMA_VERSIONS:
        version = records[0].header.schema_version
        reader.errors.insert(0, f"unknown record schema version {version!r}")
    if strict and reader.errors:
        raise RecordError(f"{path}: " + "; ".join(reader.errors))
    return records, reader.errors


def read_to_show(path: Path) -> tuple[list[record_pb2.Record], list[str]]:
    """Every readable record and the problems, for showing a record as far as it goes (a
    truncated tail is a problem to warn about). Raises RecordError only when there is nothing to
    show: no header, or a schema this version cannot read."""
    records, problems = read_all(path, strict=False)
    if not records or records[0].WhichOneof("line") != "header":
        raise RecordError(f"{path}: " + "; ".join(problems or ["no header"]))
    if problems and problems[0].startswith("unknown record schema"):
        raise RecordError(f"{path}: {problems[0]}")
    return records, problems


#: The suffix of a record being written: it becomes the record once committed (`commit_record`).
PARTIAL = ".partial"


def partial_path(path: Path) -> Path:
    """Where the record `path` is written until its match is committed."""
    return path.with_name(path.name + PARTIAL)


def write_partial(path: Path, data: bytes) -> Path:
    """A record that arrived whole (from a worker) written as `path`'s partial file, owner-only;
    `commit_record` then makes it the record."""
    private.folder(path.parent)
    partial = partial_path(path)
    with open(partial, "wb", opener=_private_opener) as handle:
        handle.write(data)
    return partial


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags, private.FILE_MODE)


def commit_record(written: Path) -> tuple[Path, str]:
    """The one way a finished match's record is committed (issue 43.2), before its row: its
    bytes flushed to disk and, written as a partial file (a ladder's, a worker's), renamed to
    its final name; then its folder flushed. So no database row outlives its record's bytes
    after a power cut. (A contest writes its records under their final names as they are
    played: a name taken already is refused at the match's start.) Returns the record's path
    and its SHA-256."""
    with written.open("rb") as handle:
        data = handle.read()
        os.fsync(handle.fileno())
    final = written
    if written.suffix == PARTIAL:
        final = written.with_suffix("")
        os.replace(written, final)
    folder = os.open(final.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return final, hashlib.sha256(data).hexdigest()
