"""Ladder files: every example loads, and each kind of mistake is one clear line naming the key
and its line, with exit code 2 from the CLI (never a traceback)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.ladder.config import Format, LadderConfigError, Launch, load, parse
from referee.tomlfile import key_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "ladders").glob("*.toml"))
runner = CliRunner()

GOOD = """\
game = "xix"
matches_per_pairing = 4
seed = "s"

[time_control]
move_ms = 500

[[bot]]
name = "a"
command = "{python} examples/python/random_bot.py"

[[bot]]
name = "b"
command = "{python} examples/python/random_bot.py"
env = { LEVEL = "3" }
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ladder.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_examples_load(path: Path) -> None:
    config = load(path)
    assert config.placement.root.resolve() == ROOT
    assert {bot.name for bot in config.bots} == {"heuristic", "random"}
    for bot in config.bots:
        argv = shlex.split(bot.command_line())
        assert argv[0] == sys.executable
        assert (config.placement.root / argv[1]).is_file()


def test_paths_are_printed_without_dot_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    """`root = "../.."` in examples/ladders/ gives `ladder-out/...`, not
    `examples/ladders/../../ladder-out/...`, from the repository (issue 24.10)."""
    monkeypatch.chdir(ROOT)
    config = load(Path("examples/ladders/xix.toml"))
    assert config.placement.root == Path(".")
    assert config.placement.database == Path("ladder-out/xix/ladder.sqlite")
    assert config.placement.records == Path("ladder-out/xix/records")


