"""A ladder's web site for real: `croupier ladder run --web` with launched bot processes (the
example XIX heuristic, and two bots that play 20 ms a decision so that matches last long enough
to watch), read by Debian's chromium through Playwright while the ladder plays.

The ladder of the module's fixture plays on two referee worker processes, which relay what a
spectator may see to the site's process. The standings page updates without a reload as matches
are committed, a live match plays in the viewer to its result banner, a bot's page lists its
matches, a replay opens and its record downloads, what a live match's page receives holds only
public information, the site is read-only and keeps to its own files, and a ladder that is over
keeps its site up with the master seed revealed until Ctrl-C.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.results.database import Played, Store
from referee.web.site import GZIP_FROM
from tests.cluster_helpers import children
from tests.site_helpers import check_only_public, listen, new_live_match
from tests.tls_helpers import make_ca_and_server_cert

ROOT = Path(__file__).resolve().parent.parent
CROUPIER = str(Path(sys.executable).parent / "croupier")
OUTPUT = Path(os.environ.get("CROUPIER_TEST_OUTPUT", ROOT / "test-output")) / "web"
SLOW = "{python} tests/bots/misbehaving.py slow_good"
#: Two bots that take 20 ms a decision (a match between them lasts about 3 s) and the example
#: heuristic; the ladder has far more matches than the tests watch (it is stopped after them).
BOTS = {
    "steady": SLOW,
    "patient": SLOW,
    "heuristic": "{python} examples/python/xix_heuristic.py",
}
#: Two bots that play at once: a short ladder.
FAST = {
    "heuristic": "{python} examples/python/xix_heuristic.py",
    "random": "{python} examples/python/random_bot.py",
}
runner = CliRunner()


def ladder_file(folder: Path, bots: dict[str, str], extra: str = "") -> Path:
    lines = [
        'game = "xix"',
        'name = "web"',
        f"root = {json.dumps(str(ROOT))}",
        f"database = {json.dumps(str(folder / 'ladder.sqlite'))}",
        f"records = {json.dumps(str(folder / 'records'))}",
        *extra.splitlines(),
        "[time_control]",
        "move_ms = 5000",
    ]
    for name, command in bots.items():
        lines += ["[[bot]]", f'name = "{name}"', f"command = {json.dumps(command)}"]
    path = folder / "ladder.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def start(folder: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    """`croupier ladder run --web 127.0.0.1:0`: the process and the site's URL (its first line)."""
    command = [CROUPIER, "ladder", "run", str(folder / "ladder.toml"), "--no-live"]
    with (folder / "ladder.log").open("wb") as log:
        process = subprocess.Popen(
            [*command, "--web", "127.0.0.1:0", *extra], stdout=subprocess.PIPE, stderr=log
        )
    assert process.stdout is not None
    line = process.stdout.readline().decode()
    if line.endswith(" matches at once\n"):  # referee processes: its workers
        line = process.stdout.readline().decode()
    assert line.startswith("ladder web site on "), line + (folder / "ladder.log").read_text()
    return process, line.split(" on ")[1].strip()


@dataclass
class LadderSite:
    """A running `croupier ladder run --web`."""

    folder: Path
    web: str
    process: subprocess.Popen[bytes]
    #: Every CROUPIER_TOKEN seen in the environment of the ladder's bot processes.
    tokens: set[str] = field(default_factory=set)

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.web + path, timeout=10) as response:
            body: bytes = response.read()
        return body

    def json(self, path: str) -> Any:
        return json.loads(self.get(path))

    def statuses(self, paths: list[str]) -> list[int]:
        """The HTTP statuses of GETs sent all at once (a request for a match the site does not
        know waits for a reading of the database, up to a second)."""
        with ThreadPoolExecutor(len(paths)) as pool:
            return list(pool.map(self.status, paths))

    def status(self, path: str) -> int:
        try:
            with urllib.request.urlopen(self.web + path, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            error.close()
            return error.code

    def played(self) -> list[Played]:
        store = Store(self.folder / "ladder.sqlite", create=False)
        try:
            return store.played()
        finally:
            store.close()

    def bots_of(self, number: int) -> tuple[str, ...]:
        store = Store(self.folder / "ladder.sqlite", create=False)
        try:
            return next(m.bots for m in store.schedule() if m.number == number)
        finally:
            store.close()

    def live_match(self, timeout: float = 60) -> str:
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

    def collect_tokens(self) -> None:
        """The tokens the ladder gave its bots, read from their processes' environments."""
        pending = [self.process.pid]
        while pending:
            pid = pending.pop()
            pending += children(pid)
            try:
                environ = (Path("/proc") / str(pid) / "environ").read_bytes()
            except OSError:
                continue
            for entry in environ.split(b"\0"):
                if entry.startswith(b"CROUPIER_TOKEN="):
                    self.tokens.add(entry.split(b"=", 1)[1].decode())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LadderSite]:
    folder = tmp_path_factory.mktemp("web-ladder")
    ladder_file(folder, BOTS, "matches_per_pairing = 40\nconcurrency = 2")
    process, web = start(folder, "--workers", "2")  # live matches relayed from two workers
    ladder = LadderSite(folder, web, process)
    try:
        ladder.live_match()
        ladder.collect_tokens()
        yield ladder
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
        assert process.stdout is not None
        process.stdout.close()
        log = (folder / "ladder.log").read_text()
        # Stopped mid-ladder as a Ctrl-C stops it: resumable, the site with it.
        assert code == 130, log
        assert "resume with: croupier ladder run" in log and "--web 127.0.0.1:0" in log


