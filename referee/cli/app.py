"""croupier: bot-vs-bot card games over gRPC. Play matches among bots, run ladders and
contests, replay and verify match records, check a bot before a contest.

Exit codes: 0 success; 1 a check failed (a record did not verify); 2 bad input (an unknown game, a
bad option, an unreadable record, a bad argument).
"""

from __future__ import annotations

import typer

from referee.cli.cluster import cluster_app
from referee.cli.contest import serve_command, token_app, watch_command
from referee.cli.doctor import doctor
from referee.cli.ladder import ladder_app
from referee.cli.match import games, match
from referee.cli.replay import replay

app = typer.Typer(
    name="croupier",
    help=__doc__,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("games")(games)
app.command("match")(match)
app.command("replay")(replay)
app.command("doctor")(doctor)
app.command("serve")(serve_command)
app.command("watch")(watch_command)
app.add_typer(token_app, name="token")
app.add_typer(ladder_app, name="ladder")
app.add_typer(cluster_app, name="cluster")


def main() -> None:
    app()
