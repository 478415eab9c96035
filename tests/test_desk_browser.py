"""The author's desk in Debian's chromium (issue 46.3), driven by Playwright against a real
`croupier serve --db --web`: a team of two, the leader uploading in the page while the other
member follows the events on `croupier submissions follow`; the first build fails and the page
shows why, with its log's end in the feed; the second qualifies, goes active and plays, and the
page shows the team's own output of its match beside it, and its seat replay (issue 46.4):
the team's seat alone, under the site's policy, with no card that seat could not see and its
bot's lines beside each decision it printed them during; signing out leaves nothing readable.
A challenge's matches are listed at its row and open in the seat replay too (issue 45.4).
Names, reasons and log lines with markup in them are shown as text and run nothing."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.submitting import pack
from referee.viewer import load
from tests.desk_helpers import CROUPIER, Referee, challenged, running
from tests.hosted_helpers import SAYING_BOT, network_bot
from tests.viewer_helpers import page_data, unseen_faces

pytest.importorskip("playwright.sync_api")

#: Markup where an author's words go: a member's name, a build's output, a bot's lines.
MARKUP = '<img src=x onerror="pwned=1"><script>pwned=2</script>'
#: SAYING_BOT printing MARKUP on stdout too, at each of its decisions.
SAYING_MARKUP = SAYING_BOT.replace(
    "        return index\n", f"        print({MARKUP!r}, flush=True)\n        return index\n"
)
#: How long a build, a qualification or a first match may take on a loaded machine (ms).
SLOW_MS = 300_000


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    with running(tmp_path, web=True) as started:
        yield started


def _sign_in(page: Any, referee: Referee, token: str) -> None:
    page.goto(referee.web + "/desk")
    page.locator("#token").fill(token)
    page.locator("#sign-in-form button").click()
    page.locator("#desk").wait_for(state="visible", timeout=60_000)


def _upload(page: Any, archive: Path) -> str:
    """Upload `archive` in the page; the version's id as the page names it."""
    page.locator("#upload-file").set_input_files(str(archive))
    page.locator("#upload-button").click()
    result = page.locator("#upload-result[data-version]")
    result.wait_for(timeout=60_000)
    return str(result.get_attribute("data-version"))