def test_standings_update_without_a_reload(site: LadderSite, page: Any) -> None:
    page.goto(site.web + "/")
    page.wait_for_function("Number(document.body.dataset.matches) >= 1", timeout=60_000)
    page.evaluate("window.notReloaded = true")
    before = int(page.evaluate("document.body.dataset.matches"))
    page.wait_for_function(f"Number(document.body.dataset.matches) > {before}", timeout=60_000)
    assert page.evaluate("window.notReloaded") is True
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    assert len(site.played()) > before
    assert page.locator("#title").text_content() == "XIX ladder web"
    rows = page.locator("#standings tbody tr").evaluate_all(
        "rows => rows.map((row) => [...row.cells].map((cell) => cell.textContent))"
    )
    assert {row[1] for row in rows} == set(BOTS)
    for row in rows:
        if int(row[5]) > 0:
            # A rating and its interval as `croupier ladder standings` prints them: below two
            # deals no interval, a marked dash; before its first whole deal (a duplicate deal's
            # second half still to play, as a busy machine's first refresh may show) no rating
            # either (issue 44's partial-deal rule).
            # The margins count whole deals as the rating does: none before the first.
            margin = r"[+-]\d+\.\d( ±\d+\.\d)?"
            if row[2] == "-":
                assert re.fullmatch(r"-°?", row[3]), row
                margin += "|-"
            else:
                assert re.fullmatch(r"[+-]\d+\??", row[2]) and re.fullmatch(
                    r"[+-]\d+\.\.[+-]\d+|-°", row[3]
                ), row
            assert re.fullmatch(r"\d+-\d+|-", row[4])  # the rank's 95% interval
            assert re.fullmatch(r"\d+\.\d%", row[6])  # the score
            assert re.fullmatch(margin, row[7]), row  # the margin
            assert re.fullmatch(margin, row[8]), row  # corrected for luck
        assert row[10].startswith(("playing", "idle"))  # launched and connected
    meta = page.locator("#meta").text_content() or ""
    assert "round-robin, duplicate deals" in meta and "matches played of 120" in meta
    assert "revealed when the ladder ends" in (page.locator("#seed").text_content() or "")
    page.locator("#recent tbody tr").first.wait_for()
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / "ladder-standings.png"), full_page=True)


def test_the_head_to_head_matrix_is_shaded_and_matches_the_api(site: LadderSite, page: Any) -> None:
    page.goto(site.web + "/")
    page.wait_for_selector("#head-to-head td.even, #head-to-head td.significant", timeout=60_000)
    cells = page.locator("#head-to-head tbody td[data-b]").evaluate_all(
        "tds => tds.map((td) => ({a: td.parentElement.dataset.a, b: td.dataset.b,"
        " text: td.textContent, title: td.title, cls: td.className,"
        " shade: td.style.getPropertyValue('--shade'), value: Number(td.dataset.value)}))"
    )
    pairs = {(p["a"], p["b"]): p for p in site.json("/api/v1/standings")["head_to_head"]}
    assert cells and all((c["a"], c["b"]) in pairs for c in cells)  # pairs only accumulate
    for cell in cells:
        assert re.fullmatch(r"[01]\.\d\d\*?", cell["text"]), cell
        assert cell["text"].endswith("*") == (cell["cls"] == "significant")
        assert f"{cell['a']} vs {cell['b']}: score " in cell["title"]
        assert cell["shade"].startswith("hsl(") and 0 <= cell["value"] <= 1
    headers = page.locator("#head-to-head tbody tr").evaluate_all(
        "rows => rows.map((row) => row.dataset.a)"
    )
    assert set(headers) <= set(BOTS)


