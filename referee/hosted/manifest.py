"""A hosted bot's manifest, `bot.toml`: the games it plays, how it is built and run, and the
limits it asks for.

An uploaded folder is a bot only with this file at its top. It is read before anything of the
bot runs, so each mistake is refused when the bot is submitted, in one line its author can act
on: `bot.toml:LINE: key 'x': problem` (referee.tomlfile reads it, as it reads ladder and
contest files). Commands are split as a ladder bot's are (shlex, no shell; `{python}` is the
referee's Python) and may name files only relative to the folder: the folder moves into the
contest's store, so an absolute path, or one that climbs out with `..`, would name the
organiser's machine rather than the bot.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from referee import tomlfile
from referee.errors import CroupierError
from referee.games.catalog import CATALOG
from referee.ladder.config import PYTHON_PLACEHOLDER
from referee.local.limits import Limits
from referee.tomlfile import MISSING, TomlReader

#: The manifest's name, at the top of a bot's folder.
MANIFEST = "bot.toml"
#: Its largest size: a manifest is a few lines, and it is read whole before it is checked.
MAX_MANIFEST_BYTES = 64 * 1024
#: The most sessions (matches at once) one process of a bot may ask to play: some runtimes
#: take a thread per session (the C++ example does), and 64 stays well inside the default
#: processes limit (128) beside gRPC's own threads.
MAX_SESSIONS = 64
#: The longest `name` or `language`: a line on the contest's pages.
MAX_TEXT = 100
#: Words a shell would take as operators: the commands are not run by one, so these would reach
#: the program as arguments.
_SHELL_WORDS = frozenset({"&&", "||", ";", "|", "&", ">", ">>", "<", "2>", "2>&1", "|&"})

_KEYS = ("name", "language", "games", "build", "run", "sessions", "limits")


class ManifestError(CroupierError):
    """A bot's manifest that cannot be used: the message names the line and the key."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """A checked `bot.toml`. Commands are kept as written (`{python}` not yet expanded)."""

    #: The ids of the games the bot plays (referee.games.catalog), in the manifest's order.
    games: tuple[str, ...]
    #: The command that starts the bot, run in its folder.
    run: str
    #: The command that builds it, run once per version in its folder; None: nothing to build.
    build: str | None = None
    #: Sessions (matches at once) one process plays: its CROUPIER_SESSIONS at most.
    sessions: int = 1
    #: The limits it asks for (referee.local.limits.Limits keys), each within the maxima given
    #: to `load_manifest`; the rest are the contest's.
    asked: tuple[tuple[str, int], ...] = ()
    #: For people only: the bot's name as its author calls it, and its language.
    name: str | None = None
    language: str | None = None

    def limits(self, defaults: Limits) -> Limits:
        """The contest's `defaults` with the limits the bot asked for over them."""
        return replace(defaults, **dict(self.asked))

    def run_argv(self, python: str = sys.executable) -> list[str]:
        """The run command's words, `{python}` being `python`."""
        return _argv(self.run, python)

    def build_argv(self, python: str = sys.executable) -> list[str] | None:
        """The build command's words (`{python}` being `python`), or None."""
        return None if self.build is None else _argv(self.build, python)


def load_manifest(folder: Path, maxima: Limits) -> Manifest:
    """The manifest at the top of `folder`, checked: known keys, games that exist, commands
    that stay inside the folder, limits within `maxima` (0 there: no maximum). Raises
    ManifestError naming the line and key; errors name the file `bot.toml`, never where the
    referee keeps it. A link or anything but a plain file is refused unread."""
    path = folder / MANIFEST
    shown = Path(MANIFEST)
    if path.is_symlink() or not path.is_file():
        kind = "a link" if path.is_symlink() else "missing"
        raise ManifestError(
            f"{shown}: {kind}: a bot's folder holds its manifest, a file {MANIFEST!r}, at its "
            "top (docs/bots.md)"
        )
    size = path.stat().st_size
    if size > MAX_MANIFEST_BYTES:
        raise ManifestError(
            f"{shown}: {size:,} bytes, more than the {MAX_MANIFEST_BYTES:,} a manifest may hold"
        )
    text = tomlfile.read(path, "manifest", ManifestError, shown)
    data = tomlfile.parse(text, shown, ManifestError)
    return _Reader(shown, text).manifest(data, maxima)


