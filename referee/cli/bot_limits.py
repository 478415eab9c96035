"""The switches for launched bots: the sandbox and the limits every bot runs under."""

from __future__ import annotations

from referee.errors import CroupierError

#: The sandbox switch, alike in `croupier match`, `ladder run` and `doctor`.
SANDBOX_HELP = (
    "Run each bot in the bubblewrap sandbox (no network, read-only system, limits); on by "
    "default on Linux. --no-sandbox trusts the bots: see docs/bots.md."
)


def sandboxed(chosen: bool | None) -> bool:
    """--sandbox or --no-sandbox, else the platform's default (left out of the option's own
    default, which --help would have to load the sandbox to show)."""
    from referee.local.sandbox import default_enabled

    return default_enabled() if chosen is None else chosen


LIMIT_HELP = (
    "A limit for every bot, NAME=VALUE (0: none); repeatable. Names: memory_mb, processes, "
    "disk_mb, open_files, cpu_seconds; see docs/bots.md for the defaults."
)


def limit_pairs(pairs: list[str]) -> dict[str, int]:
    """`--limit NAME=VALUE` options as a table for Limits.merged."""
    table: dict[str, int] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not value.strip().isdigit():
            raise CroupierError(f"expected --limit NAME=NUMBER, got {pair!r}")
        table[name.strip()] = int(value)
    return table
