"""`croupier --help` and `croupier games` start quickly: they import no server, engine or bot.

Each test runs the real command in a fresh interpreter under `python -X importtime`, which lists
every module the command imported, and names what must not be among them.
"""

from __future__ import annotations

import json
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
    "numpy",
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


def run_fresh(code: str) -> list[str]:
    """What `code` prints in a fresh interpreter, line by line, then (as JSON) the engine
    modules, referee.games.*, it has loaded by its end."""
    report = "print(json.dumps(sorted(m for m in sys.modules if m.startswith('referee.games.'))))"
    done = subprocess.run(
        [sys.executable, "-c", f"import json, sys\n{code}\n{report}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def test_an_engine_is_imported_when_its_game_is_first_asked_for() -> None:
    title, loaded = run_fresh("from referee.games import get_game\nprint(get_game('xix').title)")
    assert title == "XIX"
    engines = json.loads(loaded)
    assert "referee.games.xix" in engines
    assert not [name for name in engines if "textactoe" in name or "xeri" in name]


def test_the_hand_tables_are_built_when_hands_are_first_valued() -> None:
    sizes = "print(len(poker._PLAIN), len(poker._SUITED))"
    code = "\n".join(
        [
            "from referee.games import textactoe_poker as poker",
            sizes,
            "print(poker.describe(poker.evaluate([0, 5, 10, 15, 51])))",  # 2C 3D 4H 5S AS
            sizes,
            "print(poker.describe(poker.evaluate([1, 9, 17, 29, 49])))",  # 2D 4D 6D 9D AD
            sizes,
        ]
    )
    lines = run_fresh(code)[:5]
    # Importing the engine built nothing; each table is filled at its first lookup, with every
    # five ranks but five of a kind (TTT-R4): C(17, 5) - 13.
    assert lines == ["0 0", "straight (5)", "6175 0", "flush (A-9-6-4-2)", "6175 6175"]
