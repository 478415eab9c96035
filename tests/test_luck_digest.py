"""The luck commitment covers all of V (issue 44.5): changing any file the corrections depend on
changes the printed digest, so a resumed ladder refuses tampered code. Each test edits one file
of a copy of the package and asks a fresh interpreter for the digest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.match.luck import value_digest, value_sources

ROOT = Path(__file__).resolve().parent.parent


def digest_after(tmp_path: Path, game: str, path: str, old: str, new: str) -> str:
    """The digest of `game` with `old` replaced by `new` in `path` of a copy of referee/."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "referee", copy / "referee", ignore=shutil.ignore_patterns("*.pyc"))
    target = copy / path
    text = target.read_text()
    assert old in text, (path, old)
    target.write_text(text.replace(old, new, 1))
    environment = os.environ | {"PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    script = f"from referee.match.luck import value_digest; print(value_digest({game!r}))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_the_sources_are_the_value_module_values_and_the_meter() -> None:
    assert value_sources("xeri") == (
        "referee.games.xeri_value",
        "referee.games.values",
        "referee.match.luck",
    )
    assert value_sources("no-such-game") == ()


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        # The game's value module: its weights.
        ("referee/games/xeri_value.py", "1.0049", "1.0050"),
        # values.py: V scaled by 5 there (the audit's tampering, which kept the digest).
        (
            "referee/games/values.py",
            "return sum(w * f for w, f",
            "return 5 * sum(w * f for w, f",
        ),
        # The meter itself.
        ("referee/match/luck.py", "SAMPLES = 16", "SAMPLES = 17"),
        # A constant the value module takes from its engine.
        ("referee/games/xeri.py", "HAND_SIZE: Final = 6", "HAND_SIZE: Final = 7"),
    ],
)
def test_changing_a_file_v_depends_on_changes_the_digest(
    tmp_path: Path, path: str, old: str, new: str
) -> None:
    found = digest_after(tmp_path, "xeri", path, old, new)
    assert found.startswith("xeri-deal-1:") and found != value_digest("xeri")


def test_an_engine_change_outside_v_keeps_the_digest(tmp_path: Path) -> None:
    """The engine is not hashed whole (a fix elsewhere in it would void every commitment):
    only the constants V imports from it count."""
    found = digest_after(
        tmp_path, "xeri", "referee/games/xeri.py", '"""', '"""A comment the digest ignores. '
    )
    assert found == value_digest("xeri")
