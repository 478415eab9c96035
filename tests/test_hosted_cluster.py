"""Hosted versions played on a real local Dask cluster (issue 27.3): `croupier serve --db
--cluster` with `croupier cluster local` (two worker processes).

The contest's active versions play each other on the workers, each version's built folder
shipped to a worker once and cached there, while two network bots play each other here: one
book. A worker killed in the middle of a batch loses no committed match (its matches are played
again elsewhere, with their numbers and seeds); a version an author submits mid-contest
(`croupier submit --wait`: built and qualified here) is shipped and plays on the cluster. The
contest ends with every match committed once, every record verifying, and each author's log of
each match kept. With `--web`, the matches on the cluster are watched live, only what a
spectator may see of them relayed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio

from referee import transport
from referee.contest.config import ServeConfig
from referee.contest.serving import serve_matches
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import SHORT_ID, VersionId, VersionStore, entrant
from referee.hosted.submitting import MATCH_LOGS
from referee.ladder import verify_ladder
from referee.match.clock import TimeControl
from referee.match.runner import MatchOutcome
from referee.results.database import Finished, Store
from tests.cluster_helpers import alive, committed, kill_a_busy_worker, local_cluster, wait_until
from tests.hosted_helpers import EXAMPLE, add_example, network_bot
from tests.site_helpers import check_only_public, listen

pytest.importorskip("distributed")
pytestmark = pytest.mark.usefixtures("bubblewrap")

CROUPIER = str(Path(sys.executable).parent / "croupier")
HOSTED = ("alice", "bob", "carol")
NETWORK = ("net-1", "net-2")


def _contest(folder: Path) -> tuple[Path, dict[str, str], dict[str, VersionId]]:
    """A contest database with three hosted accounts, each with an active version of the Python
    example (as a qualified upload leaves it), and two network accounts: the tokens, and the
    versions by identity."""
    db = folder / "contest.db"
    accounts = TokenStore(db)
    tokens = {account: accounts.add(account) for account in (*HOSTED, *NETWORK)}
    store = VersionStore(folder / "versions")
    identities = {}
    try:
        for account in HOSTED:
            version = add_example(store, account, account)
            store.activate(version, "every check passed")
            identities[entrant(store.version(version))] = version
    finally:
        store.close()
    return db, tokens, identities


def _listening(log: Path, serve: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if found := re.search(r"croupier referee for xix on 127.0.0.1:(\d+)", log.read_text()):
            return f"127.0.0.1:{found.group(1)}"
        assert serve.poll() is None, log.read_text()
        time.sleep(0.1)
    raise AssertionError(log.read_text())


def _events(log: Path, message: str) -> list[dict[str, object]]:
    lines = log.read_text(errors="replace").splitlines()
    return [json.loads(line) for line in lines if line.startswith("{") and f'"{message}"' in line]


def _tables(db: Path) -> dict[int, set[str]]:
    """Each committed match's bots."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as sql:
        rows = sql.execute("SELECT number, bot FROM seats").fetchall()
    tables: dict[int, set[str]] = {}
    for number, bot in rows:
        tables.setdefault(number, set()).add(bot)
    return tables


def _hosted_matches(db: Path) -> int:
    """Committed matches of hosted versions (not the network bots'); 0 before the book is."""
    try:
        return sum(not bots & set(NETWORK) for bots in _tables(db).values())
    except sqlite3.Error:
        return 0


