"""docs/records.md: its example is a real record that verifies, it is what scripts/record_example.py
plays today (up to the clock's readings), and the line kinds it documents are record.proto's."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from croupier.v1 import record_pb2
from referee.match.replay import verify

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "records.md"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "record_example", ROOT / "scripts" / "record_example.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _example() -> str:
    script = _script()
    block = DOC.read_text(encoding="utf-8").split(script.BEGIN, 1)[1].split(script.END, 1)[0]
    match = re.search(r"```jsonl\n(.*?)```", block, re.DOTALL)
    assert match is not None, "the example record is missing: run scripts/record_example.py"
    return match.group(1)


def _without_clock(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:
        line.get("header", {}).pop("startedAt", None)
        line.get("action", {}).pop("elapsedMs", None)
    return lines


def test_the_example_record_verifies(tmp_path: Path) -> None:
    path = tmp_path / "example.jsonl"
    path.write_text(_example(), encoding="utf-8")
    report = verify(path)
    assert report.ok, report.problems
    kinds = [next(iter(json.loads(line))) for line in _example().splitlines()]
    assert kinds[0] == "header" and kinds[-1] == "result"
    assert {"chance", "action", "event"} <= set(kinds)


def test_the_example_is_what_the_script_plays(tmp_path: Path) -> None:
    fresh = _script().example_record(tmp_path)
    assert _without_clock(fresh) == _without_clock(_example()), (
        "docs/records.md is stale: run scripts/record_example.py"
    )


def test_the_doc_names_every_kind_of_line() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for field in record_pb2.Record.DESCRIPTOR.oneofs_by_name["line"].fields:
        assert f"| `{field.name}` |" in doc, field.name


def test_the_doc_s_readers_put_back_seat_0_and_read_scores_as_numbers(tmp_path: Path) -> None:
    """Issue 42: a result's seat 0 has no "seat" and a score of 0 no "score" (proto3 leaves
    defaults out), and int64 scores are strings; the doc's Python and jq lines say so and get
    the example record's result right."""
    import shutil
    import subprocess
    import sys

    record = tmp_path / "xix-000.jsonl"
    record.write_text(_example())
    (result,) = [
        json.loads(line)["result"] for line in _example().splitlines() if '"result"' in line
    ]
    seats = result["result"]["seats"]
    expected = [f"{s.get('seat', 0)} {s['name']} {int(s.get('score', '0'))}" for s in seats]
    assert "seat" not in seats[0], "the example no longer shows seat 0's omission"
    text = DOC.read_text(encoding="utf-8")
    python = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert python is not None
    ran = subprocess.run(
        [sys.executable, "-c", python.group(1)], cwd=tmp_path, capture_output=True, text=True
    )
    assert ran.stdout.splitlines() == expected, ran.stderr
    jq_line = next(line for line in text.splitlines() if line.startswith("jq -r '.result"))
    if shutil.which("jq") is not None:
        ran = subprocess.run(["sh", "-c", jq_line], cwd=tmp_path, capture_output=True, text=True)
        assert ran.stdout.splitlines() == expected, ran.stderr
    assert all(f"`{line}`" in text for line in expected), expected  # what the doc says