def test_defaults_and_placeholder(tmp_path: Path) -> None:
    config = parse(GOOD, tmp_path / "ladder.toml")
    assert config.name == "ladder"
    assert config.format is Format.ROUND_ROBIN
    assert config.duplicate
    assert config.placement.launch is Launch.PER_SLOT
    assert config.time_control.move_ms == 500
    assert config.time_control.bank_ms == 10_000
    assert config.placement.database == tmp_path / "ladder-out/ladder/ladder.sqlite"
    assert config.bots[1].env == (("LEVEL", "3"),)
    assert config.bots[0].command_line().startswith(shlex.quote(sys.executable) + " ")
    assert "{python}" in config.fingerprint()["bots"][0]["command"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("matches_per_pairing = 4", "matches_per_pairing = 3"), ":2: key 'matches_per_pairing'"),
        (("matches_per_pairing = 4", 'matches_per_pairing = "four"'), "expected a whole number"),
        (('seed = "s"', 'seed = "s"\nconcurency = 2'), ":4: key 'concurency': unknown key"),
        (("move_ms = 500", "move_ms = -1"), ":6: key 'time_control.move_ms': expected at least 0"),
        # issue 32.3: each setting bounded by what it can mean
        (("move_ms = 500", "move_ms = 4294967296"), ":6: key 'time_control.move_ms': expected at"),
        (("move_ms = 500", "bank_ms = 86400001"), ":6: key 'time_control.bank_ms': expected at"),
        (("matches_per_pairing = 4", "matches_per_pairing = 1000000000000"), "1,000,000,000,000"),
        (('seed = "s"', 'seed = "s"\nformat = "swiss"\nrounds = 250001'), "1,000,004 matches"),
        (('seed = "s"', 'seed = "s"\nconcurrency = 100000'), ":4: key 'concurrency': expected at"),
        (('game = "xix"', 'game = "chess"'), ":1: key 'game': unknown game 'chess'"),
        (('game = "xix"', 'game = "xix"\nformat = "league"'), ":2: key 'format'"),
        (('env = { LEVEL = "3" }', "env = { LEVEL = 3 }"), ":15: key 'bot.env.LEVEL'"),
        (('name = "b"', 'name = "a"'), ":13: key 'bot.name': two bots are named 'a'"),
        (('name = "b"', 'name = "b c"'), ":13: key 'bot.name': expected letters"),
        (('command = "{python} examples/python/random_bot.py"\n\n', ""), "missing key 'command'"),
        (('[[bot]]\nname = "b"', '[[bot]]\nnome = "b"'), "(did you mean 'name'?)"),
        (('seed = "s"', 'seed = "s"\n[options]\nplayers = 4'), ":5: key 'options.players'"),
        (('seed = "s"', 'seed = "s"\nrounds = 3'), ":4: key 'rounds': only a Swiss"),
        (('seed = "s"', 'seed = "s"\nteams = [["a", "b"]]'), "only for team games (xeri with 4"),
        (('seed = "s"', 'seed = "s"\nformat = "gauntlet"'), "needs `challengers`"),
        (('seed = "s"', 'seed = "s'), ":3: not valid TOML"),
        (('seed = "s"', 'seed = "s"\nconcurrency = = 2'), ":4: not valid TOML"),
        (('seed = "s"', 'seed = "s"\ncommand = \'x'), ":16: not valid TOML"),
    ],
)
def test_mistakes_name_the_line_and_key(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    assert change[0] in GOOD
    path = write(tmp_path, GOOD.replace(change[0], change[1], 1))
    with pytest.raises(LadderConfigError) as error:
        load(path)
    assert expected in str(error.value)
    assert str(error.value).startswith(str(path))


def test_a_schedule_past_what_a_ladder_holds_is_refused_before_it_is_made(
    tmp_path: Path,
) -> None:
    """Issue 32.3: 200 bots at 4 seats are 64,684,950 tables; the count is refused at load, so
    nothing is made per table or match (listing them would take the machine's memory)."""
    bots = "".join(
        f'[[bot]]\nname = "b{n}"\ncommand = "{{python}} examples/python/random_bot.py"\n'
        for n in range(200)
    )
    path = write(tmp_path, f'game = "xactika"\nmatches_per_pairing = 4\n{bots}')  # 4 seats
    with pytest.raises(LadderConfigError) as error:
        load(path)
    refused = str(error.value)
    assert "the schedule would hold 258,739,800 matches, more than the 1,000,000" in refused


def test_the_cli_says_it_in_one_line_with_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("move_ms = 500", 'move_ms = "fast"'))
    result = runner.invoke(app, ["ladder", "run", str(path)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {path}:6: key 'time_control.move_ms': expected a whole number, got 'fast'"
    )
    missing = runner.invoke(app, ["ladder", "run", str(tmp_path / "nope.toml")])
    assert missing.exit_code == 2
    assert "cannot read ladder file" in missing.output
    assert "Traceback" not in missing.output


def test_a_bad_sprt_is_a_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    result = runner.invoke(app, ["ladder", "run", str(path), "--sprt", "10", "0", "0.05", "0.05"])
    assert result.exit_code == 2
    assert "bad SPRT: elo1 must exceed elo0" in result.output


def test_key_lines_follow_arrays_of_tables_and_skip_multiline_values() -> None:
    text = '''\
a = 1
b = """
c = 2
"""
d = [
  1,
]
[[bot]]
name = "x"
[[bot]]
name = "y"
[bot.env]
K = "v"
[t]
"q.r" = 1
'''
    lines = key_lines(text)
    assert lines[("a",)] == 1
    assert ("c",) not in lines
    assert lines[("d",)] == 5
    assert lines[("bot", 0, "name")] == 9
    assert lines[("bot", 1, "name")] == 11
    assert lines[("bot", 1, "env", "K")] == 13
    assert lines[("t", "q.r")] == 15


def test_a_ladder_s_fingerprint_is_what_its_database_was_made_with(tmp_path: Path) -> None:
    """Issue 43.3 split the ladder's settings into its terms of play and their placement; a
    database made before keeps resuming only if the terms' fingerprint is what it was (this one
    was taken before the split), whatever the placement says."""
    placed = (
        "concurrency = 2\nworkers = 1\nmax_restarts = 4\nlaunch = 'per-match'\n"
        "connect_timeout = 5.0\nsandbox = false\ndatabase = 'elsewhere.sqlite'\n"
    )
    config = load(write(tmp_path, placed + GOOD))
    assert config.fingerprint() == {
        "name": "ladder",
        "game": "xix",
        "rules_version": config.game.rules_version,
        "options": {},
        "format": "round-robin",
        "matches_per_pairing": 4,
        "rounds": 1,
        "challengers": [],
        "teams": [],
        "duplicate": True,
        "time_control": {"move_ms": 500, "bank_ms": 10_000},
        "max_faults": 3,
        "bots": [
            {"name": "a", "command": "{python} examples/python/random_bot.py", "env": {}},
            {
                "name": "b",
                "command": "{python} examples/python/random_bot.py",
                "env": {"LEVEL": "3"},
            },
        ],
    }
