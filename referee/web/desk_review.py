"""A team's review of its own seat on its desk (issue 48.2): /desk/review/<match>.

A review takes tens of seconds to minutes, so it never runs on a request: the desk's POST puts
it in a queue and one task of the site runs the queue's reviews one after another, each as
`croupier review RECORD --seat S --budget N --json` in a process group of its own, niced below
the referee (the contest's bots are on the clock; a review is not), killed with its pool when
the site stops or it overruns. The budget is the site's (`serve --review-budget`), the same for
every review. Its result, the seat's marks (referee.review.marks), is kept in the contest's
files (`reviews/` beside its database) per match, seat, budget and way of valuing
(referee.review.search.VALUATION: a review kept by an older way is not served, but made again),
so each is computed once and served from there after.

Limits: one review waiting or running per team, and QUEUED on the whole site; past either a
request is refused (429) naming the limit. What a review reads is the seat's view alone
(referee.review.view), and the page is the seat replay (referee.web.desk_replay): neither
holds a card the seat did not see.
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import trio

from referee.errors import CroupierError, QuotaError
from referee.review.marks import page_marks
from referee.review.review import DecisionReview
from referee.review.search import VALUATION
from referee.viewer import load

log = logging.getLogger("croupier.web")

#: Reviews waiting or running on the whole site; past it a new one is refused.
QUEUED = 4
#: Processes a review's decisions are shared by: an XIX match at the default budget takes
#: under a minute on two cores (docs/review.md).
WORKERS = 2
#: Added to a review's niceness: the contest's matches come first.
NICENESS = 10
#: A review that runs longer is killed and said to have overrun.
REVIEW_SECONDS = 600.0
#: How often a page of a review not done yet reloads itself.
RELOAD_SECONDS = 3
#: A match id that may name a file: the referee's and the challenge book's are of these.
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")

#: Why a team's second review is refused while its first waits or runs.
ONE_A_TEAM = "quota: one review at a time per team: wait for your review of {match} to end"
#: Why a review is refused while the site is reviewing its most.
BUSY = "quota: the site is reviewing {queued} matches, its most at once: try again in a few minutes"

Key = tuple[str, int, int]
"""A review's match id, seat and budget."""


@dataclass
class Job:
    """A review asked for: the team that asked, the record, and once it started, when (trio's
    clock); `failed` says why it ended without marks."""

    team: str
    record: Path
    started: float | None = None
    failed: str | None = None


