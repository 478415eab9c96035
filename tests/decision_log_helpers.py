"""A match played with a logging bot in seat 0, and its record read by decision, for the
tests of the SDKs' decision logs (tests/test_decision_log.py, tests/test_node_decision_log.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Played:
    """A record and the bot's log of it."""

    def __init__(self, record: Path, log: Path) -> None:
        self.record = record
        self.log = log
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        self.match: str = lines[0]["header"]["matchId"]
        #: Decision N's action line (N from 1), as the record counts them.
        self.actions = {
            n: line["action"]
            for n, line in enumerate((line for line in lines if "action" in line), start=1)
        }

    def ours(self) -> list[int]:
        """Seat 0's decisions (the record leaves seat 0 out of its action lines)."""
        return [n for n, action in self.actions.items() if action.get("seat", 0) == 0]

    def entries(self) -> list[dict[str, Any]]:
        """The log's entries of this match."""
        entries = [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]
        return [entry for entry in entries if entry["match"] == self.match]

    def check_told(self, entries: list[dict[str, Any]]) -> None:
        """What the logging bot (either SDK's) says of its decisions, checked against the
        record: the first entry is its seating, and a line for each decision of its seat, in
        the record's order, names the action the record gives it."""
        assert entries[0] == {"match": self.match, "decision": 0, "line": "seated at 0"}
        told = [e for e in entries if e["line"].startswith("decision ")]
        assert [e["decision"] for e in told] == self.ours()
        for entry in told:  # the bot says its decision's number and its action: the record's
            action = self.actions[entry["decision"]]
            assert entry["line"] == f"decision {entry['decision']}: {action['text']}"
