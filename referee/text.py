"""Words and paths as every part of croupier prints them: one way for the CLI, the site and the
reports, so that "1 match" and "2 matches" read the same everywhere."""

from __future__ import annotations

import re
from pathlib import Path

_SEAT = re.compile(r"\bseat (\d+)\b")


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """ "1 match", "0 matches", "-1 point": `nouns` when the plural is not `noun` + "s"."""
    many = nouns if nouns is not None else f"{noun}s"
    return f"{count} {noun if abs(count) == 1 else many}"


def tidy_path(path: Path) -> Path:
    """`path` without `..` and `.` steps (`examples/ladders/../../out` is `out`): a relative
    path stays relative to the working folder when it is under it, an absolute one absolute.
    Resolved first, so a symlinked folder keeps its meaning (a lexical normpath would not)."""
    full = path.resolve()
    here = Path.cwd()
    return full.relative_to(here) if not path.is_absolute() and full.is_relative_to(here) else full


def named(text: str, names: list[str]) -> str:
    """`seat 1` as `seat 1 (alice)`: a spectator reads bots, not seat numbers."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return f"{match.group(0)} ({names[seat]})" if seat < len(names) else match.group(0)

    return _SEAT.sub(name, text)


#: Control characters a terminal acts on (C0 but tab and newline, DEL, C1): a log's or a bot's
#: text printed raw could clear the screen, retitle the window or rewrite what was printed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with each control character a terminal would act on shown as its escape (`\\x1b`),
    for text written by a bot or a build that is printed on someone's console."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found[0]):02x}", text)
