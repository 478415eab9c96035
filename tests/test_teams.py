"""Teams (issue 46.1): an account is a team of a leader and members, each with a token of their
own. The store on a real SQLite file (one made by the previous schema too), and a real `croupier
serve --db` on loopback: members added by the leader over the Desk service, refused to anyone
else, a removed member's open streams ended at once while the leader's go on."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from croupier.v1 import desk_pb2, desk_pb2_grpc, referee_pb2, referee_pb2_grpc
from referee.contest.tokens import TokenStore, read_teams, revoked_accounts
from referee.errors import ForbiddenError, NotFoundError, QuotaError
from tests.desk_helpers import Referee, running

#: The account table of the release before teams, as its referee.contest.tokens made it.
PREVIOUS_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
)
"""


def _sha(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _previous_database(path: Path) -> None:
    """A contest database as the previous release left it: alice active, bob revoked."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(PREVIOUS_SCHEMA)
        db.execute(
            "INSERT INTO tokens VALUES (?, ?, ?, NULL)",
            ("alice", _sha("alice-token"), "2026-01-01T00:00:00+00:00"),
        )
        db.execute(
            "INSERT INTO tokens VALUES (?, ?, ?, ?)",
            ("bob", _sha("bob-token"), "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"),
        )


def test_a_database_of_the_previous_schema_keeps_its_accounts_and_tokens(tmp_path: Path) -> None:
    path = tmp_path / "contest.db"
    _previous_database(path)
    before = path.read_bytes()
    # Read-only readers take it as it is, and leave it so.
    assert revoked_accounts(path) == {"bob"}
    assert read_teams(path) == {"alice": ("alice",)}
    final = tmp_path / "final.db"
    assert TokenStore(final).carry(path) == 2
    assert path.read_bytes() == before
    assert TokenStore(final, create=False).lookup("alice-token") == "alice"
    # Opened for writing, it is migrated: each account a team led by a member of its name.
    store = TokenStore(path, create=False)
    assert store.lookup("alice-token") == "alice"
    assert store.lookup("bob-token") is None
    assert store.refusal("bob-token") == (
        "token revoked: the account 'bob' may no longer play (ask the organiser)"
    )
    leader = store.member("alice-token")
    assert leader is not None and leader.leader and leader.name == "alice"
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "tokens" not in tables
    assert revoked_accounts(path) == {"bob"}
    # And it grows members like any team.
    carol = store.add_member("alice", "carol", by="alice-token")
    assert store.lookup(carol) == "alice"
    assert TokenStore(path, create=False).lookup("alice-token") == "alice"  # migrated once


def test_only_the_leader_adds_and_removes_members_and_the_cap_holds(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "contest.db")
    leader = store.add("alice")
    other = store.add("bob")
    member = store.add_member("alice", "carol", by=leader, max_size=2)
    with pytest.raises(ForbiddenError, match="only the leader of team 'alice' adds members"):
        store.add_member("alice", "mallory", by=member)
    with pytest.raises(ForbiddenError, match="no member's of team 'alice'"):
        store.add_member("alice", "mallory", by=other)
    with pytest.raises(QuotaError, match=r"has 2 members.*max_team_size = 2.*remove one first"):
        store.add_member("alice", "dan", by=leader, max_size=2)
    with pytest.raises(ForbiddenError, match="only the leader of team 'alice' removes"):
        store.remove_member("alice", "alice", by=member)
    with pytest.raises(ForbiddenError, match="leads team 'alice' and cannot be removed"):
        store.remove_member("alice", "alice", by=leader)
    with pytest.raises(ForbiddenError, match="rotates another member's token"):
        store.rotate("alice", "alice", by=member)
    with pytest.raises(NotFoundError, match="no member 'zed'"):
        store.remove_member("alice", "zed", by=leader)
    # A member rotates their own token: the old one is refused, saying why.
    rotated = store.rotate("alice", "carol", by=member)
    assert store.lookup(member) is None and store.lookup(rotated) == "alice"
    assert "was replaced: use the new one" in (store.refusal(member) or "")
    store.remove_member("alice", "carol", by=leader)
    assert store.lookup(rotated) is None
    assert store.lookup(leader) == "alice" and store.lookup(other) == "bob"
    assert "was removed from team 'alice'" in (store.refusal(rotated) or "")
    assert [m.name for m in store.team_members("alice")] == ["alice"]
    with pytest.raises(Exception, match="bad member name"):
        store.add_member("alice", "bell\x07", by=leader)


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with running(tmp_path) as started:
        yield started


@dataclass
class Stream:
    """A stream held open in a thread; `ended` holds its status code once it ends."""

    done: threading.Event = field(default_factory=threading.Event)
    code: grpc.StatusCode | None = None
    details: str = ""
    received: int = 0


def _hold(responses: Iterator[object], stream: Stream) -> None:
    def read() -> None:
        try:
            for _ in responses:
                stream.received += 1
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call):
                stream.code, stream.details = error.code(), error.details() or ""
        stream.done.set()

    threading.Thread(target=read, daemon=True).start()


def _play(channel: grpc.Channel, token: str, stop: threading.Event) -> Stream:
    """A Play session with `token` that says Hello and then waits, its stream left open."""

    def requests() -> Iterator[referee_pb2.BotMessage]:
        hello = referee_pb2.Hello(name="held", games=["xix"], protocol_version=2)
        yield referee_pb2.BotMessage(hello=hello)
        stop.wait()

    stream = Stream()
    auth = (("authorization", f"Bearer {token}"),)
    _hold(referee_pb2_grpc.RefereeStub(channel).Play(requests(), metadata=auth), stream)
    return stream


def _follow(channel: grpc.Channel, token: str) -> Stream:
    stream = Stream()
    auth = (("authorization", f"Bearer {token}"),)
    request = desk_pb2.FollowEventsRequest()
    _hold(desk_pb2_grpc.DeskStub(channel).FollowEvents(request, metadata=auth), stream)
    return stream


def test_a_removed_member_is_refused_at_once_and_the_team_plays_on(referee: Referee) -> None:
    leader = referee.tokens["alice"]
    added = referee.cli("team", "add", "<b>carol</b>", token=leader)
    assert added.returncode == 0, added.stderr
    carol = added.stdout.strip()
    # A member adds no one, and is told why; the team's list is theirs to read.
    refused = referee.cli("team", "add", "mallory", token=carol)
    assert refused.returncode == 2
    assert "PERMISSION_DENIED" in refused.stderr and "only the leader" in refused.stderr
    listed = referee.cli("team", "list", token=carol)
    assert listed.returncode == 0, listed.stderr
    assert "<b>carol</b> (you)" in listed.stdout and "leader" in listed.stdout
    # The contest caps a team at three: the fourth is refused with the limit and the value.
    assert referee.cli("team", "add", "dan", token=leader).returncode == 0
    full = referee.cli("team", "add", "erin", token=leader)
    assert full.returncode == 2 and "max_team_size = 3" in full.stderr, full.stderr

    stop = threading.Event()
    with grpc.insecure_channel(referee.address) as channel:
        try:
            playing = _play(channel, carol, stop)
            following = _follow(channel, carol)
            leaders = _follow(channel, leader)
            time.sleep(0.5)  # the streams are open (none has ended)
            assert not (playing.done.is_set() or following.done.is_set()), playing.details
            removed = referee.cli("team", "remove", "<b>carol</b>", token=leader)
            assert removed.returncode == 0, removed.stderr
            began = time.monotonic()
            assert playing.done.wait(10) and following.done.wait(10)
            took = time.monotonic() - began
            for stream in (playing, following):
                assert stream.code is grpc.StatusCode.UNAUTHENTICATED
                assert "was removed from team 'alice'" in stream.details, stream.details
            time.sleep(1.0)  # the leader's stream, open beside them, goes on
            assert not leaders.done.is_set(), leaders.details
        finally:
            stop.set()
    assert took < 5, took
    again = referee.cli("submissions", "list", token=carol)
    assert again.returncode == 2 and "was removed from team" in again.stderr
    assert referee.cli("submissions", "list", token=leader).returncode == 0