class Reviews:
    """The site's queue of reviews and their results kept in `folder`."""

    def __init__(self, folder: Path, budget: int, queued: int = QUEUED) -> None:
        self.folder = folder
        self.budget = budget
        self.queued = queued
        self._jobs: dict[Key, Job] = {}
        self._send, self._receive = trio.open_memory_channel[Key](queued)

    def key(self, match_id: str, seat: int) -> Key:
        return match_id, seat, self.budget

    def path(self, key: Key) -> Path:
        match_id, seat, budget = key
        if not _FILE_NAME.fullmatch(match_id):  # a bug of ours: ids are the referee's
            raise CroupierError(f"match id {match_id!r} cannot name a review's file")
        return self.folder / f"{match_id}.seat{seat}.budget{budget}.valuation{VALUATION}.json"

    def marks(self, key: Key) -> dict[int, dict[str, Any]] | None:
        """The review's marks by step, if it was computed; None otherwise."""
        try:
            kept = json.loads(self.path(key).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return {int(step): mark for step, mark in kept["marks"].items()}

    def job(self, key: Key) -> Job | None:
        return self._jobs.get(key)

    def ahead(self, key: Key) -> int:
        """Reviews that will run before `key`'s (the one running counted)."""
        waiting = [k for k, j in self._jobs.items() if j.failed is None]
        return waiting.index(key) if key in waiting else 0

    def ask(self, team: str, key: Key, record: Path) -> None:
        """Queue `team`'s review `key` of `record`; QuotaError past a limit. A review already
        waiting or running is left as it is (another member of the team asking again)."""
        job = self._jobs.get(key)
        if job is not None and job.failed is None:
            return
        pending = [(k, j) for k, j in self._jobs.items() if j.failed is None]
        for other, theirs in pending:
            if theirs.team == team:
                raise QuotaError(ONE_A_TEAM.format(match=other[0]))
        if len(pending) >= self.queued:
            raise QuotaError(BUSY.format(queued=self.queued))
        self._jobs.pop(key, None)  # a failed one's place in the queue is not kept
        self._jobs[key] = Job(team, record)
        self._send.send_nowait(key)

    async def run(self) -> None:
        """Run the queued reviews, one at a time, until cancelled."""
        async for key in self._receive:
            job = self._jobs[key]
            job.started = trio.current_time()
            try:
                await self._review(key, job.record)
            except CroupierError as error:
                job.failed = str(error)
            else:
                del self._jobs[key]

    async def _review(self, key: Key, record: Path) -> None:
        """`croupier review` of `key` in a process group of its own, its marks kept; any
        failure is a CroupierError in words for the team (never the site's paths): a review
        never takes the site, or the contest beside it, down."""
        _, seat, budget = key
        out = self.path(key)
        part = out.with_suffix(".part")
        command = [sys.executable, "-m", "referee.cli", "review", str(record)]
        command += ["--seat", str(seat), "--budget", str(budget), "--json"]
        command += ["--workers", str(WORKERS)]
        try:
            await trio.to_thread.run_sync(lambda: self.folder.mkdir(parents=True, exist_ok=True))
            with part.open("wb") as stdout:
                code = await _run(command, stdout)
        except OSError as error:
            raise CroupierError(f"the review could not be kept ({error.strerror})") from None
        if code is None:
            raise CroupierError(f"the review ran out of its {REVIEW_SECONDS:g} s and was ended")
        if code != 0:
            raise CroupierError(f"the review could not be made (croupier review exit {code})")
        try:
            await trio.to_thread.run_sync(_keep, record, key, part, out)
        except (CroupierError, OSError, ValueError, LookupError, TypeError) as error:
            # its reason may name the site's files: logged, not shown
            log.exception("a review could not be kept", extra={"match": key[0]})
            raise CroupierError("the review could not be kept") from error


async def _run(command: list[str], stdout: BinaryIO) -> int | None:
    """Run `command` niced, in a process group of its own, its output to `stdout`; its exit
    code, or None once it overran REVIEW_SECONDS. Cancelled or overrun, the group is killed
    (the review's pool with it) before this returns."""
    process = await trio.lowlevel.open_process(
        command, stdout=stdout, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, process.pid, NICENESS)
        with trio.move_on_after(REVIEW_SECONDS):
            return await process.wait()
        return None
    finally:
        with trio.CancelScope(shield=True):
            if process.returncode is None:  # not reaped yet: its group is still its own
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            await process.wait()


def _keep(record: Path, key: Key, part: Path, out: Path) -> None:
    """The review printed in `part` as marks on the seat's replay, kept at `out` whole."""
    match_id, seat, budget = key
    printed = json.loads(part.read_text("utf-8"))
    reviewed = [DecisionReview.from_json(d) for d in printed["decisions"]]
    marks = page_marks(load(record), seat, reviewed)
    kept = {
        "match": match_id,
        "seat": seat,
        "budget": budget,
        "valuation": VALUATION,
        "marks": marks,
    }
    part.write_text(json.dumps(kept), "utf-8")
    part.replace(out)  # whole or not at all


def status_page(
    match_id: str, seat: int, job: Job | None, ahead: int, now: float, csrf: str, said: str = ""
) -> str:
    """The page of a review not made yet: its state (reloading while it waits or runs), or a
    form that asks for it; `said`, a refusal of the asking."""
    name = html.escape(match_id)
    reload = ""
    if job is None or job.failed is not None:
        state = f"failed: {job.failed}" if job is not None else "not reviewed yet"
        action = html.escape(f"/desk/review/{match_id}", quote=True)
        form = (
            f'<form method="post" action="{action}"><input type="hidden" name="csrf" '
            f'value="{html.escape(csrf, quote=True)}"><input type="hidden" name="seat" '
            f'value="{seat}"><button id="ask-review" type="submit">review seat {seat}</button>'
            "</form>"
        )
    else:
        if job.started is None:
            state = f"queued: {ahead} review{'s' if ahead != 1 else ''} ahead"
        else:
            state = f"running for {now - job.started:.0f} s"
        reload = f'<meta http-equiv="refresh" content="{RELOAD_SECONDS}">'
        form = ""
    refusal = f'<p id="review-refusal" class="fault">{html.escape(said)}</p>' if said else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"{reload}<title>review of {name}, seat {seat}</title>"
        '<link rel="stylesheet" href="/static/site.css"></head><body>'
        f'<p><a href="/desk">your desk</a></p><h1>review of {name}, seat {seat}</h1>'
        f'<p id="review-state">{html.escape(state)}</p>{refusal}{form}</body></html>'
    )
