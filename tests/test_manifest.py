"""A hosted bot's manifest (bot.toml): every example loads, and each mistake or hostile file is
one line naming `bot.toml`, the line and the key, never where the referee keeps the folder."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from referee.hosted.manifest import (
    MAX_MANIFEST_BYTES,
    Manifest,
    ManifestError,
    load_manifest,
)
from referee.local.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_FOLDERS = sorted(
    path for path in (ROOT / "examples").iterdir() if path.is_dir() and path.name != "ladders"
)
MAXIMA = Limits(memory_mb=2048, processes=128, disk_mb=64, open_files=256, cpu_seconds=0)

GOOD = """\
name = "alice"
language = "python"
games = ["xix", "xeri"]
build = "python3 -m compileall -q ."
run = "{python} bot.py --level=3"
sessions = 2

[limits]
memory_mb = 1024
cpu_seconds = 600
"""


def folder_with(tmp_path: Path, text: str | bytes) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    manifest = folder / "bot.toml"
    if isinstance(text, bytes):
        manifest.write_bytes(text)
    else:
        manifest.write_text(text, encoding="utf-8")
    return folder


def refusal(tmp_path: Path, text: str | bytes, maxima: Limits = MAXIMA) -> str:
    with pytest.raises(ManifestError) as caught:
        load_manifest(folder_with(tmp_path, text), maxima)
    message = str(caught.value)
    assert str(tmp_path) not in message, "an error names where the referee keeps the bot"
    assert "\n" not in message
    return message


def test_a_manifest_loads_with_every_key(tmp_path: Path) -> None:
    manifest = load_manifest(folder_with(tmp_path, GOOD), MAXIMA)
    assert manifest == Manifest(
        games=("xix", "xeri"),
        run="{python} bot.py --level=3",
        build="python3 -m compileall -q .",
        sessions=2,
        asked=(("memory_mb", 1024), ("cpu_seconds", 600)),
        name="alice",
        language="python",
    )
    assert manifest.run_argv("/opt/py thon") == ["/opt/py thon", "bot.py", "--level=3"]
    assert manifest.build_argv() == ["python3", "-m", "compileall", "-q", "."]
    assert manifest.limits(Limits()) == Limits(memory_mb=1024, cpu_seconds=600)


def test_the_least_manifest_has_the_contests_defaults(tmp_path: Path) -> None:
    manifest = load_manifest(folder_with(tmp_path, 'games = ["xix"]\nrun = "./bot"\n'), MAXIMA)
    assert (manifest.build, manifest.build_argv(), manifest.sessions) == (None, None, 1)
    assert manifest.limits(Limits(disk_mb=7)) == Limits(disk_mb=7)


def test_a_maximum_of_zero_bounds_nothing(tmp_path: Path) -> None:
    text = 'games = ["xix"]\nrun = "./bot"\n[limits]\ncpu_seconds = 0\nmemory_mb = 99999\n'
    manifest = load_manifest(folder_with(tmp_path, text), Limits(memory_mb=0, cpu_seconds=0))
    assert manifest.asked == (("memory_mb", 99999), ("cpu_seconds", 0))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'games = ["xix"]\nrun = "./bot"\ngmes = ["xeri"]\n',
            "bot.toml:3: key 'gmes': unknown key (did you mean 'games'?)",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\n[limits]\nmemory = 5\n',
            "bot.toml:4: key 'limits.memory': unknown key (did you mean 'memory_mb'?)",
        ),
        (
            'games = ["xix", "poker"]\nrun = "./bot"\n',
            "bot.toml:1: key 'games': unknown game 'poker' (known games: ",
        ),
        ('games = []\nrun = "./bot"\n', "bot.toml:1: key 'games': expected at least one game"),
        ('games = [1]\nrun = "./bot"\n', "bot.toml:1: key 'games': unknown game 1"),
        ('games = ["xix", "xix"]\nrun = "./bot"\n', "key 'games': game 'xix' is listed twice"),
        ('games = "xix"\nrun = "./bot"\n', "key 'games': expected a list, got 'xix'"),
        ('run = "./bot"\n', "bot.toml: missing key 'games'"),
        ('games = ["xix"]\n', "bot.toml: missing key 'run'"),
        ('games = ["xix"]\nrun = ""\n', "bot.toml:2: key 'run': expected a command line"),
        ('games = ["xix"]\nrun = "   "\n', "bot.toml:2: key 'run': expected a command line"),
        ('games = ["xix"]\nrun = "\'bot"\n', "key 'run': cannot split the command line"),
        (
            'games = ["xix"]\nrun = "/usr/bin/python3 bot.py"\n',
            "bot.toml:2: key 'run': '/usr/bin/python3' is an absolute path, outside the bot's "
            "folder",
        ),
        (
            'games = ["xix"]\nrun = "python3 /etc/passwd"\n',
            "key 'run': '/etc/passwd' is an absolute path",
        ),
        (
            'games = ["xix"]\nrun = "python3 bot.py --book=/srv/book"\n',
            "key 'run': '/srv/book' is an absolute path",
        ),
        (
            'games = ["xix"]\nrun = "node lib/../../other/bot.js"\n',
            "key 'run': 'lib/../../other/bot.js' leads out of the bot's folder",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\nbuild = "make -C /tmp"\n',
            "bot.toml:3: key 'build': '/tmp' is an absolute path",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\nbuild = "make && make test"\n',
            "key 'build': '&&' is not run by a shell",
        ),
        ('games = ["xix"]\nrun = "./bot"\nbuild = ""\n', "key 'build': expected a command line"),
        (
            'games = ["xix"]\nrun = "./bot"\n[limits]\nmemory_mb = 4096\n',
            "bot.toml:4: key 'limits.memory_mb': expected at most 2048, the contest's maximum "
            "memory_mb, got 4096",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\n[limits]\nprocesses = 0\n',
            "key 'limits.processes': expected at most 128, the contest's maximum processes (0 "
            "asks for no limit), got 0",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\n[limits]\ndisk_mb = -1\n',
            "key 'limits.disk_mb': expected a whole number >= 0, got -1",
        ),
        (
            'games = ["xix"]\nrun = "./bot"\n[limits]\nopen_files = true\n',
            "key 'limits.open_files': expected a whole number, got True",
        ),
        ('games = ["xix"]\nrun = "./bot"\nsessions = 0\n', "key 'sessions': expected 1 to 64"),
        ('games = ["xix"]\nrun = "./bot"\nsessions = 65\n', "key 'sessions': expected 1 to 64"),
        ('games = ["xix"]\nrun = "./bot"\nname = ""\n', "key 'name': expected a line of printable"),
        (
            'games = ["xix"]\nrun = "./bot"\nlanguage = "c\\u001b[2J"\n',
            "key 'language': expected a line of printable text",
        ),
        ('games = ["xix"]\nrun = "./bot"\nname = "' + "n" * 101 + '"\n', "at most 100 characters"),
        ('games = ["xix"\nrun = "./bot"\n', "bot.toml:2: not valid TOML"),
    ],
)
def test_each_mistake_is_one_line_at_its_key(tmp_path: Path, text: str, expected: str) -> None:
    assert expected in refusal(tmp_path, text)


def test_a_manifest_that_is_not_utf8_is_refused_at_its_line(tmp_path: Path) -> None:
    text = b'games = ["xix"]\n# caf\xe9 in Latin-1\nrun = "./bot"\n'
    assert refusal(tmp_path, text) == (
        "bot.toml:2: not UTF-8 text (byte 0xe9): save the manifest file as UTF-8"
    )


def test_a_folder_without_a_manifest_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot").mkdir()
    with pytest.raises(ManifestError, match=r"^bot\.toml: missing: a bot's folder holds"):
        load_manifest(tmp_path / "bot", MAXIMA)
    (tmp_path / "bot" / "bot.toml").mkdir()
    with pytest.raises(ManifestError, match=r"^bot\.toml: missing"):
        load_manifest(tmp_path / "bot", MAXIMA)


def test_a_manifest_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    """A link to /etc/passwd (or another bot's manifest) is refused unread, so no error quotes
    what it points at."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").symlink_to("/etc/passwd")
    with pytest.raises(ManifestError, match=r"^bot\.toml: a link: ") as caught:
        load_manifest(folder, MAXIMA)
    assert "root" not in str(caught.value)


