"""`croupier challenge` against a real `croupier serve CONTEST.toml` (issue 45): --wait exits
with the test's verdict, a refusal exits 2 naming its limit, a referee killed with -9 in the
middle of a challenge resumes it when served again with nothing counted twice, and a client
built from the previous release's stubs is unaffected by the new service."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.store import VersionStore, beside
from tests.challenge_helpers import add_bot
from tests.hosted_helpers import previous_submissions_stubs
from tests.pipes import drain

CROUPIER = str(Path(sys.executable).parent / "croupier")

pytestmark = pytest.mark.usefixtures("bubblewrap")

CONTEST = """game = "xix"
database = "contest.db"
port = 0
[time_control]
move_ms = 5000
bank_ms = 0
[challenges]
share = 0.9
elo0 = 0
elo1 = 100
default_deals = 40
max_deals = 60
[web]
port = 0
"""


def prepared(folder: Path, bots: dict[str, float | None]) -> dict[str, str]:
    """Accounts with one active version each (the heuristic, or its noisy copy), the contest
    file; their tokens."""
    database = folder / "contest.db"
    tokens = {name: TokenStore(database).add(name) for name in bots}
    store = VersionStore(beside(database))
    try:
        for name, noise in bots.items():
            add_bot(store, name, noise, f"{name}-bot")
    finally:
        store.close()
    (folder / "contest.toml").write_text(CONTEST)
    return tokens


@contextmanager
def serving(folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`croupier serve contest.toml`; its address (and its site's, in `folder / "site"`)."""
    serve = subprocess.Popen(
        [CROUPIER, "serve", str(folder / "contest.toml")], stdout=subprocess.PIPE, cwd=folder
    )
    assert serve.stdout is not None
    while b"croupier referee" not in (line := serve.stdout.readline()):
        assert line, "the referee stopped before it listened"
        if line.startswith(b"contest web site on "):
            (folder / "site").write_text(line.decode().split()[-1])
    port = line.decode().split(":")[-1].split()[0]
    drain(serve.stdout)
    try:
        yield f"127.0.0.1:{port}", serve
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=60)


def croupier(*arguments: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CROUPIER, *arguments], capture_output=True, text=True, timeout=timeout, check=False
    )


def committed(database: Path, id: int) -> list[tuple[int, int]]:
    """(deal, rotation) of each committed match of challenge `id`."""
    with sqlite3.connect(database) as db:
        return db.execute(
            "SELECT deal, rotation FROM challenge_matches WHERE challenge = ? "
            "AND record IS NOT NULL",
            (id,),
        ).fetchall()


def test_wait_exits_with_the_verdict_and_a_refusal_names_its_limit(tmp_path: Path) -> None:
    tokens = prepared(tmp_path, {"alice": None, "bob": 0.6})
    with serving(tmp_path) as (address, _):
        auth = ["--to", address, "--token", tokens["alice"]]
        too_many = croupier("challenge", "bob", *auth, "--deals", str(10**9))
        assert too_many.returncode == 2, too_many.stdout + too_many.stderr
        assert "RESOURCE_EXHAUSTED: deals per challenge: at most 60" in too_many.stderr
        wrong = croupier("challenge", "bob", *auth, "--elo", "10", "5")
        assert wrong.returncode == 2 and "INVALID_ARGUMENT" in wrong.stderr, wrong.stderr
        decided = croupier("challenge", "bob", *auth, "--wait")
        assert decided.returncode == 0, decided.stdout + decided.stderr
        assert "H1 accepted after" in decided.stdout, decided.stdout
        listed = croupier("challenge", "list", *auth)
        assert listed.returncode == 0 and "better" in listed.stdout, listed.stdout
        shown = croupier("challenge", "show", "1", "--to", address, "--token", tokens["bob"])
        assert shown.returncode == 0 and "alice@" in shown.stdout, shown.stdout  # the opponent
        site = (tmp_path / "site").read_text()
        # The site: alice's own challenges to her token alone, none of them public (unranked);
        # her bot page counts her versions and challenges (selection honesty).
        everyone = fetch(f"{site}/api/v1/challenges")
        assert everyone == {"decided_ranked": []}, everyone
        hers = fetch(f"{site}/api/v1/challenges", tokens["alice"])
        assert [c["outcome"] for c in hers["own"]] == ["better"], hers
        page = fetch(f"{site}/api/bots/alice")
        assert (page["versions_tried"], page["challenges"]) == (1, 1), page
        standings = fetch(f"{site}/api/v1/standings")
        assert {r["account"]: r["versions_tried"] for r in standings["standings"]} == {
            "alice": 1,
            "bob": 1,
        }
        with pytest.raises(urllib.error.HTTPError, match="401"):
            fetch(f"{site}/api/v1/challenges", "not a token")


