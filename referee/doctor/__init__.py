"""The bot doctor: the conformance checks a bot author runs before a contest.

- `checks`: the checks, their advice, the configuration and the report (with `render`);
- `examine`: launches the bot, serves it a loopback referee and runs every check.

The command itself (`croupier doctor`) is `referee.cli.doctor`. May import: `referee.local`,
`referee.transport`, `referee.match`, `referee.games` and the shared modules; never the CLI.
"""