def test_a_manifest_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    os.mkfifo(folder / "bot.toml")
    with pytest.raises(ManifestError, match=r"^bot\.toml: missing"):
        load_manifest(folder, MAXIMA)


def test_a_huge_manifest_is_refused_unread(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, 'games = ["xix"]\nrun = "./bot"\n')
    with (folder / "bot.toml").open("ab") as file:
        file.truncate(MAX_MANIFEST_BYTES + 1)
    with pytest.raises(ManifestError, match=r"^bot\.toml: 65,537 bytes, more than the 65,536"):
        load_manifest(folder, MAXIMA)


def test_every_example_folder_has_a_manifest() -> None:
    assert [path.name for path in EXAMPLE_FOLDERS] == [
        "cpp",
        "go",
        "java",
        "node",
        "python",
        "training",
        "typescript",
    ]
    assert all((folder / "bot.toml").is_file() for folder in EXAMPLE_FOLDERS)


@pytest.mark.parametrize("folder", EXAMPLE_FOLDERS, ids=[p.name for p in EXAMPLE_FOLDERS])
def test_each_examples_manifest_loads_and_names_its_program(folder: Path) -> None:
    """An interpreted bot's run command names its script in the folder; a compiled one's build
    program is on PATH (`make other-languages` installs the toolchains) and its run command
    names what the Makefile builds."""
    manifest = load_manifest(folder, Limits())
    argv = manifest.run_argv()
    build = manifest.build_argv()
    if build is None:
        assert argv[0] in (sys.executable, "node")
        assert (folder / argv[1]).is_file()
    elif build[0] == "node":  # TypeScript, compiled by the tsc its node_modules brings
        config = json.loads((folder / "tsconfig.json").read_text(encoding="utf-8"))
        out = config["compilerOptions"]["outDir"].strip("./")
        assert argv[0] == "node" and argv[1].startswith(f"{out}/"), (argv, out)
        assert (folder / "src" / Path(argv[1]).with_suffix(".ts").name).is_file()
    else:
        assert shutil.which(build[0]), f"{build[0]!r} is not on PATH"
        built = next(word for word in argv if word.startswith("build/"))
        assert built in (folder / "Makefile").read_text(encoding="utf-8").replace(
            "$(BUILD)", "build"
        )


def test_the_guides_example_manifest_loads(tmp_path: Path) -> None:
    """docs/bots.md shows a manifest with every key: it must be one the referee takes."""
    guide = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    section = guide[guide.index("## The bot manifest (bot.toml)") :]
    example = section[section.index("```toml\n") + len("```toml\n") : section.index("```\n", 8)]
    manifest = load_manifest(folder_with(tmp_path, example), MAXIMA)
    assert manifest.build == "make"
    assert manifest.asked == (("memory_mb", 1024), ("cpu_seconds", 600))
