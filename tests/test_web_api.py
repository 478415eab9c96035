"""The site's public JSON API (/api/v1) for real: a `croupier serve --db --web` contest of
MATCHES matches among bot processes playing XIX over gRPC, read over HTTP while it plays and
once it is over.

A live match is not served; what every bot gets is what the serve command was given, and the
index page shows it; once the contest is over, a walk along `next` lists every committed match
exactly once, newest first, with or without `bot=`, offsets page the same list, a match's
summary and links match the database, the standings are what `croupier ladder standings
--format json` prints; bad parameters are 400 and unknown names 404, as JSON; no answer holds a
token.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.contest.tokens import TokenStore
from referee.local.limits import Limits
from referee.results.database import Played, Store
from referee.text import named
from tests.pipes import drain

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CROUPIER = str(Path(PYTHON).parent / "croupier")
BOT = str(ROOT / "tests" / "bots" / "misbehaving.py")
#: carol times out once a match (so matches have faults); the others play 20 ms a decision (a
#: match lasts a few seconds: long enough to be seen live) or at once.
LIVELY = {"alice": "slow_good", "bob": "slow_good", "carol": "slow", "dave": "slow_good"}
QUICK = {"alice": "good", "bob": "good", "carol": "slow", "dave": "good"}
MATCHES = 6
#: The serve command's terms, each unlike its default.
MOVE_MS, BANK_MS, MAX_FAULTS, GRACE = 400, 1500, 5, 4.5


@dataclass
class Contest:
    """A running `croupier serve --db --web` with its bots."""

    folder: Path
    web: str
    tokens: dict[str, str]
    #: Every body an API request got, to look for tokens in.
    bodies: list[bytes] = dataclasses.field(default_factory=list)

    def answer(self, path: str) -> tuple[int, dict[str, str], Any]:
        """The status, headers and JSON of a GET."""
        try:
            with urllib.request.urlopen(self.web + path, timeout=10) as response:
                status, headers, body = response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            status, headers, body = error.code, dict(error.headers), error.read()
            error.close()
        self.bodies.append(body)
        return status, {k.lower(): v for k, v in headers.items()}, json.loads(body)

    def json(self, path: str) -> Any:
        status, _, data = self.answer(path)
        assert status == 200, (path, data)
        return data

    def played(self) -> list[Played]:
        store = Store(self.folder / "contest.db", create=False)
        try:
            return store.played()
        finally:
            store.close()

    def bots(self) -> dict[str, tuple[str, ...]]:
        """Each committed match's bots by seat, from the database."""
        store = Store(self.folder / "contest.db", create=False)
        try:
            bots = {r.match.number: r.match.bots for r in store.results()}
            return {p.match_id: bots[p.number] for p in store.played()}
        finally:
            store.close()


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    """An open-ended contest: matches are live and committed throughout."""
    yield from _contest(tmp_path_factory.mktemp("api"), LIVELY)


