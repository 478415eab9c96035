"""The content-addressed version store: real folders, real SQLite, a real process killed with -9
in the middle of adding versions."""

from __future__ import annotations

import hashlib
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import (
    StoreError,
    Version,
    VersionId,
    VersionStatus,
    VersionStore,
    read_listing,
    version_id,
)
from tests.hosted_helpers import add_example


def _bot(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(text)
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o755)
    return folder


def test_the_version_id_is_the_documented_hash(tmp_path: Path) -> None:
    (tmp_path / "bot" / "lib").mkdir(parents=True)
    (tmp_path / "bot" / "run.sh").write_bytes(b"hi\n")
    (tmp_path / "bot" / "run.sh").chmod(0o700)
    (tmp_path / "bot" / "lib" / "a").write_bytes(b"")
    expected = hashlib.sha256(b"- 0 lib/a\nx 3 run.sh\nhi\n").hexdigest()
    assert version_id(tmp_path / "bot") == expected


def test_the_same_contents_again_are_the_same_version(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    bot = _bot(tmp_path / "bot", 'run = "./run.sh"\n')
    first = store.add("alice", _unpacked(store, bot))
    again = store.add("alice", _unpacked(store, bot))
    assert (first.new, again.new, again.id) == (True, False, first.id)
    assert first.id == version_id(bot)
    assert version_id(store.folder(first.id) / "src") == first.id
    assert list((tmp_path / "store" / "incoming").iterdir()) == []
    with pytest.raises(StoreError, match=r"already another account's upload") as refused:
        store.add("mallory", _unpacked(store, bot))
    assert first.id[:6] not in str(refused.value) and "alice" not in str(refused.value)
    assert list((tmp_path / "store" / "incoming").iterdir()) == []
    assert [version.id for version in store.versions("alice")] == [first.id]
    assert store.versions("mallory") == []


def _unpacked(store: VersionStore, source: Path) -> Path:
    into = store.incoming()
    unpack(source, into, ArchiveLimits())
    return into


def test_status_and_withdrawal_are_kept_per_version(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    one = store.add("alice", _unpacked(store, _bot(tmp_path / "one", "1")))
    two = store.add("alice", _unpacked(store, _bot(tmp_path / "two", "2")))
    store.set_status(one.id, VersionStatus.BUILD_FAILED, "g++: error: bot.cpp: no such file")
    with pytest.raises(StoreError, match=r"no version .* of account 'mallory'"):
        store.withdraw("mallory", two.id)
    store.withdraw("alice", two.id)
    store.close()
    reopened = VersionStore(tmp_path / "store")
    assert [
        (version.id, version.status, version.reason) for version in reopened.versions("alice")
    ] == [
        (one.id, VersionStatus.BUILD_FAILED, "g++: error: bot.cpp: no such file"),
        (two.id, VersionStatus.WITHDRAWN, "withdrawn by alice"),
    ]
    with pytest.raises(StoreError, match=r"no version 'f00'"):
        reopened.set_status(VersionId("f00"), VersionStatus.BUILT)


def test_recover_rebuilds_cut_builds_and_removes_what_was_never_stored(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    building = store.add("alice", _unpacked(store, _bot(tmp_path / "one", "1")))
    built = store.add("alice", _unpacked(store, _bot(tmp_path / "two", "2")))
    store.set_status(building.id, VersionStatus.BUILDING)
    store.set_status(built.id, VersionStatus.BUILT)
    half = _unpacked(store, _bot(tmp_path / "three", "3"))  # an upload never added
    orphan = store.folder(VersionId("0" * 64))  # renamed in, killed before its row
    (orphan / "src").mkdir(parents=True)
    store.close()
    store = VersionStore(tmp_path / "store")
    recovery = store.recover()
    assert recovery.removed_incoming == (half.parent.name,)
    assert recovery.removed_orphans == (orphan.name,)
    assert recovery.rebuild == (building.id,)
    assert not half.parent.exists() and not orphan.exists()
    assert [version.status for version in store.versions("alice")] == [
        VersionStatus.RECEIVED,
        VersionStatus.BUILT,
    ]
    assert store.recover().rebuild == ()


_ADDER = """
import sys
from pathlib import Path
from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import VersionStore

store = VersionStore(Path(sys.argv[1]))
source = Path(sys.argv[2])
for number in range(10_000):
    (source / "number").write_text(str(number))
    into = store.incoming()
    unpack(source, into, ArchiveLimits())
    print(store.add("alice", into).id, flush=True)
"""


def test_a_kill_in_the_middle_of_adding_leaves_the_store_consistent(tmp_path: Path) -> None:
    bot = _bot(tmp_path / "bot", 'run = "./run.sh"\n')
    for number in range(200):  # enough files that a kill lands mid-unpack or mid-sync
        (bot / f"file{number}.py").write_text(f"x = {number}\n" * 50)
    root = tmp_path / "store"
    command = [sys.executable, "-c", _ADDER, str(root), str(bot)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as adder:
        assert adder.stdout is not None
        added = [adder.stdout.readline().strip() for _ in range(3)]
        time.sleep(0.05)
        adder.send_signal(signal.SIGKILL)
        adder.wait()
        added += [line.strip() for line in adder.stdout]
    store = VersionStore(root)
    store.recover()
    assert list((root / "incoming").iterdir()) == []
    listed = [version.id for version in store.versions("alice")]
    assert set(added) <= set(listed) and len(listed) <= len(added) + 1  # one stored, unprinted
    assert sorted(path.name for path in (root / "versions").iterdir()) == sorted(listed)
    for id in listed:
        assert version_id(store.folder(id) / "src") == id  # whole, never half a version


def _add(store: VersionStore, folder: Path, manifest: str) -> Version:
    return store.add("alice", _unpacked(store, _bot(folder, manifest)))


def test_the_active_version_is_the_last_qualified_until_withdrawn(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    first = _add(store, tmp_path / "a", 'run = "one"\n')
    second = _add(store, tmp_path / "b", 'run = "two"\n')
    assert store.active("alice") is None
    assert [v.id for v in store.with_status(VersionStatus.RECEIVED)] == [first.id, second.id]
    store.activate(first.id, "passed")
    store.activate(second.id, "passed too")
    active = store.active("alice")
    assert active is not None and active.id == second.id and active.reason == "passed too"
    assert store.with_status(VersionStatus.QUALIFIED) == [store.version(first.id), active]
    store.withdraw("alice", second.id)
    assert store.active("alice") is None
    with pytest.raises(StoreError, match="no version 'nope'"):
        store.activate(VersionId("nope"))


def test_a_store_made_before_active_versions_opens(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    with sqlite3.connect(root / "store.db") as old:
        old.executescript(
            "CREATE TABLE versions (id TEXT PRIMARY KEY, account TEXT NOT NULL, status TEXT "
            "NOT NULL, reason TEXT NOT NULL, submitted_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
        )
    store = VersionStore(root)
    version = _add(store, tmp_path / "a", 'run = "one"\n')
    assert store.activate(version.id).status is VersionStatus.QUALIFIED


def test_a_store_being_created_or_made_before_active_versions_reads_as_it_is(
    tmp_path: Path,
) -> None:
    """The site reads the store as the referee starts: a file whose tables are not made yet is
    an empty listing (it once crashed the referee), and a store made before active versions
    lists its versions with none active."""
    root = tmp_path / "store"
    root.mkdir()
    sqlite3.connect(root / "store.db").close()  # created, no table yet
    assert read_listing(root).versions == () and not read_listing(root).active
    with sqlite3.connect(root / "store.db") as old:
        old.executescript(
            "CREATE TABLE versions (id TEXT PRIMARY KEY, account TEXT NOT NULL, status TEXT "
            "NOT NULL, reason TEXT NOT NULL, submitted_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
            "INSERT INTO versions VALUES ('ab12', 'alice', 'qualified', '', 't0', 't0');"
        )
    listing = read_listing(root)
    assert [v.account for v in listing.versions] == ["alice"] and not listing.active


def test_every_change_of_a_version_is_an_event_its_account_follows(tmp_path: Path) -> None:
    """Issue 46.2: each status a version reaches, its becoming active, its first match (once)
    and its retirement are events of its account's, in order, with rising ids, written in the
    same transaction as the change; another account's are not among them."""
    store = VersionStore(tmp_path / "versions")
    first = add_example(store, "alice", "one")
    store.set_status(first, VersionStatus.BUILDING)
    store.set_status(first, VersionStatus.BUILD_FAILED, "build failed (exit 3)")
    store.resubmit(first)
    store.activate(first, "every check passed")
    store.played(first, "contest-00001")
    store.played(first, "contest-00002")
    second = add_example(store, "alice", "two")
    store.activate(second, "every check passed")
    store.withdraw("alice", second)
    add_example(store, "bob", "three")
    events = store.events("alice")
    assert [(e.version, str(e.kind)) for e in events] == [
        (first, "received"),
        (first, "building"),
        (first, "build-failed"),
        (first, "received"),
        (first, "qualified"),
        (first, "active"),
        (first, "first-match"),
        (second, "received"),
        (second, "qualified"),
        (second, "active"),
        (first, "retired"),
        (second, "withdrawn"),
        (second, "retired"),
    ]
    assert events[6].match == "contest-00001"
    assert events[10].reason == f"replaced by the newer version {second[:12]}"
    assert events[12].reason == "withdrawn by alice: it plays no more"
    ids = [e.id for e in events]
    assert ids == sorted(set(ids))
    assert [e.id for e in store.events("alice", after=ids[5])] == ids[6:]
    assert {e.account for e in store.events("bob")} == {"bob"}
    store.close()
