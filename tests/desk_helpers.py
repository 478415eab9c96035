"""A real `croupier serve --db` of XIX on loopback, with teams alice and bob (each its leader
alone), for the tests of the author's desk (issue 46), with its web site if asked."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from referee.contest.tokens import TokenStore
from referee.hosted.store import VersionStore, beside
from tests.challenge_helpers import add_bot
from tests.pipes import drain

CROUPIER = str(Path(sys.executable).parent / "croupier")


@dataclass
class Referee:
    """The running referee: its address, its database and each team leader's token; with
    `web`, its site's URL."""

    address: str
    db: Path
    tokens: dict[str, str]
    web: str = ""

    def cli(self, *args: str, token: str) -> subprocess.CompletedProcess[str]:
        """`croupier ARGS --to the referee --token TOKEN`, run to its end (a build and a
        qualification included, on a loaded machine)."""
        command = [CROUPIER, *args, "--to", self.address, "--token", token]
        return subprocess.run(command, capture_output=True, text=True, timeout=600)

    def challenge_record(self, match: str) -> Path:
        """The record of a committed challenge match, as the contest's database keeps it."""
        with contextlib.closing(sqlite3.connect(self.db)) as db:
            (kept,) = db.execute(
                "SELECT record FROM challenge_matches WHERE match_id = ?", (match,)
            ).fetchone()
        return self.db.parent / str(kept)


@contextmanager
def running(
    tmp_path: Path,
    port: int = 0,
    tokens: dict[str, str] | None = None,
    web: bool = False,
    extra: tuple[str, ...] = (),
) -> Iterator[Referee]:
    """The referee, a team at most three members (`--max-team-size 3`), moves of 2 s; with
    `tokens`, the contest in `tmp_path` served again (its teams made already); with `web`, its
    site on a free port; `extra`: more of `croupier serve`'s flags."""
    db = tmp_path / "contest.db"
    if tokens is None:
        tokens = {name: TokenStore(db).add(name) for name in ("alice", "bob")}
    command = [CROUPIER, "serve", "--db", str(db), "--port", str(port), "--game", "xix"]
    command += ["--move-ms", "2000", "--max-team-size", "3", *extra]
    if web:
        command += ["--web", "127.0.0.1:0"]
    serve = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert serve.stdout is not None
    site = ""
    while b"croupier referee" not in (line := serve.stdout.readline()):
        assert line, "the referee stopped before it listened"
        if b"web site on " in line:  # the site starts before the referee listens
            site = line.decode().split("web site on ")[1].strip()
    drain(serve.stdout)
    address = f"127.0.0.1:{line.decode().split(':')[-1].split()[0]}"
    try:
        yield Referee(address, db, tokens, site)
    finally:
        serve.terminate()
        serve.wait(timeout=60)


@contextmanager
def challenged(tmp_path: Path, extra: tuple[str, ...] = ()) -> Iterator[Referee]:
    """The referee with its site once alice's unranked challenge of bob (2 deals: 4 matches)
    has ended: alice's version the heuristic, bob's its noisy copy, each printing `NAME says`
    at each of its decisions; erin a team with no version (issue 45.4). `extra`: more of
    `croupier serve`'s flags."""
    db = tmp_path / "contest.db"
    tokens = {name: TokenStore(db).add(name) for name in ("alice", "bob", "erin")}
    store = VersionStore(beside(db))
    try:
        for name, noise in (("alice", 0.0), ("bob", 0.6)):
            add_bot(store, name, noise, f"{name}-bot", says=f"{name} says")
    finally:
        store.close()
    with running(tmp_path, tokens=tokens, web=True, extra=extra) as referee:
        asked = referee.cli("challenge", "bob", "--deals", "2", "--wait", token=tokens["alice"])
        assert asked.returncode != 2, asked.stdout + asked.stderr  # 2: refused
        yield referee
