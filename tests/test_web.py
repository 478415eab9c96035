"""The contest's web site for real: a `croupier serve --web` process, bot processes playing XIX
over gRPC, and Debian's chromium driven by Playwright reading the site while they play.

One contest for the module: alice and bob play well, carol times out once a match (so the
standings have faults), dave plays well until the test revokes his account. The standings page
updates without a reload when a match is committed (its screenshot goes to
test-output/web/standings.png, or under $CROUPIER_TEST_OUTPUT), a live match plays in the viewer
to its result banner, a bot's page lists its matches, a replay opens and a record downloads, and
what a live match's page receives holds only public information.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.store import VersionId, plays_as
from referee.results.database import Played, Store
from tests.cluster_helpers import wait_until
from tests.hosted_helpers import (
    BOT_SAID,
    BUILD_FAILED,
    FAILED,
    QUALIFIED,
    SECRET_LOG_LINE,
    add_three,
)
from tests.pipes import drain
from tests.site_helpers import check_only_public, listen, new_live_match
from tests.tls_helpers import make_ca_and_server_cert

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CROUPIER = str(Path(PYTHON).parent / "croupier")
BOT = str(ROOT / "tests" / "bots" / "misbehaving.py")
OUTPUT = Path(os.environ.get("CROUPIER_TEST_OUTPUT", ROOT / "test-output")) / "web"
MODES = {"alice": "slow_good", "bob": "slow_good", "carol": "slow", "dave": "slow_good"}
#: A member of alice's team whose name is markup (issue 46): shown as text, never run.
HOSTILE_MEMBER = '<img src=x onerror="pwned=1"><script>pwned=2</script>'


@dataclass
class Site:
    """A running `croupier serve --web` with its bots."""

    folder: Path
    web: str
    tokens: dict[str, str]
    #: Each account's hosted versions: (id, status, reason, active), oldest first.
    versions: dict[str, list[tuple[VersionId, str, str, bool]]]

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.web + path, timeout=10) as response:
            body: bytes = response.read()
        return body

    def statuses(self, paths: list[str]) -> list[int]:
        """The HTTP statuses of GETs sent all at once (a request for a match the site does not
        know waits for a reading of the database, up to a second)."""
        with ThreadPoolExecutor(len(paths)) as pool:
            return list(pool.map(self.status, paths))

    def status(self, path: str) -> int:
        """The HTTP status of a GET."""
        try:
            with urllib.request.urlopen(self.web + path, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            error.close()
            return error.code

    def json(self, path: str) -> Any:
        return json.loads(self.get(path))

    def played(self) -> list[Played]:
        store = Store(self.folder / "contest.db", create=False)
        try:
            return store.played()
        finally:
            store.close()

    def live_match(self, timeout: float = 60) -> str:
        """A match being played now, seen from its start or soon after."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            live = self.json("/api/contest")["live"]
            if live:
                return str(live[-1]["match"])
            time.sleep(0.05)
        raise AssertionError("no live match")

    def committed(self, match_id: str, timeout: float = 60) -> Played:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for played in self.played():
                if played.match_id == match_id:
                    return played
            time.sleep(0.1)
        raise AssertionError(f"{match_id} was never committed")


def _serve(folder: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str, int]:
    """`croupier serve --web` on free ports; returns the process, the site's URL and the
    referee's port (from the three lines it prints first)."""
    with (folder / "serve.log").open("wb") as log:
        serve = _popen(folder, log, *extra)
    assert serve.stdout is not None
    web, port = "", 0
    for _ in range(3):  # and the contest's seed commitment
        line = serve.stdout.readline().decode()
        if "web site on " in line:
            web = line.split("web site on ")[1].strip()
        elif "referee for" in line:
            port = int(line.split("127.0.0.1:")[1].split()[0])
    assert web and port, (folder / "serve.log").read_text()
    drain(serve.stdout)
    return serve, web, port


