"""`croupier replay FILE --html OUT.html`: one self-contained page that steps through a match.

The page holds everything: its CSS and JavaScript inline, and the match as JSON built here from
the timeline, every step's table in every view (the same tables the terminal stepper draws). Equal
parts (a seat's box, a pile, a caption) are stored once and referred to by number, which keeps a
10-player Xactika game to a few megabytes. No network, no external assets: it opens from disk.
A ladder report's pages instead share the code and style from files beside them and carry their
match gzipped, about ten times smaller.
"""

from __future__ import annotations

import base64
import functools
import gzip
from collections.abc import Callable, Hashable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import orjson

from referee.errors import CroupierError
from referee.games.catalog import CATALOG
from referee.match.computer import played_on
from referee.match.records import ChallengeMark
from referee.version import VERSION
from referee.viewer.decision_log import DecisionLog
from referee.viewer.glyphs import readable
from referee.viewer.timeline import StepKind, Timeline


class _Parts:
    """Stores each distinct value once; `add` returns its number. Values are keyed by the frozen
    model objects themselves, so a repeated seat box or pile is neither converted nor stored
    again."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.numbers: dict[Hashable, int] = {}

    def add(self, key: Hashable, make: Callable[[], Any] | None = None) -> int:
        """The number of `key`'s value: `make()`, or `key` itself (a string, or a tuple that
        becomes a JSON list)."""
        number = self.numbers.get(key)
        if number is None:
            number = self.numbers[key] = len(self.values)
            self.values.append(key if make is None else make())
        return number


def viewer_data(
    timeline: Timeline,
    log: DecisionLog | None = None,
    only: int | None = None,
    marks: Mapping[int, Mapping[str, object]] | None = None,
) -> dict[str, Any]:
    """The match as the page reads it (documented in docs/records.md, "Looking at a record"),
    with a seat's `log` beside its decisions (the page inserts each line as text). With `only`
    a seat, that seat's view alone: its tables, its captions, its own moves and nothing else
    (a seat replay, issue 46.4), so that no card it could not see is in the page at all. `marks`:
    a review of `only`'s decisions by step (referee.review.marks), shown beside each."""
    if marks is not None and only is None:
        raise CroupierError("a review's marks go on its seat's replay: give its seat")
    parts = _Parts()
    views = timeline.views() if only is None else [only]
    steps: list[dict[str, Any]] = []
    logged = timeline.log_steps(log)
    for index, step in enumerate(timeline.steps):
        tables, captions = [], []
        drawn = timeline.tables(index) if only is None else [timeline.table(index, only)]
        for viewer, table in zip(views, drawn, strict=True):
            status = parts.add(table.status)
            seats = tuple(parts.add(box, box.to_json) for box in table.seats)
            piles = tuple(parts.add(pile, pile.to_json) for pile in table.piles)
            tables.append(parts.add((status, seats, piles)))
            captions.append(parts.add(tuple(timeline.caption(index, viewer))))
        position = timeline.positions[index]
        steps.append(
            {
                "table": tables,
                "caption": captions,
                "at": [position.major, position.minor, parts.add(position.label)],
                "seat": step.seat if step.kind is StepKind.ACTION else None,
            }
        )
        if index in logged:
            steps[-1]["log"] = logged[index]
        if marks is not None and index in marks:
            steps[-1]["review"] = marks[index]
    header = timeline.header
    return {
        "format": 1,
        "game": header.game,
        "title": CATALOG[header.game].title if header.game in CATALOG else header.game,
        "match": header.match_id,
        "challenge": str(mark) if (mark := ChallengeMark.of(header)) is not None else "",
        "rules": header.rules_version,
        "options": dict(sorted(header.options.items())),
        "started": header.started_at,
        "computer": played_on(header),
        "software": VERSION,
        "deck": timeline.view.deck.value,
        "major": timeline.view.major,
        "minor": timeline.view.minor,
        "names": list(timeline.names),
        "views": [timeline.view_name(viewer) for viewer in views],
        "result": timeline.result.text if timeline.result is not None else "",
        "ranking": _ranking(timeline),
        "moves": _moves(timeline, only),
        "problems": _problems(timeline, only),
        "parts": parts.values,
        "steps": steps,
        "log_seat": None if log is None else log.seat,
        "review_seat": None if marks is None else only,
    }


def _moves(timeline: Timeline, only: int | None) -> list[list[Any]]:
    """The move list: [step, seat, action text with cards as glyphs, elapsed ms, defaulted];
    `only` a seat's own (another's action reaches a seat as the events it was sent, if any)."""
    game = timeline.header.game
    return [
        [step.index, step.seat, readable(game, step.text), step.elapsed_ms, step.defaulted]
        for step in timeline.steps
        if step.kind is StepKind.ACTION and only in (None, step.seat)
    ]


#: What a seat replay says of a record that stops early: the replay's own words can name an
#: action of another seat.
STOPPED_EARLY = "the record could not be replayed to its end: it is shown as far as it goes"


