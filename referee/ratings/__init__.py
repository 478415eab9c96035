"""Ratings: the statistics of a competition's results, computed from its database alone.

`methods` is the one place a rating method is named: the `RatingMethod` protocol and its
registry (`methods.named` for a plan's method, `methods.chosen` for a new competition's), so
that no caller compares method names. `fits` fits them: Elo with cluster-robust intervals,
the `Rating` values, which ratings are provisional, and openskill's running estimate for a
contest's pairing; `batch_fit` is the batch Plackett-Luce fit with its cluster bootstrap.
`sprt` is the SPRT of one bot against another, its estimate corrected by `stopping`;
`margins` the point margins, `head_to_head` each pair's record, `comparison` of bots that
never met (shared ranks, components), `intervals` the small-sample intervals over deals
(`student`'s t quantiles). `standings` puts them together: the table the CLI, the report and
the web site show, and its CSV.

May import: `referee.results`, `referee.games` and the shared modules; numpy, openskill and
rich's tables. Never a ladder, a contest, the web site or the CLI.
"""
