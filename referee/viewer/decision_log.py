"""A bot's log lines by decision, for `croupier replay RECORD --seat S --log FILE`.

FILE is JSON Lines, one logged line each: `{"match": M, "decision": N, "line": "..."}` as the
Python SDK's DecisionLog and the Node SDK's decisionLog write them (a file of many matches:
other matches' lines are left out), or `{"decision": N, "line": "..."}` as a hosted match keeps
them (`croupier submissions log --match ID --by-decision`), whose lines are all the match's.
Decision N counts the match's decisions from 1, as the record's action lines do; 0 is before the
seat's first. The file is the bot's, so it is distrusted: a line that is not such an entry, or
longer than MAX_LINE_BYTES, refuses the whole file in one sentence, and what is kept of one match
is capped.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.errors import CroupierError

#: The longest line of the file read (the SDK cuts a message's lines far below it).
MAX_LINE_BYTES = 1 << 20
#: The most of one match's lines kept, in bytes of text: what a page can carry.
MAX_MATCH_BYTES = 8 << 20


@dataclass
class DecisionLog:
    """One seat's lines of one match: `lines[N]` were logged during decision N (0: before the
    seat's first); `stray` counts lines naming a decision that is not the seat's, left out."""

    seat: int
    lines: dict[int, list[str]] = field(default_factory=dict)
    stray: int = 0

    def problems(self) -> list[str]:
        """What the replay says it left out, as warnings."""
        if not self.stray:
            return []
        return [
            f"the log has {self.stray} lines naming decisions that are not seat {self.seat}'s: "
            "left out (another seat's log?)"
        ]


def read_decision_log(path: Path, match_id: str, seat: int, movers: Sequence[int]) -> DecisionLog:
    """`path`'s lines of match `match_id`, kept for `seat`'s decisions: `movers[N - 1]` is the
    seat that made decision N (the record's action lines, in order). CroupierError, one
    sentence, for a file that is not a decision log."""
    return seat_log(_entries(path, match_id), seat, movers)


def seat_log(entries: Iterable[tuple[int, str]], seat: int, movers: Sequence[int]) -> DecisionLog:
    """`entries` (decision, line) of one match, kept for `seat`'s decisions as
    read_decision_log keeps a file's: how a hosted match's lines (the store's, capped when
    kept) and a file's are shown alike."""
    log = DecisionLog(seat)
    for decision, line in entries:
        if decision == 0 or (decision <= len(movers) and movers[decision - 1] == seat):
            log.lines.setdefault(decision, []).append(line)
        else:
            log.stray += 1
    return log


def _entries(path: Path, match_id: str) -> list[tuple[int, str]]:
    where = str(path)
    try:
        mode = path.stat().st_mode
    except OSError as error:
        reason = (error.strerror or str(error)).lower()
        raise CroupierError(f"cannot read the log {where!r}: {reason}") from None
    if not stat.S_ISREG(mode):  # a FIFO or /dev/zero would never end
        raise CroupierError(f"the log {where!r} is not a regular file")
    entries: list[tuple[int, str]] = []
    kept = 0
    with path.open("rb") as file:
        number = 0
        while raw := file.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise CroupierError(
                    f"{where!r} line {number}: longer than {MAX_LINE_BYTES >> 20} MiB: not a "
                    "decision log"
                )
            if not raw.strip():
                continue
            entry = _entry(raw)
            if entry is None:
                raise CroupierError(
                    f"{where!r} line {number}: not a decision line (a JSON object like "
                    '{"decision": 3, "line": "..."}, as the SDK\'s DecisionLog writes)'
                )
            match, decision, line = entry
            if match is not None and match != match_id:
                continue
            kept += len(line)
            if kept > MAX_MATCH_BYTES:
                raise CroupierError(
                    f"{where!r}: more than {MAX_MATCH_BYTES >> 20} MiB of lines in match "
                    f"{match_id!r}: too much to show"
                )
            entries.append((decision, line))
    return entries


def _entry(raw: bytes) -> tuple[str | None, int, str] | None:
    """A line's match (None: not said), decision and text, or None if it is not an entry."""
    try:
        value = json.loads(raw)
    except ValueError:  # not JSON, or not UTF-8
        return None
    if not isinstance(value, dict):
        return None
    match, decision, line = value.get("match"), value.get("decision"), value.get("line")
    if type(decision) is not int or decision < 0 or not isinstance(line, str):
        return None
    if match is not None and not isinstance(match, str):
        return None
    return match, decision, line
