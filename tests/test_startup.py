"""`croupier --help` and `croupier games` start quickly: they import no server, engine or bot.

Each test runs the real command in a fresh interpreter under `python -X importtime`, which lists
every module the command imported, and names what must not be among them.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: What printing help never needs: the servers and their event loops, the SDK (its bots and the
#: protocol's messages), the referee's working packages, and the heavy parts of rich.
NOT_FOR_HELP = (
    "grpc",
    "google.protobuf",
    "trio",
    "hypercorn",
    "starlette",
    "anyio",
    "asyncio",
    "sqlite3",
    "textual",
    "dask",
    "distributed",
    "openskill",
    "croupier",
    "referee.web",
    "referee.ladder",
    "referee.transport",
    "referee.contest",
    "referee.doctor",
    "referee.cluster",
    "referee.local",
    "referee.viewer",
    "referee.match",
    "referee.games",
    "rich.progress",
    "rich.live",
    "rich.table",
    "rich.traceback",
    "rich.syntax",
    "rich.markdown",
)

#: Listing the games reads the catalogue and draws a rich table: no engine module (nor its lookup
#: tables), no protocol messages.
NOT_FOR_GAMES = tuple(name for name in NOT_FOR_HELP if name not in {"referee.games", "rich.table"})
CATALOGUE = {"referee.games", "referee.games.catalog", "referee.games.options"}


def imported(*args: str) -> tuple[set[str], str]:
    """The modules `croupier ARGS` imports (from -X importtime), and what it printed."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "referee.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    names = {line.rpartition("|")[2].strip() for line in lines[1:]}  # the first is a header
    assert "typer" in names  # the listing works
    return names, done.stdout


def among(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The imported modules that are, or lie inside, a forbidden one."""
    return sorted(
        name for name in names for bad in forbidden if name == bad or name.startswith(bad + ".")
    )


@pytest.mark.parametrize(
    "args", [["--help"], ["match", "--help"], ["ladder", "--help"], ["ladder", "run", "--help"]]
)
def test_help_imports_no_server_engine_or_bot(args: list[str]) -> None:
    names, out = imported(*args)
    assert "Usage:" in out
    assert among(names, NOT_FOR_HELP) == []


def test_listing_the_games_imports_no_engine() -> None:
    names, out = imported("games")
    assert "textactoe" in out and "xix-2.0" in out
    assert among(names, NOT_FOR_GAMES) == []
    assert among(names, ("referee.games",)) == sorted(CATALOGUE)