def _packed(folder: Path, into: Path) -> Path:
    pack(folder, into)
    return into


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.timeout(900)  # two builds, a qualification and a match, on a loaded machine
def test_a_team_uploads_in_the_page_and_follows_its_version_to_play(
    referee: Referee, page: Any, browser: Any, tmp_path: Path
) -> None:
    leader = referee.tokens["alice"]
    added = referee.cli("team", "add", "carol", token=leader)
    assert added.returncode == 0, added.stderr
    carol = added.stdout.strip()
    command = [CROUPIER, "submissions", "follow", "--until", "active", "--to", referee.address]
    follow = subprocess.Popen(
        [*command, "--token", carol], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _sign_in(page, referee, leader)
        assert page.locator("#title").text_content() == "alice"
        # A build that fails, saying markup: the page shows why, and the log's end as text.
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "bot.toml").write_text('games = ["xix"]\nbuild = "sh build.sh"\nrun = "./bot"\n')
        (broken / "build.sh").write_text(f"echo compiling\necho '{MARKUP}'\nexit 3\n")
        broken_id = _upload(page, _packed(broken, tmp_path / "broken.tar.gz"))
        failed = page.locator(
            f"#versions tr[data-version='{broken_id}'][data-status='build-failed']"
        )
        failed.wait_for(timeout=SLOW_MS)
        assert "build failed (exit 3)" in (failed.locator(".reason").text_content() or "")
        tail = page.locator(f"#events li[data-kind='build-failed'][data-version='{broken_id}'] pre")
        tail.wait_for(timeout=60_000)
        assert MARKUP in (tail.text_content() or "")
        # Its build log, opened in the page: the same lines, as text.
        failed.locator("button").click()
        page.wait_for_function(
            "document.getElementById('version-log').textContent.includes('compiling')"
        )
        assert MARKUP in (page.locator("#version-log").text_content() or "")
        # A version that qualifies and goes active; the member on the CLI saw it all.
        good = tmp_path / "saying"
        good.mkdir()
        (good / "bot.toml").write_text('games = ["xix"]\nrun = "{python} bot.py"\n')
        (good / "bot.py").write_text(SAYING_MARKUP)
        good_id = _upload(page, _packed(good, tmp_path / "saying.tar.gz"))
        active = page.locator(f"#versions tr[data-version='{good_id}'][data-active='1']")
        active.wait_for(timeout=SLOW_MS)
        out, err = follow.communicate(timeout=SLOW_MS / 1000)
    finally:
        follow.kill()
    assert follow.returncode == 0, err
    followed = [line.split() for line in out.splitlines() if line.startswith("#")]
    assert [w[3].rstrip(":") for w in followed if w[2] == broken_id[:12]][-1] == "build-failed"
    assert [w[3].rstrip(":") for w in followed if w[2] == good_id[:12]][-1] == "active"
    # It plays a network bot of another team: its first match comes to the feed, and the team's
    # own output of it opens beside the match.
    bob = network_bot(referee.address, referee.tokens["bob"])
    try:
        first = page.locator(f"#events li[data-kind='first-match'][data-version='{good_id}']")
        first.wait_for(timeout=SLOW_MS)
    finally:
        bob.terminate()
        bob.wait(timeout=30)
    match = page.locator("#matches tbody tr").first
    match.wait_for(timeout=60_000)
    match.locator("button").click()
    page.wait_for_function("document.getElementById('match-log').textContent.includes('<b>chose')")
    assert page.locator("#match-log b, #match-log img, #events img, #version-log img").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    rows = page.locator("#matches tbody tr")
    assert page.locator("#matches tbody tr a.seat-replay").count() == rows.count()
    replayed = _seat_replay(browser, referee, str(match.get_attribute("data-match")), tmp_path)
    # In this page (its policy bypassed, so only the page's own care stops it), the bot's
    # markup beside its decision is text, and runs nothing.
    page.goto(replayed)
    page.wait_for_selector(f"body[data-step='{replayed.split('=')[-1]}']")
    assert MARKUP in page.locator("#bot-log-lines li").all_text_contents()
    assert page.locator("#bot-log-lines li > *").count() == 0
    assert page.locator("#log img, #log script, #log b").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    page.goto(referee.web + "/desk")
    page.locator("#desk").wait_for(state="visible", timeout=60_000)
    # Signing out: the page asks to sign in again, and its data is refused.
    page.locator("#sign-out-form button").click()
    page.locator("#sign-in").wait_for(state="visible")
    assert page.locator("#desk").is_hidden()
    assert page.evaluate("fetch('/desk/data').then((r) => r.status)") == 401
    assert page.evaluate("fetch('/desk/events?after=0').then((r) => r.status)") == 401


