"""The ladder file: one TOML document naming the game, the bots, the format and where state goes.

Every mistake in it is a `LadderConfigError` that names the file, the line and the key, so an
organiser fixes a long file without guessing (read by referee.tomlfile, as contest files are).
Relative paths (`database`, `records`, a bot's `cwd`) start from `root`, itself relative to the
file; bot commands run in `root` unless a bot gives its own `cwd`. `{python}` in a command is
the Python that runs croupier, so the example ladders work from any virtual environment.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from referee import tomlfile
from referee.clock_kind import ClockKind
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import Game, parse_options
from referee.games.catalog import CATALOG
from referee.games.options import Options
from referee.local.limits import Limits
from referee.local.sandbox import default_enabled
from referee.match.bounds import (
    ceiling_problem,
    concurrency_problem,
    cpu_clock_problem,
    ladder_matches_problem,
    time_problem,
    workers_problem,
)
from referee.match.clock import DEFAULT_CEILING_FACTOR, TimeControl
from referee.text import tidy_path
from referee.tomlfile import MISSING, TomlReader

#: Replaced in bot commands by the running Python (`sys.executable`), shell-quoted.
PYTHON_PLACEHOLDER = "{python}"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


class LadderConfigError(CroupierError):
    """A ladder file that cannot be used: the message names the file, line and key."""


class Format(StrEnum):
    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    SWISS = "swiss"


class Order(StrEnum):
    """What orders a ladder's standings (all three are shown): win/loss ratings, the mean point
    margin, or the luck-corrected margin (referee.ratings.margins)."""

    RATING = "rating"
    MARGIN = "margin"
    CORRECTED = "corrected"


class Launch(StrEnum):
    """How bot processes map to concurrent matches."""

    #: One process per bot per concurrent match (slot): a bot's matches never share a CPU-bound
    #: process, so one match's slow decision cannot eat another match's clock.
    PER_SLOT = "per-slot"
    #: One process per bot, with CROUPIER_SESSIONS sessions (one per slot and seat).
    SHARED = "shared"
    #: A fresh process per bot per match, ended after it: no state carries over between matches,
    #: at the price of a start-up per match (what bench/ladder_throughput.py compares).
    PER_MATCH = "per-match"


@dataclass(frozen=True, slots=True)
class BotSpec:
    """One bot of the ladder: its name in the standings and how to launch it."""

    name: str
    #: The command as written in the file (`{python}` not yet expanded): part of the identity.
    command: str
    cwd: Path
    env: tuple[tuple[str, str], ...] = ()
    #: This bot's limits: the ladder's `[limits]` with the bot's own `limits` table over them.
    limits: Limits = field(default_factory=Limits)
    #: Whether `cwd` is the bot's own (given in its table): then the sandbox shows that folder;
    #: otherwise the folder its command names (referee.local.bot_root.bot_folder).
    own_folder: bool = False
    #: Whether the folder is an author's upload (a hosted version played on a cluster): the
    #: sandbox shows it and nothing its links lead to (referee.local.bot_root).
    confined: bool = False

    def command_line(self) -> str:
        """The command to run, with `{python}` expanded to this interpreter."""
        return self.command.replace(PYTHON_PLACEHOLDER, shlex.quote(sys.executable))


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """The `[cluster]` table: where a ladder's matches run when they run on a Dask cluster.
    Not part of the fingerprint: a ladder may resume on a cluster, or off it."""

    #: The Dask scheduler (`tcp://host:8786`); None plays locally unless `--cluster` gives one.
    scheduler: str | None = None
    #: Paths under `root` packed and unpacked on every worker; the bots then run from there.
    ship: tuple[str, ...] = ()
    #: Where `root` is on the workers when they hold the bots at another path than here.
    root: str | None = None
    #: Matches per Dask task (one referee and one launch of the bots each); None sizes them.
    batch: int | None = None


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and how a ladder's matches run: the database and records, the bots' folders, how
    many at once and in how many referee processes, how bots are launched, sandboxed and pinned,
    and on which cluster. None of it is in the fingerprint: it may change between runs."""

    database: Path = Path("ladder.sqlite")
    records: Path = Path("records")
    root: Path = Path()
    concurrency: int = 1
    #: Referee processes on this machine that share `concurrency` (referee.ladder.process_venue);
    #: None: one per core, as `croupier ladder run --workers` defaults (its value wins).
    workers: int | None = None
    max_restarts: int = 10
    launch: Launch = Launch.PER_SLOT
    connect_timeout: float = 30.0
    cluster: ClusterConfig | None = None
    #: Run the bots in the sandbox (referee.local.sandbox); `sandbox = false` turns it off.
    sandbox: bool = field(default_factory=default_enabled)
    #: Cores per slot (slot i gets entry i modulo their number); empty: no pinning.
    cpus: tuple[frozenset[int], ...] = ()
    #: The organiser's runtime folder every bot sees read-only (a hosted contest's, played on a
    #: cluster: referee.local.sandbox.Sandbox.runtime); None: none.
    runtime: Path | None = None

    def slot_cpus(self, slot: int) -> frozenset[int] | None:
        """The cores slot `slot`'s bot processes are pinned to, or None (anywhere)."""
        return self.cpus[slot % len(self.cpus)] if self.cpus else None


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """A validated ladder file: its terms of play, which `fingerprint()` gives as a resumed run
    must agree on (and `seed` and `order`, which the runner checks and shows apart), and their
    `placement`, which may change between runs."""

    path: Path
    name: str
    game: Game
    options: Options
    bots: tuple[BotSpec, ...]
    format: Format = Format.ROUND_ROBIN
    matches_per_pairing: int = 10
    rounds: int = 1
    challengers: tuple[str, ...] = ()
    teams: tuple[tuple[str, str], ...] = ()
    duplicate: bool = True
    order: Order = Order.RATING
    seed: str | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    max_faults: int = 3
    #: False: a bot's processes are stopped while it is not to move (SIGSTOP/SIGCONT).
    ponder: bool = True
    placement: Placement = field(default_factory=Placement)

    @property
    def seats(self) -> int:
        return self.game.seat_count(self.options)

    def kept_in(self, database: Path, records: Path) -> LadderConfig:
        """The same ladder with its database and records elsewhere (a run of its own)."""
        placement = replace(self.placement, database=database, records=records)
        return replace(self, placement=placement)

    def fingerprint(self) -> dict[str, Any]:
        """What decides the schedule and the conditions of play. A database made from one
        fingerprint refuses a file with another; its placement (paths, concurrency, launch
        mode) may change between runs."""
        return {
            "name": self.name,
            "game": self.game.id,
            "rules_version": self.game.rules_version,
            "options": self.options.as_text(),
            "format": str(self.format),
            "matches_per_pairing": self.matches_per_pairing,
            "rounds": self.rounds,
            "challengers": list(self.challengers),
            "teams": [list(team) for team in self.teams],
            "duplicate": self.duplicate,
            "time_control": {
                "move_ms": self.time_control.move_ms,
                "bank_ms": self.time_control.bank_ms,
                # only under a CPU clock: databases made before it existed keep their fingerprint
                **(
                    {"clock": "cpu", "ceiling_factor": self.time_control.ceiling_factor}
                    if self.time_control.clock is ClockKind.CPU
                    else {}
                ),
            },
            "max_faults": self.max_faults,
            # only when off: databases made before the key existed keep their fingerprint
            **({"ponder": False} if not self.ponder else {}),
            "bots": [
                {"name": bot.name, "command": bot.command, "env": dict(bot.env)}
                for bot in self.bots
            ],
        }


