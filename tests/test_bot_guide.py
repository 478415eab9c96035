"""The bot author's guide shows a real transcript: docs/bots.md must hold exactly what
scripts/bot_transcript.py prints today (a real match over gRPC, seeded)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- transcript: begin"
END = "<!-- transcript: end -->"


def test_the_guides_transcript_is_fresh() -> None:
    # A fresh process, so that session and request ids start where the script expects.
    fresh = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bot_transcript.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    guide = (ROOT / "docs" / "bots.md").read_text()
    shown = guide[guide.index(BEGIN) : guide.index(END) + len(END)]
    assert shown == fresh.rstrip("\n"), (
        "docs/bots.md's transcript is stale: run "
        "`.venv/bin/python scripts/bot_transcript.py --write docs/bots.md`"
    )
    for kind in ("hello", "welcome", "match_start", "action_request", "action_reply"):
        assert f'{{"{kind}": ' in shown
    assert '{"match_end": ' in shown
    assert '{"goodbye": ' in shown
