"""`croupier ladder report DB --html OUT_DIR` on a real ladder: the example XIX ladder scaled down,
with a third bot that makes an illegal move in every match, played by real bot processes.

The index shows every bot with the very numbers of `standings_of`, links every match to a viewer
page that exists, and plots one series per bot with one point per committed match, the last one
the standings' rating; a second run builds only missing pages or those whose record changed; a
pool builds the same pages; bad input exits 2; a multiplayer ladder still running plots the
ratings its standings would have shown; the page works in headless chromium.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from croupier.v1 import common_pb2
from referee import transport
from referee.cli import app
from referee.ladder import load, run_ladder, standings_of, verify_ladder
from referee.ratings.head_to_head import cell_text
from referee.ratings.standings import Plan, Standings, margin_table
from referee.ratings.standings import table as standings_table
from referee.results.database import Finished, Played, Store
from referee.results.matches import ScheduledMatch
from referee.viewer import load as load_timeline
from referee.viewer import render_html, viewer_data
from referee.web.report import CACHE, plotted, write_report
from referee.web.report_index import PAGES
from tests.viewer_helpers import page_data

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


# --- a small HTML tree, enough to read our own pages ------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag: str | None = None, **attrs: str) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                if (tag is None or child.tag == tag) and all(
                    child.attrs.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items()
                ):
                    yield child
                yield from child.all(tag, **attrs)

    def one(self, tag: str | None = None, **attrs: str) -> Node:
        found = list(self.all(tag, **attrs))
        assert len(found) == 1, (tag, attrs, len(found))
        return found[0]


class _Builder(HTMLParser):
    VOID = frozenset({"meta", "link", "br", "img", "input", "hr", "col", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        while self.stack[-1].tag != tag:
            self.stack.pop()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(path: Path) -> Node:
    return parse_text(path.read_text("utf-8"))


def parse_text(text: str) -> Node:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root


def rendered(browser: Any, path: Path) -> Node:
    """The page at `path` as chromium shows it from disk, once the site's script has drawn the
    data embedded in it (with no script error, and nothing fetched from anywhere else)."""
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda r: problems.append(r.url) if not r.url.startswith("file:") else None)
    try:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-version]")
        return parse_text(page.content())
    finally:
        page.close()
        assert problems == []


# --- the ladder -------------------------------------------------------------------------------


def _toml(data: dict[str, Any]) -> str:
    """Enough TOML for a ladder file: scalars, tables of scalars, arrays of such tables."""
    lines = [f"{k} = {json.dumps(v)}" for k, v in data.items() if not isinstance(v, dict | list)]
    for key, value in data.items():
        if isinstance(value, dict):
            lines += [f"[{key}]", *(f"{k} = {json.dumps(v)}" for k, v in value.items())]
        elif isinstance(value, list):
            for table in value:
                lines += [f"[[{key}]]", *(f"{k} = {json.dumps(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/ladders/xix.toml with 2 matches per pairing and a third bot that answers its
    third request of every match with an illegal index: 6 matches, 4 with a fault."""
    folder = tmp_path_factory.mktemp("ladder")
    data = tomllib.loads((ROOT / "examples" / "ladders" / "xix.toml").read_text())
    data |= {
        "name": "mini",
        "root": str(ROOT),
        "database": str(folder / "ladder.sqlite"),
        "records": str(folder / "records"),
        "matches_per_pairing": 2,
        "seed": "report",
    }
    data["time_control"] = {"move_ms": 5000, "bank_ms": 10000}
    data["bot"] = [
        *data["bot"],
        {"name": "faulty", "command": "{python} tests/bots/misbehaving.py out_of_range"},
    ]
    path = folder / "mini.toml"
    path.write_text(_toml(data))
    summary = transport.run(run_ladder, load(path))
    assert summary.complete
    return folder / "ladder.sqlite"


def copy_of(database: Path, tmp_path: Path) -> Path:
    """The ladder's folder copied (record paths are relative to the database)."""
    shutil.copytree(database.parent, tmp_path / "ladder")
    return tmp_path / "ladder" / database.name


