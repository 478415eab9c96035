"""Records: written line by line, read back tolerantly, and verified against the engine."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.bots import RandomBot
from croupier.v1 import record_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.records import (
    MAX_RECORD_BYTES,
    RecordReader,
    action_line,
    event_line,
    read_all,
    to_json_line,
)
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests.records_helpers import record_match, record_xix_match


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "match.jsonl"
    record_xix_match(path)
    return path


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_record_layout(record: Path) -> None:
    records = lines(record)
    header = records[0]["header"]
    assert isinstance(header, dict)
    assert header["schemaVersion"] == 2
    assert header["game"] == "xix"
    assert header["rulesVersion"] == "xix-2.0"
    assert header["seed"] == "7"
    assert "chance" in records[1]
    assert "result" in records[-1]
    assert verify(record).ok


def test_a_truncated_last_line_is_reported_and_the_prefix_read(record: Path) -> None:
    text = record.read_text()
    record.write_text(text[: len(text) - 25])  # killed mid-write
    reader = RecordReader(record)
    records = list(reader)
    assert reader.truncated
    assert len(records) == len(text.splitlines()) - 1
    assert reader.errors == [
        f"line {len(text.splitlines())} is truncated (the match did not finish)"
    ]
    report = verify(record)
    assert not report.ok
    assert "truncated" in report.problems[0]


#: A child that copies a record's lines through a RecordWriter, flushing every 3 lines, under a
#: file size limit of argv[3] bytes; prints how many lines it flushed before the error, if any.
_COPY_UNDER_A_LIMIT = """
import resource, sys
from pathlib import Path
from referee.errors import RecordWriteError
from referee.match.records import RecordWriter
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]), resource.RLIM_INFINITY))
lines = Path(sys.argv[1]).read_text().splitlines()
flushed = 0
with RecordWriter(Path(sys.argv[2])) as writer:
    for number, line in enumerate(lines, start=1):
        writer.write_line(line)
        if number % 3 == 0:
            try:
                writer.flush()
            except RecordWriteError as error:
                print(flushed, error.errno, error.filename)
                sys.exit(0)
            flushed = number
print(flushed, "no error")
"""


def test_a_flush_the_disk_cuts_short_leaves_whole_lines_and_says_so(
    record: Path, tmp_path: Path
) -> None:
    """A file size limit (as a full disk) falls mid-flush: the write is cut short, the next one
    fails; the record keeps exactly the lines of the flushes before, each whole."""
    copy = tmp_path / "copy.jsonl"
    limit = 4096  # the header and a few lines fit, a whole XIX match does not
    assert record.stat().st_size > 2 * limit
    ran = subprocess.run(
        [sys.executable, "-c", _COPY_UNDER_A_LIMIT, str(record), str(copy), str(limit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    flushed, errno_, name = ran.stdout.split()
    assert int(errno_) == errno.EFBIG and name == str(copy)
    kept = record.read_text().splitlines(keepends=True)[: int(flushed)]
    assert kept and copy.read_text() == "".join(kept)
    assert copy.stat().st_size <= limit


def test_a_garbage_line_is_collected_not_fatal(record: Path) -> None:
    text = record.read_text().splitlines()
    text.insert(3, "{not json")
    record.write_text("\n".join(text) + "\n")
    records, errors = read_all(record, strict=False)
    assert len(records) == len(text) - 1
    assert errors == [errors[0]]
    assert errors[0].startswith("line 4 is not a record")


def test_verify_catches_a_changed_action(record: Path) -> None:
    records = lines(record)
    index = next(i for i, r in enumerate(records) if "action" in r)
    action = records[index]["action"]
    assert isinstance(action, dict)
    action["text"] = "play 99"
    write(record, records)
    report = verify(record)
    assert not report.ok
    assert f"record {index + 1}" in report.problems[0]


def test_verify_catches_a_changed_deal(record: Path) -> None:
    records = lines(record)
    chance = records[1]["chance"]
    assert isinstance(chance, dict)
    cards = chance["deck"]["cards"]
    cards[0], cards[1] = cards[1], cards[0]  # the same cards, dealt differently
    write(record, records)
    report = verify(record)
    assert not report.ok


def test_verify_catches_a_missing_event_and_a_changed_result(record: Path) -> None:
    records = lines(record)
    dropped = [r for i, r in enumerate(records) if not (i == 2 and "event" in r)]
    write(record, dropped)
    assert not verify(record).ok
    result = records[-1]["result"]
    assert isinstance(result, dict)
    result["result"]["text"] = "seat 0 wins 99-0"
    write(record, records)
    assert "result" in verify(record).problems[0]


def test_verify_catches_a_missing_result(record: Path) -> None:
    write(record, lines(record)[:-1])
    assert verify(record).problems == ["the record ends before the result"]


@pytest.mark.parametrize("copies", [2, 3])
def test_verify_refuses_a_line_after_the_result(record: Path, copies: int) -> None:
    """Issue 24.5a: a duplicated (or tripled) result line, or anything after the result."""
    records = lines(record)
    write(record, [*records, *[records[-1]] * (copies - 1)])
    report = verify(record)
    assert report.problems == [f"record {len(records) + 1}: a 'result' line after the result"]
    write(record, [*records, records[3]])
    assert "after the result" in verify(record).problems[0]


def test_what_is_no_record_file_is_refused_without_reading_it(record: Path, tmp_path: Path) -> None:
    """Issue 32.3: a FIFO with no writer is refused, not waited on; a file past the bound is
    refused by its size (here a sparse one: no byte of it is on disk or read)."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as file:
        file.truncate(MAX_RECORD_BYTES + 1)
    for path, problem in ((fifo, "is not a regular file"), (huge, "is larger than 256 MiB")):
        records, errors = read_all(path, strict=False)
        assert records == []
        assert errors[0].startswith(f"{str(path)!r} {problem}")
    assert read_all(record, strict=True)[0]  # a real record still reads