@pytest.fixture(scope="module")
def over(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    """A contest that played its MATCHES matches (its site stays up with them)."""
    folder = tmp_path_factory.mktemp("api-over")
    for running in _contest(folder, QUICK, "--matches", str(MATCHES)):
        deadline = time.monotonic() + 90
        while not running.json("/api/v1/standings")["finished"]:
            assert time.monotonic() < deadline, (folder / "serve.log").read_text()
            time.sleep(0.2)
        yield running


def _contest(folder: Path, modes: dict[str, str], *extra: str) -> Iterator[Contest]:
    store = TokenStore(folder / "contest.db")
    tokens = {name: store.add(name) for name in modes}
    serve, web, port = _serve(folder, *extra)
    bots = [
        subprocess.Popen(
            [PYTHON, BOT, mode],
            env={**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
            | {"CROUPIER_TOKEN": tokens[name]},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, mode in modes.items()
    ]
    try:
        yield Contest(folder, web, tokens)
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
        for bot in bots:
            bot.kill()
            bot.wait()
        assert code == 0, (folder / "serve.log").read_text()


def _serve(folder: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str, int]:
    """`croupier serve --db --web` on free ports with the terms above; returns the process, the
    site's URL and the referee's port (from the three lines it prints first)."""
    command = [CROUPIER, "serve", "--port", "0", "--web", "127.0.0.1:0"]
    command += ["--db", "contest.db", "--records", "records", *extra]
    command += ["--move-ms", str(MOVE_MS), "--bank-ms", str(BANK_MS)]
    command += ["--max-faults", str(MAX_FAULTS), "--reconnect-grace", str(GRACE)]
    with (folder / "serve.log").open("wb") as log:
        serve = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, cwd=folder)
    assert serve.stdout is not None
    lines = [serve.stdout.readline().decode() for _ in range(3)]
    drain(serve.stdout)
    web = next(line.split("web site on ")[1].strip() for line in lines if "web site on " in line)
    port = next(int(line.split("127.0.0.1:")[1].split()[0]) for line in lines if "referee" in line)
    return serve, web, port


def test_a_live_match_is_not_served(contest: Contest) -> None:
    deadline = time.monotonic() + 60
    while True:  # a match still live once the requests are answered
        live = contest.json("/api/contest")["live"]
        if live:
            match_id = live[-1]["match"]
            status, _, data = contest.answer(f"/api/v1/matches/{match_id}")
            listed = [m["match"] for m in contest.json("/api/v1/matches?limit=1000")["matches"]]
            if match_id not in {p.match_id for p in contest.played()}:
                break
        assert time.monotonic() < deadline, "no live match"
        time.sleep(0.05)
    assert status == 404 and data == {"error": f"no finished match {match_id!r} in this contest"}
    assert match_id not in listed


def test_every_bot_gets_what_the_serve_command_gave(contest: Contest) -> None:
    info = contest.json("/api/v1/contest")
    assert (info["kind"], info["game"], info["options"]) == ("contest", "xix", {})
    assert info["matches_planned"] is None  # open-ended
    assert info["every_bot_gets"] == {
        "time_control": {
            "move_ms": MOVE_MS,
            "bank_ms": BANK_MS,
            "clock": "wall",
            "ceiling_factor": 4,
        },
        "max_faults": MAX_FAULTS,
        "reconnect_grace": GRACE,
        "max_matches_per_session": None,
        # A contest with accounts takes hosted bots: the contest's default limits.
        "hosted_limits": dataclasses.asdict(Limits()),
    }


def test_the_index_shows_what_every_bot_gets(contest: Contest, page: Any) -> None:
    page.goto(contest.web + "/")
    clock = page.locator("#terms tr[data-term='clock'] td")
    clock.wait_for()
    assert page.locator("#terms").is_visible()
    assert clock.text_content() == (
        f"{MOVE_MS} ms a decision, and a bank of {BANK_MS} ms for overruns"
    )
    term = {
        key: page.locator(f"#terms tr[data-term='{key}'] td").text_content()
        for key in ("game", "faults", "reconnect", "sessions", "limits")
    }
    assert term["game"] == "XIX (xix): default options"
    assert term["faults"] == f"a seat is retired after {MAX_FAULTS} faults in a match"
    assert term["reconnect"] is not None and term["reconnect"].startswith(f"{GRACE} s ")
    assert term["sessions"] == "no limit"
    limits = Limits()
    assert term["limits"] is not None and term["limits"].startswith(
        f"memory {limits.memory_mb} MiB, processes {limits.processes}, "
        f"disk {limits.disk_mb} MiB, open files {limits.open_files}, CPU time no limit"
    )


@pytest.mark.parametrize(
    "query",
    [
        "offset=-1",
        "offset=x",
        "offset=1.5",
        "limit=0",
        "limit=ten",
        "before=0",
        "bot=",
        "limit=",
        "offset=" + "9" * 5000,
    ],
)
def test_a_bad_parameter_is_400_json(contest: Contest, query: str) -> None:
    status, headers, data = contest.answer(f"/api/v1/matches?{query}")
    name, _, value = query.partition("=")
    assert status == 400 and headers["content-type"] == "application/json"
    assert list(data) == ["error"] and data["error"].startswith(f"{name} must ")
    assert data["error"].endswith(f"got {value!r}")


def test_unknown_bots_and_matches_are_404_json(contest: Contest) -> None:
    status, headers, data = contest.answer("/api/v1/matches?bot=nobody")
    assert (status, data) == (404, {"error": "no bot 'nobody' in this contest"})
    assert headers["content-type"] == "application/json"
    status, _, data = contest.answer("/api/v1/matches/contest-99999")
    assert (status, data) == (404, {"error": "no finished match 'contest-99999' in this contest"})


def test_a_walk_while_matches_are_committed_lists_each_once(contest: Contest) -> None:
    """The contract while the contest plays: a walk along `next` never lists a match twice and
    lists every match the site held when it began; from a cursor (`before`) the list is fixed,
    and offsets page it too."""
    deadline = time.monotonic() + 60
    while True:  # a pivot: every match numbered up to it committed, and read by the site
        newest = contest.json("/api/v1/matches?limit=1")["matches"]
        if newest and newest[0]["number"] >= 4:
            pivot = newest[0]["number"]
            below = contest.json(f"/api/v1/matches?before={pivot + 1}&limit=1")
            if below["total"] - below["offset"] == pivot:
                break
        assert time.monotonic() < deadline, "no four matches committed"
        time.sleep(0.1)
    walked, _ = _walk(contest, "/api/v1/matches?limit=2")
    numbers = [m["number"] for m in walked]
    assert numbers == sorted(set(numbers), reverse=True)
    assert set(range(1, pivot + 1)) <= set(numbers)
    assert {m["match"] for m in walked} <= {p.match_id for p in contest.played()}
    fixed = [p.match_id for p in sorted(contest.played(), key=lambda p: -p.number)]
    fixed = fixed[-pivot:]
    cursor = f"/api/v1/matches?before={pivot + 1}"
    assert [m["match"] for m in _walk(contest, f"{cursor}&limit=3")[0]] == fixed
    paged = [
        m["match"]
        for offset in range(0, pivot, 3)
        for m in contest.json(f"{cursor}&offset={offset}&limit=3")["matches"]
    ]
    assert paged == fixed


def test_a_walk_along_next_lists_every_match_once(over: Contest) -> None:
    committed = sorted(over.played(), key=lambda p: -p.number)
    assert len(committed) == MATCHES
    walked, offsets = _walk(over, "/api/v1/matches?limit=4")
    assert [m["match"] for m in walked] == [p.match_id for p in committed]
    assert offsets == list(range(0, MATCHES, 4))
    paged = [
        m["match"]
        for offset in range(0, MATCHES, 4)
        for m in over.json(f"/api/v1/matches?offset={offset}&limit=4")["matches"]
    ]
    assert paged == [p.match_id for p in committed]
    whole = over.json("/api/v1/matches?limit=5000")  # past the most one request may ask for
    assert (whole["limit"], whole["total"], whole["next"]) == (1000, MATCHES, None)


def test_bot_filters_the_matches(over: Contest) -> None:
    bots = over.bots()
    newest_first = [p.match_id for p in sorted(over.played(), key=lambda p: -p.number)]
    seen: set[str] = set()
    for bot in QUICK:
        walked, _ = _walk(over, f"/api/v1/matches?bot={bot}&limit=2")
        theirs = [match for match in newest_first if bot in bots[match]]
        assert [m["match"] for m in walked] == theirs and theirs
        assert all(m["bots"] == list(bots[m["match"]]) for m in walked)
        seen |= set(theirs)
    assert seen == set(newest_first)


def test_a_match_s_summary_and_links(over: Contest) -> None:
    faulted = 0
    for played in over.played():
        summary = over.json(f"/api/v1/matches/{played.match_id}")
        listed = over.json(f"/api/v1/matches?before={played.number + 1}&limit=1")["matches"]
        assert summary == listed[0]
        assert (summary["match"], summary["finished_at"]) == (played.match_id, played.finished_at)
        bots = summary["bots"]
        assert summary["result"] == named(played.result, bots)
        assert len(bots) == len(summary["ranks"]) == len(summary["scores"]) == 2
        faults = [(f["seat"], f["bot"], f["reason"], f["count"]) for f in summary["faults"]]
        expected: dict[tuple[int, str], int] = {}
        for seat, reason, _ in played.faults:
            expected[(seat, reason)] = expected.get((seat, reason), 0) + 1
        assert faults == [(s, bots[s], r, n) for (s, r), n in expected.items()]
        faulted += bool(faults)
        links = summary["links"]
        assert links["self"] == f"/api/v1/matches/{played.match_id}"
        with urllib.request.urlopen(over.web + links["record"], timeout=10) as record:
            assert hashlib.sha256(record.read()).hexdigest() == played.record_sha256
        with urllib.request.urlopen(over.web + links["replay"], timeout=10) as replay:
            assert replay.status == 200 and b"<html" in replay.read()
    assert faulted  # carol's timeouts


def test_the_standings_are_the_cli_s(over: Contest) -> None:
    printed = subprocess.run(
        [CROUPIER, "ladder", "standings", str(over.folder / "contest.db"), "--format", "json"],
        capture_output=True,
        check=True,
    ).stdout
    standings = over.json("/api/v1/standings")
    assert standings.pop("kind") == "contest"
    assert standings == json.loads(printed)
    assert {row["bot"] for row in standings["standings"]} == set(QUICK)
    assert standings["rating"] == "elo" and standings["seed"]


def test_answers_are_revalidated_with_an_etag(contest: Contest) -> None:
    _, headers, _ = contest.answer("/api/v1/contest")
    assert headers["cache-control"] == "no-cache" and headers["etag"].startswith('W/"')
    request = urllib.request.Request(
        contest.web + "/api/v1/contest", headers={"If-None-Match": headers["etag"]}
    )
    with pytest.raises(urllib.error.HTTPError) as unchanged:
        urllib.request.urlopen(request, timeout=10)
    assert unchanged.value.code == 304
    unchanged.value.close()


@pytest.mark.parametrize("which", ["contest", "over"])
def test_no_token_in_any_answer(which: str, request: pytest.FixtureRequest) -> None:
    site: Contest = request.getfixturevalue(which)
    deadline = time.monotonic() + 60
    while not site.json("/api/v1/matches?limit=1")["matches"]:  # the test may run first
        assert time.monotonic() < deadline, "no match committed"
        time.sleep(0.1)
    for path in ("/api/v1/contest", "/api/v1/matches?limit=1000"):
        site.json(path)
    # A bot the site does not know yet (on a loaded machine, one that has not connected) is a
    # 404 of its own; every bot in the standings is known.
    standing = {row["bot"] for row in site.json("/api/v1/standings")["standings"]}
    summaries = 0
    for bot in site.tokens:
        status, _, page = site.answer(f"/api/v1/matches?bot={bot}")
        assert status == 200 or (status == 404 and bot not in standing), (bot, page)
        for match in page.get("matches", []):
            site.json(match["links"]["self"])
            summaries += 1
    assert summaries > 0
    for token in site.tokens.values():
        assert not any(token.encode() in body for body in site.bodies)


def _walk(contest: Contest, first: str) -> tuple[list[dict[str, Any]], list[int]]:
    """Every match along `next` from `first`, and each page's offset (which grows by at least
    the page before it: more as matches are committed meanwhile)."""
    walked: list[dict[str, Any]] = []
    offsets: list[int] = []
    path: str | None = first
    after = 0  # where the page before ended
    while path is not None:
        page = contest.json(path)
        assert page["offset"] >= after and page["total"] >= page["offset"] + len(page["matches"])
        offsets.append(page["offset"])
        after = page["offset"] + len(page["matches"])
        walked += page["matches"]
        path = page["next"]
    return walked, offsets
