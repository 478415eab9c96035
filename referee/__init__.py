"""croupier referee: game engines, match runner, gRPC server, ladders, records and the CLI.

The packages form layers; each may import only those below it (`make lint` checks this with
import-linter, see docs/architecture.md):

    `cli`                                 the `croupier` command: parses, calls, prints
    `web`                                 the live site beside a contest or a ladder
    `contest`                             `croupier serve`: a contest, its settings and rounds
    `challenges`                          authors' challenges, played until an SPRT decides
    `cluster`                             ladders and hosted matches on Dask
    `hosted`                              authors' uploads: built, qualified, kept
    `doctor`                              bot checks (and qualification's)
    `ladder` | `review`                   schedules, the ladder runner, its report; a seat's
                                          decisions valued from its view, positions
    `local` | `viewer`                    launched bot processes and `croupier match`; replays
    `transport`                           gRPC (the only package that imports grpc)
    `match`                               one match: runner, seats, sessions, clocks, records
    `ratings`                             rating methods, standings, SPRT, margins
    `results`                             the database every competition keeps
    `games`                               pure game engines
    `tomlfile` | `addresses`              the reader of ladder and contest files; where a
                                          server may listen in plaintext
    `errors`, `version`, `text`,          what every layer shares: errors, the version, plural
    `spacing`, `private`, `databases`,    and path wording, pacing of repeated work, owner-only
    `clock_kind`, `machine`               files, the one SQLite opener, the clocks' names,
                                          this machine's cores and CPU
"""