def test_a_live_match_plays_in_the_viewer_to_its_result_banner(site: LadderSite, page: Any) -> None:
    seen: set[str] = set()
    deadline = time.monotonic() + 120
    while True:  # a match still live when the page opens (it may end meanwhile)
        match_id = new_live_match(site.web, seen)
        seen.add(match_id)
        page.goto(f"{site.web}/live/{match_id}")
        page.wait_for_function(
            f"document.body.dataset.match === '{match_id}' || "
            "document.getElementById('title').textContent.includes('not being played now')"
        )
        if page.evaluate("document.body.dataset.match") == match_id:
            break
        assert time.monotonic() < deadline, "each new match was over before its page opened"
    page.wait_for_function("Number(document.body.dataset.tables) >= 1")
    assert page.locator("#seats .seat").count() == 2
    page.wait_for_selector("#banner:not([hidden])", timeout=60_000)
    banner = page.locator("#banner").text_content()
    assert banner is not None and banner.startswith("result: seat ")
    played = site.committed(match_id)
    assert played.result.split(" (")[0].split()[:2] == ["seat", banner.split()[2]]
    meta = page.locator("#meta").text_content() or ""
    assert all(bot in meta for bot in site.bots_of(played.number))
    page.locator("#links a").click()  # the end links to the replay, once committed
    page.wait_for_selector("#seats .seat")
    assert page.title().endswith("croupier replay")


def test_a_bot_page_lists_its_matches(site: LadderSite, page: Any) -> None:
    while not (theirs := _matches_of(site, "heuristic")):  # one at least, committed
        site.committed(site.live_match())
    page.goto(f"{site.web}/bots/heuristic")
    page.wait_for_function(
        f"document.querySelectorAll('#matches tbody tr').length >= {len(theirs)}",
        timeout=60_000,
    )
    listed = page.locator("#matches tbody tr").evaluate_all(
        "rows => rows.map((row) => row.dataset.match)"
    )
    assert theirs <= set(listed)
    assert set(listed) <= _matches_of(site, "heuristic")
    page.wait_for_selector("#plot .series .line")  # the site may not have read them yet
    assert page.locator("#plot .series .line").count() == 1
    assert page.title() == "croupier ladder · heuristic"


def test_a_bot_s_matches_come_a_page_at_a_time(site: LadderSite, page: Any) -> None:
    while len(_matches_of(site, "heuristic")) < 5:
        site.committed(site.live_match())
    # The API: newest first, `limit` from `offset`, of `total`; the pages tile the list.
    first = site.json("/api/bots/heuristic?limit=2")
    assert (first["offset"], first["limit"], len(first["matches"])) == (0, 2, 2)
    numbers = [m["number"] for m in first["matches"]]
    assert numbers == sorted(numbers, reverse=True)
    total = first["total"]
    seen: list[int] = []
    for offset in range(0, total, 2):
        part = site.json(f"/api/bots/heuristic?offset={offset}&limit=2")
        seen += [m["number"] for m in part["matches"] if part["total"] == total]
    if len(seen) == total:  # no commit meanwhile (the ladder runs): every match once
        assert sorted(seen, reverse=True) == seen and len(set(seen)) == total
    assert site.json("/api/bots/heuristic?limit=100000")["limit"] == 1000
    for query in ("offset=-1", "limit=0", "offset=x", "limit=2.5"):
        status, _, body = _exchange(site, "GET", f"/api/bots/heuristic?{query}")
        name, _, value = query.partition("=")
        assert status == 400, query
        assert json.loads(body)["error"] == (
            f"{name} must be a whole number from {1 if name == 'limit' else 0}, got {value!r}"
        )
    # The page: ?page=2 of 2 a page shows the 3rd and 4th newest, with links either way.
    page.goto(f"{site.web}/bots/heuristic?page=2&size=2")
    page.wait_for_selector("#pager a[rel=next]")
    assert page.locator("#matches tbody tr").count() == 2
    assert "matches 3–4 of " in (page.locator("#pager").text_content() or "")
    assert page.locator("#pager a[rel=prev]").get_attribute("href") == "?page=1&size=2"
    listed = page.locator("#matches tbody tr").evaluate_all(
        "rows => rows.map((r) => r.dataset.match)"
    )
    assert set(listed) <= _matches_of(site, "heuristic")
    page.click("#pager a[rel=prev]")
    page.wait_for_url(re.compile(r"\?page=1&size=2$"))
    page.wait_for_selector("#pager a[rel=next]")
    assert page.locator("#pager a[rel=prev]").count() == 0