def committed_order(database: Path) -> list[int]:
    with sqlite3.connect(database) as db:
        return [n for (n,) in db.execute("SELECT number FROM matches ORDER BY finished_at, number")]


def ratings_data(index: Node) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(index.one("script", id="data").text())["report"]["ratings"]
    return data


def check_standings(index: Node, standings: Standings) -> None:
    """Each standings row of the page holds exactly what `standings_of` says, and shows it as
    `croupier ladder standings` does, cell for cell."""
    table = index.one("table", id="standings")
    rows = list(table.all("tr"))[1:]
    assert [row.attrs["data-bot"] for row in rows] == [row.bot for row in standings.rows]
    # The CLI's standings, then its margins table's margin columns (a second table there, so that
    # each fits a terminal; one table here).
    cli = standings_table(standings).columns
    margins = margin_table(standings)
    cli += margins.columns[2:] if margins is not None else []
    assert [th.text() for th in table.all("th")] == [str(c.header) for c in cli]
    shown = [[td.text() for td in row.all("td")] for row in rows]
    columns = [list(map(str, column.cells)) for column in cli]
    assert shown == [list(cells) for cells in zip(*columns, strict=True)]
    for node, row in zip(rows, standings.rows, strict=True):
        cells = {td.attrs["data-key"]: td.attrs["data-value"] for td in node.all("td")}
        assert json.loads(cells["rank"]) == [row.rank_top, row.rank_bottom]  # shared (issue 44)
        assert cells["bot"] == row.bot
        assert float(cells["rating"]) == row.rating
        assert json.loads(cells["interval"]) == [row.low, row.high]
        assert json.loads(cells["rank_interval"]) == [row.rank_low, row.rank_high]
        assert int(cells["matches"]) == row.matches
        assert float(cells["score"]) == row.score
        assert float(cells["points"]) == row.points
        assert float(cells["margin"]) == row.margin
        if row.corrected is not None:
            assert float(cells["corrected"]) == row.corrected
        faults = dict(row.faults) | ({"restarted": row.restarts} if row.restarts else {})
        assert json.loads(cells["faults"]) == faults


def check_head_to_head(index: Node, standings: Standings) -> None:
    """The head-to-head matrix: a row per bot in standings order, each met pair's cell the
    score `standings_of` has, its text as the CLI's, its interval in the title, shaded."""
    table = index.one("table", id="head-to-head")
    rows = list(table.one("tbody").all("tr"))
    assert [row.attrs["data-a"] for row in rows] == [row.bot for row in standings.rows]
    by_pair = {(p.a, p.b): p for p in standings.head_to_head}
    seen = 0
    for row in rows:
        for td in row.all("td"):
            if "data-b" not in td.attrs:
                continue
            pair = by_pair[row.attrs["data-a"], td.attrs["data-b"]]
            assert float(td.attrs["data-value"]) == round(pair.score, 4)
            assert td.text() == cell_text(pair) and f"{pair.matches} match" in td.attrs["title"]
            assert td.attrs["class"] == ("significant" if pair.significant else "even")
            assert "--shade:hsl(" in td.attrs["style"]
            seen += 1
    assert seen == len(by_pair) == 6  # three bots, every ordered pair met


def check_plot(index: Node, standings: Standings, order: list[int]) -> None:
    """One series per bot, one point per committed match (commit order), ending on the
    standings' ratings; the SVG draws each series' rated points."""
    data = ratings_data(index)
    assert data["numbers"] == order
    series = {s["bot"]: s for s in data["series"]}
    assert sorted(series) == sorted(row.bot for row in standings.rows)
    plot = index.one("svg", id="plot")
    drawn = {g.attrs["data-bot"]: g for g in plot.all("g", class_="series")}
    assert sorted(drawn) == sorted(series)
    for row in standings.rows:
        values = series[row.bot]["values"]
        assert len(values) == len(order)
        assert values[-1] == row.rating
        path = drawn[row.bot].one("path", class_="line").attrs["d"]
        assert len(re.findall(r"[ML]", path)) == sum(v is not None for v in values)


# --- tests --------------------------------------------------------------------------------------