def test_a_huge_bad_line_is_quoted_in_short(record: Path) -> None:
    """Issue 24.5b: a 20 MB value that does not parse is refused with a short reason."""
    text = record.read_text().splitlines()
    text.insert(3, '{"action": {"index": "' + "9" * 20_000_000 + '"}}')
    record.write_text("\n".join(text) + "\n")
    (problem,) = verify(record).problems
    assert problem.startswith("line 4 is not a record") and len(problem) < 400, problem[:400]


@pytest.mark.parametrize(
    ("game", "options"), [("xactika", {"players": "3"}), ("textactoe", {}), ("xeri", {})]
)
def test_verify_draws_chance_again_from_the_seed(
    tmp_path: Path, game: str, options: dict[str, str]
) -> None:
    """Issue 24.5c: swapping two cards of a shuffle, the end of the deck included (Xactika's
    set-aside cards, the bottom of Tex-Tac-Toe's pile: no seat ever sees them, so the engine
    replays the match the same), fails: every outcome is drawn again from the seed."""
    path = tmp_path / "match.jsonl"
    record_match(path, game, options)
    assert verify(path).ok and verify(path).chance_checked
    records = lines(path)
    first = next(r for r in records if "deck" in str(r.get("chance", "")))
    cards = first["chance"]["deck"]["cards"]  # type: ignore[index]
    cards[-1], cards[-2] = cards[-2], cards[-1]
    write(path, records)
    (problem,) = verify(path).problems
    assert "differs from what the match's seed draws" in problem, problem
    assert not verify(path, seed=8).ok  # another seed draws another deal


def test_unknown_schema_version_is_refused(record: Path) -> None:
    records = lines(record)
    header = records[0]["header"]
    assert isinstance(header, dict)
    header["schemaVersion"] = 99
    write(record, records)
    assert verify(record).problems == ["unknown record schema version 99"]


def test_a_committed_schema_1_record_still_verifies() -> None:
    """A record written before the protos' issue-16 changes (pile_cards, optional action_index):
    records hold no observations and no replies, so schema 1 stands and old records verify."""
    path = Path(__file__).parent / "data" / "xix-schema1.jsonl"
    assert lines(path)[0]["header"]["schemaVersion"] == 1  # type: ignore[index]
    report = verify(path)
    assert report.ok, report.problems
    assert report.lines == len(path.read_text().splitlines())


