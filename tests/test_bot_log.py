"""A bot's log kept to its cap (referee.local.bot_log), with real processes writing into it: every
byte they print is either kept or counted in the cut line, across reopenings and with several
processes writing one log at once (a per-match launch)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import trio

from referee.local.bot_log import bot_output

CAP = 64 * 1024
_MARKER = re.compile(rb"\n\[\.\.\. (\d+) bytes cut \.\.\.\]\n")


async def print_lines(path: Path, lines: int, tag: str = "line") -> int:
    """A process that prints `lines` numbered lines into the log at `path`; the bytes it
    printed."""
    code = f"import sys\nfor i in range({lines}): sys.stdout.write(f'{tag} {{i:06d}}\\n')"
    async with bot_output(path, CAP) as output:
        await trio.run_process([sys.executable, "-c", code], stdout=output, stderr=output)
    return lines * len(f"{tag} 000000\n")


def accounted(path: Path) -> int:
    """The bytes the log stands for: the ones it keeps and the ones its marker says were cut."""
    data = path.read_bytes()
    found = _MARKER.search(data)
    assert found is not None, data[:200]
    assert found.start() == CAP // 4  # the head is the first quarter, the marker after it
    return len(data) - len(found[0]) + int(found[1])


async def test_a_reopened_log_keeps_its_head_and_counts_every_cut(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    printed = await print_lines(path, 20_000)
    assert path.stat().st_size <= CAP and accounted(path) == printed
    printed += await print_lines(path, 30_000)
    data = path.read_bytes()
    assert len(data) <= CAP and accounted(path) == printed
    assert data.startswith(b"line 000000\nline 000001\n") and data.endswith(b"line 029999\n")
    found = _MARKER.search(data)
    assert found is not None and re.fullmatch(rb"(line \d{6}\n)+", data[found.end() :])


async def test_processes_writing_one_log_at_once_lose_nothing_uncounted(tmp_path: Path) -> None:
    path = tmp_path / "bot.log"
    printed: list[int] = []

    async def one(tag: str) -> None:
        printed.append(await print_lines(path, 15_000, tag))

    async with trio.open_nursery() as nursery:
        for tag in ("first", "second", "third"):
            nursery.start_soon(one, tag)
    assert path.stat().st_size <= CAP and accounted(path) == sum(printed)
