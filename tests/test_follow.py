"""What happened to an upload, told as it happens (issue 46.2): a real `croupier serve --db`, a
team of two, one member following on `croupier submissions follow` while the other's build fails
and then a version qualifies, goes active, plays its first match and is retired by a newer one;
and a client that reconnects after an event id misses nothing and sees nothing twice."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from croupier.v1 import desk_pb2, desk_pb2_grpc
from tests.desk_helpers import CROUPIER, Referee, running
from tests.hosted_helpers import EXAMPLE, SAYING_BOT, network_bot

pytestmark = pytest.mark.usefixtures("bubblewrap")

#: How the pipeline says the broken build below ended.
BUILD_EXIT = "build-failed: build failed (exit 3); its log's end says why"


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with running(tmp_path) as started:
        yield started


def _events(
    referee: Referee, token: str, after: int, last: Callable[[desk_pb2.FollowEventsResponse], bool]
) -> list[desk_pb2.FollowEventsResponse]:
    """The events after `after` as FollowEvents sends them, up to the first that is `last`."""
    auth = (("authorization", f"Bearer {token}"),)
    request = desk_pb2.FollowEventsRequest(after_event=after)
    with grpc.insecure_channel(referee.address) as channel:
        stream = desk_pb2_grpc.DeskStub(channel).FollowEvents(request, metadata=auth, timeout=300)
        got = []
        for event in stream:
            got.append(event)
            if last(event):
                stream.cancel()
                break
    return got


def _of_kind(kind: int) -> Callable[[desk_pb2.FollowEventsResponse], bool]:
    return lambda event: event.kind == kind


def _kinds(lines: list[str], version: str) -> list[str]:
    """The kinds of a version's events in `follow`'s lines (`#ID AT VERSION KIND...`)."""
    events = [line.split() for line in lines if line.startswith("#")]
    return [words[3].rstrip(":") for words in events if words[2] == version[:12]]


def test_a_team_follows_its_versions_from_a_failed_build_to_retirement(
    referee: Referee, tmp_path: Path
) -> None:
    leader = referee.tokens["alice"]
    added = referee.cli("team", "add", "carol", token=leader)
    assert added.returncode == 0, added.stderr
    carol = added.stdout.strip()
    command = [CROUPIER, "submissions", "follow", "--until", "active", "--to", referee.address]
    follow = subprocess.Popen(
        [*command, "--token", carol],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The leader's build fails: the member following is told why, with the log's end.
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "bot.toml").write_text('games = ["xix"]\nbuild = "sh build.sh"\nrun = "./bot"\n')
        (broken / "build.sh").write_text(
            "echo compiling\necho 'error: <missing> semicolon'\nexit 3\n"
        )
        failed = referee.cli("submit", str(broken), "--wait", token=leader)
        assert failed.returncode == 1, failed.stdout + failed.stderr
        broken_id = failed.stdout.split()[0]
        # The member's version qualifies and goes active: `follow --until active` ends there.
        good = referee.cli("submit", str(EXAMPLE), "--wait", token=carol)
        assert good.returncode == 0, good.stdout + good.stderr
        good_id = good.stdout.split()[0]
        out, err = follow.communicate(timeout=300)
    finally:
        follow.kill()
    assert follow.returncode == 0, err
    lines = out.splitlines()
    assert _kinds(lines, broken_id)[0] == "received"
    assert _kinds(lines, broken_id)[-1] == "build-failed"
    failure = next(i for i, line in enumerate(lines) if " build-failed: " in line)
    assert BUILD_EXIT in lines[failure], lines[failure]
    assert "  | error: <missing> semicolon" in lines[failure + 1 : failure + 21]
    kinds = _kinds(lines, good_id)
    assert kinds[0] == "received" and kinds[-2:] == ["qualified", "active"], kinds
    assert kinds.index("qualifying") < kinds.index("qualified")
    ids = [int(line.split()[0][1:]) for line in lines if line.startswith("#")]
    assert ids == sorted(set(ids)), ids  # rising, none twice
    # A client that reconnects after any event gets exactly the ones after it.
    everything = _events(referee, carol, 0, lambda event: event.event_id == ids[-1])
    assert [e.event_id for e in everything] == ids
    middle = ids[len(ids) // 2]
    resumed = _events(referee, leader, middle, lambda event: event.event_id == ids[-1])
    assert [e.event_id for e in resumed] == [i for i in ids if i > middle]

    # A network bot of another team: the version plays, and its first match is an event.
    bob = network_bot(referee.address, referee.tokens["bob"])
    try:
        first = _events(referee, carol, ids[-1], _of_kind(desk_pb2.DESK_EVENT_KIND_FIRST_MATCH))
        assert first[-1].version_id == good_id and first[-1].match_id.startswith("contest-")
        # The standings name the team's members.
        standings = subprocess.run(
            [CROUPIER, "ladder", "standings", str(referee.db), "--format", "json"],
            capture_output=True,
            text=True,
            check=True,
        )
        rows = json.loads(standings.stdout)["standings"]
        ours = next(r for r in rows if r["account"] == "alice")
        assert ours["members"] == ["alice", "carol"]
        # A newer version replaces it: the old one's retirement says why.
        newer = tmp_path / "newer"
        shutil.copytree(EXAMPLE, newer, ignore=shutil.ignore_patterns("__pycache__"))
        with (newer / "bot.toml").open("a") as manifest:
            manifest.write("# newer\n")
        replaced = referee.cli("submit", str(newer), "--wait", token=leader)
        assert replaced.returncode == 0, replaced.stdout + replaced.stderr
        newer_id = replaced.stdout.split()[0]
        after = first[-1].event_id
        retired = _events(referee, carol, after, _of_kind(desk_pb2.DESK_EVENT_KIND_RETIRED))
    finally:
        bob.terminate()
        bob.wait(timeout=30)
    assert retired[-1].version_id == good_id
    assert retired[-1].reason == f"replaced by the newer version {newer_id[:12]}"


def _triples(steps: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], ...]]:
    """Each step with the one before and the one after it."""
    return zip(steps, steps[1:], steps[2:], strict=False)


def test_a_version_s_lines_are_read_beside_each_of_its_decisions(
    referee: Referee, tmp_path: Path
) -> None:
    bot = tmp_path / "saying"
    bot.mkdir()
    (bot / "bot.toml").write_text('games = ["xix"]\nrun = "{python} bot.py"\n')
    (bot / "bot.py").write_text(SAYING_BOT)
    leader = referee.tokens["alice"]
    submitted = referee.cli("submit", str(bot), "--wait", token=leader)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    bob = network_bot(referee.address, referee.tokens["bob"])
    try:
        played = _events(referee, leader, 0, _of_kind(desk_pb2.DESK_EVENT_KIND_FIRST_MATCH))
    finally:
        bob.terminate()
        bob.wait(timeout=30)
    match = played[-1].match_id
    lines = [
        json.loads(line)
        for line in (referee.db.parent / "contest-records")
        .joinpath(f"{match}.jsonl")
        .read_text()
        .splitlines()
    ]
    seats = [seat["name"] for seat in lines[0]["header"]["seats"]]
    ours = next(i for i, name in enumerate(seats) if name.startswith("alice@"))
    actions = [line["action"] for line in lines if "action" in line]
    # Each of its decisions between two of another seat's (its request then comes after a
    # round trip of the other bot's, as does its next: what it printed before has arrived, and
    # what it prints now arrives before its next request): the line it printed. Two of its own
    # in a row may not be told apart: a line is tagged as it is read, and the pipe is read
    # beside the reply, not before it.
    checked = 0
    around = [{"seat": -1}, *actions, {"seat": -1}]
    for number, (before, action, after) in enumerate(_triples(around), start=1):
        mine = [step.get("seat", 0) == ours for step in (before, action, after)]
        if mine != [False, True, False]:
            continue
        shown = referee.cli(
            "submissions", "log", "--match", match, "--decision", str(number), token=leader
        )
        assert shown.returncode == 0, shown.stderr
        said = shown.stdout.splitlines()
        assert said[0].endswith(f", decision {number} ---"), said
        assert len(said) == 2 and said[1].startswith(f"<b>chose {action.get('index', 0)} of ")
        checked += 1
        if checked == 1:  # the organiser reads the same from the store itself
            command = [CROUPIER, "submissions", "log", "--match", match, "--decision"]
            organiser = subprocess.run(
                [*command, str(number), "--db", str(referee.db)], capture_output=True, text=True
            )
            assert organiser.returncode == 0 and said[1] in organiser.stdout, organiser.stderr
        if checked == 3:
            break
    assert checked == 3, actions
    # Another seat's decision: none of its lines.
    theirs = next(n for n, a in enumerate(actions, start=1) if a.get("seat", 0) != ours)
    other = referee.cli(
        "submissions", "log", "--match", match, "--decision", str(theirs), token=leader
    )
    assert other.returncode == 0 and len(other.stdout.splitlines()) == 1, other.stdout
    # Every decision's lines, saved for the seat replay, which shows each under its decision.
    saved = referee.cli("submissions", "log", "--match", match, "--by-decision", token=leader)
    assert saved.returncode == 0, saved.stderr
    entries = [json.loads(line) for line in saved.stdout.splitlines()]
    assert {e["decision"] for e in entries} <= {0} | {
        n for n, a in enumerate(actions, start=1) if a.get("seat", 0) == ours
    }
    log = tmp_path / "by-decision.jsonl"
    log.write_text(saved.stdout)
    record = referee.db.parent / "contest-records" / f"{match}.jsonl"
    command = [CROUPIER, "replay", str(record), "--seat", str(ours), "--log", str(log)]
    replay = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0 and "left out" not in replay.stderr, replay.stderr
    printed = replay.stdout.splitlines()
    told = [i for i, line in enumerate(printed) if line.startswith("  log | <b>chose ")]
    # Each under one of its own decisions (a line that came late is its next decision's).
    above = [
        next(a for a in range(i, -1, -1) if not printed[a].startswith("  log | ")) for i in told
    ]
    assert told and all(printed[a].startswith(f"seat {ours} alice@") for a in above), replay.stdout
    organiser = subprocess.run(
        [
            CROUPIER,
            "submissions",
            "log",
            "--match",
            match,
            "--by-decision",
            "--db",
            str(referee.db),
        ],
        capture_output=True,
        text=True,
    )
    assert organiser.returncode == 0 and organiser.stdout == saved.stdout, organiser.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_follow_reconnects_after_a_restart_and_misses_nothing(tmp_path: Path) -> None:
    """The events are kept in the referee's database: `follow` survives the referee's restart,
    going on after the last event it printed, none printed twice."""
    port = _free_port()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text('games = ["xix"]\nbuild = "sh build.sh"\nrun = "./bot"\n')
    (broken / "build.sh").write_text("echo first\nexit 3\n")
    with running(tmp_path, port) as referee:
        tokens = referee.tokens
        command = [CROUPIER, "submissions", "follow", "--to", referee.address]
        follow = subprocess.Popen(
            [*command, "--token", tokens["alice"]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = referee.cli("submit", str(broken), "--wait", token=tokens["alice"])
        assert first.returncode == 1, first.stdout + first.stderr
    with follow:
        try:
            assert follow.stdout is not None and follow.stderr is not None
            assert "reconnecting" in follow.stderr.readline()  # the referee is gone
            (broken / "build.sh").write_text("echo second\nexit 4\n")
            with running(tmp_path, port, tokens) as again:
                second = again.cli("submit", str(broken), "--wait", token=tokens["alice"])
                assert second.returncode == 1, second.stdout + second.stderr
                lines: list[str] = []
                while not any("exit 4" in line for line in lines):
                    lines.append(follow.stdout.readline())
                    assert lines[-1], "follow ended"
        finally:
            follow.kill()
    ids = [int(line.split()[0][1:]) for line in lines if line.startswith("#")]
    assert ids == list(range(1, len(ids) + 1)), lines  # every event, once, in order
    kinds = [line.split()[3].rstrip(":") for line in lines if line.startswith("#")]
    assert kinds.count("build-failed") == 2 and kinds.count("received") == 2, kinds
