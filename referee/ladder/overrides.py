"""What a run may change of a ladder file (`croupier ladder run --database ... --workers N`),
applied and checked here as the file's own values are, so that a library caller is held to the
command's rules (issue 43.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.clock_kind import ClockKind
from referee.errors import CroupierError
from referee.ladder.config import LadderConfig, Launch, clocked
from referee.match.bounds import concurrency_problem, within, worker_count


@dataclass(frozen=True, slots=True)
class LadderOverrides:
    """Each None (or empty) leaves the file's value."""

    database: Path | None = None
    records: Path | None = None
    concurrency: int | None = None
    workers: int | None = None
    sandbox: bool | None = None
    #: Limits laid over every bot's (referee.local.limits.Limits keys).
    limits: Mapping[str, int] = field(default_factory=dict)
    clock: ClockKind | None = None
    ceiling_factor: int | None = None

    def applied(self, config: LadderConfig) -> LadderConfig:
        """The ladder as this run plays it."""
        if self.concurrency is not None:
            within("--concurrency", self.concurrency, concurrency_problem)
        placement = config.placement
        placement = replace(
            placement,
            database=self.database or placement.database,
            records=records_for(self.records, self.database, placement.records),
            concurrency=self.concurrency or placement.concurrency,
            sandbox=self.sandbox if self.sandbox is not None else placement.sandbox,
        )
        config = replace(config, placement=placement)
        if self.clock is not None or self.ceiling_factor is not None:
            config = clocked(config, self.clock or config.time_control.clock, self.ceiling_factor)
        if self.limits:
            bots = tuple(
                replace(bot, limits=bot.limits.merged(dict(self.limits), "--limit"))
                for bot in config.bots
            )
            config = replace(config, bots=bots)
        return config

    def processes(self, config: LadderConfig) -> int:
        """Referee processes to play `config` (as applied, its cluster known) with here: 1 on a
        cluster, whose workers' threads decide, and where every bot is launched once."""
        if config.placement.cluster is not None and config.placement.cluster.scheduler:
            if self.workers is not None:
                raise CroupierError(
                    "--workers is for this machine's cores: on a Dask cluster the workers' "
                    "threads decide how many matches run at once (drop --workers, or play "
                    "here: no --cluster nor [cluster] scheduler)"
                )
            return 1
        placed = config.placement.workers
        workers = self.workers if self.workers is not None else placed  # the flag wins
        if workers is None and config.placement.launch is Launch.SHARED:
            return 1  # by default, launch = "shared" (one process per bot) keeps every match here
        return worker_count(workers, config.placement.concurrency)


def records_for(records: Path | None, database: Path | None, configured: Path) -> Path:
    """Where a run's records go: --records, else beside a --database of its own (each database
    its own folder: two sharing one would overwrite each other's records), else the file's."""
    if records is not None:
        return records
    if database is not None:
        return database.with_name(f"{database.stem}-records")
    return configured
