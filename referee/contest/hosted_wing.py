"""A contest's hosted wing, started with `croupier serve --db`: the bots the referee runs.

The network contest (referee.contest.serving) seats whoever is connected; the wing adds the
authors' uploads (`desk`: referee.hosted.submitting), the pipeline that builds and qualifies
them where bubblewrap is (referee.hosted.pipeline), and what plays the active versions: the
roster, which launches them into the contest's lobby, each of their matches in a slot of cores
of its own (referee.contest.slots), or with `--cluster` the cluster's tables
(referee.contest.on_cluster), where they meet each other and never sit at a network table.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from referee.challenges.book import ChallengeBook
from referee.challenges.desk import ChallengeCounter, sides_problem
from referee.challenges.runner import ChallengeRunner, Share, Venue
from referee.contest.book import ContestBook
from referee.contest.config import ServeConfig
from referee.contest.pairing import Pacing
from referee.contest.slots import CoreSlots, default_count
from referee.contest.starts import Starts
from referee.contest.tokens import TokenStore
from referee.hosted.house import stock
from referee.hosted.pipeline import Pipeline, PipelineSettings
from referee.hosted.qualify import QualifySettings
from referee.hosted.roster import Roster
from referee.hosted.store import VersionStore
from referee.hosted.submitting import Submitting
from referee.ladder.config import ClusterConfig, LadderConfig, Placement
from referee.ladder.view import RefereeView
from referee.local.limits import Limits
from referee.local.sandbox import SandboxError, check_bwrap
from referee.match.lobby import Lobby
from referee.match.runner import MatchOutcome
from referee.match.session import Session
from referee.match.spectators import LiveMatch, LiveMatches

if TYPE_CHECKING:
    from referee.contest.on_cluster import ClusterTables

log = logging.getLogger("croupier.referee")

#: Why uploads are refused under `serve --freeze-submissions`, as an author is told.
FROZEN_BY_ORGANISER = "the organiser has closed this contest's uploads; the active versions play on"


class HostedWing:
    """The hosted bots of one contest with accounts (`config.tokens` set)."""

    def __init__(
        self,
        config: ServeConfig,
        accounts: TokenStore,
        book: ContestBook,
        records: Path,
        committed: Callable[[MatchOutcome], None],
        live: LiveMatches,
        challenge_ranked: Callable[[MatchOutcome], None],
    ) -> None:
        self.config = config
        self.accounts = accounts
        self.book = book
        self.records = records
        #: Told of each match the cluster's tables commit.
        self.committed = committed
        self.desk = self._desk()
        self.pipeline = self._pipeline()
        #: What launches the active versions into the lobby (off a cluster, once listening).
        self.roster: Roster | None = None
        #: What plays them on a Dask cluster instead (`--cluster`).
        self.cluster: ClusterTables | None = None
        seats = config.game.seat_count(config.options)
        cpus = sorted(os.sched_getaffinity(0))
        self.slots = CoreSlots(config.hosted_slots or default_count(seats, cpus), seats, cpus)
        #: What plays authors' challenges in the slots (none on a cluster, or without bubblewrap).
        self.challenges = self._challenges(live, challenge_ranked)

    def _desk(self) -> Submitting:
        """Authors' uploads: the store recovered first (an upload cut short by a kill is
        removed), the organiser's house bots stored beside them."""
        config = self.config
        assert config.version_store is not None
        store = VersionStore(config.version_store)
        store.recover()
        frozen = self.book.frozen
        if frozen is None and config.freeze_submissions:
            frozen = FROZEN_BY_ORGANISER
        games = frozenset({config.game.id})
        desk = Submitting(
            store, Limits(), config.quotas, games, runtime=config.runtime, frozen=frozen
        )
        stock(desk, config.house, config.seed)  # built and qualified as any upload
        return desk

    def _pipeline(self) -> Pipeline | None:
        """What builds and qualifies the uploaded versions, on the contest's clock; none where
        bubblewrap is missing (versions then wait, `received`)."""
        try:
            check_bwrap()
        except SandboxError as error:
            log.warning("hosted bots are not built", extra={"why": str(error)})
            return None
        config = self.config
        test = config.qualify_positions
        qualify = QualifySettings(
            time_control=config.time_control,
            games=((config.game, config.options),),
            positions=test,
        )
        # The positions hold the reference's values: a folder that would show them is refused.
        shown = (config.tokens, self.records, test.source if test is not None else None)
        secrets = tuple(p for p in shown if p is not None)
        settings = PipelineSettings(
            self.desk.maxima, qualify=qualify, runtime=config.runtime, secrets=secrets
        )
        return Pipeline(self.desk.store, settings)

    def _challenges(
        self, live: LiveMatches, ranked: Callable[[MatchOutcome], None]
    ) -> ChallengeRunner | None:
        """What plays authors' challenges in the hosted slots: none without hosted bots here
        (no bubblewrap, or a cluster, whose workers play only the contest's own tables)."""
        config, book, pipeline = self.config, self.book, self.pipeline
        if pipeline is None or config.tokens is None or config.cluster is not None:
            return None
        desk = ChallengeCounter(
            ChallengeBook(config.tokens),
            pipeline.store,
            config.challenges,
            rating=lambda bot: book.ratings.get(bot),
            revoked=self.accounts.revoked,
            frozen=lambda: config.freeze_submissions or book.frozen is not None,
            unplayable=sides_problem(config.game, config.options),
        )
        venue = Venue(
            config,
            config.game,
            config.options,
            self.slots,
            self.records,
            pipeline.settings,
            book,
            live,
            ranked,
        )
        return ChallengeRunner(desk, venue, Share(config.challenges.share, len(self.slots.cores)))

    async def start(self, nursery: trio.Nursery, lobby: Lobby, port: int) -> None:
        """Build and qualify uploads, and (off a cluster) launch the active versions into
        `lobby`, listening on `port`; returns once they have started."""
        if self.pipeline is None:
            return
        await nursery.start(self.pipeline.run)
        if self.config.cluster is None:
            address = f"127.0.0.1:{port}"
            settings = self.pipeline.settings
            roster = Roster(self.pipeline.store, lobby, address, settings, self.accounts.revoked)
            self.roster = roster
            await nursery.start(roster.run)
        if self.challenges is not None:
            await nursery.start(self.challenges.run)

    def play_on_cluster(
        self,
        nursery: trio.Nursery,
        pacing: Pacing,
        starts: Starts,
        view: RefereeView,
        stop: trio.Event,
    ) -> None:
        """With `--cluster`: the active versions' tables played there, in `nursery`."""
        scheduler = self.config.cluster
        if self.pipeline is None or scheduler is None:
            return
        from referee.contest.on_cluster import ClusterTables  # imports Dask

        config = self.config
        rules = LadderConfig(
            path=Path("contest"),
            name="contest",
            game=config.game,
            options=config.options,
            bots=(),
            time_control=config.time_control,
            max_faults=config.max_faults,
            ponder=False,
            placement=Placement(
                records=self.records,
                sandbox=True,
                runtime=config.runtime,
                connect_timeout=self.pipeline.settings.qualify.startup_seconds,
                cluster=ClusterConfig(scheduler=scheduler),
            ),
        )
        self.cluster = ClusterTables(
            self.pipeline.store,
            self.book,
            self.pipeline.settings,
            rules,
            pacing,
            starts,
            self.committed,
            self.accounts.revoked,
            view=view,
        )
        nursery.start_soon(self.cluster.run, stop)

    def elsewhere(self) -> frozenset[str]:
        """The hosted versions that play on a cluster: they never sit at this referee's tables."""
        return self.cluster.hosted() if self.cluster is not None else frozenset()

    def pinned(self, sessions: Sequence[Session]) -> AbstractAsyncContextManager[None]:
        """While a match of `sessions` runs: its slot of cores, if it seats hosted versions."""
        hosted = self.roster.launched if self.roster is not None else {}
        return self.slots.pinned(sessions, hosted)

    def output(
        self, bots: list[str], match_id: str, live: Callable[[], LiveMatch | None]
    ) -> AbstractAsyncContextManager[None]:
        """While a match runs (`live()`, as it is played): the output of its hosted versions,
        kept for their authors, its lines by decision."""
        if self.roster is None:
            return contextlib.nullcontext()
        return self.roster.match_output(bots, match_id, live)
