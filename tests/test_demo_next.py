"""`make demo` ends by saying what to do next (issue 42, papercut), and what it says works: its
`demo-next` step, run on a small ladder laid out as the demo's, prints commands that replay a
match, write it as a page and write the ladder's pages."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_s_next_step_prints_commands_that_work(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    ladder = tmp_path / "xix.toml"
    ladder.write_text(
        "\n".join(
            [
                'game = "xix"',
                "matches_per_pairing = 2",
                f"root = {json.dumps(str(ROOT))}",
                f"database = {json.dumps(str(tmp_path / 'xix.sqlite'))}",
                f"records = {json.dumps(str(tmp_path / 'xix'))}",
                "[[bot]]",
                'name = "heuristic"',
                'command = "{python} examples/python/xix_heuristic.py"',
                "[[bot]]",
                'name = "random"',
                'command = "{python} examples/python/random_bot.py"',
            ]
        )
        + "\n"
    )
    ran = CliRunner().invoke(app, ["ladder", "run", str(ladder), "--no-live"])
    assert ran.exit_code == 0, ran.output
    bin_dir = Path(sys.executable).parent
    said = subprocess.run(
        ["make", "--no-print-directory", "demo-next", f"DEMO={tmp_path}", f"BIN={bin_dir}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    commands = [line.strip() for line in said.splitlines() if line.startswith("  ")]
    assert len(commands) == 3 and said.splitlines()[1].startswith("next: "), said
    for command in commands:  # not on a terminal, the stepper prints the record as text
        done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert (tmp_path / "match.html").is_file()
    assert (tmp_path / "xix-report" / "index.html").is_file()
