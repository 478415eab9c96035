"""An author's review of their own seat on the desk (issue 48.2), against a real `croupier serve
--db --web --review-budget 4` on loopback, its SQLite database and its files, over real HTTP
and in chromium.

Alice asks for the review of her seat of a match she played: it runs off the request (the page
says so and reloads), then the page is her seat replay with the review's marks on each of her
decisions, its values over her legal actions alone and no card she could not see; it is kept
in the contest's files and served from there, not made again. Another team, another seat, an
anonymous visitor, a forged form, an unknown match and a record changed since its commit are
refused (404 in the seat replay's words: nothing says the match or the seat exists). A flood of
asks is refused at one review at a time per team, the site's queue at its bound, each naming
its limit; a review that cannot be made says so and may be asked again.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import trio

from croupier.bots import RandomBot, XixHeuristicBot
from referee.contest.tokens import TokenStore
from referee.errors import QuotaError
from referee.review.search import VALUATION
from referee.review.view import view_of_record
from referee.viewer import load
from referee.web.desk_review import Reviews
from tests.desk_helpers import CROUPIER, Referee, challenged, running
from tests.test_desk_site import Answer, Visitor, network_matches
from tests.test_review import played
from tests.viewer_helpers import page_data, unseen_faces

#: The site's budget here: small, so a review of a match takes seconds.
BUDGET = 4
#: How long a review may take on a loaded machine (s).
SLOW = 180.0


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Referee]:
    """The contest once alice and bob (network random bots) played three matches."""
    folder = tmp_path_factory.mktemp("review")
    with running(folder, web=True, extra=("--review-budget", str(BUDGET))) as started:
        alice = _signed_in(started, "alice")
        network_matches(started, alice, 3)
        yield started


def _signed_in(referee: Referee, name: str) -> Visitor:
    visitor = Visitor(referee.web)
    assert visitor.sign_in(referee.tokens[name]).status == 303
    return visitor


def _matches(visitor: Visitor) -> list[str]:
    return [m["match"] for m in visitor.data().json()["matches"]]


def _seat(referee: Referee, match: str, name: str) -> int:
    record = _record(referee, match)
    (seat,) = [s for s, who in enumerate(load(record).names) if who.startswith(name)]
    return seat


def _record(referee: Referee, match: str) -> Path:
    with contextlib.closing(sqlite3.connect(referee.db)) as db:
        (kept,) = db.execute("SELECT record FROM matches WHERE match_id = ?", (match,)).fetchone()
    return Path(kept) if Path(kept).is_absolute() else referee.db.parent / kept


def _ask(visitor: Visitor, match: str, seat: int, csrf: str | None = None) -> Answer:
    fields = {"csrf": visitor.csrf() if csrf is None else csrf, "seat": str(seat)}
    return visitor.form(f"/desk/review/{match}", fields)


def _reviewed(visitor: Visitor, match: str, seat: int) -> Answer:
    """The review's page once it is made (its state's page until then, polled)."""
    deadline = time.monotonic() + SLOW
    while True:
        answer = visitor.send("GET", f"/desk/review/{match}?seat={seat}")
        assert answer.status == 200, answer.body
        if b'id="match-data"' in answer.body:
            return answer
        assert b"failed" not in answer.body, answer.body
        assert time.monotonic() < deadline, answer.body
        time.sleep(0.5)


def test_an_author_reviews_their_own_seat_and_the_page_shows_nothing_hidden_from_it(
    referee: Referee,
) -> None:
    alice = _signed_in(referee, "alice")
    match = _matches(alice)[-1]
    seat = _seat(referee, match, "alice")
    # Not asked yet: the page says so, with a form that asks (its CSRF token in it).
    first = alice.send("GET", f"/desk/review/{match}")
    assert first.status == 200 and first.headers["cache-control"] == "no-store"
    assert b"not reviewed yet" in first.body and alice.csrf().encode() in first.body
    asked = _ask(alice, match, seat)
    assert asked.status == 303, asked.body
    assert asked.headers["location"] == f"/desk/review/{match}?seat={seat}"
    answer = _reviewed(alice, match, seat)
    text = answer.body.decode()
    for tag in re.findall(r"<script[^>]*>", text):  # the viewer's code from /static/ only
        assert " src=" in tag or 'type="application/gzip+base64"' in tag, tag
    data = page_data(text)
    record = _record(referee, match)
    timeline = load(record)
    assert data["views"] == [f"seat {seat} ({timeline.names[seat]})"]
    assert data["review_seat"] == seat
    # The leak check: no card the seat could not see, drawn at any step.
    assert unseen_faces(data, timeline, seat) == []
    # A mark at each of the seat's decisions and nowhere else, valuing its legal actions alone.
    marked = [i for i, step in enumerate(data["steps"]) if "review" in step]
    assert marked == [i for i, step in enumerate(data["steps"]) if step["seat"] == seat]
    decisions = view_of_record(record, seat).decisions
    assert len(marked) == len(decisions)
    for index, decision in zip(marked, decisions, strict=True):
        mark = data["steps"][index]["review"]
        assert mark["chosen"] == decision.chosen
        if not mark["unsampled"]:
            assert [text for text, _, _ in mark["values"]] == list(decision.legal)
    # Kept in the contest's files, and served from there: asking again makes nothing anew.
    (kept,) = (referee.db.parent / "reviews").glob(f"{match}.seat{seat}.budget{BUDGET}.*.json")
    assert kept.name.endswith(f".valuation{VALUATION}.json")
    assert json.loads(kept.read_text())["valuation"] == VALUATION
    made = kept.stat().st_mtime_ns
    assert _ask(alice, match, seat).status == 303
    again = alice.send("GET", f"/desk/review/{match}?seat={seat}")
    assert again.body == answer.body and kept.stat().st_mtime_ns == made
    assert not list((referee.db.parent / "reviews").glob("*.part"))


def test_another_team_s_match_or_seat_is_refused_as_one_that_does_not_exist(
    referee: Referee,
) -> None:
    alice, bob = _signed_in(referee, "alice"), _signed_in(referee, "bob")
    match = _matches(alice)[-1]
    theirs = _seat(referee, match, "alice")
    erin = Visitor(referee.web)
    assert erin.sign_in(TokenStore(referee.db, create=False).add("erin")).status == 303
    unknown = alice.send("GET", "/desk/review/no-such-match")
    assert unknown.status == 404
    assert unknown.json()["error"] == "no finished match 'no-such-match' of your team"
    refusal = unknown.body.replace(b"no-such-match", match.encode())
    for answer in (
        erin.send("GET", f"/desk/review/{match}"),
        erin.send("GET", f"/desk/review/{match}?seat={theirs}"),
        _ask(erin, match, theirs),
        bob.send("GET", f"/desk/review/{match}?seat={theirs}"),
        _ask(bob, match, theirs),
    ):
        assert answer.status == 404 and answer.body == refusal, answer.body
    assert not list((referee.db.parent / "reviews").glob(f"{match}.seat{theirs}.*.part"))
    # Anonymous: signed out; a form without the session's token or from another site: refused.
    anonymous = Visitor(referee.web)
    assert anonymous.send("GET", f"/desk/review/{match}").status == 401
    assert anonymous.form(f"/desk/review/{match}", {"seat": str(theirs)}).status == 401
    assert _ask(alice, match, theirs, csrf="0" * 64).status == 403
    fields = {"csrf": alice.csrf(), "seat": str(theirs)}
    forged = alice.form(f"/desk/review/{match}", fields, origin="http://evil.example")
    assert forged.status == 403
    # A seat that is not a number; a match no one played, asked for.
    assert alice.send("GET", f"/desk/review/{match}?seat=zero").status == 400
    assert _ask(alice, "no-such-match", 0).body == unknown.body


def test_a_record_changed_since_its_commit_is_not_reviewed(referee: Referee) -> None:
    bob = _signed_in(referee, "bob")
    match = _matches(bob)[0]
    record = _record(referee, match)
    original = record.read_bytes()
    record.write_bytes(original.replace(b"bob", b"bop", 1))
    try:
        for answer in (bob.send("GET", f"/desk/review/{match}"), _ask(bob, match, 0)):
            assert answer.status == 404
            assert answer.json()["error"] == f"no finished match {match!r} of your team"
    finally:
        record.write_bytes(original)


def test_a_flood_of_asks_is_refused_at_one_review_at_a_time_per_team(referee: Referee) -> None:
    """Bob's first ask is taken; the flood sent at once behind it (his other matches, ten
    times each) is refused naming the limit and the review that holds it."""
    bob = _signed_in(referee, "bob")
    first, *others = _matches(bob)
    seats = {match: _seat(referee, match, "bob") for match in (first, *others)}
    csrf = bob.csrf()
    assert _ask(bob, first, seats[first], csrf).status == 303
    with ThreadPoolExecutor(8) as pool:
        flood = list(pool.map(lambda m: _ask(bob, m, seats[m], csrf), others * 10))
    for refused in flood:
        assert refused.status == 429, refused.body
        said = refused.body.decode()
        assert "quota: one review at a time per team" in said and first in said
    # Another member's ask of the same review is its page, not a second review.
    assert _ask(bob, first, seats[first], csrf).status == 303
    _reviewed(bob, first, seats[first])
    # That one made, the next is taken.
    assert _ask(bob, others[0], seats[others[0]], csrf).status == 303


async def test_the_site_s_queue_is_bounded_and_a_review_that_fails_says_why(
    tmp_path: Path,
) -> None:
    """The queue of the whole site, at its bound (1 here), refuses a second team's ask naming
    it; a record that does not verify fails in words and may be asked again."""
    record = played(tmp_path / "m.jsonl", 3, [XixHeuristicBot(), RandomBot(2)])
    broken = tmp_path / "broken.jsonl"  # an action changed: it does not verify
    lines = record.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith('{"action"'))
    action = json.loads(lines[first])
    action["action"]["text"] = "play 99"
    broken.write_text("\n".join([*lines[:first], json.dumps(action), *lines[first + 1 :]]) + "\n")
    reviews = Reviews(tmp_path / "reviews", BUDGET, queued=1)
    reviews.ask("alice", reviews.key("m", 0), record)
    with pytest.raises(QuotaError, match="the site is reviewing 1 matches, its most at once"):
        reviews.ask("bob", reviews.key("m", 1), record)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reviews.run)
        with trio.fail_after(SLOW):
            while reviews.marks(reviews.key("m", 0)) is None:
                await trio.sleep(0.2)
        reviews.ask("bob", reviews.key("b", 1), broken)
        with trio.fail_after(SLOW):
            while (job := reviews.job(reviews.key("b", 1))) is None or job.failed is None:
                await trio.sleep(0.2)
        assert job.failed == "the review could not be made (croupier review exit 1)"
        assert reviews.marks(reviews.key("b", 1)) is None
        reviews.ask("bob", reviews.key("b", 1), broken)  # asked again: queued again
        assert reviews.job(reviews.key("b", 1)) is not None
        nursery.cancel_scope.cancel()
    marks = reviews.marks(reviews.key("m", 0))
    assert marks is not None and len(marks) == len(view_of_record(record, 0).decisions)


def test_a_review_kept_by_an_older_way_of_valuing_is_not_served(tmp_path: Path) -> None:
    """Issue 48.2: the review's playouts became each game's own policy (VALUATION 2); a review
    kept before (its file named without the valuation, or with an older one) is made again,
    not served with the values of a way the reference bots do not judge by."""
    folder = tmp_path / "reviews"
    folder.mkdir()
    reviews = Reviews(folder, BUDGET)
    key = reviews.key("m", 0)
    kept = {"match": "m", "seat": 0, "budget": BUDGET, "marks": {"3": {"chosen": "play 7"}}}
    for old in (f"m.seat0.budget{BUDGET}.json", f"m.seat0.budget{BUDGET}.valuation1.json"):
        (folder / old).write_text(json.dumps(kept))
    assert reviews.marks(key) is None
    reviews.path(key).write_text(json.dumps({**kept, "valuation": VALUATION}))
    assert reviews.marks(key) == {3: {"chosen": "play 7"}}


def _sessions() -> dict[int, list[int]]:
    """Every process's pid, by its session id (Linux's /proc)."""
    found: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            # After the command's ")": state, ppid, pgrp, session.
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                found.setdefault(int(fields[3]), []).append(int(stat.parent.name))
    return found


def _leader(record: Path) -> int | None:
    """The pid of the review of `record` running, if any."""
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if str(record).encode() in stat.read_bytes() and b"review" in stat.read_bytes():
                return int(stat.parent.name)
    return None


async def test_a_review_running_when_the_site_stops_is_killed_with_its_pool(
    tmp_path: Path,
) -> None:
    """A long review (a budget no site would give) and its pool of processes end with the
    site: nothing of it is left running, and the site stops at once."""
    record = played(tmp_path / "long.jsonl", 4, [XixHeuristicBot(), RandomBot(5)])
    reviews = Reviews(tmp_path / "reviews", 100_000)
    reviews.ask("alice", reviews.key("long", 0), record)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reviews.run)
        with trio.fail_after(SLOW):  # the review and its pool are running
            while (leader := _leader(record)) is None or len(_sessions().get(leader, [])) < 3:
                await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    with trio.fail_after(5):  # SIGKILLed: gone once the kernel has ended them
        while leader in _sessions():
            await trio.sleep(0.05)
    assert reviews.marks(reviews.key("long", 0)) is None


def test_the_desk_s_review_link_opens_the_review_in_chromium_under_the_site_s_policy(
    referee: Referee, browser: Any
) -> None:
    """From the desk's list of matches: the review's page, its ask, its state while it runs
    (reloading itself), then the seat replay with the values as bars and the margin chart
    (the viewer's own functions, from /static/ under the site's policy)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.on("pageerror", lambda error: messages.append(str(error)))
    try:
        page.goto(referee.web + "/desk")
        page.locator("#token").fill(referee.tokens["alice"])
        page.locator("#sign-in-form button").click()
        page.locator("#desk").wait_for(state="visible", timeout=60_000)
        # By its id: a match its bots' ending left in play may be committed since, above it.
        match = _matches(_signed_in(referee, "alice"))[1]
        page.locator(f"#matches tbody tr[data-match='{match}'] a.review").click()
        page.locator("#ask-review").click()
        page.wait_for_selector("body[data-step='0']", timeout=SLOW * 1000)
        # The viewer may have put its step in the fragment by now (#step=0).
        address = page.url.partition("#")[0]
        assert address.endswith(f"/desk/review/{match}?seat={_seat(referee, match, 'alice')}")
        page.wait_for_selector("#review-chart circle", timeout=10_000)
        assert page.locator("#review").is_visible()
        assert page.locator("#review-chart circle").count() > 0
    finally:
        page.close()
    assert [m for m in messages if "Content Security Policy" in m] == [], messages
    assert not [m for m in messages if "Error" in m and "status of 4" not in m], messages


