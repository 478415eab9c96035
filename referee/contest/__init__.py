"""`croupier serve`: a referee that bots reach over the network, a contest as a continuous ladder.

- `serving`: the server loop that seats idle sessions into matches;
- `book`: the contest's ladder database: meetings and ratings, commits, seed reveal;
- `pairing`: who sits down next: every bot as often as the slowest, against those it met least;
- `file`: a contest's settings read from a TOML file;
- `tokens`: bot accounts (a name and the SHA-256 of its secret token).

May import: `referee.ladder` (its store, schedule and standings), `referee.match`,
`referee.transport`, `referee.games` and the shared modules. Never the CLI.
"""
