"""The HTML viewer in a real headless browser: Debian's chromium driven by Playwright (which never
downloads a browser here). One browser for the whole test; one real match per game, the Xactika
one with 10 players and 8 rounds, the longest match of any game.

For each game: the page loads from disk with no console error and no request at all, stepping
(keys, slider, play) shows exactly the tables and captions the timeline holds for that step and
view, jumps land where the timeline says, and a screenshot of one position is written to
test-output/viewer/GAME.png (or under $CROUPIER_TEST_OUTPUT).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from referee.match.computer import played_on
from referee.match.records import ChallengeMark
from referee.viewer import Timeline, load, write_html
from tests.test_challenge_records import played
from tests.viewer_helpers import MATCHES, play

sync_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(os.environ.get("CROUPIER_TEST_OUTPUT", ROOT / "test-output")) / "viewer"
OPTIONS = {game: options for game, (options, _) in MATCHES.items()}
OPTIONS["xactika"] = {"players": "10", "rounds": "8"}

_READ = """() => ({
  step: Number(document.body.dataset.step),
  view: Number(document.body.dataset.view),
  status: document.getElementById("status").textContent,
  seats: [...document.querySelectorAll("#seats .seat")].map((s) => ({
    seat: Number(s.dataset.seat),
    hand: [...s.querySelectorAll(".hand .card")].map((c) => c.dataset.card || ""),
  })),
  piles: [...document.querySelectorAll("#piles .pile")].map((p) => ({
    label: p.querySelector(".label b").textContent,
    cards: [...p.querySelectorAll(".card")].map((c) => c.dataset.card || ""),
  })),
  caption: [...document.querySelectorAll("#caption li:not(.quiet)")].map((li) => li.textContent),
  result: document.getElementById("result").textContent,
})"""


def _expected(timeline: Timeline, index: int, viewer: int | None) -> dict[str, Any]:
    table = timeline.table(index, viewer)
    piles = []
    for pile in table.piles:
        cards = [*pile.cards, *(card for stack in pile.stacks for card in stack)]
        piles.append({"label": pile.label, "cards": [card.text for card in cards]})
    return {
        "step": index,
        "view": 0 if viewer is None else viewer + 1,
        "status": table.status,
        "seats": [{"seat": s.seat, "hand": [c.text for c in s.hand]} for s in table.seats],
        "piles": piles,
        "caption": timeline.caption(index, viewer),
        "result": f"result: {timeline.result.text}"
        if timeline.result is not None and index == len(timeline.steps) - 1
        else "",
    }


def _check(page: Any, timeline: Timeline, index: int, viewer: int | None) -> None:
    shown = page.evaluate(_READ)
    assert shown == _expected(timeline, index, viewer)


def _screenshot_step(timeline: Timeline) -> int:
    """A position worth a picture: mid-game, with cards in the middle of the table."""
    steps = len(timeline.steps)
    for index in range(steps // 3, steps):
        table = timeline.table(index, None)
        middle = [card for pile in table.piles for card in pile.cards]
        if len(middle) >= 2 or any(len(stack) > 1 for p in table.piles for stack in p.stacks):
            return index
    return steps // 2


def _view_game(browser: Any, game: str, folder: Path) -> Path:
    played = play(game, folder / f"{game}.jsonl", seed=5, options=OPTIONS[game])
    timeline = load(played.path)
    html = write_html(timeline, folder / f"{game}.html")
    problems: list[str] = []
    requests: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("file:") else None)
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-step='0']")
    _check(page, timeline, 0, None)

    for _ in range(3):
        page.keyboard.press("ArrowRight")
    _check(page, timeline, 3, None)
    page.keyboard.press("ArrowLeft")
    _check(page, timeline, 2, None)

    index = timeline.next_segment(2, major=False, forward=True)
    page.keyboard.press("]")
    _check(page, timeline, index, None)
    index = timeline.next_segment(index, major=True, forward=True)
    page.keyboard.press("PageDown")
    _check(page, timeline, index, None)
    assert page.eval_on_selector("#major", "s => Number(s.value)") == index

    page.keyboard.press("1")  # seat 1's view: its hand, the others' backs, its events only
    _check(page, timeline, index, 1)
    page.keyboard.press("ArrowRight")
    _check(page, timeline, index + 1, 1)
    page.keyboard.press("v")
    _check(page, timeline, index + 1, 2 if timeline.seats > 2 else None)
    page.keyboard.press("o")
    _check(page, timeline, index + 1, None)

    last = len(timeline.steps) - 1
    page.keyboard.press("End")
    _check(page, timeline, last, None)
    middle = last // 2
    page.eval_on_selector(
        "#slider", f"s => {{ s.value = {middle}; s.dispatchEvent(new Event('input')); }}"
    )
    _check(page, timeline, middle, None)

    page.keyboard.press(" ")  # play: it moves on by itself
    page.wait_for_function(f"Number(document.body.dataset.step) > {middle}", timeout=5000)
    page.keyboard.press(" ")
    assert page.text_content("#play") == "play"

    shot = _screenshot_step(timeline)
    page.goto(html.as_uri() + f"#step={shot}&view=0")
    page.reload()  # a new load reads the address's step and view
    page.wait_for_selector(f"body[data-step='{shot}']")
    _check(page, timeline, shot, None)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    picture = OUTPUT / f"{game}.png"
    page.screenshot(path=str(picture), full_page=True)
    page.close()
    assert problems == []
    assert requests == []
    return picture


def test_html_viewer_in_chromium(
    browser: Any, subtests: pytest.Subtests, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("html")
    for game in sorted(MATCHES):
        with subtests.test(game=game):
            picture = _view_game(browser, game, folder)
            assert picture.stat().st_size > 10_000


def test_move_list_banner_legend_links_and_layout(browser: Any, tmp_path: Path) -> None:
    """Issue 17: a clickable move list with each move's time, a result banner naming the bots
    in rank order, a legend, seat names never cut, `#seat=N` (and the older `#view=N+1`), and
    ten Xactika players with the current trick in a 1280x900 window."""
    played = play("xactika", tmp_path / "x.jsonl", seed=5, options=OPTIONS["xactika"])
    long_name = "a-bot-with-a-name-far-too-long-for-one-line-of-its-box"
    path = played.path
    path.write_text(path.read_text().replace('"name":"random"', f'"name":"{long_name}"'))
    assert not load(path).problems
    timeline = load(path)
    html = write_html(timeline, tmp_path / "x.html")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-step='0']")
    # Where it was played, in the line under the title (issue 27).
    assert played_on(timeline.header).startswith("played on ")
    assert played_on(timeline.header) in page.text_content("#meta")
    actions = [step for step in timeline.steps if step.seat is not None]
    moves = page.locator("#moves li")
    assert moves.count() == len(actions)
    pick = actions[len(actions) // 2]
    item = moves.nth(len(actions) // 2)
    assert f"{pick.elapsed_ms} ms" in item.text_content()
    item.click()
    assert page.evaluate("document.body.dataset.step") == str(pick.index)
    assert "now" in item.get_attribute("class")
    assert page.locator("#banner").is_hidden()
    # Mid-trick, the trick is on screen above the fold.
    trick = next(
        step.index
        for step in timeline.steps
        if step.seat is not None and step.text.startswith("play")
    )
    page.goto(html.as_uri() + f"#step={trick}")
    page.reload()
    page.wait_for_selector(f"body[data-step='{trick}']")
    box = page.locator("#piles .pile").first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 900
    # Names are never cut.
    for name in page.locator("#seats .seat .name").all():
        assert name.evaluate("n => n.scrollWidth <= n.clientWidth")
    assert long_name in page.text_content("#seats")
    page.keyboard.press("End")
    banner = page.locator("#banner")
    assert banner.is_visible()
    assert timeline.result is not None
    assert timeline.result.text in banner.text_content()
    ranked = sorted(timeline.result.seats, key=lambda s: (s.rank, s.seat))
    lines = banner.locator("li").all_text_contents()
    assert [line.split(" (seat ")[0].split(". ", 1)[1] for line in lines] == [
        s.name for s in ranked
    ]
    assert page.locator("#legend").is_visible()
    page.close()
    # Each address opened by a page of its own: a hash followed by a reload raced the address
    # the page writes as it moves (a timer), which on a loaded machine came in between.
    for address, view in (("#seat=1", 2), ("#view=3", 3), ("#step=0", 0)):
        fresh = browser.new_page(viewport={"width": 1280, "height": 900})
        fresh.goto(html.as_uri() + address)
        fresh.wait_for_selector(f"body[data-view='{view}']")
        fresh.close()


def test_a_challenge_s_match_says_so_under_its_title(browser: Any, tmp_path: Path) -> None:
    """Issue 45.5: the line under the title starts with the challenge the match was played
    for; a match of none says nothing of challenges."""
    marked = played(tmp_path / "c.jsonl", ChallengeMark(7, True))
    page = browser.new_page()
    page.goto(write_html(load(marked), tmp_path / "c.html").as_uri())
    page.wait_for_selector("body[data-step='0']")
    assert page.text_content("#meta").startswith("challenge 7 (ranked) · rules xix-")
    plain = played(tmp_path / "p.jsonl", None)
    page.goto(write_html(load(plain), tmp_path / "p.html").as_uri())
    page.wait_for_selector("body[data-step='0']")
    assert page.text_content("#meta").startswith("rules xix-")