def test_responses_are_gzipped_and_static_files_cached(site: LadderSite) -> None:
    gzip = {"accept-encoding": "gzip"}
    status, headers, body = _exchange(site, "GET", "/", headers=gzip)
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["cache-control"] == "no-cache" and headers["etag"].startswith('W/"')
    page = zlib.decompress(body, wbits=31).decode()
    assert page.startswith("<!doctype html>")
    # The page names its static files by fingerprint: those are kept for a year.
    script = re.search(r'src="(/static/site\.js\?v=[0-9a-f]+)"', page)
    assert script is not None, page
    status, headers, body = _exchange(site, "GET", script[1], headers=gzip)
    assert status == 200 and headers["cache-control"] == "public, max-age=31536000, immutable"
    assert zlib.decompress(body, wbits=31) == site.get("/static/site.js")
    # Asked for without it (or with a stale one): revalidated, 304 with no body if unchanged.
    for path in ("/static/site.js", "/static/site.js?v=0", "/matches/viewer.js"):
        status, headers, _ = _exchange(site, "GET", path)
        assert status == 200 and headers["cache-control"] == "no-cache", path
        again = _exchange(site, "GET", path, headers={"if-none-match": headers["etag"]})
        assert again[0] == 304 and again[2] == b"", path
    # JSON and replays are gzipped too, from GZIP_FROM bytes on (a bot's JSON is smaller
    # than that before its first matches); without Accept-Encoding, nothing is.
    played = site.committed(site.live_match())
    zipped = []
    for path in ("/api/contest", "/api/bots/heuristic", f"/matches/{played.match_id}.html"):
        plain = _exchange(site, "GET", path)
        assert plain[0] == 200 and "content-encoding" not in plain[1], path
        status, headers, body = _exchange(site, "GET", path, headers=gzip)
        if len(plain[2]) < GZIP_FROM:
            assert status == 200 and "content-encoding" not in headers, path
            continue
        assert status == 200 and headers["content-encoding"] == "gzip", path
        assert len(plain[2]) > len(body), path
        zipped.append(path)
    assert f"/matches/{played.match_id}.html" in zipped  # a replay page is always large
    # An event stream is never compressed: each beat must reach the page at once.
    status, headers, _ = _exchange(site, "GET", "/events/contest", headers=gzip, stream=True)
    assert status == 200 and "content-encoding" not in headers


def _matches_of(site: LadderSite, bot: str) -> set[str]:
    return {p.match_id for p in site.played() if bot in site.bots_of(p.number)}


def test_a_replay_opens_and_its_record_downloads(site: LadderSite, page: Any) -> None:
    played = site.committed(site.live_match())
    page.goto(f"{site.web}/matches/{played.match_id}.html")
    page.wait_for_selector("#seats .seat")
    page.keyboard.press("End")
    page.wait_for_selector("#banner:not([hidden])")
    assert played.match_id in (page.locator("#title").text_content() or "")
    record = site.get(f"/records/{played.match_id}.jsonl")
    assert hashlib.sha256(record).hexdigest() == played.record_sha256
    assert record == played.record.read_bytes()
    # A live match's record holds every hand: neither it nor its replay is served before its
    # commit, under any name.
    seen = {p.match_id for p in site.played()}
    deadline = time.monotonic() + 120
    while True:  # on matches seen starting, until one is not committed once all are answered
        live = new_live_match(site.web, seen)
        seen.add(live)
        paths = [f"/records/{live}.jsonl", f"/matches/{live}.html"]
        paths += [f"/records/{live}.jsonl.partial", f"/records/{live}.jsonl%2Epartial"]
        statuses = site.statuses(paths)
        if live not in {p.match_id for p in site.played()}:
            break
        assert time.monotonic() < deadline, "each new match was committed before its answers"
    assert statuses == [404, 404, 404, 404]