def test_the_site_s_challenges_page_lists_a_decided_ranked_challenge(
    tmp_path: Path, page: Any
) -> None:
    """Issue 45: the public HTML list. Bob asks a ranked challenge of the stronger alice, who
    accepts every challenge: the ranked matches played before it may have rated bob above her
    by chance (more of them, the faster the referee), and a downward one would wait for her
    consent (tested in test_challenges.py); once decided, /challenges shows it, names linking
    to the bots' pages, and the standings page links there."""
    tokens = prepared(tmp_path, {"alice": None, "bob": 0.6})
    with serving(tmp_path) as (address, _):
        accepts = croupier(
            "challenge", "consent", "accept", "--to", address, "--token", tokens["alice"]
        )
        assert accepts.returncode == 0, accepts.stdout + accepts.stderr
        auth = ["--to", address, "--token", tokens["bob"]]
        decided = croupier("challenge", "alice", *auth, "--ranked", "--wait")
        assert decided.returncode in (0, 1), decided.stdout + decided.stderr  # H1 or H0
        site = (tmp_path / "site").read_text()
        page.goto(f"{site}/challenges")
        page.wait_for_selector("body[data-challenges='1']")
        cells = page.locator("#challenges tbody tr td").all_text_contents()
        assert cells[0] == "#1" and cells[1].startswith("bob@"), cells
        assert cells[2].startswith("alice@") and cells[3] in ("better", "not-better"), cells
        assert "accepted after" in cells[7], cells
        hrefs = page.locator("#challenges tbody a").evaluate_all("a => a.map((x) => x.pathname)")
        assert hrefs == ["/bots/bob", "/bots/alice"], hrefs
        page.goto(f"{site}/")
        page.wait_for_selector("#challenges-link:not([hidden])")
        page.click("#challenges-link")
        page.wait_for_selector("body[data-challenges='1']")


def fetch(url: str, token: str | None = None) -> Any:
    """A JSON answer of the site (with an account's token, if given)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as got:
        return json.loads(got.read())


def test_a_referee_killed_mid_challenge_resumes_it_and_counts_nothing_twice(
    tmp_path: Path,
) -> None:
    tokens = prepared(tmp_path, {"alice": None, "carol": None})
    database = tmp_path / "contest.db"
    auth = ["--token", tokens["alice"]]
    with serving(tmp_path) as (address, serve):
        asked = croupier("challenge", "carol", "--to", address, *auth, "--deals", "8")
        assert asked.returncode == 0, asked.stderr
        deadline = time.monotonic() + 120
        while len(committed(database, 1)) < 3:
            assert time.monotonic() < deadline, "the challenge played fewer than 3 matches"
            time.sleep(0.1)
        serve.send_signal(signal.SIGKILL)
        serve.wait(timeout=60)
    before = committed(database, 1)
    with serving(tmp_path) as (address, _):
        deadline = time.monotonic() + 240
        while True:
            shown = croupier("challenge", "show", "1", "--to", address, *auth)
            if "state: ended" in shown.stdout:
                break
            assert time.monotonic() < deadline, shown.stdout
            time.sleep(0.5)
    assert shown.returncode in (1, 3), shown.stdout  # equal strength: never H1
    after = committed(database, 1)
    assert set(before) <= set(after) and len(after) == len(set(after)), after
    verify = croupier("ladder", "verify", str(database), "--no-cache")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_a_client_of_the_previous_release_s_stubs_is_unaffected(tmp_path: Path) -> None:
    """Challenges are a service of their own: stubs generated from the previous release's
    submissions.proto (tests/data/submissions-v1.binpb) list versions on a referee that serves
    it, and the new service is there beside it."""
    tokens = prepared(tmp_path, {"alice": None})
    stubs = previous_submissions_stubs(tmp_path / "stubs")
    script = (
        "import sys, grpc\n"
        "from croupier.v1 import submissions_pb2 as pb, submissions_pb2_grpc as rpc\n"
        "stub = rpc.SubmissionsStub(grpc.insecure_channel(sys.argv[1]))\n"
        "auth = (('authorization', 'Bearer ' + sys.argv[2]),)\n"
        "listed = stub.ListVersions(pb.ListVersionsRequest(), metadata=auth)\n"
        "print(len(listed.versions), listed.versions[0].active)\n"
    )
    with serving(tmp_path) as (address, _):
        old = subprocess.run(
            [sys.executable, "-c", script, address, tokens["alice"]],
            env={"PYTHONPATH": str(stubs), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            cwd=stubs,
            check=False,
            timeout=60,
        )
        new = croupier("challenge", "list", "--to", address, "--token", tokens["alice"])
    assert old.returncode == 0, old.stderr
    assert old.stdout.split() == ["1", "True"], old.stdout
    assert new.returncode == 0, new.stderr
