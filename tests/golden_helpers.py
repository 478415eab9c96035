"""Golden records: one seeded match per game, played by `croupier match` itself (a loopback gRPC
server, real bot processes), kept under tests/golden/ with what legitimately varies taken out.

tests/test_golden_records.py plays each case again and compares; scripts/golden_records.py
writes them afresh. The bots are tests/bots/digest_bot.py, whose choices depend on everything
the referee sent them, so a transport that loses, reorders or alters a message shows up as a
different record, not only one that breaks the rules.
"""

from __future__ import annotations

import difflib
import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
DIGEST_BOT = ROOT / "tests" / "bots" / "digest_bot.py"

#: Generous enough that no decision of the digest bot ever times out, even on a loaded machine,
#: while the referee still runs its deadlines (a limit of 0 would switch them off).
MOVE_MS = 10_000
BANK_MS = 60_000

#: What differs between two runs of one seeded match: the clock's readings, when and where it was
#: played, by which build, and the match id (it holds the run's random id).
VARYING_HEADER = ("matchId", "softwareVersion", "startedAt", "computer")
VARYING_SEAT = ("cores",)
VARYING_ACTION = ("elapsedMs", "lagMs", "cpuMs", "starvedMs")


@dataclass(frozen=True, slots=True)
class GoldenCase:
    """One match: `croupier match GAME --option ... --bot ...`, seeded."""

    name: str
    game: str
    options: tuple[str, ...]
    #: Per seat, the digest bot's arguments (`--illegal-every N` makes it fault now and then).
    bots: tuple[tuple[str, ...], ...]
    seed: str

    @property
    def path(self) -> Path:
        return GOLDEN / f"{self.name}.jsonl"

    def arguments(self, records: Path) -> list[str]:
        """`croupier match`'s arguments for this case, writing its record into `records`."""
        arguments = ["match", self.game, "--seed", self.seed, "--records", str(records)]
        for option in self.options:
            arguments += ["--option", option]
        for bot in self.bots:
            arguments += ["--bot", shlex.join([sys.executable, str(DIGEST_BOT), *bot])]
        return [
            *arguments,
            *("--move-ms", str(MOVE_MS), "--bank-ms", str(BANK_MS)),
            "--no-sandbox",  # the transport is what these records guard; the sandbox only slows
        ]


PLAIN: tuple[str, ...] = ()
CASES = (
    # Illegal actions by seat 1: faults, the referee's replacement moves, no retirement.
    GoldenCase("xix", "xix", (), (PLAIN, ("--illegal-every", "18")), "golden-xix"),
    GoldenCase("xeri", "xeri", (), (PLAIN, PLAIN), "golden-xeri"),
    # Teams of two; seat 1 faults its way to retirement and the referee plays out its seat.
    GoldenCase(
        "xeri-teams",
        "xeri",
        ("players=4",),
        (PLAIN, ("--illegal-every", "6"), PLAIN, PLAIN),
        "golden-xeri-teams",
    ),
    GoldenCase(
        "xactika",
        "xactika",
        ("players=3",),
        (PLAIN, PLAIN, ("--illegal-every", "30")),
        "golden-xactika",
    ),
    GoldenCase("textactoe", "textactoe", (), (PLAIN, PLAIN), "golden-textactoe"),
    GoldenCase(
        "textactoe-jokers",
        "textactoe",
        ("players=3", "jokers=true"),
        (PLAIN, PLAIN, PLAIN),
        "golden-textactoe-jokers",
    ),
)


def play(case: GoldenCase, folder: Path) -> str:
    """Play the case's match with `croupier match` in a process of its own; its record's text."""
    records = folder / case.name
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", *case.arguments(records)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    found = sorted(records.glob("*.jsonl"))
    if done.returncode != 0 or len(found) != 1:
        raise AssertionError(
            f"croupier match for {case.name!r} exited {done.returncode} with records {found}:\n"
            f"{done.stdout}\n{done.stderr}"
        )
    return found[0].read_text(encoding="utf-8")


def normalise(record: str) -> list[str]:
    """The record's lines without what varies from run to run (VARYING_*), in compact JSON, the
    header's options in name order."""
    lines = []
    for text in record.splitlines():
        line = json.loads(text)
        header = line.get("header")
        if header is not None:
            for key in VARYING_HEADER:
                header.pop(key, None)
            if "options" in header:  # a protobuf map: written in no particular order
                header["options"] = dict(sorted(header["options"].items()))
            for seat in header.get("seats", []):
                for key in VARYING_SEAT:
                    seat.pop(key, None)
        action = line.get("action")
        if action is not None:
            for key in VARYING_ACTION:
                action.pop(key, None)
        lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    return lines


def difference(golden: list[str], fresh: list[str], context: int = 3, shown: int = 40) -> str:
    """Where two normalised records part, as a unified diff from their first differing line."""
    first = next(
        (i for i, (a, b) in enumerate(zip(golden, fresh, strict=False)) if a != b),
        min(len(golden), len(fresh)),
    )
    diff = list(difflib.unified_diff(golden, fresh, "golden", "played now", n=context, lineterm=""))
    more = f"\n... ({len(diff) - shown} more diff lines)" if len(diff) > shown else ""
    golden_line = golden[first] if first < len(golden) else "(the end)"
    fresh_line = fresh[first] if first < len(fresh) else "(the end)"
    return (
        f"first difference at line {first + 1} (golden has {len(golden)} lines, "
        f"the match played now {len(fresh)}):\n  golden: {golden_line}\n  now:    {fresh_line}\n"
        + "\n".join(diff[:shown])
        + more
    )


def write(case: GoldenCase, folder: Path) -> int:
    """Play the case and store its normalised record as the golden copy; its number of lines."""
    lines = normalise(play(case, folder))
    case.path.parent.mkdir(parents=True, exist_ok=True)
    case.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)
