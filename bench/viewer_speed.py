"""How fast the replay viewers are on the longest match of any game: 10-player, 8-round Xactika.

Prints: the record's size; replaying it into a timeline; one table (the terminal stepper draws one
per key press, and rich's rendering of it); the HTML page's build time and size; and, when
chromium is installed, the page in headless chromium: time to load and draw the first step, and
per step drawn (mean, 99th percentile and worst over every step, in two views). Run:
`.venv/bin/python bench/viewer_speed.py`.
"""

from __future__ import annotations

import io
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import trio
from rich.console import Console

from croupier.bots import RandomBot, XactikaHeuristicBot
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.viewer import load, write_html
from referee.viewer.terminal import table_renderable

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def record(folder: Path) -> Path:
    game = get_game("xactika")
    options = parse_options(game, {"players": "10", "rounds": "8"})
    seats = [
        InProcessSeat(XactikaHeuristicBot() if seat % 2 else RandomBot(seat)) for seat in range(10)
    ]
    config = MatchConfig(
        game, options, seed=1, match_id="bench-xactika", time_control=TimeControl()
    )
    path = folder / "xactika.jsonl"
    trio.run(run_match, config, seats, path)
    return path


def browser(html: Path, steps: int) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        print("browser: chromium is not installed (make chromium)")
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        page = playwright.chromium.launch(executable_path=chromium, args=ARGS).new_page()
        page.goto(html.as_uri())
        page.wait_for_selector("body[data-step='0']")
        # From the request to the end of the load event, step 0 drawn, as the page measured it.
        loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        print(f"browser: page loaded with step 0 drawn in {loaded:.0f} ms")
        # Step through every step in both views inside the page, timing each draw to layout.
        timings = page.evaluate(
            """(steps) => {
              const out = [];
              for (const key of ["o", "1"]) {
                document.dispatchEvent(new KeyboardEvent("keydown", {key}));
                document.dispatchEvent(new KeyboardEvent("keydown", {key: "Home"}));
                for (let i = 0; i < steps - 1; i++) {
                  const t = performance.now();
                  document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}));
                  document.body.getBoundingClientRect();  // force layout
                  out.push(performance.now() - t);
                }
              }
              return out;
            }""",
            steps,
        )
        p99 = statistics.quantiles(timings, n=100)[98]
        print(
            f"browser: {len(timings)} steps drawn, mean {statistics.mean(timings):.2f} ms, "
            f"p99 {p99:.2f} ms, worst {max(timings):.2f} ms"
        )


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        path = record(folder)
        lines = len(path.read_text().splitlines())
        print(f"record: {path.stat().st_size / 1e3:.0f} kB, {lines} lines")
        started = time.perf_counter()
        timeline = load(path)
        print(f"timeline: {len(timeline.steps)} steps in {time.perf_counter() - started:.2f} s")
        middle = len(timeline.steps) // 2
        started = time.perf_counter()
        for viewer in timeline.views():
            timeline.table(middle, viewer)
        per_table = (time.perf_counter() - started) / len(timeline.views())
        console = Console(width=120, file=io.StringIO(), force_terminal=True)
        started = time.perf_counter()
        for viewer in timeline.views():
            console.print(table_renderable(timeline.table(middle, viewer)))
        drawn = (time.perf_counter() - started) / len(timeline.views())
        print(f"terminal: a table {1000 * per_table:.1f} ms, built and drawn {1000 * drawn:.1f} ms")
        started = time.perf_counter()
        html = write_html(timeline, folder / "xactika.html")
        print(
            f"html: {html.stat().st_size / 1e6:.2f} MB written in "
            f"{time.perf_counter() - started:.2f} s"
        )
        browser(html, len(timeline.steps))


if __name__ == "__main__":
    main()