def test_hosted_versions_play_on_the_cluster_and_a_killed_worker_loses_nothing(
    tmp_path: Path,
) -> None:
    db, tokens, identities = _contest(tmp_path)
    log = tmp_path / "serve.log"
    with local_cluster() as (scheduler, cluster):
        command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--cluster", scheduler]
        with log.open("wb") as out:
            serve = subprocess.Popen(
                [*command, "--move-ms", "2000", "--log-json"], stdout=out, stderr=out
            )
        address = _listening(log, serve)
        nets = [network_bot(address, tokens[account]) for account in NETWORK]
        try:
            # Hosted matches, played on the cluster (the network bots' alone could reach 4 while
            # the cluster still starts).
            assert wait_until(lambda: _hosted_matches(db) >= 4, 120), log.read_text()
            at_kill = committed(db)
            orphans = kill_a_busy_worker(cluster.pid)  # in the middle of a batch
            # alice submits a new version, as an author does: built and qualified here, then
            # shipped to the workers and played there in her old version's place.
            submit = [CROUPIER, "submit", str(EXAMPLE), "--to", address, "--wait"]
            done = subprocess.run(
                [*submit, "--token", tokens["alice"]],
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0 and " qualified" in done.stdout, (
                f"{done.stdout}{done.stderr}serve: {serve.poll()}\n{log.read_text()}"
            )
            new = f"alice@{done.stdout.split()[0][:SHORT_ID]}"
            assert wait_until(
                lambda: sum(new in bots for bots in _tables(db).values()) >= 4, 120
            ), log.read_text()
        finally:
            serve.send_signal(signal.SIGTERM)
            code = serve.wait(timeout=90)
            for bot in nets:
                bot.kill()
                bot.wait()
        assert code == 0, log.read_text()
        # The killed worker's bots lost their referee and quit by themselves.
        assert wait_until(lambda: not any(alive(pid) for pid in orphans), 20)
    check = verify_ladder(db)
    assert check.ok, check.problems
    assert check.records_verified == check.matches > at_kill
    tables = _tables(db)
    with sqlite3.connect(db) as sql:
        numbers = [n for (n,) in sql.execute("SELECT number FROM matches ORDER BY number")]
        unlucky = sql.execute("SELECT COUNT(*) FROM seats WHERE luck IS NULL").fetchone()[0]
    assert unlucky == 0  # every seat's luck correction came back from its worker (issue 28.4)
    assert len(numbers) == len(set(numbers)) == len(tables)  # nothing doubled
    records = sorted(p.name for p in (tmp_path / "contest-records").glob("*.jsonl*"))
    assert records == [f"contest-{n:05d}.jsonl" for n in numbers]
    # One book: hosted versions met each other on the cluster, network bots each other here.
    hosted = {*identities, new}
    assert {frozenset(bots) for bots in tables.values() if bots & set(NETWORK)} == {
        frozenset(NETWORK)
    }
    assert set().union(*(bots for bots in tables.values() if not bots & set(NETWORK))) == hosted
    # Shipped once per worker that played a version (a worker restarted by its nanny is new).
    shipped = Counter((e["bot"], e["worker"]) for e in _events(log, "hosted version shipped"))
    assert {bot for bot, _ in shipped} == hosted and set(shipped.values()) == {1}, shipped
    # Each author has their version's output of each of its matches.
    store = VersionStore(tmp_path / "versions")
    for identity, version in identities.items():
        logs = {p.stem for p in (store.folder(version) / MATCH_LOGS).glob("*.log")}
        mine = {f"contest-{n:05d}" for n, bots in tables.items() if identity in bots}
        assert logs == mine, identity


def test_a_contest_on_the_cluster_has_each_record_on_disk_before_its_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43.2: a contest's matches played on the cluster come back as records that this
    process writes as partial files and commits through the one venue a ladder plays on; each
    record, then its folder once it is renamed, are flushed before its row is written (the OS's
    and SQLite's calls watched in this process, which serves the contest with its hosted
    versions on a real local cluster)."""
    db, _, _ = _contest(tmp_path)
    records = tmp_path / "contest-records"
    calls: list[tuple[str, str]] = []
    fsync, commit = os.fsync, Store.commit

    def watched_fsync(fd: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def watched_commit(store: Store, finished: Finished) -> None:
        calls.append(("row", str(finished.record.resolve())))
        commit(store, finished)

    monkeypatch.setattr(os, "fsync", watched_fsync)
    monkeypatch.setattr(Store, "commit", watched_commit)
    game = get_game("xix")
    outcomes: list[MatchOutcome] = []
    with local_cluster(workers=1) as (scheduler, _):
        config = ServeConfig(
            game=game,
            options=parse_options(game, {}),
            tokens=db,
            time_control=TimeControl(move_ms=5000, bank_ms=0),
            matches=3,
            cluster=scheduler,
        )

        async def main() -> None:
            with trio.fail_after(240):
                await serve_matches(config, lambda port: None, outcomes.append)

        transport.run(main)
    rows = [where for what, where in calls if what == "row"]
    assert len(rows) == len(outcomes) == 3
    assert {Path(row).parent for row in rows} == {records.resolve()}
    for record in rows:  # its bytes flushed as they came back, then renamed, then the folder
        flushed = calls.index(("fsync", f"{record}.partial"))
        folder = calls.index(("fsync", str(records.resolve())), flushed)
        assert flushed < folder < calls.index(("row", record))


def _slow_contest(folder: Path) -> Path:
    """A contest database whose two hosted accounts each have an active version of the Python
    example made to think 20 ms a decision (matches of seconds, to be watched)."""
    db = folder / "contest.db"
    accounts = TokenStore(db)
    store = VersionStore(folder / "versions")
    try:
        for account in ("alice", "bob"):
            accounts.add(account)
            into = store.incoming()
            unpack(EXAMPLE, into, ArchiveLimits())
            bot = into / "random_bot.py"
            source = bot.read_text().replace("import random\n", "import random\nimport time\n")
            bot.write_text(
                source.replace(
                    "        return random", "        time.sleep(0.02)\n        return random"
                )
            )
            with (into / "bot.toml").open("a") as manifest:
                manifest.write(f"# {account}\n")
            version = store.add(account, into).id
            store.activate(version, "every check passed")
    finally:
        store.close()
    return db


def test_a_contest_s_matches_on_the_cluster_are_watched_live(tmp_path: Path) -> None:
    """`serve --cluster --web`: the hosted versions' matches played on the workers are live on
    the site, relayed through Dask's events, and a viewer of one gets only what a spectator may
    see of it (checked against its record)."""
    db = _slow_contest(tmp_path)
    log = tmp_path / "serve.log"
    with local_cluster(workers=1) as (scheduler, _):
        command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--cluster", scheduler]
        with log.open("wb") as out:
            serve = subprocess.Popen(
                [*command, "--web", "127.0.0.1:0", "--log-json"], stdout=out, stderr=out
            )
        try:
            web = _site(log, serve)
            match_id, received, raw = listen(_Site(web))
            record = tmp_path / "contest-records" / f"{match_id}.jsonl"
            assert wait_until(lambda: committed(db) >= 1 and record.exists(), 60)
        finally:
            serve.send_signal(signal.SIGTERM)
            code = serve.wait(timeout=90)
        assert code == 0, log.read_text()
    check_only_public(received, raw, record)
    assert {name.split("@")[0] for name in received[0]["names"]} == {"alice", "bob"}


@dataclass
class _Site:
    web: str


def _site(log: Path, serve: subprocess.Popen[bytes]) -> str:
    """The address of the serve's web site, once it says it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if found := re.search(r"web site on (http://127\.0\.0\.1:\d+)", log.read_text()):
            return found.group(1)
        assert serve.poll() is None, log.read_text()
        time.sleep(0.1)
    raise AssertionError(log.read_text())
