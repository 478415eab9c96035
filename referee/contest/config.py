"""The settings of one serving referee (`croupier serve`), as referee.contest.settings makes
them from the command's options and a contest file, checked together."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from referee.challenges.terms import ChallengeTerms
from referee.games.base import Game
from referee.games.options import Options
from referee.hosted.qualify import PositionsTest
from referee.hosted.store import beside
from referee.hosted.submitting import Quotas
from referee.match.clock import TimeControl
from referee.transport import ServerSettings


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """What `croupier serve` plays, made by referee.contest.settings (which checks it): the
    network contest's terms, and with `tokens` its hosted wing's (referee.contest.hosted_wing)."""

    game: Game
    options: Options
    settings: ServerSettings = field(default_factory=ServerSettings)
    #: The contest's account store; None accepts any token (only sensible on loopback).
    tokens: Path | None = None
    #: With `tokens`: where hosted bots' versions are kept (default: `versions/` beside the
    #: database), and their authors' quotas.
    versions: Path | None = None
    quotas: Quotas = field(default_factory=Quotas)
    #: With `tokens`: refuse uploads and withdrawals (a final round's database is frozen for
    #: good: referee.contest.final); authors may still list their versions and read logs.
    freeze_submissions: bool = False
    #: With `tokens`: the organiser's runtime folder every hosted bot's build and run sees
    #: read-only (referee.local.sandbox.Sandbox.runtime); None: none.
    runtime: Path | None = None
    records: Path | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    #: The master seed (secret until the run ends); each match seed is keyed by it.
    seed: str | int = 0
    #: Stop after this many matches (None: serve until told to stop).
    matches: int | None = None
    max_faults: int = 3
    #: How long a seat waits for its bot to reconnect after losing its connection.
    reconnect_grace: float = 10.0
    #: Matches one session may play before the referee ends it (None: no limit).
    max_matches_per_session: int | None = None
    #: How long running matches may go on once a shutdown starts.
    drain_seconds: float = 30.0
    #: In a contest, how many matches a bot may play ahead of the slowest present bot (faster
    #: bots wait for it: referee.contest.pairing).
    max_lead: int = 2
    #: Matches with hosted bots played at once, each on cores of its own (referee.contest.slots);
    #: None: what the cores allow with one core per seat.
    hosted_slots: int | None = None
    #: With `tokens`: a Dask scheduler (`tcp://host:8786`) whose workers play the hosted versions
    #: against each other (referee.contest.on_cluster) instead of this machine's slots.
    cluster: str | None = None
    #: With hosted bots on this machine's slots: the organiser's rules for authors' challenges
    #: (referee.challenges).
    challenges: ChallengeTerms = field(default_factory=ChallengeTerms)
    #: With `tokens`: the organiser's house bots (referee.hosted.house), a bot folder by name,
    #: which authors may challenge and no ranked table seats.
    house: Mapping[str, Path] = field(default_factory=dict)
    #: With `tokens`: the organiser's positions every version plays at its qualification, and
    #: the most points it may lose on them (a contest file's `[hosted] qualify_positions`).
    qualify_positions: PositionsTest | None = None

    @property
    def version_store(self) -> Path | None:
        """Where hosted bots' versions are kept: None without accounts (no hosted bots)."""
        if self.tokens is None:
            return None
        return self.versions or beside(self.tokens)