class _Reader(TomlReader[ManifestError]):
    """A manifest's document, read into a Manifest."""

    def __init__(self, path: Path, text: str) -> None:
        super().__init__(path, text, ManifestError)

    def manifest(self, data: dict[str, Any], maxima: Limits) -> Manifest:
        self.check_keys(data, _KEYS, ())
        return Manifest(
            games=self.games(data),
            run=self.value(data, (), "run", str, MISSING, _command_problem),
            build=self.value(data, (), "build", str, None, _command_problem),  # type: ignore[arg-type]
            sessions=self.value(data, (), "sessions", int, 1, _sessions_problem),
            asked=self.asked(data, maxima),
            name=self.value(data, (), "name", str, None, _text_problem),  # type: ignore[arg-type]
            language=self.value(data, (), "language", str, None, _text_problem),  # type: ignore[arg-type]
        )

    def games(self, data: dict[str, Any]) -> tuple[str, ...]:
        listed = self.value(data, (), "games", list)
        known = ", ".join(CATALOG)
        if not listed:
            raise self.error(("games",), f"expected at least one game id ({known})")
        games: list[str] = []
        for game in listed:
            if not isinstance(game, str) or game not in CATALOG:
                raise self.error(("games",), f"unknown game {game!r} (known games: {known})")
            if game in games:
                raise self.error(("games",), f"game {game!r} is listed twice")
            games.append(game)
        return tuple(games)

    def asked(self, data: dict[str, Any], maxima: Limits) -> tuple[tuple[str, int], ...]:
        table = self.value(data, (), "limits", dict, {})
        where: tuple[str | int, ...] = ("limits",)
        self.check_keys(table, Limits.keys(), where)
        asked = []
        # In Limits' order, so that two manifests asking the same are equal.
        for key in sorted(table, key=Limits.keys().index):
            value = self.value(table, where, key, int, MISSING, _whole_problem)
            maximum = getattr(maxima, key)
            if maximum and not 0 < value <= maximum:
                unlimited = " (0 asks for no limit)" if value == 0 else ""
                raise self.error(
                    (*where, key),
                    f"expected at most {maximum}, the contest's maximum {key}{unlimited}, "
                    f"got {value!r}",
                )
            asked.append((key, value))
        return tuple(asked)


def _argv(command: str, python: str) -> list[str]:
    return shlex.split(command.replace(PYTHON_PLACEHOLDER, shlex.quote(python)))


def _command_problem(command: str) -> str | None:
    """Why `command` cannot be a bot's build or run command, or None."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        return f"cannot split the command line ({error})"
    if not words:
        return "expected a command line"
    for word in words:
        if word in _SHELL_WORDS:
            return (
                f"{word!r} is not run by a shell (there is none): put the steps in a script "
                "or a Makefile in the folder"
            )
        problem = _path_problem(word)
        if problem:
            return problem
    return None


def _path_problem(word: str) -> str | None:
    """Why the path in `word` (or in an option's `=value`) names something outside the bot's
    folder, or None."""
    candidates = [word]
    if word.startswith("-") and "=" in word:
        candidates.append(word.partition("=")[2])
    for text in candidates:
        path = PurePosixPath(text)
        if path.is_absolute():
            return (
                f"{text!r} is an absolute path, outside the bot's folder (which moves into the "
                "contest's store): name programs by name, found on PATH, and files relative to "
                "the folder"
            )
        depth = 0
        for part in path.parts:
            depth += -1 if part == ".." else 1
            if depth < 0:
                return f"{text!r} leads out of the bot's folder"
    return None


def _sessions_problem(value: int) -> str | None:
    if not 1 <= value <= MAX_SESSIONS:
        return f"expected 1 to {MAX_SESSIONS}"
    return None


def _whole_problem(value: int) -> str | None:
    return None if value >= 0 else "expected a whole number >= 0"


def _text_problem(value: str) -> str | None:
    if not value.strip() or not value.isprintable():
        return "expected a line of printable text"
    if len(value) > MAX_TEXT:
        return f"expected at most {MAX_TEXT} characters"
    return None
