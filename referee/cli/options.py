"""Options several commands share, declared and checked once: game options (`--option
NAME=VALUE`), the time control, values held to what they can mean (referee.match.bounds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from referee.errors import CroupierError

if TYPE_CHECKING:
    from referee.match.clock import TimeControl


def option_pairs(pairs: list[str], players: int | None) -> dict[str, str]:
    """Game options from `--option NAME=VALUE` (and the `--players N` shortcut)."""
    raw: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise CroupierError(f"bad option {pair!r}: expected NAME=VALUE")
        raw[name.strip()] = value.strip()
    if players is not None:
        raw["players"] = str(players)
    return raw


#: Options several commands share, declared once.
MoveMs = Annotated[int, typer.Option(min=0, help="Time per decision, ms.")]
BankMs = Annotated[int, typer.Option(min=0, help="Time bank for overage, ms.")]


def time_control(move_ms: int, bank_ms: int) -> TimeControl:
    """--move-ms and --bank-ms as a time control, each refused past what it can mean."""
    from referee.match.bounds import time_problem
    from referee.match.clock import TimeControl

    return TimeControl(
        move_ms=within("--move-ms", move_ms, time_problem),
        bank_ms=within("--bank-ms", bank_ms, time_problem),
    )


def within(option: str, value: int, problem: Callable[[int], str | None]) -> int:
    """`value` of `option` if `problem` finds nothing wrong with it (referee.match.bounds)."""
    found = problem(value)
    if found:
        raise CroupierError(f"{option} {value!r}: {found}")
    return value