def test_a_live_match_page_receives_only_public_information(site: LadderSite) -> None:
    """Everything a live ladder match's page received, raw from its event stream, against the
    record: no private event (a hand dealt, a peek), no card in any hand, no bot's token."""
    match_id, received, raw = listen(site)
    played = site.committed(match_id)
    blob = check_only_public(received, raw, played.record)
    assert received[0]["names"] == list(site.bots_of(played.number))
    assert len(site.tokens) >= len(BOTS)
    pages = [site.get(path) for path in ("/", "/api/contest", "/api/bots/steady")]
    for token in site.tokens:
        assert token not in blob
        assert all(token.encode() not in body for body in pages)


def _routes(match_id: str) -> list[str]:
    """Every route of the site but the event streams, with names that exist."""
    return [
        "/",
        f"/live/{match_id}",
        "/follow",
        "/bots/heuristic",
        "/static/site.js",
        "/api/contest",
        "/api/bots/heuristic",
        f"/matches/{match_id}.html",
        f"/records/{match_id}.jsonl",
    ]


#: Paths that try to leave the site's own names: the database, the ladder file, the records'
#: folder, the bots' logs, the site's own code.
ESCAPES = [
    "/records/..%2Fladder.sqlite",
    "/records/..%2F..%2Fladder.sqlite",
    "/records/%2e%2e%2fladder.sqlite.jsonl",
    "/records/..%2Fladder.toml",
    "/records/logs%2Fheuristic-0.log",
    "/records/%2Fetc%2Fpasswd",
    "/records/web-00001.jsonl%00.html",
    "/matches/..%2Fladder.sqlite.html",
    "/matches/..%2F..%2F..%2Fetc%2Fpasswd",
    "/static/..%2Fsite.py",
    "/static/%2e%2e%2fserver.py",
    "/static/..%2F..%2Fladder%2Fview.py",
    "/api/bots/..%2F..%2Fladder.sqlite",
]


def _files(folder: Path) -> list[str]:
    """The files under `folder`, less SQLite's WAL files (a reader opens and removes them)."""
    found = (str(path.relative_to(folder)) for path in folder.rglob("*"))
    return sorted(name for name in found if not name.endswith(("-wal", "-shm")))