def _popen(folder: Path, log: Any, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            CROUPIER,
            "serve",
            "--port",
            "0",
            "--web",
            "127.0.0.1:0",
            "--db",
            str(folder / "contest.db"),
            "--records",
            str(folder / "records"),
            "--move-ms",
            "400",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        cwd=folder,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("web")
    store = TokenStore(folder / "contest.db")
    tokens = {name: store.add(name) for name in MODES}
    store.add_member("alice", HOSTILE_MEMBER)
    versions = _hosted(folder / "versions")
    serve, web, port = _serve(folder)
    bots = [
        subprocess.Popen(
            [PYTHON, BOT, mode],
            env={**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
            | {"CROUPIER_TOKEN": tokens[name]},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, mode in MODES.items()
    ]
    try:
        yield Site(folder, web, tokens, versions)
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
        for bot in bots:
            bot.kill()
            bot.wait()
        assert code == 0, (folder / "serve.log").read_text()


def _hosted(root: Path) -> dict[str, list[tuple[VersionId, str, str, bool]]]:
    """Hosted versions for carol and alice, in statuses the contest's pipeline leaves alone."""
    broken, active, failed = add_three(root, "carol", "alice")
    return {
        "carol": [
            (broken, "build-failed", BUILD_FAILED, False),
            (active, "qualified", QUALIFIED, True),
        ],
        "alice": [(failed, "failed", FAILED, False)],
    }


def test_standings_update_without_a_reload(site: Site, page: Any) -> None:
    page.goto(site.web + "/")
    page.wait_for_function("Number(document.body.dataset.matches) >= 2", timeout=60_000)
    page.evaluate("window.notReloaded = true")
    before = int(page.evaluate("document.body.dataset.matches"))
    rows_before = page.locator("#standings tbody tr").count()
    page.wait_for_function(f"Number(document.body.dataset.matches) > {before}", timeout=60_000)
    assert page.evaluate("window.notReloaded") is True
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    assert page.locator("#standings tbody tr").count() >= rows_before
    played = site.played()
    assert len(played) > before
    # Each bot that played has its rating and interval; carol's timeouts show as faults.
    page.wait_for_function(
        "(document.querySelector(\"#standings tr[data-bot='carol'] td:nth-child(10)\") || "
        "{}).textContent?.includes('timeout')",
        timeout=60_000,
    )
    rows = page.locator("#standings tbody tr").evaluate_all(
        "rows => rows.map((row) => [...row.cells].map((cell) => cell.textContent))"
    )
    # Beside the bots that connect, carol's active hosted version, which the contest launches.
    hosted = {v["entrant"] for v in site.json("/api/bots/carol")["versions"] if v["active"]}
    named = {row[1].removesuffix(f" (alice, {HOSTILE_MEMBER})") for row in rows}
    assert set(MODES) <= named <= set(MODES) | hosted
    for row in rows:
        if int(row[5]) > 0:
            # A rating and its interval as `croupier ladder standings` prints them.
            assert re.fullmatch(r"[+-]\d+\??", row[2]) and re.fullmatch(
                r"[+-]\d+\.\.[+-]\d+", row[3]
            )
            assert re.fullmatch(r"\d+-\d+", row[4])  # the rank's 95% interval
            assert re.fullmatch(r"\d+\.\d%", row[6])  # the score
            # The margin and the luck-corrected margin (a contest's deals are not duplicated).
            assert re.fullmatch(r"[+-]\d+\.\d( ±\d+\.\d)?", row[7])
            assert re.fullmatch(r"[+-]\d+\.\d( ±\d+\.\d)?", row[8])
        assert row[10].startswith(("playing", "idle"))
    # A revoked account is marked as soon as the referee enforces it.
    page.wait_for_selector("#standings tr[data-bot='dave']", timeout=60_000)
    TokenStore(site.folder / "contest.db").revoke("dave")
    page.wait_for_selector("#standings tr.revoked[data-bot='dave'] .badge.revoked")
    assert page.locator("#standings tr.revoked").count() == 1
    page.locator("#recent tbody tr").first.wait_for()
    # When each match was played: a person's "2 min ago", the exact time on hover.
    played_at = page.locator("#recent tbody tr time").first
    assert played_at.get_attribute("title") == played_at.get_attribute("datetime")
    assert (played_at.text_content() or "").endswith(("just now", " ago"))
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "standings.png"), full_page=True)


def test_a_team_s_members_are_shown_as_text_whatever_their_names(site: Site, page: Any) -> None:
    """A member's name is any printable text: the standings and the team's page show the markup
    in it as the characters it is, and no element of it reaches the page."""
    page.goto(site.web + "/")
    members = page.locator("#standings tr[data-bot='alice'] .members")
    members.wait_for(timeout=60_000)
    assert members.text_content() == f" (alice, {HOSTILE_MEMBER})"
    assert page.locator("#standings img, #standings script").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    page.goto(site.web + "/bots/alice")
    page.wait_for_function(
        "document.getElementById('meta').textContent.includes('team: alice, ')", timeout=60_000
    )
    assert HOSTILE_MEMBER in (page.locator("#meta").text_content() or "")
    assert page.locator("#meta img, #meta script").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert site.json("/api/bots/alice")["members"] == ["alice", HOSTILE_MEMBER]
    rows = site.json("/api/v1/standings")["standings"]
    assert next(r for r in rows if r["bot"] == "alice")["members"] == ["alice", HOSTILE_MEMBER]


def test_a_live_match_plays_in_the_viewer_to_its_result_banner(site: Site, page: Any) -> None:
    seen: set[str] = set()
    deadline = time.monotonic() + 120
    # A match still live when the page opens, and still live at its next table: on a busy
    # machine one may end meanwhile (and its clocks go with it: issue 50), then another is tried.
    while True:
        match_id = new_live_match(site.web, seen)
        seen.add(match_id)
        page.goto(f"{site.web}/live/{match_id}")
        page.wait_for_function(
            f"document.body.dataset.match === '{match_id}' || "
            "document.getElementById('title').textContent.includes('not being played now')"
        )
        assert time.monotonic() < deadline, "each new match was over before its page showed it"
        if page.evaluate("document.body.dataset.match") != match_id:
            continue
        page.wait_for_function("Number(document.body.dataset.tables) >= 1")
        tables = int(page.evaluate("document.body.dataset.tables"))
        page.wait_for_function(
            f"Number(document.body.dataset.tables) > {tables} || document.body.dataset.over === '1'"
        )
        # The page as it stands, read at once: read bit by bit, the match could end between
        # two reads and take its clocks with it (issue 50).
        shown = page.evaluate(
            """() => ({
                over: document.body.dataset.over === '1',
                seats: document.querySelectorAll('#seats .seat').length,
                events: document.querySelectorAll('#events li').length,
                clocks: [...document.querySelectorAll('#seats .seat .clock')]
                    .map((clock) => clock.textContent),
                widths: [...document.querySelectorAll('#seats .seat .name')]
                    .map((n) => n.getBoundingClientRect().width / n.textContent.length),
            })"""
        )
        if not shown["over"]:
            break
    assert shown["seats"] == 2
    assert shown["events"] > 0
    # Each seat's clock is on the table (a table after the first decision carries them).
    clocks = shown["clocks"]
    assert len(clocks) == 2 and all(
        re.fullmatch(r"(thinking .+ · left|bank) [\d.]+ s", c) for c in clocks
    ), clocks
    # The clock has a line of its own: beside the name it squeezed it to a letter a line.
    widths = shown["widths"]
    assert widths and min(widths) > 4, widths  # px a character: not one a line
    page.wait_for_selector("#banner:not([hidden])", timeout=60_000)
    assert page.locator("#seats .seat .clock").count() == 0  # no clock once it is over
    banner = page.locator("#banner").text_content()
    assert banner is not None and banner.startswith("result: seat ")
    played = site.committed(match_id)
    assert played.result.split(" (")[0].split()[:2] == ["seat", banner.split()[2]]
    # The end links to the replay, which opens once the match is committed.
    page.locator("#links a").click()
    page.wait_for_selector("#seats .seat")
    assert page.title().endswith("croupier replay")


def test_follow_goes_to_the_chosen_bot_s_next_match(site: Site, page: Any) -> None:
    page.goto(f"{site.web}/")
    page.wait_for_selector("#follow-bot option[value='alice']", state="attached")
    page.select_option("#follow-bot", "alice")
    page.click("#follow-link")
    _shown_before_alice_plays_twice(site, page, "document.body.dataset.match")
    first = page.evaluate("document.body.dataset.match")
    assert "alice" in (page.locator("#meta").text_content() or "")
    _shown_before_alice_plays_twice(
        site, page, f"document.body.dataset.match && document.body.dataset.match !== '{first}'"
    )
    second = page.evaluate("document.body.dataset.match")
    assert "alice" in _bots(site, site.committed(first).number)
    assert "alice" in (page.locator("#meta").text_content() or "")
    assert second > first


def _shown_before_alice_plays_twice(site: Site, page: Any, shown: str) -> None:
    """Wait until the page's `shown` holds, for as long as the contest takes to play two more
    of alice's matches (each would have been hers to follow): a deadline from the work, since a
    loaded machine plays matches, and the page follows them, many times slower (issue 50)."""

    def alice_s() -> int:
        return sum(1 for played in site.played() if _plays(site, played, "alice"))

    enough = alice_s() + 2
    hard_stop = time.monotonic() + 600  # should the contest stop playing altogether
    while not page.evaluate(shown):
        assert alice_s() < enough, f"alice played twice and the page never showed: {shown}"
        assert time.monotonic() < hard_stop, "alice played no match in 10 minutes"
        page.wait_for_timeout(200)


def test_a_bot_page_lists_its_matches(site: Site, page: Any) -> None:
    site.committed(site.live_match())
    theirs = {p.match_id for p in site.played() if _plays(site, p, "carol")}
    page.goto(f"{site.web}/bots/carol")
    # The site reads the database at most every 2 s; the page refetches as matches commit.
    page.wait_for_function(
        f"document.querySelectorAll('#matches tbody tr').length >= {len(theirs)}",
        timeout=60_000,
    )
    listed = page.locator("#matches tbody tr").evaluate_all(
        "rows => rows.map((row) => row.dataset.match)"
    )
    assert theirs <= set(listed)
    assert set(listed) <= {p.match_id for p in site.played() if _plays(site, p, "carol")}
    page.wait_for_selector("#matches tbody td.fault", timeout=30_000)  # a refetch may be due
    faults = page.locator("#matches tbody td.fault").all_text_contents()
    assert faults and all(text.startswith("timeout: ") for text in faults)
    # Her own line, and one per hosted version of hers that played (issue 27.2).
    series = page.locator("#plot .series").evaluate_all(
        "lines => lines.map((line) => line.dataset.bot)"
    )
    hers = {v["entrant"] for v in site.json("/api/bots/carol")["versions"]}
    assert "carol" in series and set(series) - {"carol"} <= hers
    assert "carol" in (page.locator("#title").text_content() or "")
    # Her hosted versions, with their statuses and reasons; never a build log.
    rows = page.locator("#versions:not([hidden]) tbody tr").evaluate_all(
        "rows => rows.map((row) => "
        "[row.dataset.version, ...[...row.cells].map((cell) => cell.textContent)])"
    )
    assert [(r[0], r[2], r[6]) for r in rows] == [
        (id, f"{status}active" if active else status, reason)
        for id, status, reason, active in site.versions["carol"]
    ]
    assert SECRET_LOG_LINE not in page.content()


def test_a_bot_s_versions_are_its_own_and_never_their_build_logs(site: Site) -> None:
    deadline = time.monotonic() + 60  # a bot's page exists once it has connected
    while not set(MODES) <= {row["bot"] for row in site.json("/api/contest")["standings"]}:
        assert time.monotonic() < deadline, "not every bot connected"
        time.sleep(0.2)
    for bot in MODES:
        body = site.get(f"/api/bots/{bot}").decode()
        shown = [
            (v["id"], v["status"], v["reason"], v["active"]) for v in json.loads(body)["versions"]
        ]
        assert shown == site.versions.get(bot, [])
        assert SECRET_LOG_LINE not in body and "compiling" not in body
        assert BOT_SAID not in body and "master seed" not in body
        others = [v[0] for b, vs in site.versions.items() if b != bot for v in vs]
        assert not any(id in body for id in others)
        assert SECRET_LOG_LINE not in site.get(f"/bots/{bot}").decode()


def _plays(site: Site, played: Played, bot: str) -> bool:
    """Whether `bot` sat in the match, as its own name or as one of its hosted versions."""
    return any(plays_as(name, bot) for name in _bots(site, played.number))


def _bots(site: Site, number: int) -> tuple[str, ...]:
    store = Store(site.folder / "contest.db", create=False)
    try:
        return next(m.bots for m in store.schedule() if m.number == number)
    finally:
        store.close()


def test_recent_matches_count_each_bot_s_faults_by_reason(site: Site) -> None:
    # Issue 24.9: a cell repeated "carol: timeout" once per fault; it counts them.
    deadline = time.monotonic() + 60
    while True:  # until a match of carol's (a timeout each) is listed
        committed = {p.match_id: p for p in site.played()}
        recent = [m for m in site.json("/api/contest")["recent"] if m["match"] in committed]
        if any(m["faults"] for m in recent):
            break
        assert time.monotonic() < deadline
        time.sleep(0.2)
    for match in recent:
        faults = committed[match["match"]].faults
        pairs = [(f["seat"], f["reason"]) for f in match["faults"]]
        assert len(pairs) == len(set(pairs))
        for fault in match["faults"]:
            same = [d for seat, r, d in faults if (seat, r) == (fault["seat"], fault["reason"])]
            assert fault["count"] == len(same) and fault["detail"] == same[0]


def test_a_replay_opens_and_its_record_downloads(site: Site, page: Any) -> None:
    played = site.committed(site.live_match())
    page.goto(f"{site.web}/matches/{played.match_id}.html")
    page.wait_for_selector("#seats .seat")
    page.keyboard.press("End")
    page.wait_for_selector("#banner:not([hidden])")
    assert played.match_id in (page.locator("#title").text_content() or "")
    record = site.get(f"/records/{played.match_id}.jsonl")
    assert hashlib.sha256(record).hexdigest() == played.record_sha256
    assert record == played.record.read_bytes()
    # A live match's record holds every hand: it is not served until the match is committed.
    # Tried on matches seen starting until one is still not committed once both requests are
    # answered (a request for a match the site does not know waits up to a second for a reading).
    seen = {p.match_id for p in site.played()}
    deadline = time.monotonic() + 120
    while True:
        live = new_live_match(site.web, seen)
        seen.add(live)
        statuses = site.statuses([f"/records/{live}.jsonl", f"/matches/{live}.html"])
        if statuses != [404, 404]:  # served: it must be committed, if only just
            assert wait_until(functools.partial(_is_played, site, live), 5), statuses
        elif not _is_played(site, live):
            break
        assert time.monotonic() < deadline, "each new match was committed before its answers"
    assert site.status("/records/..%2Fcontest.db") == 404


def _is_played(site: Site, match_id: str) -> bool:
    return match_id in {p.match_id for p in site.played()}


def test_a_live_match_page_receives_only_public_information(site: Site) -> None:
    """Everything a live match's page received, raw from its event stream, against the record:
    no private event (a hand dealt, a peek) and no card in any hand ever shows."""
    match_id, received, raw = listen(site)
    blob = check_only_public(received, raw, site.committed(match_id).record)
    for token in site.tokens.values():
        assert token not in blob
    # The seats' clocks: each bank only ever shrinks, and a seat is seen deciding.
    clocks = [m for m in received if m["kind"] == "clocks"]
    assert clocks and any(seat["thinking_ms"] is not None for m in clocks for seat in m["seats"])
    for seat in range(2):
        banks = [m["seats"][seat]["bank_ms"] for m in clocks]
        assert banks == sorted(banks, reverse=True)


def test_pages_keep_to_their_content_security_policy(site: Site, browser: Any) -> None:
    page = browser.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.on("pageerror", lambda error: messages.append(str(error)))
    try:
        played = site.committed(site.live_match())
        page.goto(f"{site.web}/")
        page.wait_for_selector("#standings tbody tr")
        page.goto(f"{site.web}/live/{site.live_match()}")
        page.wait_for_selector("#seats .seat, #links a")  # the table, or over already
        page.goto(f"{site.web}/bots/alice")
        page.wait_for_selector("#matches tbody tr")
        page.goto(f"{site.web}/matches/{played.match_id}.html")
        page.wait_for_selector("#seats .seat")
    finally:
        page.close()
    assert [m for m in messages if "Content Security Policy" in m] == []


def _rated(site: Site) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = site.json("/api/contest")["standings"]
    return [row for row in rows if row.get("rating") is not None]


def test_unknown_bots_are_404_and_pages_link_home(site: Site) -> None:
    """Issue 24.10: /bots/NAME of no bot is a 404 page that says so; the site has a favicon;
    a replay links back to the standings and its bots' pages; the standings carry the texts
    the CLI prints and when each bot was last seen."""
    played = site.committed(site.live_match())
    with pytest.raises(urllib.error.HTTPError) as missing:
        site.get("/bots/nobody")
    assert missing.value.code == 404
    assert "no bot &#x27;nobody&#x27; in this contest" in missing.value.read().decode()
    missing.value.close()
    assert site.status("/bots/alice") == 200
    assert site.status("/api/bots/nobody") == 404
    with urllib.request.urlopen(site.web + "/favicon.ico", timeout=10) as icon:
        assert icon.headers["Content-Type"] == "image/svg+xml" and b"<svg" in icon.read()
    assert b'rel="icon"' in site.get("/") and site.status("/static/favicon.svg") == 200
    replay = site.get(f"/matches/{played.match_id}.html").decode()
    assert '<nav id="site-links" aria-label="site"><a href="/">standings</a>' in replay
    for bot in _bots(site, played.number):
        assert f'<a href="/bots/{bot}">{bot}</a>' in replay
    deadline = time.monotonic() + 60  # the standings are a snapshot, refreshed after commits
    while not (rated := _rated(site)):
        assert time.monotonic() < deadline, "no bot rated"
        time.sleep(0.2)
    for row in rated:
        mark = "?" if row["provisional"] else ""  # issue 24.4
        assert row["text"]["rating"] == f"{row['rating']:+.0f}{mark}"
        assert row["text"]["score"] == f"{row['score']:.1%}"
    for row in site.json("/api/contest")["standings"]:  # connected: no "last seen"; gone: when
        assert (row["last_seen"] is None) == (row["state"] != "offline") or not row["matches"]


def test_no_token_reaches_the_site(site: Site) -> None:
    deadline = time.monotonic() + 60  # the bots' pages exist once they have connected
    while not {"alice", "dave"} <= {row["bot"] for row in site.json("/api/contest")["standings"]}:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    pages = [site.get(path) for path in ("/", "/api/contest", "/api/bots/alice", "/api/bots/dave")]
    for token in site.tokens.values():
        for body in pages:
            assert token.encode() not in body
    with urllib.request.urlopen(site.web + "/", timeout=10) as response:
        assert response.headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_web_refuses_plaintext_off_loopback(tmp_path: Path) -> None:
    result = subprocess.run(
        [CROUPIER, "serve", "--db", str(tmp_path / "c.db"), "--web", "0.0.0.0:8080"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2
    assert b"refusing a plaintext web site on '0.0.0.0'" in result.stderr + result.stdout


def test_web_speaks_tls(tmp_path: Path) -> None:
    ca, cert, key = make_ca_and_server_cert(tmp_path)
    TokenStore(tmp_path / "contest.db")
    serve, web, _ = _serve(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert web.startswith("https://")
        context = ssl.create_default_context(cafile=str(ca))
        with urllib.request.urlopen(web + "/api/contest", context=context, timeout=10) as answer:
            assert json.loads(answer.read())["contest"]["game"] == "xix"
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(web.replace("https", "http") + "/", timeout=10)
    finally:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=60) == 0


def test_a_contest_file_web_table_and_the_seed_revealed_when_over(tmp_path: Path) -> None:
    """`[web]` in a contest file; a contest that played its matches keeps its site up with the
    final standings and the master seed revealed (checked against the stored commitment)."""
    store = TokenStore(tmp_path / "contest.db")
    tokens = [store.add(name) for name in ("alice", "bob")]
    (tmp_path / "contest.toml").write_text(
        'game = "xix"\nport = 0\ndatabase = "contest.db"\nmatches = 2\n[web]\nport = 0\n'
    )
    with (tmp_path / "serve.log").open("wb") as log:
        serve = subprocess.Popen(
            [CROUPIER, "serve", "contest.toml"], stdout=subprocess.PIPE, stderr=log, cwd=tmp_path
        )
    assert serve.stdout is not None
    web = serve.stdout.readline().decode().split("web site on ")[1].strip()
    assert serve.stdout.readline().startswith(b"master seed sha256: ")
    port = int(serve.stdout.readline().decode().split("127.0.0.1:")[1].split()[0])
    bots = [
        subprocess.Popen(
            [PYTHON, BOT, "good"],
            env={**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": token},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for token in tokens
    ]
    try:
        site = Site(tmp_path, web, {}, {})
        deadline = time.monotonic() + 90
        while not (contest := site.json("/api/contest")["contest"]).get("seed"):
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
        assert contest["matches_done"] == 2
        assert hashlib.sha256(contest["seed"].encode()).hexdigest() == contest["seed_sha256"]
        assert serve.poll() is None  # over, and still serving its site
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
        for bot in bots:
            bot.kill()
            bot.wait()
        serve.stdout.close()
    assert code == 0


def test_a_hosted_account_s_matches_are_listed_by_its_account(site: Site) -> None:
    """Papercut of issue 42: `/api/v1/matches?bot=ACCOUNT` was empty for a hosted account (only
    ACCOUNT@VERSION worked), as docs/contest.md's example names the account."""
    hosted = next(v["entrant"] for v in site.json("/api/bots/carol")["versions"] if v["active"])

    def matches(bot: str) -> set[str]:
        found = site.json(f"/api/v1/matches?bot={quote(bot)}&limit=1000")["matches"]
        return {m["match"] for m in found}

    deadline = time.monotonic() + 120
    while not (by_version := _listed(matches, hosted)):
        assert time.monotonic() < deadline, "carol's hosted version played no match"
        time.sleep(0.5)
    assert by_version <= matches("carol")


def _listed(matches: Callable[[str], set[str]], bot: str) -> set[str]:
    """`matches(bot)`, or none while the site does not know `bot` yet (404)."""
    try:
        return matches(bot)
    except urllib.error.HTTPError:
        return set()


def test_a_phone_width_table_scrolls_and_numbers_never_wrap(site: Site, page: Any) -> None:
    """Papercuts of issue 42: at a phone's width the standings were cut with no scroll, and a
    result such as 12-3-5 wrapped at its hyphens."""
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{site.web}/")
    page.wait_for_selector("#standings tbody tr")
    box = page.locator("#standings").evaluate(
        "t => [getComputedStyle(t).overflowX, t.scrollWidth, t.clientWidth]"
    )
    assert box[0] == "auto" and box[1] > box[2], box  # wider than the phone, and it scrolls
    wraps = page.locator("#standings td.num, #recent td.result").evaluate_all(
        "cells => cells.map((c) => getComputedStyle(c).whiteSpace)"
    )
    assert wraps and set(wraps) == {"nowrap"}, wraps
