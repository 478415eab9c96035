"""`croupier serve`: a referee that bots reach over the network, a contest as a continuous ladder.

- `serving`: the server loop that seats idle sessions into matches, with `config` (its
  settings); `hosted_wing`: with `--db`, the uploads, their builds and the hosted versions at play;
- `book`: the contest's ladder database: meetings and ratings, commits, seed reveal;
- `pairing`: who sits down next: every bot as often as the slowest, against those it met least;
- `file`: a contest's settings read from a TOML file; `settings`: every serve setting, laid
  over each other (defaults, file, flags) and checked together;
- `tokens`: bot accounts (a name and the SHA-256 of its secret token);
- `sessions`: the site's desk's signed-in sessions, beside the accounts;
- `slots`: cores of their own for each match with hosted bots; `starts`: the matches a contest
  may still start, shared with `on_cluster` (hosted versions' matches on a Dask cluster);
- `final`: a final round made from a contest's active versions.

May import: `referee.ladder` (its store, schedule and standings), `referee.match`,
`referee.transport`, `referee.games` and the shared modules. Never the CLI.
"""
