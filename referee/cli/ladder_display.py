"""The live display of `croupier ladder run`: a progress bar over the live standings.

Its own module, imported when a ladder runs, so that `croupier --help` loads neither rich's
progress and live displays nor the ladder package.
"""

from __future__ import annotations

from rich.console import Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from referee.cli.consoles import Pace, console, errors
from referee.ladder import LadderObserver, Standings, StartInfo
from referee.ratings.standings import table
from referee.text import plural


class Rate(ProgressColumn):
    """Matches per second over the recent past (rich's own speed estimate)."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text(f"{speed:.1f} matches/s" if speed else "- matches/s", style="progress.data")


class Display(LadderObserver):
    """A progress bar (done, rate, time left) over the live standings, on stderr."""

    def __init__(self, show: bool, *, sprt: bool = False) -> None:
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            Rate(),
            TimeRemainingColumn(),
            console=errors,
        )
        self.task: TaskID | None = None
        self.latest: Standings | None = None
        self.live = Live(console=errors, transient=True, refresh_per_second=4) if show else None
        self.done = 0
        self.total = 0
        self.sprt = sprt
        self.pace = Pace()

    def started(self, info: StartInfo) -> None:
        state = f"resuming, {info.done} of {info.total} done" if info.resumed else "new"
        count = ("up to " if self.sprt else "") + plural(info.total, "match", "matches")
        sooner = "; the SPRT may end it sooner" if self.sprt else ""
        console.print(
            f"ladder {info.name}: {info.game}, {count} ({state}{sooner})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        console.print(
            f"master seed sha256: {info.seed_sha256}", markup=False, highlight=False, soft_wrap=True
        )
        if info.luck_value:
            console.print(
                f"luck value function: {info.luck_value}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        self.done, self.total = info.done, info.total
        for change in info.changed:
            console.print(f"changed since the last run: {change}", markup=False, soft_wrap=True)
        self.task = self.bar.add_task(info.name, total=info.total, completed=info.done)
        if self.live is not None:
            self.live.start()
            self._render()

    def progress(self, done: int, total: int) -> None:
        if self.task is None:
            return
        self.bar.update(self.task, total=total, advance=max(done - self.done, 0))
        self.total = total
        if self.live is None and self.pace.due(done, total):
            console.print(
                f"{done} of {plural(total, 'match', 'matches')}", markup=False, highlight=False
            )
        self.done = done
        self._render()

    def standings(self, standings: Standings) -> None:
        self.latest = standings
        self._render()

    def _render(self) -> None:
        if self.live is None:
            return
        parts: list[object] = [self.bar]
        if self.latest is not None:
            parts.append(table(self.latest, title="live standings"))
        self.live.update(Group(*parts))  # type: ignore[arg-type]

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
