"""`croupier doctor`: check a bot before a contest and print what to fix."""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from referee.cli.bot_limits import LIMIT_HELP, SANDBOX_HELP, limit_pairs, sandboxed
from referee.cli.consoles import EXIT_CHECK_FAILED, console, user_errors
from referee.cli.options import BankMs, MoveMs
from referee.cli.seeds import Seed, seed_lines
from referee.errors import CroupierError

Command = Annotated[
    list[str],
    typer.Argument(
        help="The bot's command line, after `--` (or one quoted string).",
        metavar="-- CMD...",
        show_default=False,
    ),
]
Game = Annotated[str, typer.Option(help="Game id to check the bot on (see `croupier games`).")]
GameOption = Annotated[
    list[str] | None, typer.Option(metavar="NAME=VALUE", help="A game option; repeatable.")
]
Players = Annotated[int | None, typer.Option(help="Shortcut for --option players=N.")]
Matches = Annotated[
    int | None,
    typer.Option(min=2, help="Matches before the reconnect (default: one per seat, min 3)."),
]
ConnectTimeout = Annotated[
    float, typer.Option(min=0.1, help="Seconds the bot may take to open a session.")
]
Sessions = Annotated[
    int, typer.Option(min=1, help="CROUPIER_SESSIONS: sessions the bot must hold at once.")
]
Sandbox = Annotated[
    bool | None,
    typer.Option(help=SANDBOX_HELP + " The doctor reports what the sandbox refused."),
]
Limit = Annotated[list[str] | None, typer.Option(help=LIMIT_HELP)]
Env = Annotated[
    list[str] | None,
    typer.Option(
        metavar="NAME[=VALUE]",
        help="A variable for the bot, as a ladder file's env (NAME alone: its value here); "
        "repeatable. In the sandbox the bot's environment is only PATH, the locale, "
        "CROUPIER_* and these.",
    ),
]
Keep = Annotated[
    Path | None,
    typer.Option(help="Folder to keep the records and the bot's output in (default: none)."),
]
Cwd = Annotated[
    Path | None,
    typer.Option(
        "--cwd",
        help="The bot's folder: it runs there and the sandbox shows it whole, as a contest "
        "shows a hosted bot its uploaded folder (default: here, and the sandbox shows the "
        "folder of the file the command names).",
    ),
]


def doctor(
    command: Command,
    game: Game,
    option: GameOption = None,
    players: Players = None,
    matches: Matches = None,
    move_ms: MoveMs = 1000,
    bank_ms: BankMs = 10_000,
    seed: Seed = None,
    connect_timeout: ConnectTimeout = 30.0,
    sessions: Sessions = 2,
    sandbox: Sandbox = None,
    limit: Limit = None,
    env: Env = None,
    keep: Keep = None,
    cwd: Cwd = None,
) -> None:
    """Check a bot before a contest: connect, authenticate, time, legality, matches, reconnect.

    Exit code 0 when every check passes, 1 when one does not, 2 for bad input.
    """
    from referee import transport
    from referee.doctor.checks import DoctorConfig, parse_command, render
    from referee.doctor.examine import examine
    from referee.games import get_game
    from referee.games.base import parse_options
    from referee.games.options import option_pairs
    from referee.local.limits import Limits
    from referee.match.clock import checked_time_control
    from referee.match.seeds import new_master_seed

    with user_errors():
        control = checked_time_control(move_ms, bank_ms)
        chosen = get_game(game)
        raw = option_pairs(option or [], players)
        argv = parse_command(command)
        master = seed if seed is not None else new_master_seed()
        with tempfile.TemporaryDirectory(prefix="croupier-doctor-") as scratch:
            config = DoctorConfig(
                game=chosen,
                options=parse_options(chosen, raw),
                argv=argv,
                workdir=keep if keep is not None else Path(scratch),
                matches=matches,
                time_control=control,
                seed=master,
                connect_timeout=connect_timeout,
                sessions=sessions,
                sandbox=sandboxed(sandbox),
                limits=Limits().merged(limit_pairs(limit or []), "--limit"),
                env=env_pairs(env or []),
                cwd=_folder(cwd),
            )
            report = transport.run(examine, config)
            title = f"croupier doctor: {chosen.id} with `{shlex.join(argv)}`"
            # The report is printed when the run is over, so its seed can be shown with its hash.
            seeds = seed_lines(master, given=seed is not None)
            for line in render(report, title, kept=keep is not None, extra=seeds):
                console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(0 if report.ok else EXIT_CHECK_FAILED)


def _folder(cwd: Path | None) -> Path | None:
    if cwd is not None and not cwd.is_dir():
        raise CroupierError(f"--cwd {str(cwd)!r} is not a folder")
    return cwd.resolve() if cwd is not None else None


def env_pairs(pairs: list[str]) -> dict[str, str]:
    """`--env NAME=VALUE`, or `--env NAME` for this environment's value of NAME."""
    table: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not name or any(c.isspace() for c in name):
            raise CroupierError(f"bad --env {pair!r}: expected NAME=VALUE or NAME")
        if not sep:
            if name not in os.environ:
                raise CroupierError(f"--env {name}: {name!r} is not set here (give NAME=VALUE)")
            value = os.environ[name]
        table[name] = value
    return table
