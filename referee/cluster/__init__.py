"""Ladders past one machine: a ladder's matches played as Dask tasks on a cluster.

The coordinator (`croupier ladder run --cluster tcp://SCHEDULER:8786`) keeps what it keeps on one
machine: the schedule, SQLite, ratings, records, progress. Each Dask task plays a batch of
matches on a worker with the same code the local runner uses (a loopback referee, the bots
launched there) and sends back the results and the compressed records, which the coordinator
commits one match at a time exactly as the local runner does.

Dask is an optional extra (`pip install 'croupier[cluster]'`); nothing here imports it until a
cluster is asked for, and `require_dask` says how to install it.

Modules: `coordinator` (the ladder's venue on Dask: batches out, results committed), `batch`
(the task a worker runs), `ship` and `versions` (a ladder's shipped files, a contest's hosted
versions, each sent to a worker once, packed by `packing`), `live` (matches on workers watched
here), `dask_extra` (the cluster's error and its Dask requirement).

May import: `referee.ladder` (its config, store and slots, as a venue's user), `referee.local`,
`referee.match`, `referee.transport` (the asyncio calls Dask's client needs), `referee.games`
and the shared modules; never the contest server or the CLI.
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
        config = replace(
            config, cluster=replace(config.cluster or ClusterConfig(), scheduler=scheduler)
        )
    if config.cluster is not None and config.cluster.scheduler:
        require_dask()
    return config


def venue_for(config: LadderConfig) -> Venue | None:
    """The Dask cluster's venue when the ladder plays on one, else None (this machine)."""
    if config.cluster is None or not config.cluster.scheduler:
        return None
    require_dask()
    from referee.cluster.coordinator import ClusterVenue  # imports Dask

    return ClusterVenue()


__all__ = ["INSTALL_HINT", "ClusterError", "on_cluster", "require_dask", "venue_for"]
