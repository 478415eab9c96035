"""`croupier watch`: live matches as a spectator sees them (public events and table only).

On a terminal the table is drawn as the replay stepper draws it, under the match's latest
events; in a pipe each event is one line, with the bots' names and cards as glyphs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from referee.cli.consoles import console, user_errors
from referee.errors import CroupierError
from referee.text import named

if TYPE_CHECKING:
    from croupier.v1 import referee_pb2

#: Events kept under the table on a terminal.
RECENT_EVENTS = 8


def watch_command(
    address: Annotated[str, typer.Argument(help="The referee, HOST:PORT.")],
    match_id: Annotated[
        str | None, typer.Argument(help="A live match (default: list the live matches).")
    ] = None,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            help="Watch the matches one after another as they start, until Ctrl-C.",
        ),
    ] = False,
    bot: Annotated[
        str | None, typer.Option(help="With --follow: only the matches this bot plays.")
    ] = None,
    ca_file: Annotated[
        Path | None,
        typer.Option("--ca-file", help="Speak TLS, trusting this CA certificate (PEM)."),
    ] = None,
    tls: Annotated[
        bool, typer.Option("--tls", help="Speak TLS, trusting the system roots.")
    ] = False,
) -> None:
    """Show a live match as a spectator sees it, follow the matches one after another, or list
    the live matches."""
    from rich.table import Table

    from referee.transport.client import list_matches, watch

    with user_errors():
        secure = tls or ca_file is not None
        if bot is not None and not follow:
            raise CroupierError("--bot goes with --follow")
        if match_id is None and not follow:
            table = Table(title=f"live matches on {address}")
            for column in ("match", "game", "seats"):
                table.add_column(column)
            for live in list_matches(address, secure=secure, ca_file=ca_file):
                table.add_row(live.match_id, live.game, ", ".join(live.seat_names))
            console.print(table)
            return
        messages = watch(
            address, None if follow else match_id, bot=bot or "", secure=secure, ca_file=ca_file
        )
        if follow:
            console.print(
                f"following the matches on {address}" + (f" of {bot}" if bot else ""),
                markup=False,
                highlight=False,
            )
        try:
            if console.is_terminal:
                draw(messages)
            else:
                for line in lines(messages):
                    console.print(line, markup=False, highlight=False)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None


def lines(messages: Iterable[referee_pb2.WatchMessage]) -> Iterable[str]:
    """A line per match start, public event and result (tables are for terminals)."""
    from referee.viewer.glyphs import readable

    game, names = "", list[str]()
    for message in messages:
        kind = message.WhichOneof("kind")
        if kind == "match_start" and message.match_start.match_id:
            start = message.match_start
            game, names = start.game, list(start.seat_names)
            seats = ", ".join(f"{i}={n}" for i, n in enumerate(names))
            yield f"{start.game} match {start.match_id}: {seats}"
        elif kind == "event":
            yield f"  {named(readable(game, message.event.event.text), names)}"
        elif kind == "match_end":
            yield f"result: {named(message.match_end.result.text, names)}"


def draw(messages: Iterable[referee_pb2.WatchMessage], screen: Console = console) -> None:
    """The spectator's table (as the stepper draws it) over the latest events, live."""
    from rich.console import Group
    from rich.live import Live
    from rich.text import Text

    from referee import viewer
    from referee.viewer.glyphs import readable
    from referee.viewer.terminal import table_renderable

    game, names = "", list[str]()
    recent: deque[str] = deque(maxlen=RECENT_EVENTS)
    board: object = Text("waiting for a match to start")
    with Live(console=screen, auto_refresh=False) as live:
        for message in messages:
            kind = message.WhichOneof("kind")
            if kind == "match_start" and message.match_start.match_id:
                start = message.match_start
                game, names = start.game, list(start.seat_names)
                recent.clear()
                seats = ", ".join(f"{i}={n}" for i, n in enumerate(names))
                recent.append(f"{start.game} match {start.match_id}: {seats}")
            elif kind == "event":
                recent.append(named(readable(game, message.event.event.text), names))
            elif kind == "match_end":
                recent.append(f"result: {named(message.match_end.result.text, names)}")
            elif kind == "public_table":
                public = getattr(message.public_table, message.public_table.WhichOneof("game"))
                board = table_renderable(viewer.spectator_table(game, names, public))
            live.update(Group(board, Text("\n".join(recent))), refresh=True)  # type: ignore[arg-type]
