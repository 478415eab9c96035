"""Replays people can look at: the terminal stepper, the self-contained HTML viewer, and a
record as plain text (`plain`), cards drawn as glyphs (`glyphs`) in all three.

`timeline.load` re-runs a record through the engine; each game's view (`games`) turns the
observations at every step into a table model (`model`) that the terminal (`terminal`: rich;
`stepper`: the Textual app) and the HTML page (`html`) both draw. A seat's view is built from
that seat's observations and events only. `decision_log` reads a seat's own log lines by
decision, which the plain text and the page show beside its decisions (`--seat S --log FILE`).

May import: `referee.match` (records and their replay), `referee.games` and the shared modules;
never transport, a ladder, the contest server or the CLI.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from google.protobuf.message import Message

from referee.viewer.decision_log import DecisionLog
from referee.viewer.games import Context, view_for
from referee.viewer.games.base import SPECTATOR
from referee.viewer.html import render_html, viewer_data, write_assets, write_html
from referee.viewer.model import Card, Deck, Layout, Pile, SeatBox, Table
from referee.viewer.timeline import Shown, Step, StepKind, Timeline, load

__all__ = [
    "Card",
    "Deck",
    "Layout",
    "Pile",
    "SeatBox",
    "Shown",
    "Step",
    "StepKind",
    "Table",
    "Timeline",
    "load",
    "render_html",
    "spectator_table",
    "step_through",
    "viewer_data",
    "write_assets",
    "write_html",
    "write_viewer",
]


def write_viewer(record: Path, out: Path, seat: int | None = None) -> Path:
    """Write `record`'s HTML viewer to `out`, opening on `seat`'s view (None: everything).

    This is what a ladder report links to for each match: one standalone file per record."""
    timeline = load(record)
    return write_html(timeline, out, seat)


def spectator_table(game: str, names: Sequence[str], public: Message) -> Table:
    """The table a spectator sees from a live match's public observation (a game message)."""
    context = Context(tuple(names), SPECTATOR, {SPECTATOR: public}, None, ())
    return view_for(game).table(context)


def step_through(
    timeline: Timeline, seat: int | None = None, log: DecisionLog | None = None
) -> None:
    """Open the terminal stepper on `timeline` until the user quits (needs a terminal), with
    `seat`'s own `log` lines under the caption of its decisions."""
    timeline.check_viewer(seat)
    from referee.viewer.stepper import run_stepper  # Textual loads only when a stepper opens

    run_stepper(timeline, seat, log)
