"""`croupier replay`: step through, print, export or verify match records."""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.consoles import EXIT_CHECK_FAILED, console, errors, progress, user_errors
from referee.errors import CroupierError


def replay(
    records: Annotated[
        list[Path], typer.Argument(help="Match records (.jsonl); several only with --verify.")
    ],
    seat: Annotated[
        int | None, typer.Option(help="Show only what this seat saw (default: everything).")
    ] = None,
    check: Annotated[
        bool,
        typer.Option("--verify", help="Re-run the engine on the record; exit 1 on any difference."),
    ] = False,
    plain: Annotated[
        bool, typer.Option("--plain", help="Print text lines (the default off a terminal).")
    ] = False,
    html: Annotated[
        Path | None, typer.Option(help="Write a self-contained HTML viewer to this file.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="With --verify: draw every chance outcome again from this match seed (default: "
            "the record's own) and fail on any difference."
        ),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help="With --seat: show the lines that seat's bot logged beside each of its "
            'decisions. FILE: JSON Lines {"decision": N, "line": ...}, as the SDKs\' decision '
            "logs or `croupier submissions log --match ID --by-decision` write them. "
            "The stepper shows a decision's lines under its caption in that seat's view; an "
            "--html page is then that seat's replay, its view alone.",
        ),
    ] = None,
) -> None:
    """Step through a match record (a terminal viewer), print it, write its HTML viewer, or
    verify it.

    A truncated record (a referee killed mid-match) is shown as far as it goes, with a warning
    for what is missing. Exit codes: 0 shown (or verified), 1 a record does not verify
    (truncated records do not), 2 bad input (no such file, a folder, not a record, a --log
    that is no decision log).
    """
    from referee import viewer
    from referee.viewer.decision_log import read_decision_log
    from referee.viewer.plain import render

    with user_errors():
        for record in records:
            _refuse_no_file(record)
        if check:
            _verify(records, seed)
            return
        if seed is not None:
            raise CroupierError("--seed goes with --verify")
        if len(records) != 1:
            raise CroupierError(f"give one record to show, not {len(records)} (or use --verify)")
        if log is not None and seat is None:
            raise CroupierError("--log is one seat's log: give --seat too")
        stepping = not plain and sys.stdin.isatty() and sys.stdout.isatty()
        if html is not None or stepping:
            timeline = viewer.load(records[0])
            timeline.check_viewer(seat)
            logged = None
            if log is not None and seat is not None:
                movers = [s.seat for s in timeline.steps if s.seat is not None]  # the actions
                logged = read_decision_log(log, timeline.header.match_id, seat, movers)
            if html is None:
                viewer.step_through(timeline, seat, logged)
                return
            _warn(records[0], timeline.problems + (logged.problems() if logged else []))
            out = viewer.write_html(timeline, html, seat, log=logged, seat_only=logged is not None)
            console.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)
            return
        problems: list[str] = []
        for line in render(records[0], seat, problems.append, log):
            console.print(line, markup=False, highlight=False)
        _warn(records[0], problems)


def _refuse_no_file(record: Path) -> None:
    """A folder, a FIFO or a device (/dev/zero) is refused before it is opened: reading one
    would never end, or never start. A missing path is left to the reader, which names it."""
    try:
        mode = record.stat().st_mode
    except OSError:
        return
    if stat.S_ISDIR(mode):
        raise CroupierError(f"{str(record)!r} is a folder: give record files ({record}/*.jsonl)")
    if not stat.S_ISREG(mode):
        raise CroupierError(f"{str(record)!r} is not a regular file (a pipe or a device)")


def _warn(record: Path, problems: list[str]) -> None:
    """A record shown as far as it goes (exit 0) says what it could not show."""
    for problem in problems:
        errors.print(f"warning: {record}: {problem}", markup=False, highlight=False)


def _verify(records: list[Path], seed: int | None) -> None:
    from referee.match.replay import verify

    for record in records:  # a path that is no file is the user's mistake (exit 2), not a record's
        if not record.is_file():
            raise CroupierError(f"no record at {str(record)!r}")
    failed = 0
    with progress("verifying") as done:
        reports = []
        for count, record in enumerate(records):
            reports.append(verify(record, seed))
            done(count + 1, len(records))
    for record, report in zip(records, reports, strict=True):
        failed += not report.ok
        for problem in report.problems:
            errors.print(f"{record}: {problem}", markup=False, highlight=False)
    unseeded = sum(not report.chance_checked for report in reports)
    chance = (
        "chance drawn again from each seed"
        if not unseeded
        else (f"chance not checked in {unseeded} (no seed in the record: give --seed)")
    )
    lucky = sum(report.luck_checked for report in reports)
    luck = f"; luck corrections computed again in {lucky}" if lucky else ""
    console.print(
        f"{len(records) - failed} of {len(records)} records verified; {chance}{luck}",
        markup=False,
    )
    if failed:
        raise typer.Exit(EXIT_CHECK_FAILED)
