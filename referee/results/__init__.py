"""Results: the database every competition keeps (a ladder's, a contest's, a hosted wing's).

`matches` holds the values it keeps: a scheduled match (`ScheduledMatch`: who sits where, on
which deal and seed) and its result (`MatchResult`: scores, ranks, faults, luck corrections);
`database` is its SQLite (`Store`: the plan, the schedule, the results, the bots' exits, each
match's record file, resumable after any kill). A finished match's record is committed by
`referee.match.records.commit_record` (fsynced, renamed, hashed) before its row is written here.

May import: `referee.games` (a game's point margins) and the shared modules. Never the
statistics (`referee.ratings` reads this package), a ladder, a contest or the CLI.
"""