@pytest.mark.usefixtures("bubblewrap")
def test_a_challenge_match_is_reviewed_from_the_team_s_own_seat_alone(tmp_path: Path) -> None:
    """Issue 45.4's challenge (alice's hosted version against bob's, unranked: in no snapshot):
    alice reviews her seat of one of its matches, from the desk's list, with her own version's
    lines beside it and nothing of bob's seat; bob and erin are refused her seat."""
    with challenged(tmp_path, ("--review-budget", str(BUDGET))) as referee:
        alice, bob, erin = (_signed_in(referee, name) for name in ("alice", "bob", "erin"))
        (challenge,) = alice.data().json()["challenges"]
        listing = f"/desk/challenges/{challenge['id']}/matches"
        ours = alice.send("GET", listing).json()["matches"][0]
        match, (seat,) = ours["match"], ours["seats"]
        assert _ask(alice, match, seat).status == 303
        data = page_data(_reviewed(alice, match, seat).body.decode())
        record = referee.challenge_record(match)
        timeline = load(record)
        assert data["views"] == [f"seat {seat} ({timeline.names[seat]})"]
        assert unseen_faces(data, timeline, seat) == []
        marked = [step["review"] for step in data["steps"] if "review" in step]
        decisions = view_of_record(record, seat).decisions
        assert [m["chosen"] for m in marked] == [d.chosen for d in decisions]
        assert "bob says" not in json.dumps(data)
        refusal = alice.send("GET", "/desk/review/no-such-match").body
        refusal = refusal.replace(b"no-such-match", match.encode())
        for answer in (
            erin.send("GET", f"/desk/review/{match}?seat={seat}"),
            bob.send("GET", f"/desk/review/{match}?seat={seat}"),
            _ask(bob, match, seat),
        ):
            assert answer.status == 404 and answer.body == refusal, answer.body


def test_the_organiser_reviews_any_seat_of_the_contest_s_records_with_the_cli(
    referee: Referee,
) -> None:
    """The site has no organiser's sign-in: the organiser, who holds the records, reviews any
    seat with `croupier review` (docs/contest.md, "Reviews"), every seat of a contest match
    alike, as an author's review on the desk reads it."""
    match = _matches(_signed_in(referee, "alice"))[0]
    record = _record(referee, match)
    for seat in (0, 1):
        command = [CROUPIER, "review", str(record), "--seat", str(seat), "--budget", str(BUDGET)]
        done = subprocess.run(
            [*command, "--json", "--workers", "1"], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        decisions = json.loads(done.stdout)["decisions"]
        assert [d["chosen"] for d in decisions] == [
            d.chosen for d in view_of_record(record, seat).decisions
        ]
