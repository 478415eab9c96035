"""The committed generated code matches the .proto files (run `make proto` when this fails)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELD = re.compile(r"(repeated |optional )?[\w.<>, ]+ \w+ = \d+;.*")
COMMITTED = ROOT / "sdk" / "python" / "croupier" / "v1"


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "protogen.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = tmp_path / "croupier" / "v1"
    names = sorted(p.name for p in fresh.iterdir())
    assert names == sorted(p.name for p in COMMITTED.iterdir() if p.name != "__pycache__")
    stale = [n for n in names if (fresh / n).read_bytes() != (COMMITTED / n).read_bytes()]
    assert not stale, f"stale generated code, run `make proto`: {stale}"


def test_every_message_and_field_is_documented() -> None:
    """The .proto files are the manual for bot authors in every language."""
    undocumented = []
    for proto in sorted((ROOT / "proto" / "croupier" / "v1").glob("*.proto")):
        lines = proto.read_text().splitlines()
        for number, line in enumerate(lines):
            stripped = line.strip()
            declaration = stripped.startswith(("message ", "enum ", "service ", "rpc "))
            field = FIELD.fullmatch(stripped) is not None
            if declaration or field:
                previous = lines[number - 1].strip() if number else ""
                if not previous.startswith("//") and "//" not in stripped:
                    undocumented.append(f"{proto.name}:{number + 1}: {stripped}")
    assert not undocumented, "\n".join(undocumented)