def schedule_tables(entrants: int, sides: int, champions: int = 0) -> int:
    """How many tables a round-robin (or, with `champions`, a gauntlet) seats, counted, never
    listed (as referee.ladder.schedule's `tables` does): every `sides`-group of the entrants, or
    with fewer entrants than sides every multiset that seats each at least once. In a team game
    tables of teams that share a bot are later dropped, so there it is an upper bound."""

    def groups(pool: int, size: int) -> int:
        return math.comb(pool, size) if pool >= size else math.comb(size - 1, size - pool)

    if champions:
        return champions * groups(entrants - champions, sides - 1)
    return groups(entrants, sides)


def team_game(game: Game, options: Options) -> bool:
    """Whether the game is played by teams at these options' seat count (Xeri with four players,
    XERI-R1)."""
    return game.info.sides(game.seat_count(options)) is not None


def rotations(game: Game, options: Options) -> int:
    """How many seat rotations a duplicate deal is played in: one per seat."""
    return game.seat_count(options)


def load(path: Path) -> LadderConfig:
    """Read and validate a ladder file; raises LadderConfigError naming the line and key."""
    return parse(tomlfile.read(path, "ladder", LadderConfigError), path)


def parse(text: str, path: Path) -> LadderConfig:
    """Validate the text of a ladder file; `path` names it in errors and anchors relative
    paths."""
    data = tomlfile.parse(text, path, LadderConfigError)
    return _Reader(path, text).ladder(data)


