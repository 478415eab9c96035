"""croupier referee: game engines, match runner, gRPC server, ladders, records and the CLI.

The packages form layers; each may import only those below it (`make lint` checks this with
import-linter, see docs/architecture.md):

    cli                                   the `croupier` command: parses, calls, prints
    web                                   the live site beside a contest or a ladder
    doctor | contest | cluster            bot checks; `croupier serve`; ladders on Dask
    ladder                                schedules, ratings, SQLite, the ladder runner
    local | viewer                        launched bot processes and `croupier match`; replays
    transport                             gRPC (the only package that imports grpc)
    match                                 one match: runner, seats, sessions, clocks, records
    games                                 pure game engines
    tomlfile                              the reader of ladder and contest files
    errors, version, text, spacing        what every layer shares (errors, the version, plural
                                          and path wording, pacing of repeated work)
"""
