"""A settings file in TOML (a ladder file, a contest file), read and checked key by key.

One reader for every such file, so that an organiser meets one format of error, each on one
line naming the file, the line and the key: `FILE:LINE: key 'table.key': problem`, with
`FILE:LINE: not valid TOML: ...` and `FILE:LINE: missing key 'k' in [table]` beside it. tomllib
gives values without positions, so `key_lines` finds each key's line. Each file keeps its own
error class (a `CroupierError`: the CLI prints it and exits 2).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from referee.errors import CroupierError

E = TypeVar("E", bound=CroupierError)
T = TypeVar("T")

#: `TomlReader.value`'s default for a key that must be there.
MISSING: Any = object()

KIND_NAMES: dict[type, str] = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "a table",
}


def read(path: Path, what: str, error: type[E], shown: Path | None = None) -> str:
    """The text of `what` file `path` ("ladder", "contest"), or `error` saying why not. Errors
    name the file `shown` (default `path`): a bot's manifest is named as its author wrote it,
    not where the referee keeps it."""
    shown = path if shown is None else shown
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as cause:
        line = cause.object[: cause.start].count(b"\n") + 1
        raise error(
            f"{shown}:{line}: not UTF-8 text (byte {cause.object[cause.start]:#04x}): save the "
            f"{what} file as UTF-8"
        ) from None
    except OSError as cause:
        raise error(f"cannot read {what} file {str(shown)!r}: {cause.strerror or cause}") from None


def parse(text: str, path: Path, error: type[E]) -> dict[str, Any]:
    """The document in `text` (the file at `path`), or `error` at the line where it stops
    being TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as cause:
        message = str(cause)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        line = found.group(1) if found else str(max(len(text.splitlines()), 1))
        detail = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        if not found:
            detail += " (at the end of the file: something opened earlier is never closed)"
        raise error(f"{path}:{line}: not valid TOML: {detail}") from None


class TomlReader(Generic[E]):
    """Typed access to a parsed document, with each error placed at its key's line."""

    def __init__(self, path: Path, text: str, error: type[E]) -> None:
        self.path = path
        self.lines = key_lines(text)
        self._error = error

    def error(self, key: tuple[str | int, ...], message: str) -> E:
        dotted = ".".join(part for part in key if isinstance(part, str))
        line = self.line(key)
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        return self._error(f"{where}: key {dotted!r}: {message}")

    def line(self, key: tuple[str | int, ...]) -> int | None:
        for end in range(len(key), 0, -1):
            if key[:end] in self.lines:
                return self.lines[key[:end]]
        return None

    def check_keys(
        self, table: Mapping[str, Any], known: Iterable[str], where: tuple[str | int, ...]
    ) -> None:
        names = tuple(known)
        for key in table:
            if key not in names:
                raise self.error((*where, key), unknown_key(key, names))

    def value(
        self,
        table: Mapping[str, Any],
        where: tuple[str | int, ...],
        key: str,
        kind: type[T],
        default: T = MISSING,
        check: Callable[[T], str | None] | None = None,
    ) -> T:
        """`table[key]` (the table at `where`), of `kind` (a whole number passes for a
        float), that `check` finds no problem with; `default` when it is absent."""
        full = (*where, key)
        if key not in table:
            if default is MISSING:
                header = self.line(where) if where else None
                at = f"{self.path}:{header}" if header is not None else str(self.path)
                scope = f" in [{'.'.join(p for p in where if isinstance(p, str))}]" if where else ""
                raise self._error(f"{at}: missing key {key!r}{scope}")
            return default
        value = table[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise self.error(full, f"expected {KIND_NAMES[kind]}, got {value!r}")
        if check is not None:
            problem = check(value)
            if problem:
                raise self.error(full, f"{problem}, got {value!r}")
        return value  # type: ignore[no-any-return]


_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_KEY = rf"(?:{_BARE}|{_QUOTED})(?:\s*\.\s*(?:{_BARE}|{_QUOTED}))*"
_ARRAY_HEADER = re.compile(rf"\[\[\s*({_KEY})\s*\]\]")
_TABLE_HEADER = re.compile(rf"\[\s*({_KEY})\s*\]")
_ASSIGNMENT = re.compile(rf"({_KEY})\s*=(.*)")
_STRINGS = re.compile(rf"{_QUOTED}")


def unknown_key(key: str, known: Iterable[str]) -> str:
    """The complaint about a key a file does not take: the closest known one, then them all
    (ladder and contest files say it the same way)."""
    names = list(known)
    close = difflib.get_close_matches(key, names, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key{hint}; known keys: {', '.join(names)}"


def _split_key(text: str) -> tuple[str, ...]:
    parts = re.findall(rf"{_BARE}|{_QUOTED}", text)
    return tuple(part[1:-1] if part[0] in "\"'" else part for part in parts)


def key_lines(text: str) -> dict[tuple[str | int, ...], int]:
    """The line of every key and table header: `("bot", 1, "command")` for the second
    [[bot]]'s command. tomllib gives values without positions, so errors find lines here.

    A small scanner, not a full TOML parser: it skips multi-line strings and arrays, and is
    only ever asked about a document that tomllib already accepted."""
    lines: dict[tuple[str | int, ...], int] = {}
    arrays: dict[tuple[str | int, ...], int] = {}
    table: tuple[str | int, ...] = ()
    open_string: str | None = None
    depth = 0

    def located(path: tuple[str, ...]) -> tuple[str | int, ...]:
        """Insert the current index after every array-of-tables prefix (`[bot.env]`)."""
        out: list[str | int] = []
        for part in path:
            out.append(part)
            if tuple(out) in arrays:
                out.append(arrays[tuple(out)] - 1)
        return tuple(out)

    for number, line in enumerate(text.splitlines(), start=1):
        if open_string is not None:
            if open_string in line:
                open_string = None
            continue
        stripped = _STRINGS.sub('""', line.strip())
        if depth > 0:
            depth += stripped.split("#")[0].count("[") - stripped.split("#")[0].count("]")
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if found := _ARRAY_HEADER.match(line.strip()):
            base = located(_split_key(found.group(1))[:-1]) + _split_key(found.group(1))[-1:]
            arrays[base] = arrays.get(base, 0) + 1
            table = (*base, arrays[base] - 1)
            lines[table] = number
            lines.setdefault(base, number)
            continue
        if found := _TABLE_HEADER.match(line.strip()):
            table = located(_split_key(found.group(1)))
            lines.setdefault(table, number)
            continue
        if found := _ASSIGNMENT.match(line.strip()):
            lines.setdefault((*table, *_split_key(found.group(1))), number)
            rest = found.group(2)
            for quote in ('"""', "'''"):
                if rest.count(quote) == 1:
                    open_string = quote
            code = _STRINGS.sub('""', rest).split("#")[0]
            depth = max(0, code.count("[") - code.count("]"))
    return lines