def _seat_replay(browser: Any, referee: Referee, match: str, tmp_path: Path) -> str:
    """Issue 46.4: the match's seat replay, opened from the desk in a page that keeps the
    site's Content-Security-Policy: alice's seat alone, no card it could not see, and at each
    decision of hers what her bot printed then (`croupier submissions log --by-decision`'s
    lines). Another team's session and an anonymous visitor get none. The address of the
    page at a decision of hers."""
    leader = referee.tokens["alice"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.on("pageerror", lambda error: messages.append(str(error)))
    try:
        _sign_in(page, referee, leader)
        page.locator(f"#matches tr[data-match='{match}'] a.seat-replay").click()
        page.wait_for_selector("body[data-step='0']", timeout=60_000)
        data = page_data(page.request.get(page.url).text())
        (view,) = data["views"]
        seat = data["log_seat"]
        assert view.startswith(f"seat {seat} (alice@")
        record = tmp_path / "match.jsonl"
        record.write_bytes(page.request.get(f"{referee.web}/records/{match}.jsonl").body())
        assert unseen_faces(data, load(record), seat) == []
        said = referee.cli("submissions", "log", "--match", match, "--by-decision", token=leader)
        assert said.returncode == 0, said.stderr
        entries = [json.loads(line) for line in said.stdout.splitlines()]
        decision = next(e["decision"] for e in entries if e["decision"] > 0)
        lines = [e["line"] for e in entries if e["decision"] == decision]
        assert MARKUP in lines and any(line.startswith("<b>chose ") for line in lines)
        actions = [i for i, s in enumerate(data["steps"]) if s["seat"] is not None]
        logged: dict[int, list[str]] = {}
        for entry in entries:  # every line beside its decision's step (decision 0: the start)
            at = actions[entry["decision"] - 1] if entry["decision"] else 0
            logged.setdefault(at, []).append(entry["line"])
        assert {i: s["log"] for i, s in enumerate(data["steps"]) if "log" in s} == logged
        step = actions[decision - 1]
        address = f"{page.url.split('#')[0]}#step={step}"
        page.goto(address)
        page.wait_for_selector(f"body[data-step='{step}']")
        assert page.locator("#bot-log-title").text_content() == f"seat {seat} logged"
        assert page.locator("#bot-log-lines li").all_text_contents() == lines
        assert page.locator("#bot-log-lines b, #log b").count() == 0
        theirs = next(i for i, s in enumerate(data["steps"]) if s["seat"] not in (None, seat))
        page.goto(f"{page.url.split('#')[0]}#step={theirs}")
        page.wait_for_selector(f"body[data-step='{theirs}']")
        assert page.locator("#bot-log-lines li").all_text_contents() == [
            "nothing logged at this step"
        ]
    finally:
        page.close()
    assert [m for m in messages if "Content Security Policy" in m] == [], messages
    assert not [m for m in messages if "Error" in m], messages
    erin = TokenStore(referee.db, create=False).add("erin")
    other = browser.new_page()
    try:
        _sign_in(other, referee, erin)
        assert other.request.get(f"{referee.web}/desk/replay/{match}").status == 404
    finally:
        other.close()
    anonymous = browser.new_page()
    try:
        assert anonymous.request.get(f"{referee.web}/desk/replay/{match}").status == 401
    finally:
        anonymous.close()
    return address


def test_markup_in_a_member_s_name_is_shown_as_text(referee: Referee, page: Any) -> None:
    accounts = TokenStore(referee.db, create=False)
    token = accounts.add_member("alice", MARKUP)
    _sign_in(page, referee, token)
    members = page.locator("#members")
    assert MARKUP in (members.text_content() or "")
    assert MARKUP in (page.locator("#you").text_content() or "")
    assert page.locator("#members img, #members script, #you img").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"
    # A refused sign-in's reason (a removed member's) is text too.
    accounts.remove_member("alice", MARKUP)
    page.reload()
    page.locator("#sign-in").wait_for(state="visible")
    page.locator("#token").fill(token)
    page.locator("#sign-in-form button").click()
    page.wait_for_function(
        "document.getElementById('sign-in-refusal').textContent.includes('was removed')"
    )
    assert MARKUP in (page.locator("#sign-in-refusal").text_content() or "")
    assert page.locator("#sign-in-refusal img").count() == 0
    assert page.evaluate("typeof window.pwned") == "undefined"


def test_the_page_works_under_its_content_security_policy(referee: Referee, browser: Any) -> None:
    """The desk's script runs under the site's policy (no inline script), signing in and
    reading the team's data."""
    page = browser.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.on("pageerror", lambda error: messages.append(str(error)))
    try:
        _sign_in(page, referee, referee.tokens["bob"])
        assert page.locator("#title").text_content() == "bob"
    finally:
        page.close()
    assert [m for m in messages if "Content Security Policy" in m] == []
    assert not [m for m in messages if "Error" in m and "status of 401" not in m], messages


@pytest.mark.usefixtures("bubblewrap")
def test_a_challenge_s_matches_open_in_the_seat_replay_from_the_desk(
    tmp_path: Path, browser: Any
) -> None:
    """Issue 45.4: the desk lists an ended challenge's matches at its button, and each opens
    the team's seat replay under the site's policy (bob, the opponent, from his seat)."""
    with challenged(tmp_path) as referee:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        messages: list[str] = []
        page.on("console", lambda message: messages.append(message.text))
        page.on("pageerror", lambda error: messages.append(str(error)))
        try:
            _sign_in(page, referee, referee.tokens["bob"])
            page.locator("#challenges tr[data-challenge='1'] button").click()
            rows = page.locator("#challenge-matches tbody tr")
            rows.nth(3).wait_for(timeout=60_000)
            assert rows.count() == 4
            assert "challenge #1: 4 matches played" in (
                page.locator("#challenge-matches-of").text_content() or ""
            )
            match = str(rows.first.get_attribute("data-match"))
            assert match.startswith("challenge-00001-0001-")
            rows.first.locator("a.seat-replay").click()
            page.wait_for_selector("body[data-step='0']", timeout=60_000)
            data = page_data(page.request.get(page.url).text())
            (view,) = data["views"]
            assert view.startswith(f"seat {data['log_seat']} (bob@"), view
        finally:
            page.close()
    assert [m for m in messages if "Content Security Policy" in m] == [], messages
    assert not [m for m in messages if "Error" in m], messages
