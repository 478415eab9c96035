"""`croupier replay FILE` in a terminal: a Textual app that steps through a match.

Keys: ← → step, Home End, [ ] trick, PgUp PgDn (or { }) round, g go to (round, round.trick or
#step), space play/pause, o everything, 0-9 a seat's view, v V cycle views, ↑ ↓ scroll, q quit.
Tricks and rounds go by the game's names (XIX: trick and exchange; Tex-Tac-Toe: turn and hand).
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static

from referee.match.records import ChallengeMark
from referee.text import printable
from referee.viewer.decision_log import DecisionLog
from referee.viewer.plain import LOG_MARK
from referee.viewer.terminal import table_renderable
from referee.viewer.timeline import Timeline

PLAY_SECONDS = 0.7


def keys_help(major: str, minor: str) -> str:
    """Every key, in the words of the game (`major` "round", `minor` "trick")."""
    return (
        "← → step · Home End first, last\n"
        f"[ ] {minor} · PgUp PgDn (or {{ }}) {major}\n"
        f"g go to: 3 ({major} 3), 3.4 (its {minor} 4), #57 (step 57)\n"
        "space play/pause · ↑ ↓ scroll\n"
        "o everything · 0-9 a seat's view · v V next, previous view\n"
        "q quit"
    )


def bindings(major: str, minor: str) -> list[Binding]:
    """The stepper's keys, the trick and round keys named as the game names them (`major`
    "exchange", `minor` "trick" in XIX). The footer shows what fits 80 columns, in this order;
    `?` lists every key."""
    return [
        Binding("right,l", "step(1)", "next"),
        Binding("left,h", "step(-1)", "back"),
        Binding("home", "go(0)", "start", show=False),
        Binding("end", "go(-1)", "end", show=False),
        Binding("right_square_bracket", "segment(False, True)", minor),
        Binding("left_square_bracket", "segment(False, False)", minor, show=False),
        Binding("pagedown,right_curly_bracket", "segment(True, True)", major),
        Binding("pageup,left_curly_bracket", "segment(True, False)", major, show=False),
        Binding("g", "open_goto", "go to", show=False),
        Binding("space", "play", "play"),
        Binding("v", "cycle(1)", "view"),
        Binding("V", "cycle(-1)", "prev view", show=False),
        Binding("o", "show(-1)", "everything", show=False),
        *(Binding(str(n), f"show({n})", f"seat {n}", show=False) for n in range(10)),
        Binding("down", "scroll(1)", "scroll", show=False),
        Binding("up", "scroll(-1)", "scroll", show=False),
        Binding("question_mark", "keys", "keys"),
        Binding("q", "quit", "quit"),
    ]


class Board(VerticalScroll, can_focus=False):
    """The table. It never takes the focus, so Home, End and the page keys stay the stepper's;
    up and down scroll it."""


class Stepper(App[None]):
    """Steps through one match; every view is the timeline's, so it shows what the HTML shows."""

    TITLE = "croupier replay"
    # Its footer entry would cover the keys' at 120 columns; the stepper has no commands.
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = None  # keys go to the stepper; the go-to box takes them only while open
    CSS = """
    #status { height: 1; padding: 0 1; background: $boost; }
    #table { padding: 0 1; width: 100%; }
    #caption { height: auto; max-height: 12; padding: 0 1; border-top: solid $accent; }
    #goto { display: none; }
    #goto.open { display: block; }
    """

    def __init__(
        self, timeline: Timeline, viewer: int | None = None, log: DecisionLog | None = None
    ) -> None:
        super().__init__()
        timeline.check_viewer(viewer)
        major, minor = timeline.view.major, timeline.view.minor
        for b in bindings(major, minor):
            self.bind(b.key, b.action, description=b.description, show=b.show)
        self.keys = keys_help(major, minor)
        self.timeline = timeline
        self.index = 0
        self.viewer = viewer
        self.player: Timer | None = None
        #: The seat's own log lines by step (`croupier replay --seat S --log FILE`), shown under
        #: the caption in that seat's view (issue 46.4).
        self.seat_log = log
        self.logged = timeline.log_steps(log)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="status")
        with Board(id="board"):
            yield Static(id="table")
        yield Static(id="caption")
        yield Input(
            placeholder=f"{self.timeline.view.major}, {self.timeline.view.major}."
            f"{self.timeline.view.minor}, or #step; Enter to go, Esc to close",
            id="goto",
        )
        yield Footer()

    def on_mount(self) -> None:
        header = self.timeline.header
        mark = ChallengeMark.of(header)
        self.title = f"{header.game} · {header.match_id}" + (f" · {mark}" if mark else "")
        self.refresh_view()

    # --- drawing --------------------------------------------------------------------------------

    def refresh_view(self) -> None:
        timeline, index, viewer = self.timeline, self.index, self.viewer
        self.sub_title = f"view: {timeline.view_name(viewer)}"
        playing = " · playing" if self.player is not None else ""
        self.query_one("#status", Static).update(
            Text(
                f"step {index}/{len(timeline.steps) - 1} · view: {timeline.view_name(viewer)}"
                f"{playing}"
            )
        )
        self.query_one("#table", Static).update(table_renderable(timeline.table(index, viewer)))
        caption = Text()
        for problem in timeline.problems if index == len(timeline.steps) - 1 else []:
            caption.append(f"record problem: {problem}\n", style="bold red")
        lines = timeline.caption(index, viewer) or ["(nothing this view could see)"]
        caption.append("\n".join(lines))
        if self.seat_log is not None and viewer == self.seat_log.seat:
            for problem in self.seat_log.problems() if index == 0 else []:
                caption.append(f"\nlog problem: {problem}", style="bold red")
            for line in self.logged.get(index, []):
                caption.append("\n" + LOG_MARK.strip() + " " + printable(line), style="cyan")
        self.query_one("#caption", Static).update(caption)

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(self.timeline.steps) - 1))
        self.refresh_view()

    # --- actions --------------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.go(self.index + delta)

    def action_go(self, index: int) -> None:
        self.go(index if index >= 0 else len(self.timeline.steps) - 1)

    def action_segment(self, major: bool, forward: bool) -> None:
        self.go(self.timeline.next_segment(self.index, major, forward))

    def action_show(self, seat: int) -> None:
        if seat < 0:
            self.viewer = None
        elif seat < self.timeline.seats:
            self.viewer = seat
        else:
            self.notify(f"this match has no seat {seat}", severity="warning")
            return
        self.refresh_view()

    def action_cycle(self, delta: int) -> None:
        views = self.timeline.views()
        self.viewer = views[(views.index(self.viewer) + delta) % len(views)]
        self.refresh_view()

    def action_play(self) -> None:
        if self.player is not None:
            self.player.stop()
            self.player = None
        else:
            self.player = self.set_interval(PLAY_SECONDS, self._tick)
        self.refresh_view()

    def _tick(self) -> None:
        if self.index >= len(self.timeline.steps) - 1:
            self.action_play()  # stop at the end
            return
        self.go(self.index + 1)

    def action_keys(self) -> None:
        self.notify(self.keys, title="keys", timeout=12)

    def action_scroll(self, lines: int) -> None:
        self.query_one(Board).scroll_relative(y=lines, animate=False)

    def action_open_goto(self) -> None:
        box = self.query_one("#goto", Input)
        box.add_class("open")
        box.value = ""
        box.focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        target = self.parse_goto(message.value)
        box = self.query_one("#goto", Input)
        if target is None:
            self.notify(f"nothing at {message.value!r}", severity="warning")
            return
        box.remove_class("open")
        self.set_focus(None)
        self.go(target)

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#goto", Input)
        if event.key == "escape" and box.has_class("open"):
            box.remove_class("open")
            self.set_focus(None)

    def parse_goto(self, text: str) -> int | None:
        """ "3" round 3, "3.4" round 3 trick 4, "#57" step 57; None if there is no such step."""
        text = text.strip()
        try:
            if text.startswith("#"):
                index = int(text[1:])
                return index if 0 <= index < len(self.timeline.steps) else None
            major, _, minor = text.partition(".")
            return self.timeline.find(int(major), int(minor) if minor else None)
        except ValueError:
            return None


def run_stepper(
    timeline: Timeline, viewer: int | None = None, log: DecisionLog | None = None
) -> None:
    """Open the stepper in this terminal until the user quits."""
    Stepper(timeline, viewer, log).run()
