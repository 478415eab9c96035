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
