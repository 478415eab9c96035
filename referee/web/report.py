"""`croupier ladder report DB --html OUT_DIR`: a ladder as a folder of web pages to publish.

`OUT_DIR/index.html` is the web site's standings page with the ladder's data embedded
(`report_index`): the ladder (name, game, options, the seed commitment and, once revealed, the
seed), its standings (the very numbers of `croupier ladder standings`), a plot of every bot's
rating after each committed match, and every match with a link to its replay viewer,
`OUT_DIR/matches/<match id>.html` (the replay viewer, its code and style shared from
`OUT_DIR/matches/draw.js`, `viewer.js` and `viewer.css`, its match gzipped inside the page).
The folder opens from disk, or from any static web server, with no network.

Viewer pages are what cost (up to ~1.5 s each for long games), so a regeneration writes only the
pages that are missing or whose committed record changed, and builds many at once in a process
pool. `OUT_DIR/.croupier-report.json` remembers what each page was built from (the committed
SHA-256, and the record file's size and modification time), and the ratings over time already
computed, so reporting on a running ladder again costs only its new matches; a record changed or
gone since its page was built is checked again, and loses its page with a problem reported.
The index lists PAGE_SIZE matches a page (index.html, index-2.html, ...), and the plot at most
about PLOT_POINTS points (a point costs a fit over every match before it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.errors import CroupierError
from referee.ladder.pool import process_pool
from referee.machine import cores
from referee.ratings.fits import Rating
from referee.ratings.standings import (
    Plan,
    from_store,
    ratings_over,
)
from referee.results.database import Played, Store, StoreError, fault_name
from referee.results.matches import MatchResult
from referee.version import VERSION
from referee.viewer import load, write_assets, write_html
from referee.web.report_index import (
    PAGE_SIZE,
    PAGES,
    PLOT_POINTS,
    History,
    LadderData,
    Point,
    page_name,
    render_index,
)

#: What the last report into OUT_DIR built from what (see the module's docstring).
CACHE = ".croupier-report.json"
_CACHE_FORMAT = 2
#: Pages a pool worker builds per task (fewer when there are few pages).
PAGE_BATCH = 25
#: Seconds of work (estimated) from which a process pool pays for its start (~0.8 s for each
#: spawned process to import croupier). Estimates, measured on 2 cores: a viewer page costs 3 to
#: 10 us per byte of record (XIX 3, Xactika with 4 players 4, with 10 players 10); a point of
#: the ratings over time, per match before it, 2.5 us with Elo and 20 to 75 us with the batch
#: Plackett-Luce fit, its bootstrap included (each method's `point_cost`).
PARALLEL_SECONDS = 3.0
_PAGE_COST = 4e-6


@dataclass(frozen=True, slots=True)
class PageOutcome:
    """What building one viewer page gave (in a pool worker or here)."""

    match_id: str
    written: bool
    problems: tuple[str, ...] = ()
    #: The record's size and modification time (ns) when it was read for the page.
    stat: tuple[int, int] = (0, 0)
    #: (step, seat, reason) of each fault, so the report links to the step it happened at.
    #: (step, seat, reason, wall ms, CPU ms or -1 when not recorded) of each fault.
    fault_steps: tuple[tuple[int, int, str, int, int], ...] = ()


@dataclass
class Report:
    """What `write_report` did. `problems` (a missing or altered record, a record that does
    not replay) are also listed in the page; the report is written all the same."""

    index: Path
    matches: int
    pages_written: int
    pages_kept: int
    #: Points of the ratings over time computed now (the others came from the cache).
    points_computed: int
    #: Processes that built pages: 1 means this one, more a pool.
    processes: int
    seconds: float
    problems: list[str] = field(default_factory=list)
    #: index.html and index-2.html, ...: the match list, PAGE_SIZE matches a page.
    index_pages: int = 1


def write_report(
    database: Path,
    out: Path,
    *,
    workers: int | None = None,
    force: bool = False,
    pool: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    revoked: frozenset[str] = frozenset(),
    page_size: int = PAGE_SIZE,
) -> Report:
    """Write the report on the ladder in `database` (finished or still running) into `out`.

    Only missing pages and those whose committed record changed are built (all of them with
    `force`), by up to `workers` processes (default: one per CPU) when the work is worth a
    process pool (`pool`: None to estimate, True or False to decide). `progress(done, total)` is
    called as each page, and each chunk of the ratings over time, is done; bots in `revoked`
    (a contest's revoked accounts) are marked in the standings. The index lists `page_size`
    matches a page. Raises CroupierError
    for a database that is not a ladder's or an `out` that cannot be written; a bad record is a
    problem in the report, not an error."""
    started = time.perf_counter()
    data = _read(database)
    plan = data.standings.plan
    try:
        write_assets(out / PAGES)  # the viewer's code and style, shared by every match page
    except OSError as error:
        raise CroupierError(f"cannot write the report into {str(out)!r}: {error}") from None
    cache = {} if force else _load_cache(out)
    known_pages: dict[str, Any] = {
        match_id: entry
        for match_id, entry in cache.get("pages", {}).items()
        if isinstance(entry, dict) and isinstance(entry.get("page"), str)
    }
    current = {played.match_id for played in data.played}
    for match_id in set(known_pages) - current:  # pages of a previous ladder written here
        with contextlib.suppress(OSError):
            (out / PAGES / Path(known_pages[match_id]["page"]).name).unlink()
        del known_pages[match_id]

    jobs = [
        played
        for played in data.played
        if not _page_holds(out, played, known_pages.get(played.match_id))
    ]
    for played in jobs:
        known_pages.pop(played.match_id, None)

    order = data.commit_order()
    keys = [[result.match.number, sha] for result, sha in order]
    ks = plotted(len(order))
    kept_points = _cached_points(cache.get("ratings"), plan, keys)
    new_ks = [k for k in ks if k not in kept_points]
    results = [result for result, _ in order]

    processes = max(1, workers if workers is not None else cores())
    if pool is None:
        pool = _estimate(jobs, plan, new_ks) >= PARALLEL_SECONDS
    use_pool = pool and processes > 1 and bool(jobs or new_ks)
    # Later points cost more (more matches before them): deal them out round-robin, so that
    # chunks cost alike and the progress moves evenly.
    parts = min(len(new_ks), 4 * (processes if use_pool else 1))
    chunks = [new_ks[i::parts] for i in range(parts)]
    report = Report(out / "index.html", len(data.played), 0, 0, len(new_ks), 1, 0.0)
    state: dict[str, Any] = {"format": _CACHE_FORMAT, "software": VERSION, "pages": known_pages}
    work = _Work(out, state, len(chunks) + len(jobs), progress)
    try:
        if use_pool:
            report.processes = min(processes, len(chunks) + len(jobs))
            _in_pool(report.processes, plan, results, chunks, jobs, work)
        else:
            for chunk in chunks:
                work.rated(rating_points(plan, results[: max(chunk)], chunk))
            for played in jobs:
                work.built(played, build_page(played, _target(out, played)))
    finally:
        _save_cache(out, state)
    points = {**kept_points, **work.points}
    state["ratings"] = {
        "plan": plan.to_json(),
        "order": keys,
        "points": [[k, points[k]] for k in ks],
    }
    _save_cache(out, state)

    by_id = {outcome.match_id: outcome for outcome in work.outcomes}
    for played in data.played:
        outcome = by_id.get(played.match_id)
        if outcome is not None:
            report.problems.extend(outcome.problems)
            report.pages_written += outcome.written
            if not outcome.written:  # built from a record that is no longer the committed one
                with contextlib.suppress(OSError):
                    _target(out, played).unlink()
        else:
            report.pages_kept += 1
            report.problems.extend(map(str, known_pages[played.match_id].get("problems", [])))
    history = History(
        numbers=[results[k - 1].match.number for k in ks],
        points=[points[k] for k in ks],
        ks=ks,
    )
    pages = render_index(data, history, known_pages, report.problems, revoked, page_size)
    for name, page in pages.items():
        _write_atomically(out / name, page)
    for old in out.glob("index-*.html"):  # pages of a longer ladder written here before
        if old.name not in pages:
            with contextlib.suppress(OSError):
                old.unlink()
    report.index_pages = len(pages)
    report.seconds = time.perf_counter() - started
    return report


def _page_holds(out: Path, played: Played, notes: Any) -> bool:
    """Whether the match's page stands as built: it exists, was built from the record now
    committed, and the record file has the size and modification time it had then (a record
    changed, replaced or gone since is checked again, and loses its page if it fails)."""
    if not isinstance(notes, dict) or notes.get("sha256") != played.record_sha256:
        return False
    if not _target(out, played).is_file():
        return False
    try:
        stat = played.record.stat()
    except OSError:
        return False
    return [stat.st_size, stat.st_mtime_ns] == notes.get("stat")


def plotted(n: int) -> list[int]:
    """The k (matches committed) of the plot's points: every k up to PLOT_POINTS matches, then
    every 2nd, 4th, ... (the smallest power of two that keeps them under PLOT_POINTS) and the
    last. A point costs a fit over the k matches before it, so all n of them would cost n²;
    and a plot has no more pixels than that. Powers of two keep a point once computed."""
    stride = 1
    while n // stride > PLOT_POINTS:
        stride *= 2
    ks = list(range(stride, n + 1, stride))
    return ks if not n or ks[-1:] == [n] else [*ks, n]


# --- reading the database ---------------------------------------------------------------------


def _read(database: Path) -> LadderData:
    store = Store(database, create=False)
    try:
        with store.snapshot():
            in_order = store.results()
            standings = from_store(store, in_order)
            schedule = {match.number: match for match in store.schedule()}
            results = {result.match.number: result for result in in_order}
            played = store.played()
            fingerprint = store.meta_json("fingerprint")
    except json.JSONDecodeError as error:
        raise StoreError(f"{str(database)!r} has a damaged ladder fingerprint: {error}") from None
    finally:
        store.close()
    return LadderData(
        standings,
        schedule,
        results,
        played,
        fingerprint if isinstance(fingerprint, dict) else {},
    )


# --- viewer pages -----------------------------------------------------------------------------


def _target(out: Path, played: Played) -> Path:
    return out / PAGES / page_name(played.match_id, played.number)


def build_page(played: Played, target: Path) -> PageOutcome:
    """Check the match's record against its committed SHA-256, then write its viewer page to
    `target` (atomically: a half-written page never looks finished). Runs in pool workers.
    Problems name the record by its file name only: the page may be published."""
    where = f"match {played.match_id}"
    record = played.record
    try:
        stat = record.stat()
        data = record.read_bytes()
    except OSError as error:
        problem = f"{where}: cannot read its record {record.name!r}: {error.strerror}"
        return PageOutcome(played.match_id, False, (problem,))
    if hashlib.sha256(data).hexdigest() != played.record_sha256:
        problem = f"{where}: record {record.name!r} is not the one committed (no page written)"
        return PageOutcome(played.match_id, False, (problem,))
    partial = target.with_name(target.name + ".partial")
    try:
        # The timeline also tells at which step each fault happened.
        timeline = load(record)
        write_html(timeline, partial, shared=True)
        os.replace(partial, target)
    except (CroupierError, OSError) as error:
        with contextlib.suppress(OSError):
            partial.unlink()
        return PageOutcome(played.match_id, False, (f"{where}: no viewer page: {error}",))
    steps = tuple(
        (
            step.index,
            fault.fault.seat,
            fault_name(fault.fault.reason),
            step.elapsed_ms,
            -1 if step.cpu_ms is None else step.cpu_ms,
        )
        for step in timeline.steps
        for fault in step.faults
    )
    problems = tuple(f"{where}: {problem}" for problem in timeline.problems)
    return PageOutcome(played.match_id, True, problems, (stat.st_size, stat.st_mtime_ns), steps)


def _note(state: dict[str, Any], outcome: PageOutcome, played: Played) -> None:
    if outcome.written:
        state["pages"][played.match_id] = {
            "sha256": played.record_sha256,
            "page": page_name(played.match_id, played.number),
            "faults": [list(step) for step in outcome.fault_steps],
            "stat": list(outcome.stat),
            "problems": list(outcome.problems),
        }


class _Work:
    """Collects what pages and rating chunks give, as they finish, and reports progress;
    notes the pages built in the cache every few seconds, so an interrupted build keeps them."""

    def __init__(
        self,
        out: Path,
        state: dict[str, Any],
        total: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.out, self.state, self.total, self.progress = out, state, total, progress
        self.done = 0
        self.saved = time.monotonic()
        self.outcomes: list[PageOutcome] = []
        self.points: dict[int, Point] = {}

    def built(self, played: Played, outcome: PageOutcome) -> None:
        self.outcomes.append(outcome)
        _note(self.state, outcome, played)
        if time.monotonic() - self.saved > 5:
            _save_cache(self.out, self.state)
            self.saved = time.monotonic()
        self._step()

    def rated(self, points: list[tuple[int, Point]]) -> None:
        self.points.update(points)
        self._step()

    def _step(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


def _in_pool(
    processes: int,
    plan: Plan,
    results: list[MatchResult],
    chunks: list[list[int]],
    jobs: list[Played],
    work: _Work,
) -> None:
    """Rating chunks and pages in `processes` worker processes."""
    with process_pool(processes) as pool:
        futures: dict[Future[Any], list[Played] | None] = {
            pool.submit(rating_points, plan, results[: max(chunk)], chunk): None for chunk in chunks
        }
        # Pages go in batches: one future a page cost the coordinator (on a core the workers
        # need) about a tenth of a page's own time in pickling and wake-ups.
        for batch in _batches(jobs, processes):
            targets = [_target(work.out, played) for played in batch]
            futures[pool.submit(build_pages, batch, targets)] = batch
        for future in as_completed(futures):
            matches = futures[future]
            if matches is None:
                work.rated(future.result())
            else:
                for played, outcome in zip(matches, future.result(), strict=True):
                    work.built(played, outcome)


def _batches(jobs: list[Played], processes: int) -> Iterator[list[Played]]:
    """Batches of up to PAGE_BATCH pages, and at least four batches a worker, so that the
    workers finish at about the same time."""
    size = max(1, min(PAGE_BATCH, len(jobs) // (4 * processes)))
    for start in range(0, len(jobs), size):
        yield jobs[start : start + size]


def build_pages(batch: Sequence[Played], targets: Sequence[Path]) -> list[PageOutcome]:
    """`build_page` for each match of a batch (in a pool worker)."""
    return [build_page(played, target) for played, target in zip(batch, targets, strict=True)]


# --- ratings over time ------------------------------------------------------------------------


def rating_points(
    plan: Plan, results: Sequence[MatchResult], ks: Iterable[int]
) -> list[tuple[int, Point]]:
    """The ratings over the first k of `results`, for each k: exactly what the standings
    would have shown once those matches were in. Runs in pool workers."""
    return [(k, _point(rated)) for k, rated in ratings_over(plan, results, ks)]


def _point(rated: dict[str, Rating]) -> Point:
    def r(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return {  # a rating without an interval (fewer than two deals) is not drawn yet
        bot: (round(x.value, 2), round(x.low, 2), round(x.high, 2), r(x.mu), r(x.sigma))
        for bot, x in rated.items()
        if x.low is not None and x.high is not None
    }


def _cached_points(cached: Any, plan: Plan, keys: list[list[Any]]) -> dict[int, Point]:
    """The cached points that still hold, by k: those within the longest run of matches
    committed in the same order as last time (a point depends only on the matches before it)."""
    if not isinstance(cached, dict) or cached.get("plan") != plan.to_json():
        return {}
    order, points = cached.get("order"), cached.get("points")
    if not isinstance(order, list) or not isinstance(points, list):
        return {}
    same = 0
    for old, new in zip(order, keys, strict=False):
        if old != new:
            break
        same += 1
    try:
        return {
            int(k): {bot: (v[0], v[1], v[2], v[3], v[4]) for bot, v in point.items()}
            for k, point in points
            if int(k) <= same
        }
    except (AttributeError, IndexError, TypeError, ValueError):
        return {}


# --- the cache --------------------------------------------------------------------------------


def _load_cache(out: Path) -> dict[str, Any]:
    """The last report's notes, or nothing when absent, unreadable or from another version
    (whose viewer might draw differently)."""
    try:
        cache = json.loads((out / CACHE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(cache, dict) or cache.get("format") != _CACHE_FORMAT:
        return {}
    if cache.get("software") != VERSION or not isinstance(cache.get("pages"), dict):
        return {}
    return cache


def _save_cache(out: Path, state: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        _write_atomically(out / CACHE, json.dumps(state, separators=(",", ":")))


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError as error:
        raise CroupierError(f"cannot write {str(path)!r}: {error}") from None


def _estimate(jobs: Sequence[Played], plan: Plan, new_ks: Sequence[int]) -> float:
    """Seconds the pages and rating points would take in this one process (roughly)."""
    size = 0
    for played in jobs:
        with contextlib.suppress(OSError):
            size += played.record.stat().st_size
    return size * _PAGE_COST + sum(new_ks) * plan.method.point_cost