def test_zeros_a_record_left_out_before_presence_are_read_back(tmp_path: Path) -> None:
    """Before issue 16 a team of 0 and a winning seat 0 were left out (no presence then): the
    reader restores them where the context says a value exists, and only there."""
    result = {
        "termination": "TERMINATION_NORMAL",
        "seats": [{"name": "a"}, {"seat": 1, "name": "b", "team": 1}],
    }
    solo = {"termination": "TERMINATION_NORMAL", "seats": [{"name": "a"}, {"seat": 1}]}
    won = {"textactoe": {"handScored": {"points": 5, "scores": [5, 0]}}}
    tie = {"textactoe": {"handScored": {"tie": True}}}
    lines = [
        {"result": {"result": result}},
        {"result": {"result": solo}},
        {"event": {"event": won, "public": True}},
        {"event": {"event": tie, "public": True}},
    ]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    team, no_team, winner, tied = list(RecordReader(path))
    assert [s.HasField("team") for s in team.result.result.seats] == [True, True]
    assert team.result.result.seats[0].team == 0
    assert not any(s.HasField("team") for s in no_team.result.result.seats)
    assert winner.event.event.textactoe.hand_scored.HasField("seat")
    assert not tied.event.event.textactoe.hand_scored.HasField("seat")


uint32s = st.integers(min_value=0, max_value=2**32 - 1)


@given(
    seat=uint32s,
    index=uint32s,
    text=st.text(max_size=40),
    elapsed=uint32s,
    defaulted=st.booleans(),
    lag=uint32s,
    cpu=st.none() | uint32s,
    starved=st.none() | uint32s,
)
@settings(max_examples=300)
def test_the_action_line_is_the_records_json_line(
    seat: int,
    index: int,
    text: str,
    elapsed: int,
    defaulted: bool,
    lag: int,
    cpu: int | None,
    starved: int | None,
) -> None:
    """The hot path's encoding of an action is byte for byte the generic one."""
    action = record_pb2.ActionRecord(
        seat=seat,
        index=index,
        text=text,
        elapsed_ms=elapsed,
        defaulted=defaulted,
        lag_ms=lag,
        cpu_ms=cpu,
        starved_ms=starved,
    )
    expected = to_json_line(record_pb2.Record(action=action))
    assert action_line(seat, index, text, elapsed, defaulted, lag, cpu, starved) == expected


@pytest.mark.parametrize("game", ["xix", "xeri", "xactika", "textactoe"])
def test_the_event_line_is_the_records_json_line(tmp_path: Path, game: str) -> None:
    """Every event of real matches of every game, public and private, encodes as the generic
    encoder does (the runner writes events through `event_line`)."""
    checked = 0
    for seed in range(3):
        path = tmp_path / f"{game}-{seed}.jsonl"
        spec = get_game(game)
        options = parse_options(spec, {})
        config = MatchConfig(spec, options, seed=seed, match_id=f"events-{seed}")
        players = [InProcessSeat(RandomBot(seed + i)) for i in range(spec.seat_count(options))]
        trio.run(run_match, config, players, path)
        for record in RecordReader(path):
            if record.WhichOneof("line") != "event":
                continue
            event = record.event
            seats = None if event.public else list(event.seats)
            assert event_line(event.event, seats) == to_json_line(record)
            assert path.read_text().count(to_json_line(record)) >= 1
            checked += 1
    assert checked > 10


def test_lines_read_again_are_new_messages_as_parsed(record: Path, tmp_path: Path) -> None:
    # Parsed lines are kept (issue 24.6): a reader gets copies, so what one caller changes no
    # other one sees, and a copy of the record reads the same.
    first, _ = read_all(record, strict=True)
    expected = [r.SerializeToString() for r in first]
    for line in first:
        line.Clear()
    again, _ = read_all(record, strict=True)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(record.read_bytes())
    elsewhere, _ = read_all(copy, strict=True)
    assert [r.SerializeToString() for r in again] == expected
    assert [r.SerializeToString() for r in elsewhere] == expected
    assert again[0].header.match_id and verify(copy).ok
