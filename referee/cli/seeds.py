"""The master seed on the command line: its option, the commitment printed at a run's start and
the seed revealed at its end (referee.match.seeds makes and checks them)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from referee.cli.consoles import console

Seed = Annotated[
    str | None,
    typer.Option(
        help="Master seed, for a reproducible run (default: a fresh secret one, revealed at "
        "the end); each match's seed is keyed by it."
    ),
]


def announce_seed(given: str | None, out: Console = console) -> str:
    """The run's master seed: the one given (a reproducible run, said so), else a fresh secret one
    from the OS whose SHA-256 is printed now, so the seed revealed at the end can be checked."""
    from referee.match.seeds import commitment, new_master_seed

    if given is not None:
        out.print(
            f"master seed (given, reproducible): {given}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return given
    master = new_master_seed()
    out.print(
        f"master seed sha256: {commitment(master)}", markup=False, highlight=False, soft_wrap=True
    )
    return master


def announce_luck(game_id: str, out: Console = console) -> None:
    """Print the name and digest of the value function the run's luck corrections are made
    with, beside the seed's commitment: fixed before the first match, so nobody tunes it after
    seeing the results (docs/ladders.md, "Luck-corrected scores")."""
    from referee.match.luck import value_digest

    digest = value_digest(game_id)
    if digest is not None:
        out.print(f"luck value function: {digest}", markup=False, highlight=False, soft_wrap=True)


def reveal_seed(master: str, *, given: bool, out: Console = console) -> None:
    """At the end of a run, reveal the master seed drawn at its start (a given one is known)."""
    if not given:
        out.print(f"master seed: {master}", markup=False, highlight=False, soft_wrap=True)


def seed_lines(master: str, *, given: bool) -> list[str]:
    """A finished run's seed lines, for a report printed once at the end (`croupier doctor`)."""
    from referee.match.seeds import commitment

    if given:
        return [f"master seed (given, reproducible): {master}"]
    return [f"master seed sha256: {commitment(master)}", f"master seed: {master}"]