def _problems(timeline: Timeline, only: int | None) -> list[str]:
    if only is None or not timeline.problems:
        return timeline.problems
    return [STOPPED_EARLY]


def _ranking(timeline: Timeline) -> list[list[Any]]:
    """The final ranking for the result banner: [rank, seat, name, score, retired], best first."""
    if timeline.result is None:
        return []
    seats = sorted(timeline.result.seats, key=lambda s: (s.rank, s.seat))
    return [[s.rank, s.seat, s.name, s.score, s.retired] for s in seats]


@functools.cache
def _asset(name: str) -> str:
    return resources.files("referee.viewer").joinpath("assets", name).read_text("utf-8")


#: The viewer's code and style, as files beside pages that share them (a ladder report's);
#: draw.js draws cards and tables, for the contest site's live matches too.
ASSETS = ("viewer.css", "draw.js", "viewer.js")


def render_html(
    timeline: Timeline,
    viewer: int | None = None,
    *,
    shared: bool = False,
    links: Sequence[tuple[str, str]] = (),
    log: DecisionLog | None = None,
    seat_only: bool = False,
    assets: str = "",
    marks: Mapping[int, Mapping[str, object]] | None = None,
) -> str:
    """The page as text; it opens on `viewer`'s view (None: everything). A page stands alone
    (style, code and match inline), or with `shared` links the viewer's code and style from
    files beside it (`write_assets`), or under the URL `assets` (a site's), and carries its
    match gzipped: what a report of thousands of matches needs. Either opens from disk with no
    network. `links` (href, text) go in a bar above the match: the way back to the site that
    serves the page. `log`: a seat's lines beside its decisions
    (referee.viewer.decision_log). `seat_only`: `viewer`'s view and nothing else, a seat
    replay (what `croupier replay --seat S --log FILE --html` and the contest desk serve);
    `marks`, a review of that seat's decisions on it (`croupier review --html`)."""
    timeline.check_viewer(viewer)
    if seat_only and viewer is None:
        raise CroupierError("a seat replay is one seat's: give its seat")
    data = viewer_data(timeline, log, viewer if seat_only else None, marks)
    data["start_view"] = 0 if viewer is None or seat_only else viewer + 1
    # orjson: a report encodes thousands of pages of ~130 KB, five times faster than json.
    encoded = orjson.dumps(data)
    text = encoded.decode()
    if shared:
        kind = "application/gzip+base64"
        # Level 6: 3% bigger than 9 for a third of its time (a report packs thousands).
        packed = gzip.compress(encoded, compresslevel=6, mtime=0)
        payload = base64.b64encode(packed).decode()
        where = _escape(assets, quote=True)
        style = f'<link rel="stylesheet" href="{where}viewer.css">'
        code = f'<script src="{where}draw.js"></script>\n<script src="{where}viewer.js"></script>'
    else:
        kind = "application/json"
        # Inside <script>, "</" could end the element early; "<\/" means the same to JSON.
        payload = text.replace("</", "<\\/").replace("<!--", "<\\!--")
        style = f"<style>{_asset('viewer.css')}</style>"
        code = f"<script>{_asset('draw.js')}\n{_asset('viewer.js')}</script>"
    title = f"{data['title']} · {timeline.header.match_id} · croupier replay"
    page = _asset("viewer.html")
    for key, value in (
        ("__STYLE__", style),
        ("__CODE__", code),
        ("__TITLE__", _escape(title)),
        ("__DATA_TYPE__", kind),
        ("__DATA__", payload),
        ("__LINKS__", _links(links)),
    ):
        page = page.replace(key, value, 1)
    return page


def write_assets(folder: Path) -> None:
    """Write the viewer's code and style into `folder`, for the pages there that share them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        (folder / name).write_text(_asset(name), encoding="utf-8")


def _links(links: Sequence[tuple[str, str]]) -> str:
    if not links:
        return ""
    anchors = " · ".join(
        f'<a href="{_escape(href, quote=True)}">{_escape(text)}</a>' for href, text in links
    )
    return f'<nav id="site-links" aria-label="site">{anchors}</nav>'


def _escape(text: str, *, quote: bool = False) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace('"', "&quot;") if quote else text


def write_html(
    timeline: Timeline,
    out: Path,
    viewer: int | None = None,
    *,
    shared: bool = False,
    log: DecisionLog | None = None,
    seat_only: bool = False,
    marks: Mapping[int, Mapping[str, object]] | None = None,
) -> Path:
    """Write the viewer page for this match to `out` (folders are created); returns `out`."""
    page = render_html(timeline, viewer, shared=shared, log=log, seat_only=seat_only, marks=marks)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page, encoding="utf-8")
    except OSError as error:
        reason = (error.strerror or str(error)).lower()
        raise CroupierError(f"cannot write {str(out)!r}: {reason}") from None
    return out