_TOP_KEYS = (
    "name",
    "game",
    "options",
    "format",
    "matches_per_pairing",
    "rounds",
    "challengers",
    "teams",
    "duplicate",
    "order",
    "concurrency",
    "workers",
    "seed",
    "database",
    "records",
    "root",
    "time_control",
    "max_faults",
    "max_restarts",
    "launch",
    "connect_timeout",
    "cluster",
    "sandbox",
    "limits",
    "ponder",
    "cpus",
    "bot",
)
_BOT_KEYS = ("name", "command", "cwd", "env", "limits")
_CLUSTER_KEYS = ("scheduler", "ship", "root", "batch")
_TIME_KEYS = ("move_ms", "bank_ms", "clock", "ceiling_factor")


def clock_problem(clock: ClockKind, move_ms: int, launch: Launch) -> tuple[str, str] | None:
    """Why a ladder cannot time its bots launched by `launch` by `clock` with `move_ms`: the
    key at fault and the reason, or None."""
    if clock is not ClockKind.CPU:
        return None
    problem = cpu_clock_problem(move_ms)
    if problem:
        return "clock", problem
    if launch is Launch.SHARED:
        return "launch", (
            "a cpu clock needs launch 'per-slot' or 'per-match': a shared process plays "
            "several matches at once and the kernel counts its CPU time for all of them"
        )
    return None


def clocked(config: LadderConfig, clock: ClockKind, ceiling_factor: int | None) -> LadderConfig:
    """The ladder under another clock (`croupier ladder run --clock`), refused as in its file."""
    if ceiling_factor is not None and clock is not ClockKind.CPU:
        raise LadderConfigError("--ceiling-factor is for --clock cpu (the wall clock has none)")
    factor = config.time_control.ceiling_factor if ceiling_factor is None else ceiling_factor
    problem = ceiling_problem(factor)
    if problem:
        raise LadderConfigError(f"--ceiling-factor {factor!r}: {problem}")
    found = clock_problem(clock, config.time_control.move_ms, config.placement.launch)
    if found:
        raise LadderConfigError(f"--clock {str(clock)!r}: {found[1]}")
    control = replace(config.time_control, clock=clock, ceiling_factor=factor)
    return replace(config, time_control=control)