def test_report_of_a_real_ladder(ladder: Path, browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = runner.invoke(app, ["ladder", "report", str(ladder), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert "6 matches; 6 match pages written, 0 kept" in result.output
    index = rendered(browser, out / "index.html")
    standings = standings_of(ladder)
    summary = index.one("dl", id="summary").text()
    assert "mini" in index.one("h1").text() and "XIX" in summary
    assert standings.seed_sha256 in summary and len(standings.seed_sha256) == 64
    assert index.one("code", id="seed").text() == "report"  # revealed: the ladder is over
    check_standings(index, standings)
    check_head_to_head(index, standings)
    faults = {row.bot: row.faults for row in standings.rows}
    assert faults == {"heuristic": {}, "random": {}, "faulty": {"illegal_action": 4}}
    check_plot(index, standings, committed_order(ladder))

    with sqlite3.connect(ladder) as db:
        ids = dict(db.execute("SELECT number, match_id FROM matches"))
    rows = {
        int(tr.attrs["id"].removeprefix("match-")): tr for tr in index.all("tr") if "id" in tr.attrs
    }
    assert sorted(rows) == sorted(ids) == list(range(1, 7))
    fault_links = 0
    for number, row in rows.items():
        link = row.one("a", class_="viewer")
        assert link.text() == ids[number]
        assert link.attrs["href"] == f"{PAGES}/{ids[number]}.html"
        page = out / link.attrs["href"]
        assert page.is_file() and page_data(page)["match"] == ids[number]
        hrefs = [a.attrs["href"] for a in row.all("a")]
        assert f"{PAGES}/{ids[number]}.html#seat=0" in hrefs  # seat 0's view
        assert f"{PAGES}/{ids[number]}.html#seat=1" in hrefs
        for href in hrefs:
            assert (out / href.partition("#")[0]).is_file()
        steps = [h for h in hrefs if "#step=" in h]
        fault_links += len(steps)
        assert ("faulty" in row.text() and "illegal_action" in row.text()) == bool(steps)
        # each fault's wall and CPU time, to tell a starved bot from a slow one
        assert ("(wall " in row.text() and " ms, cpu " in row.text()) == bool(steps)
    assert fault_links == 4

    # Self-contained: nothing is fetched, every link stays in the folder.
    text = (out / "index.html").read_text("utf-8")
    assert "src=" not in text and "<link" not in text
    assert all(not re.match(r"[a-z]+:|//", a.attrs["href"]) for a in index.all("a"))


def test_regenerating_builds_only_missing_or_changed_pages(
    ladder: Path, browser: Any, tmp_path: Path
) -> None:
    database = copy_of(ladder, tmp_path)
    out = tmp_path / "site"
    first = write_report(database, out, pool=False)
    assert (first.pages_written, first.pages_kept, first.points_computed) == (6, 0, 6)
    pages = {p.name: p.stat().st_mtime_ns for p in (out / PAGES).glob("*.html")}
    assert len(pages) == 6

    again = write_report(database, out, pool=False)
    assert (again.pages_written, again.pages_kept, again.points_computed) == (0, 6, 0)
    assert {p.name: p.stat().st_mtime_ns for p in (out / PAGES).glob("*.html")} == pages
    assert again.problems == []

    (out / PAGES / "mini-00002.html").unlink()
    missing = write_report(database, out, pool=False)
    assert (missing.pages_written, missing.pages_kept, missing.points_computed) == (1, 5, 0)

    # A record that changed and was committed again (same match id, a new SHA-256): its page
    # is rebuilt, and the ratings from its place in the commit order on.
    record = database.parent / "records" / "mini-00003.jsonl"
    text = record.read_text().replace('"startedAt":"', '"startedAt":"1999', 1)
    record.write_text(text)
    digest = hashlib.sha256(text.encode()).hexdigest()
    with sqlite3.connect(database) as db:
        db.execute("UPDATE matches SET record_sha256 = ? WHERE number = 3", (digest,))
    changed = write_report(database, out, pool=False)
    assert (changed.pages_written, changed.pages_kept) == (1, 5)
    assert changed.points_computed == 6 - committed_order(database).index(3)
    assert page_data(out / PAGES / "mini-00003.html")["started"].startswith("1999")

    # A record that is not the one committed gets no page: a problem, listed, not an error.
    record.write_text(text.replace('"startedAt":"1999', '"startedAt":"2000', 1))
    (out / PAGES / "mini-00003.html").unlink()
    result = runner.invoke(app, ["ladder", "report", str(database), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: match mini-00003: record" in result.output
    assert "is not the one committed" in result.output
    index = rendered(browser, out / "index.html")
    assert "is not the one committed" in index.one("section", id="problems").text()
    assert not list(index.one("tr", id="match-3").all("a"))
    assert not (out / PAGES / "mini-00003.html").exists()
    check_standings(index, standings_of(database))

    # Another ladder into the same folder: the old ladder's pages go.
    cache = json.loads((out / CACHE).read_text())
    cache["pages"]["old-00001"] = {"sha256": "0" * 64, "page": "old-00001.html"}
    (out / CACHE).write_text(json.dumps(cache))
    (out / PAGES / "old-00001.html").write_text("old")
    write_report(database, out, pool=False)
    assert not (out / PAGES / "old-00001.html").exists()


def test_a_process_pool_builds_the_same_pages(ladder: Path, tmp_path: Path) -> None:
    here = write_report(ladder, tmp_path / "here", pool=False)
    pooled = write_report(ladder, tmp_path / "pool", workers=2, pool=True)
    assert here.processes == 1 and pooled.processes == 2
    assert pooled.pages_written == 6 and pooled.problems == []
    for page in (tmp_path / "here" / PAGES).glob("*.html"):
        assert page.read_bytes() == (tmp_path / "pool" / PAGES / page.name).read_bytes()
    assert ratings_data(parse(here.index)) == ratings_data(parse(pooled.index))
    forced = write_report(ladder, tmp_path / "pool", workers=2, force=True)
    assert forced.pages_written == 6 and forced.points_computed == 6


def test_bad_input_exits_2(ladder: Path, tmp_path: Path) -> None:
    def report(database: Path, out: Path) -> str:
        result = runner.invoke(app, ["ladder", "report", str(database), "--html", str(out)])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        return result.output

    assert "no ladder database at" in report(tmp_path / "absent.sqlite", tmp_path / "a")
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all " * 100)
    assert "is not a ladder database" in report(text, tmp_path / "b")
    with sqlite3.connect(tmp_path / "other.sqlite") as db:
        db.execute("CREATE TABLE t (x)")
    assert "is not a ladder database" in report(tmp_path / "other.sqlite", tmp_path / "c")
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert "cannot write the report into" in report(ladder, blocked)
    missing = runner.invoke(app, ["ladder", "report", str(ladder)])
    assert missing.exit_code == 2 and "--html" in missing.output


def test_multiplayer_ladder_still_running(browser: Any, tmp_path: Path) -> None:
    """Xactika at tables of four with duplicate deals, 3 of 4 deals committed and the last one
    half, no records on disk, in a database from before the batch fit (rating "openskill"): the
    batch fit rates complete deals only; every missing record is a problem and leaves its match
    unlinked."""
    database = tmp_path / "ladder.sqlite"
    bots = ("a", "b", "c")
    plan = Plan(
        "os", "xactika", {"players": "4", "rounds": "2"}, bots, "openskill", True, 4, "round-robin"
    )
    seats = ("a", "b", "c", "a")
    schedule = []
    for deal in range(4):
        for rotation in range(4):
            number = deal * 4 + rotation + 1
            turned = tuple(seats[(s - rotation) % 4] for s in range(4))
            sides = tuple(bots.index(bot) for bot in turned)
            schedule.append(
                ScheduledMatch(number, 1, 1, deal + 1, rotation, deal, turned, sides, bots)
            )
    store = Store(database, create=True)
    store.initialise({"plan": plan.to_json(), "seed_sha256": "ab" * 32}, schedule)
    for match in schedule[:14]:
        scores = [(match.number * 7 + 3 * s) % 11 for s in range(4)]
        ranks = [1 + sum(o > x for o in scores) for x in scores]
        result = common_pb2.Result(text=f"scores {scores}")
        for seat in range(4):
            result.seats.add(seat=seat, score=scores[seat], rank=ranks[seat])
        faults = (
            (common_pb2.Fault(seat=1, reason=common_pb2.FAULT_REASON_TIMEOUT, detail="slow"),)
            if match.number % 5 == 0
            else ()
        )
        store.commit(
            Finished(
                match,
                f"os-{match.number:05d}",
                tmp_path / "records" / f"os-{match.number:05d}.jsonl",
                "0" * 64,
                result,
                faults,
                1.0,
            )
        )
    store.close()
    out = tmp_path / "site"
    report = write_report(database, out, pool=False)
    assert report.pages_written == 0 and len(report.problems) == 14
    assert all("cannot read its record" in problem for problem in report.problems)
    index = rendered(browser, out / "index.html")
    standings = standings_of(database)
    assert "14 of 16 committed (running)" in index.one("dl", id="summary").text()
    assert "revealed when the ladder ends" in index.one("dl", id="summary").text()
    check_standings(index, standings)
    check_plot(index, standings, committed_order(database))
    values = ratings_data(index)["series"][0]["values"]
    assert values[:3] == [None, None, None]  # nobody is rated before the first deal completes
    # One complete deal rates but gives no interval (issue 44), so it is not drawn; two do.
    assert values[3:7] == [None] * 4 and values[7] is not None
    assert values[8:11] == [values[7]] * 3
    assert values[-2:] == [values[11]] * 2  # the last deal is not complete: no change
    assert not list(index.one("table", id="matches").all("a"))
    assert "timeout" in index.one("tr", id="match-5").text()


def test_report_in_chromium(ladder: Path, browser: Any, tmp_path: Path) -> None:
    # `ladder` first: it runs a referee (asyncio.run), which cannot start beside a live browser.
    out = tmp_path / "site"
    write_report(ladder, out, pool=False)
    problems: list[str] = []
    requests: list[str] = []
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda r: requests.append(r.url) if not r.url.startswith("file:") else None)
    page.goto((out / "index.html").as_uri())

    box = page.locator("#hit").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
    tip = page.locator("#tip")
    assert tip.is_visible()
    assert "after 6 of 6 matches" in tip.text_content()
    for row in standings_of(ladder).rows:
        assert row.bot in tip.text_content()
    page.mouse.click(box["x"] + 2, box["y"] + 5)
    first = committed_order(ladder)[0]
    assert page.evaluate("location.hash") == f"#match-{first}"
    page.click(".legend .key[data-bot='random']")
    assert page.locator(".series[data-bot='random']").is_hidden()
    page.fill("#filter", "faulty illegal")
    assert page.locator("#matches tbody tr:visible").count() == 4

    page.click("#matches .fault a >> nth=0")  # a fault, at its step, in the viewer
    page.wait_for_selector("body[data-step]")
    href = page.evaluate("location.href")
    assert re.search(r"/matches/mini-\d{5}\.html#step=\d+$", href), href
    step = int(href.rpartition("#step=")[2].partition("&")[0])
    assert page.evaluate("document.body.dataset.step") == str(step)
    assert "illegal" in page.text_content("#caption")
    page.go_back()
    page.click("#match-2 .seats a >> nth=1")  # seat 1's view of match 2
    page.wait_for_selector("body[data-step='0']")
    assert page.evaluate("document.body.dataset.view") == "2"

    # With the matches on two index pages, a point of the plot leads to the page listing its
    # match (issue 24.6).
    write_report(ladder, tmp_path / "paged", pool=False, page_size=4)
    page.goto((tmp_path / "paged" / "index.html").as_uri())
    last = committed_order(ladder)[-1]
    box = page.locator("#hit").bounding_box()
    page.mouse.click(box["x"] + box["width"] - 2, box["y"] + 5)
    where = "index.html" if last <= 4 else "index-2.html"
    page.wait_for_url(re.compile(f"/{where}#match-{last}$"))
    assert page.locator(f"#match-{last}").is_visible()
    page.close()
    assert problems == []
    assert requests == []


def test_match_pages_share_the_viewer_and_carry_their_match_gzipped(
    ladder: Path, tmp_path: Path
) -> None:
    # Issue 17: a 10,000-match report must stay small; each page once carried the whole viewer.
    out = tmp_path / "site"
    write_report(ladder, out, pool=False)
    assert sorted(p.name for p in (out / PAGES).glob("viewer.*")) == ["viewer.css", "viewer.js"]
    store = Store(ladder, create=False)
    records = {match_id: path for _, match_id, path, _ in store.records()}
    store.close()
    for match_id, record in records.items():
        page = out / PAGES / f"{match_id}.html"
        alone = render_html(load_timeline(record))
        assert page.stat().st_size * 3 < len(alone.encode())
        assert '<script src="viewer.js"></script>' in page.read_text()
        assert page_data(page)["steps"] == viewer_data(load_timeline(record))["steps"]


def test_a_fault_cell_counts_a_reason_rather_than_repeating_it(tmp_path: Path) -> None:
    # Issue 24.9: the web site's cell read "bot: disconnected; bot: disconnected; ...".
    played = Played(
        1, "m-1", tmp_path / "m-1.jsonl", "0" * 64, "seat 1 wins", "retired", 1.0, "now",
        ((0, "disconnected", "gone"), (1, "timeout", "late"), (0, "disconnected", "again")),
    )  # fmt: skip
    assert played.fault_groups() == {
        (0, "disconnected"): ["gone", "again"],
        (1, "timeout"): ["late"],
    }


# --- verify at scale (issue 24.6) --------------------------------------------------------------


def recommit(database: Path, record: Path) -> None:
    """Commit `record`'s current bytes, as a dishonest organiser would after changing it."""
    digest = hashlib.sha256(record.read_bytes()).hexdigest()
    with sqlite3.connect(database) as db:
        changed = db.execute(
            "UPDATE matches SET record_sha256 = ? WHERE match_id = ?", (digest, record.stem)
        )
        assert changed.rowcount == 1


def test_verify_on_every_core_replays_only_what_it_never_replayed(
    ladder: Path, tmp_path: Path
) -> None:
    database = copy_of(ladder, tmp_path)
    cache = tmp_path / "cache" / "replayed.sqlite"
    first = verify_ladder(database, workers=2, cache=cache)
    assert first.ok and first.matches == first.records_verified == 6
    assert first.records_cached == 0
    again = verify_ladder(database, workers=2, cache=cache)
    assert again.ok and again.records_verified == again.records_cached == 6
    # The hash is checked every time: a changed record is caught with the cache too.
    records = sorted((database.parent / "records").glob("*.jsonl"))
    lines = [json.loads(line) for line in records[0].read_text().splitlines()]
    action = next(line for line in lines if "action" in line)
    action["action"]["index"] = action["action"].get("index", 0) + 1
    records[0].write_text("".join(json.dumps(line) + "\n" for line in lines))
    changed = verify_ladder(database, workers=2, cache=cache)
    assert any("is not the one committed" in p for p in changed.problems)
    # Committed again with its new hash: new bytes, so replayed again, and the replay fails.
    recommit(database, records[0])
    replayed = verify_ladder(database, workers=2, cache=cache)
    assert replayed.records_cached == 5 and replayed.records_verified == 5
    (problem,) = replayed.problems
    assert problem.startswith(f"{records[0].stem}: record ") and "committed" not in problem
    # The seed in a header is checked against the schedule every time, replay or not.
    header = json.loads(records[1].read_text().splitlines()[0])
    header["header"]["seed"] = "1"
    text = records[1].read_text().split("\n", 1)[1]
    records[1].write_text(json.dumps(header) + "\n" + text)
    recommit(database, records[1])
    seeds = verify_ladder(database, replay=False, cache=cache)
    assert any("record seed differs from the schedule's" in p for p in seeds.problems)


def test_verify_cli_takes_workers_and_says_what_it_replayed_before(
    ladder: Path, tmp_path: Path
) -> None:
    database = copy_of(ladder, tmp_path)
    command = ["ladder", "verify", str(database), "--workers", "2"]
    cold = runner.invoke(app, command)
    assert cold.exit_code == 0, cold.output
    assert "6 matches: records hashed, 6 replayed; seed and deals checked" in cold.output
    warm = runner.invoke(app, command)
    assert "6 replayed (6 unchanged since an earlier replay)" in warm.output
    full = runner.invoke(app, [*command, "--no-cache"])
    assert "6 matches: records hashed, 6 replayed; seed" in full.output


# --- the report at scale (issue 24.6) ----------------------------------------------------------


def test_a_refresh_notices_a_record_changed_or_gone_since(
    ladder: Path, browser: Any, tmp_path: Path
) -> None:
    database = copy_of(ladder, tmp_path)
    out = tmp_path / "site"
    assert write_report(database, out, pool=False).pages_written == 6
    records = database.parent / "records"
    changed, gone = records / "mini-00003.jsonl", records / "mini-00004.jsonl"
    original = changed.read_bytes()
    changed.write_bytes(original.replace(b'"startedAt":"', b'"startedAt":"1999', 1))
    gone.unlink()
    for _ in range(2):  # and again: a problem is not forgotten once reported
        refresh = write_report(database, out, pool=False)
        assert (refresh.pages_written, refresh.pages_kept) == (0, 4)
        assert refresh.problems == [
            "match mini-00003: record 'mini-00003.jsonl' is not the one committed "
            "(no page written)",
            "match mini-00004: cannot read its record 'mini-00004.jsonl': No such file or "
            "directory",
        ]
        assert not (out / PAGES / "mini-00003.html").exists()
        assert not (out / PAGES / "mini-00004.html").exists()
        index = rendered(browser, out / "index.html")
        assert not list(index.one("tr", id="match-3").all("a"))
        assert "not the one committed" in index.one("section", id="problems").text()
    changed.write_bytes(original)  # put back as committed: its page again
    restored = write_report(database, out, pool=False)
    assert (restored.pages_written, restored.pages_kept) == (1, 4)
    assert len(restored.problems) == 1 and "mini-00004" in restored.problems[0]


def test_the_index_lists_the_matches_a_page_at_a_time(
    ladder: Path, browser: Any, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    report = write_report(ladder, out, pool=False, page_size=4)
    assert report.index_pages == 2
    first, second = rendered(browser, out / "index.html"), rendered(browser, out / "index-2.html")

    def listed(page: Node) -> list[int]:
        rows = page.one("table", id="matches").all("tr")
        return [int(tr.attrs["id"].removeprefix("match-")) for tr in rows if "id" in tr.attrs]

    assert listed(first) == [1, 2, 3, 4] and listed(second) == [5, 6]
    assert first.one("a", rel="next").attrs["href"] == "index-2.html"
    assert second.one("a", rel="prev").attrs["href"] == "index.html"
    assert "matches 5–6 of 6" in second.one("nav", class_="pager").text()
    assert not list(second.all(id="standings"))  # the standings and plot: page 1 only
    data = ratings_data(first)
    assert data["ks"] == list(range(1, 7))
    for number, page in zip(data["numbers"], data["pages"], strict=True):
        assert number in listed(first if page == 1 else second)
    # Fewer pages next time (another page size here): the extra page goes.
    assert write_report(ladder, out, pool=False).index_pages == 1
    assert not (out / "index-2.html").exists()
    assert not list(rendered(browser, out / "index.html").all("nav", class_="pager"))


def test_the_plot_has_at_most_a_thousand_points_and_keeps_them_as_the_ladder_grows() -> None:
    assert plotted(0) == [] and plotted(5) == [1, 2, 3, 4, 5]
    assert plotted(1000) == list(range(1, 1001))
    assert plotted(1001) == [*range(2, 1001, 2), 1001]
    assert plotted(10_000) == [*range(16, 10_000, 16), 10_000]
    for n in (1500, 2000, 4001, 9999):
        ks = plotted(n)
        assert len(ks) <= 1001 and ks[-1] == n and ks == sorted(set(ks))
        # A point once computed stays: the next n's points but its last were there before.
        assert set(plotted(n + 1)[:-1]) <= set(ks)