def _request(site: LadderSite, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request sent as written (http.client does not normalise `..`)."""
    status, _, answer = _exchange(site, method, path, body)
    return status, answer


def _exchange(
    site: LadderSite,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
    *,
    stream: bool = False,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request: the status, the headers and the body as sent (none for a `stream`)."""
    url = urllib.parse.urlsplit(site.web)
    connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, b"" if stream else response.read()
    finally:
        connection.close()


def test_a_finished_ladder_keeps_its_site_read_only_with_the_seed_revealed(
    tmp_path: Path,
) -> None:
    """A ladder that is over keeps its site up (the final standings, every replay, the master
    seed checked against its commitment) until Ctrl-C, which exits 0. Nothing a request can
    send changes anything: the database is byte for byte the same after every method on every
    route, and no path reaches a file but a committed match's record."""
    ladder_file(tmp_path, FAST, 'matches_per_pairing = 2\nseed = "web-ladder"')
    process, web = start(tmp_path)
    assert process.stdout is not None
    try:
        lines = [process.stdout.readline().decode() for _ in range(4)]
        while "ladder over" not in lines[-1]:
            assert lines[-1], (tmp_path / "ladder.log").read_text()
            lines.append(process.stdout.readline().decode())
        assert lines[-1] == "ladder over: its web site stays up until Ctrl-C\n"
        assert "master seed: web-ladder\n" in lines
        site = LadderSite(tmp_path, web, process)
        deadline = time.monotonic() + 30
        while not (ladder := site.json("/api/contest")["contest"]).get("seed"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert ladder["seed"] == "web-ladder" and ladder["finished"] is True
        assert hashlib.sha256(ladder["seed"].encode()).hexdigest() == ladder["seed_sha256"]
        assert ladder["matches_done"] == ladder["matches_planned"] == 2
        assert ladder["kind"] == "ladder"
        played = site.played()
        match_id = played[0].match_id
        assert site.status(f"/matches/{match_id}.html") == 200
        database = (tmp_path / "ladder.sqlite").read_bytes()
        files = _files(tmp_path)
        streams = ["/events/contest", f"/events/live/{match_id}", "/events/follow"]
        for path in _routes(match_id) + streams:
            if path not in streams:
                assert _request(site, "GET", path)[0] == 200, path
            for method in ("POST", "PUT", "PATCH", "DELETE"):
                status, _ = _request(site, method, path, b'{"seed": "mine"}')
                assert status == 405, (method, path, status)
        for path in ESCAPES:
            status, body = _request(site, "GET", path)
            assert status == 404, (path, status, body[:200])
        assert (tmp_path / "ladder.sqlite").read_bytes() == database
        assert _files(tmp_path) == files
        assert site.json("/api/contest")["contest"]["matches_done"] == 2
        # Issue 24.1: a record replaced or removed since its commit is not served as the
        # ladder's, and the answer names none of the site's files.
        changed, gone = played[0].record, played[1].record
        kept = changed.read_bytes(), gone.read_bytes()
        changed.write_bytes(kept[0].replace(b"seat 0", b"seat 1", 1))
        gone.unlink()
        try:
            for match in played:
                for path in (f"/records/{match.match_id}.jsonl", f"/matches/{match.match_id}.html"):
                    status, body = _request(site, "GET", path)
                    assert status == 404, (path, status)
                    assert str(tmp_path).encode() not in body and b"changed" in body, body
        finally:
            changed.write_bytes(kept[0])
            gone.write_bytes(kept[1])
        assert site.status(f"/records/{match_id}.jsonl") == 200
        assert process.poll() is None  # over, and still serving its site
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
        process.stdout.close()
    assert code == 0, (tmp_path / "ladder.log").read_text()
    # Run again, the ladder is complete: --no-keep-web shows it and exits with it.
    command = [CROUPIER, "ladder", "run", str(tmp_path / "ladder.toml"), "--no-live"]
    again = subprocess.run(
        [*command, "--web", "127.0.0.1:0", "--no-keep-web"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("ladder web site on http://127.0.0.1:")
    assert "master seed: web-ladder" in again.stdout and "stays up" not in again.stdout


def test_a_complete_ladder_s_site_over_tls_until_sigterm(tmp_path: Path) -> None:
    """Run again once complete, the command shows the ladder's site at once: over HTTPS only
    with --tls-cert/--tls-key, until SIGTERM (exit 0)."""
    ca, cert, key = make_ca_and_server_cert(tmp_path)
    ladder_file(tmp_path, FAST, 'matches_per_pairing = 2\nseed = "tls"')
    command = [CROUPIER, "ladder", "run", str(tmp_path / "ladder.toml"), "--no-live"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert first.returncode == 0, first.stderr
    process, web = start(tmp_path, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert web.startswith("https://")
        assert process.stdout is not None
        while "ladder over" not in (line := process.stdout.readline().decode()):
            assert line, (tmp_path / "ladder.log").read_text()
        context = ssl.create_default_context(cafile=str(ca))
        deadline = time.monotonic() + 30
        while True:
            with urllib.request.urlopen(f"{web}/api/contest", context=context, timeout=10) as r:
                ladder = json.loads(r.read())["contest"]
            if ladder.get("seed") or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert ladder["seed"] == "tls" and ladder["matches_done"] == 2
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(web.replace("https", "http") + "/", timeout=10)
    finally:
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)
        if process.stdout is not None:
            process.stdout.close()
    assert code == 0, (tmp_path / "ladder.log").read_text()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--web", "0.0.0.0:8080"], "refusing a plaintext web site on '0.0.0.0'"),
        (["--web", "localhost"], "--web wants HOST:PORT, got 'localhost'"),
        (["--insecure"], "--tls-cert, --tls-key and --insecure are for --web's site"),
        (["--web", "127.0.0.1:0", "--tls-cert", "cert.pem"], "give both --tls-cert and"),
    ],
)
def test_ladder_web_options_are_checked_first(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    ladder_file(tmp_path, FAST)
    result = runner.invoke(app, ["ladder", "run", str(tmp_path / "ladder.toml"), *flags])
    assert result.exit_code == 2
    assert result.output == f"error: {message}" + result.output.split(message, 1)[1]
    assert result.output.count("\n") == 1
    assert not (tmp_path / "ladder.sqlite").exists()
