"""croupier: bot-vs-bot card games over gRPC. Play matches among bots, run ladders and
contests, replay and verify match records, check a bot before a contest.

\b
Start here:
  croupier games                                  the games and their options
  croupier match xix --bot CMD --bot CMD          matches between two bot programs
  croupier ladder run examples/ladders/xix.toml   a rated tournament (see docs/ladders.md)
  croupier doctor --game xix -- CMD               check a bot before a contest
  croupier serve --game xix                       a referee bots reach over gRPC
  croupier replay MATCH.jsonl                     step through a match record

Exit codes: 0 done, 1 a check failed, 2 bad input; each command's --help gives its own, with
examples.
"""

from __future__ import annotations

import typer

from referee.cli.challenge import challenge_app
from referee.cli.cluster import cluster_app
from referee.cli.contest import contest_app, token_app
from referee.cli.doctor import doctor
from referee.cli.epilog import DONE, epilog
from referee.cli.ladder import ladder_app
from referee.cli.match import games, match
from referee.cli.positions import positions_app
from referee.cli.replay import replay
from referee.cli.review import review_command
from referee.cli.serve import serve_command
from referee.cli.submit import submissions_app, submit_command
from referee.cli.team import team_app
from referee.cli.watch import watch_command

app = typer.Typer(
    name="croupier",
    help=__doc__,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

app.command("games", epilog=epilog(["croupier games"], {0: "done"}))(games)
app.command(
    "match",
    epilog=epilog(
        [
            "croupier match xix --bot 'python examples/python/xix_heuristic.py' "
            "--bot 'python examples/python/random_bot.py' --games 20 --records out",
            "croupier match xactika --players 5 --bot 'node examples/node/random_bot.js' --games 3",
        ],
        {0: "every match played", **DONE, 130: "interrupted (Ctrl-C)"},
    ),
)(match)
app.command(
    "replay",
    epilog=epilog(
        [
            "croupier replay out/MATCH.jsonl            (a stepper on a terminal)",
            "croupier replay out/MATCH.jsonl --plain --seat 1",
            "croupier replay out/MATCH.jsonl --html match.html",
            "croupier replay out/*.jsonl --verify",
        ],
        {
            0: "shown (a truncated record as far as it goes, with a warning) or verified",
            1: "a record does not verify (a truncated one does not)",
            2: "bad input (no such file, a folder, not a record)",
        },
    ),
)(replay)
app.command(
    "review",
    epilog=epilog(
        [
            "croupier review out/MATCH.jsonl --seat 1",
            "croupier review out/MATCH.jsonl --seat 0 --budget 400 --json",
        ],
        {0: "reviewed", 1: "the record does not verify", 2: DONE[2]},
    ),
)(review_command)
app.command(
    "doctor",
    epilog=epilog(
        ["croupier doctor --game xix -- python examples/python/random_bot.py"],
        {0: "every check passed", 1: "a check did not pass (advice printed)", 2: DONE[2]},
    ),
)(doctor)
app.command(
    "serve",
    epilog=epilog(
        [
            "croupier serve --game xix --port 50051                  (any token, loopback)",
            "croupier token add alice --db contest.db && croupier serve --db contest.db",
            "croupier serve contest.toml                             (see docs/contest.md)",
        ],
        {0: "stopped (Ctrl-C or SIGTERM, matches drained)", 2: DONE[2]},
    ),
)(serve_command)
app.command(
    "watch",
    epilog=epilog(
        ["croupier watch 127.0.0.1:50051", "croupier watch 127.0.0.1:50051 --follow"],
        {0: "done", 2: "bad input, or no referee at that address"},
    ),
)(watch_command)
app.command(
    "submit",
    epilog=epilog(
        [
            "croupier submit examples/python --to contest.example.org:50051 --token T --tls",
            "croupier submit bot.tar.gz --to 127.0.0.1:50051 --token T --wait",
        ],
        {0: "uploaded (with --wait: qualified)", 1: "with --wait: it failed", 2: DONE[2]},
    ),
)(submit_command)
app.add_typer(submissions_app, name="submissions")
app.add_typer(challenge_app, name="challenge")
app.add_typer(token_app, name="token")
app.add_typer(team_app, name="team")
app.add_typer(contest_app, name="contest")
app.add_typer(ladder_app, name="ladder")
app.add_typer(positions_app, name="positions")
app.add_typer(cluster_app, name="cluster")


def main() -> None:
    app()
