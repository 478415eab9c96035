"""Ladders and contests past one machine: their matches played as Dask tasks on a cluster.

The coordinator (`croupier ladder run --cluster tcp://SCHEDULER:8786`) keeps what it keeps on one
machine: the schedule, SQLite, ratings, records, progress. Each Dask task plays a batch of
matches on a worker with the same code the local runner uses (a loopback referee, the bots
launched there) and sends back the results and the compressed records, which the coordinator
commits one match at a time exactly as the local runner does. A contest's hosted versions
(`croupier serve --db --cluster`) play through the same venue (referee.contest.on_cluster).

Dask is an optional extra (`pip install 'croupier[cluster]'`); nothing here imports it until a
cluster is asked for, and `require_dask` says how to install it.

Modules: `coordinator` (the one venue on Dask, for a ladder and a contest alike: batches out,
results settled through the source), `batch` (the task a worker runs), `failures` (what a
ladder and a contest do with a batch that did not come back whole), `ship` and `hosted` (the
shippers: a ladder's shipped files, a contest's hosted versions, each sent to a worker once,
packed by `packing` and `versions`), `live` (matches on workers watched here), `dask_extra`
(the cluster's error and its Dask requirement).

May import: `referee.ladder` (its config, store and slots, as a venue's user), `referee.hosted`
(how long a failed version rests), `referee.local`, `referee.match`, `referee.transport` (the
asyncio calls Dask's client needs), `referee.games` and the shared modules; never the contest
server or the CLI.
"""

from __future__ import annotations

from dataclasses import replace

from referee.cluster.dask_extra import INSTALL_HINT, ClusterError, require_dask
from referee.ladder.config import ClusterConfig, LadderConfig, check_scheduler
from referee.ladder.venue import Venue


def on_cluster(config: LadderConfig, scheduler: str | None) -> LadderConfig:
    """The ladder with `--cluster SCHEDULER` applied (over the file's `[cluster] scheduler`);
    raises ClusterError, naming the install command, when it must run on a cluster and Dask is
    missing."""
    if scheduler is not None:
        if problem := check_scheduler(scheduler):
            raise ClusterError(f"--cluster {scheduler!r}: {problem}")
        cluster = replace(config.placement.cluster or ClusterConfig(), scheduler=scheduler)
        config = replace(config, placement=replace(config.placement, cluster=cluster))
    if config.placement.cluster is not None and config.placement.cluster.scheduler:
        require_dask()
    return config


def venue_for(config: LadderConfig) -> Venue | None:
    """The Dask cluster's venue when the ladder plays on one, else None (this machine): its
    files shipped as `[cluster]` says, and a batch that does not come back whole stops it."""
    if config.placement.cluster is None or not config.placement.cluster.scheduler:
        return None
    require_dask()
    from referee.cluster.coordinator import ClusterVenue  # imports Dask
    from referee.cluster.failures import Stop
    from referee.cluster.ship import ShippedFiles

    return ClusterVenue(ShippedFiles(), Stop(config.placement.cluster.scheduler))


__all__ = ["INSTALL_HINT", "ClusterError", "on_cluster", "require_dask", "venue_for"]