class _Reader(TomlReader[LadderConfigError]):
    """The ladder file's document, read into a LadderConfig."""

    def __init__(self, path: Path, text: str) -> None:
        super().__init__(path, text, LadderConfigError)

    def ladder(self, data: dict[str, Any]) -> LadderConfig:
        self.check_keys(data, _TOP_KEYS, ())
        name = self.value(data, (), "name", str, self.path.stem, _check_name)
        game_id = self.value(data, (), "game", str)
        try:
            game = get_game(game_id)
        except CroupierError as error:
            raise self.error(("game",), str(error)) from None
        raw_options = self.value(data, (), "options", dict, {})
        options_text: dict[str, str] = {}
        for key, value in raw_options.items():
            if isinstance(value, bool):
                options_text[key] = str(value).lower()
            elif isinstance(value, int | str):
                options_text[key] = str(value)
            else:
                raise self.error(
                    ("options", key), f"expected a number or true/false, got {value!r}"
                )
        try:
            options = parse_options(game, options_text)
        except CroupierError as error:
            bad = next((k for k in options_text if repr(k) in str(error)), None)
            raise self.error(("options", bad) if bad else ("options",), str(error)) from None
        seats = game.seat_count(options)
        teams_game = team_game(game, options)

        root = tidy_path(self.path.parent / self.value(data, (), "root", str, "."))
        if not root.is_dir():
            raise self.error(("root",), f"no such directory {str(root)!r}")
        bots = self.bots(data, root)
        names = [bot.name for bot in bots]

        fmt_text = self.value(data, (), "format", str, "round-robin", _choice(Format))
        fmt = Format(fmt_text)
        duplicate = self.value(data, (), "duplicate", bool, True)
        turns = seats
        default_matches = math.ceil(10 / turns) * turns if duplicate else 10
        matches = self.value(data, (), "matches_per_pairing", int, default_matches, _at_least(1))
        if duplicate and matches % turns:
            raise self.error(
                ("matches_per_pairing",),
                f"with duplicate = true it must be a multiple of {turns} (every deal is played "
                f"once per seat rotation), got {matches}",
            )
        challengers = tuple(self.value(data, (), "challengers", list, []))
        for challenger in challengers:
            if challenger not in names:
                raise self.error(("challengers",), f"no bot named {challenger!r}")
        if fmt is Format.GAUNTLET and not challengers:
            raise self.error(("format",), "a gauntlet needs `challengers`, the bots that face all")
        if fmt is Format.GAUNTLET and len(challengers) == len(names):
            raise self.error(("challengers",), "a gauntlet needs bots that are not challengers")
        if challengers and fmt is not Format.GAUNTLET:
            raise self.error(("challengers",), "only a gauntlet has challengers")
        teams = self.teams(data, names, teams_game)
        entrants = len(teams) if teams_game else len(names)
        default_rounds = max(1, math.ceil(math.log2(max(entrants, 2))))
        rounds = self.value(data, (), "rounds", int, default_rounds, _at_least(1))
        if "rounds" in data and fmt is not Format.SWISS:
            raise self.error(("rounds",), "only a Swiss ladder has rounds")
        sides = 2 if teams_game else seats
        if entrants < 2:
            raise self.error(("bot",), "a ladder needs at least two competitors")
        if fmt is Format.SWISS and entrants < sides:
            raise self.error(("format",), f"a Swiss ladder needs at least {sides} competitors")

        control = self.time_control(data)
        # The schedule's size, counted before anything is made per table or match.
        competitors = teams if teams_game else tuple((bot,) for bot in names)
        champions = sum(bool(set(c) & set(challengers)) for c in competitors)
        tables = (
            rounds * (entrants // sides)
            if fmt is Format.SWISS
            else schedule_tables(entrants, sides, champions)
        )
        problem = ladder_matches_problem(tables * matches)
        if problem:
            raise self.error(("matches_per_pairing",), problem)

        seed = self.value(data, (), "seed", str, None, _nonempty)  # type: ignore[arg-type]
        return LadderConfig(
            path=self.path,
            name=name,
            game=game,
            options=options,
            bots=bots,
            format=fmt,
            matches_per_pairing=matches,
            rounds=rounds if fmt is Format.SWISS else 1,
            challengers=challengers,
            teams=teams,
            duplicate=duplicate,
            order=Order(self.value(data, (), "order", str, "rating", _choice(Order))),
            seed=seed,
            time_control=control,
            max_faults=self.value(data, (), "max_faults", int, 3, _at_least(1)),
            ponder=self.value(data, (), "ponder", bool, True),
            placement=self.placement(data, root, name),
        )

    def placement(self, data: dict[str, Any], root: Path, name: str) -> Placement:
        workers = self.value(data, (), "workers", int, None, workers_problem)  # type: ignore[arg-type]
        database = self.value(data, (), "database", str, f"ladder-out/{name}/ladder.sqlite")
        records = self.value(data, (), "records", str, f"ladder-out/{name}/records")
        return Placement(
            database=root / database,
            records=root / records,
            root=root,
            concurrency=self.value(data, (), "concurrency", int, 1, concurrency_problem),
            workers=workers,
            max_restarts=self.value(data, (), "max_restarts", int, 10, _at_least(0)),
            launch=Launch(self.value(data, (), "launch", str, "per-slot", _choice(Launch))),
            connect_timeout=self.value(
                data,
                (),
                "connect_timeout",
                float,
                30.0,
                lambda v: None if v > 0 else "expected > 0",
            ),
            cluster=self.cluster(data, root),
            sandbox=self.value(data, (), "sandbox", bool, default_enabled()),
            cpus=self.cpus(data),
        )

    def time_control(self, data: dict[str, Any]) -> TimeControl:
        """`[time_control]`: move_ms, bank_ms, and the clock (with its ceiling_factor)."""
        where = ("time_control",)
        table = self.value(data, (), "time_control", dict, {})
        self.check_keys(table, _TIME_KEYS, where)
        clock = ClockKind(self.value(table, where, "clock", str, "wall", _choice(ClockKind)))
        if "ceiling_factor" in table and clock is not ClockKind.CPU:
            raise self.error((*where, "ceiling_factor"), 'only clock = "cpu" has a ceiling')
        move_ms = self.value(table, where, "move_ms", int, 1000, time_problem)
        launch = self.value(data, (), "launch", str, "per-slot", _choice(Launch))
        found = clock_problem(clock, move_ms, Launch(launch))
        if found:
            key, problem = found
            raise self.error((*where, key) if key == "clock" else (key,), problem)
        return TimeControl(
            move_ms=move_ms,
            bank_ms=self.value(table, where, "bank_ms", int, 10_000, time_problem),
            clock=clock,
            ceiling_factor=self.value(
                table, where, "ceiling_factor", int, DEFAULT_CEILING_FACTOR, ceiling_problem
            ),
        )

    def cpus(self, data: dict[str, Any]) -> tuple[frozenset[int], ...]:
        """`cpus = [[0], [1]]`: the cores of each slot, checked against this machine's."""
        entries = self.value(data, (), "cpus", list, [])
        available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
        if entries and not available:
            raise self.error(("cpus",), "pinning to cores is not supported on this platform")
        if entries and data.get("launch") == str(Launch.SHARED):
            raise self.error(("cpus",), "cpus needs launch 'per-slot' or 'per-match'")
        slots = []
        for entry in entries:
            if (
                not isinstance(entry, list)
                or not entry
                or not all(isinstance(c, int) and not isinstance(c, bool) for c in entry)
            ):
                raise self.error(
                    ("cpus",), f"expected a list of core numbers per slot, got {entry!r}"
                )
            missing = sorted(set(entry) - available)
            if missing:
                raise self.error(
                    ("cpus",),
                    f"core {missing[0]!r} is not available here (available: "
                    f"{', '.join(map(str, sorted(available)))})",
                )
            slots.append(frozenset(entry))
        return tuple(slots)

    def cluster(self, data: dict[str, Any], root: Path) -> ClusterConfig | None:
        if "cluster" not in data:
            return None
        table = self.value(data, (), "cluster", dict)
        where: tuple[str | int, ...] = ("cluster",)
        self.check_keys(table, _CLUSTER_KEYS, where)
        scheduler = self.value(table, where, "scheduler", str, None, check_scheduler)  # type: ignore[arg-type]
        ship = self.value(table, where, "ship", list, [])
        for path in ship:
            if not isinstance(path, str) or not path.strip():
                raise self.error((*where, "ship"), f"expected paths under root, got {path!r}")
            if not (root / path).exists():
                raise self.error((*where, "ship"), f"no such file or directory {path!r} in root")
        worker_root = self.value(table, where, "root", str, None, _nonempty)  # type: ignore[arg-type]
        if ship and worker_root is not None:
            raise self.error((*where, "root"), "give `ship` or `root`, not both")
        batch = self.value(table, where, "batch", int, None, _at_least(1))  # type: ignore[arg-type]
        return ClusterConfig(scheduler, tuple(ship), worker_root, batch)

    def limits(
        self, table: Mapping[str, Any], where: tuple[str | int, ...], base: Limits
    ) -> Limits:
        """`base` with the `limits` table of `table` (the ladder's, or one bot's) over it."""
        overrides = self.value(table, where, "limits", dict, {})
        self.check_keys(overrides, Limits.keys(), (*where, "limits"))
        for key, value in overrides.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise self.error(
                    (*where, "limits", key), f"expected a whole number >= 0, got {value!r}"
                )
        return base.merged(overrides, "limits")

    def bots(self, data: dict[str, Any], root: Path) -> tuple[BotSpec, ...]:
        tables = self.value(data, (), "bot", list)
        bots: list[BotSpec] = []
        for index, table in enumerate(tables):
            where: tuple[str | int, ...] = ("bot", index)
            if not isinstance(table, dict):
                raise self.error(("bot",), "expected [[bot]] tables")
            self.check_keys(table, _BOT_KEYS, where)
            name = self.value(table, where, "name", str, MISSING, _check_name)
            if any(bot.name == name for bot in bots):
                raise self.error((*where, "name"), f"two bots are named {name!r}")
            command = self.value(table, where, "command", str, MISSING, _check_command)
            cwd = root / self.value(table, where, "cwd", str, ".")
            if not cwd.is_dir():
                raise self.error((*where, "cwd"), f"no such directory {str(cwd)!r}")
            env = self.value(table, where, "env", dict, {})
            for key, value in env.items():
                if not isinstance(value, str):
                    raise self.error((*where, "env", key), f"expected a string, got {value!r}")
            limits = self.limits(table, where, self.limits(data, (), Limits()))
            own = "cwd" in table
            bots.append(BotSpec(name, command, cwd, tuple(sorted(env.items())), limits, own))
        return tuple(bots)

    def teams(
        self, data: dict[str, Any], names: list[str], teams_game: bool
    ) -> tuple[tuple[str, str], ...]:
        raw = self.value(data, (), "teams", list, [])
        if raw and not teams_game:
            games = ", ".join(
                f"{info.id} with {teams.seats} players"
                for info in CATALOG.values()
                for teams in info.teams
            )
            raise self.error(("teams",), f"teams are only for team games ({games})")
        if not teams_game:
            return ()
        teams: list[tuple[str, str]] = []
        for team in raw:
            if (
                not isinstance(team, list)
                or len(team) != 2
                or not all(isinstance(member, str) for member in team)
            ):
                raise self.error(("teams",), f"a team is a pair of bot names, got {team!r}")
            for member in team:
                if member not in names:
                    raise self.error(("teams",), f"no bot named {member!r}")
            pair = (team[0], team[1])
            if pair in teams:
                raise self.error(("teams",), f"team {'+'.join(pair)!r} is listed twice")
            teams.append(pair)
        # By default each bot partners itself: a team game then ranks bots, not pairs.
        return tuple(teams) if teams else tuple((name, name) for name in names)


def _at_least(minimum: int) -> Callable[[int], str | None]:
    return lambda value: None if value >= minimum else f"expected at least {minimum}"


def _choice(enum: type[StrEnum]) -> Callable[[str], str | None]:
    allowed = [str(member) for member in enum]
    return lambda value: None if value in allowed else f"expected one of {', '.join(allowed)}"


def _check_name(value: str) -> str | None:
    if _NAME.fullmatch(value):
        return None
    return "expected letters, digits and _ . + - (starting with a letter or digit)"


def _nonempty(value: str) -> str | None:
    return None if value.strip() else "expected a non-empty string"


#: The address schemes Dask's scheduler listens on (none: tcp).
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def check_scheduler(value: str) -> str | None:
    """What is wrong with a Dask scheduler's address (`tcp://host:8786`), or None."""
    scheme, found, rest = value.partition("://")
    if not found:
        scheme, rest = "tcp", value
    if scheme not in SCHEDULER_SCHEMES:
        return (
            f"expected an address such as tcp://host:8786 (schemes: {', '.join(SCHEDULER_SCHEMES)})"
        )
    if not rest.strip() or rest != rest.strip():
        return "expected an address such as tcp://host:8786"
    return None


def _check_command(value: str) -> str | None:
    try:
        return None if shlex.split(value) else "expected a command line"
    except ValueError as error:
        return f"cannot split the command line ({error})"
