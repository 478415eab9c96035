"""A written ladder report opened from disk in headless chromium: the site's own page and script
draw the data embedded in it, standings, head-to-head, the ratings plot and a second page of
matches, with no request anywhere; a bot named as markup shows as text, everywhere, and runs
nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from croupier.v1 import common_pb2
from referee.ladder import standings_of
from referee.ratings.standings import Plan
from referee.results.database import Finished, Store
from referee.results.matches import ScheduledMatch
from referee.web.report import write_report

HOSTILE = "<img src=x onerror=alert(1)>"
BOTS = ("careful", HOSTILE, "steady")


def hostile_ladder(database: Path) -> None:
    """An XIX ladder of three bots, each pair met four times (seats swapped on each deal), the
    hostile one mostly losing and once timing out; no records on disk (no viewer pages)."""
    plan = Plan("hostile", "xix", {}, BOTS, "elo", True, 2, "round-robin")
    schedule: list[ScheduledMatch] = []
    pairs = [(0, 1), (0, 2), (1, 2)]
    for deal in range(6):
        a, b = pairs[deal % 3]
        for rotation in range(2):
            number = len(schedule) + 1
            seated = (BOTS[a], BOTS[b]) if rotation == 0 else (BOTS[b], BOTS[a])
            entrants = (BOTS[a], BOTS[b])
            sides = (0, 1) if rotation == 0 else (1, 0)
            schedule.append(
                ScheduledMatch(
                    number, 1, deal + 1, deal + 1, rotation, deal, seated, sides, entrants
                )
            )
    store = Store(database, create=True)
    store.initialise({"plan": plan.to_json(), "seed_sha256": "cd" * 32}, schedule)
    for match in schedule:
        # careful beats everyone; steady beats the hostile bot but once.
        strength = {"careful": 3, "steady": 2, HOSTILE: 1}
        scores = [strength[bot] * 10 + (match.number % 3) for bot in match.bots]
        if match.number == 12:
            scores = scores[::-1]
        ranks = [1 + sum(o > x for o in scores) for x in scores]
        result = common_pb2.Result(text=f"scores {scores}")
        for seat in range(2):
            result.seats.add(seat=seat, score=scores[seat], rank=ranks[seat])
        seat = match.bots.index(HOSTILE) if HOSTILE in match.bots else 0
        faults = (
            (common_pb2.Fault(seat=seat, reason=common_pb2.FAULT_REASON_TIMEOUT, detail=HOSTILE),)
            if match.number == 2
            else ()
        )
        record = database.parent / "records" / f"hostile-{match.number:05d}.jsonl"
        store.commit(
            Finished(match, f"hostile-{match.number:05d}", record, "0" * 64, result, faults, 1.0)
        )
    store.close()


def test_a_written_report_opens_from_disk_and_shows_names_as_text(
    browser: Any, tmp_path: Path
) -> None:
    database = tmp_path / "ladder.sqlite"
    hostile_ladder(database)
    out = tmp_path / "report"
    report = write_report(database, out, pool=False, page_size=5)
    assert report.index_pages == 3 and report.matches == 12
    standings = standings_of(database)

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    dialogs: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda r: problems.append(r.url) if not r.url.startswith("file:") else None)

    def dialog(opened: Any) -> None:  # an alert() the name would run
        dialogs.append(opened.message)
        opened.dismiss()

    page.on("dialog", dialog)
    page.goto((out / "index.html").as_uri())
    page.wait_for_selector("body[data-version]")

    # The standings: a row per bot, in the standings' order, the hostile name as its text.
    bots = page.locator("#standings tbody tr").evaluate_all(
        "rows => rows.map((r) => r.dataset.bot)"
    )
    assert bots == [row.bot for row in standings.rows]
    names = page.locator("#standings tbody td[data-key='bot']").all_text_contents()
    assert names == [row.bot for row in standings.rows] and HOSTILE in names
    # A head-to-head cell: the hostile bot's score against careful's, its interval in the title.
    cell = (
        page.locator("#head-to-head tbody tr")
        .filter(has_text=HOSTILE)
        .locator("td[data-b='careful']")
    )
    assert cell.count() == 1
    assert float(cell.get_attribute("data-value") or "") < 0.5
    assert "match" in (cell.get_attribute("title") or "")
    assert page.locator("#head-to-head tbody td[data-b]").count() == 6
    # The plot: a series per bot, a point per match, and at the cursor every bot by name.
    assert page.locator("#plot .series").count() == 3
    assert page.locator(".legend .key").all_text_contents() == [row.bot for row in standings.rows]
    page.locator("#hit").scroll_into_view_if_needed()
    box = page.locator("#hit").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    tip = page.locator("#tip")
    assert tip.is_visible() and "after 12 of 12 matches" in (tip.text_content() or "")
    assert HOSTILE in (tip.text_content() or "")
    # Its fault, named and detailed as text.
    fault = page.locator("#match-2 .fault")
    assert fault.text_content() == f"{HOSTILE}: timeout" and fault.get_attribute("title") == HOSTILE
    # The problems: no record is on disk, so no match has a viewer page.
    assert page.locator("#problems li").count() == 12
    assert page.locator("#matches a.viewer").count() == 0

    # The second page of matches: the 6th to the 10th, the standings on the first page only.
    page.click("nav.pager a[rel=next]")
    page.wait_for_url("**/index-2.html")
    page.wait_for_selector("body[data-version]")
    listed = page.locator("#matches tbody tr").evaluate_all("rows => rows.map((r) => r.id)")
    assert listed == [f"match-{n}" for n in range(6, 11)]
    assert "matches 6–10 of 12" in (page.locator("nav.pager").text_content() or "")
    assert page.locator("#standings, #plot, #head-to-head").count() == 0
    assert HOSTILE in (page.locator("#matches").text_content() or "")
    page.click("nav.pager a[rel=prev]")
    page.wait_for_url("**/index.html")
    page.wait_for_selector("body[data-version]")

    # The hostile name ran nothing and made no element anywhere.
    for name in ("index.html", "index-2.html", "index-3.html"):
        page.goto((out / name).as_uri())
        page.wait_for_selector("body[data-version]")
        assert page.locator("img").count() == 0
        assert HOSTILE in (page.text_content("body") or "")
    page.close()
    assert dialogs == [] and problems == []
