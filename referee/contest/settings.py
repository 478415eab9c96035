"""Everything `croupier serve` takes, by its option's name, checked together in one place.

A contest file (referee.contest.file) maps its keys onto these names; the command line's flags
are the same names; `ServeSettings.over` lays one source over another (defaults, then the file,
then the flags: issue 42.3), and `check` refuses what no source may combine, so that a library
caller (a bench, a test) goes through the rules a command does (issue 43.3).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from referee.addresses import LOOPBACK, check_tls_files, web_address
from referee.challenges.decision import bounds_problem
from referee.challenges.terms import ChallengeTerms, Ranked
from referee.clock_kind import ClockKind
from referee.contest.config import ServeConfig
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import Game, parse_options
from referee.games.options import Options, option_pairs
from referee.hosted.qualify import PositionsTest
from referee.hosted.submitting import Quotas
from referee.local.bot_root import is_inside, runtime_folders
from referee.match.clock import TimeControl, checked_time_control
from referee.review.budgets import DEFAULT_BUDGET, check_budget
from referee.review.positions import positions_file
from referee.transport import ServerSettings

#: Settings a contest file holds and no flag sets: tables (`[challenges]`, `[house]`) and the
#: `[hosted]` positions test.
FILE_ONLY = frozenset({"challenges", "house", "qualify_positions", "qualify_max_loss"})
#: The game a new contest plays when neither its database, its file nor the command names one.
DEFAULT_GAME = "xix"


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """The serve's settings, each named as its option (`tokens` is `--db`); the defaults are
    the command's."""

    #: None: the game (and options) the database was made for, else DEFAULT_GAME.
    game: str | None = None
    option: tuple[str, ...] | None = None
    host: str = "127.0.0.1"
    port: int = 50051
    tokens: Path | None = None
    versions: Path | None = None
    runtime: Path | None = None
    submissions_per_hour: int | None = None
    max_upload_mb: int | None = None
    versions_kept: int | None = None
    hosted_slots: int | None = None
    cluster: str | None = None
    freeze_submissions: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    insecure: bool = False
    records: Path | None = None
    matches: int | None = None
    move_ms: int = 1000
    bank_ms: int = 10_000
    clock: ClockKind = ClockKind.WALL
    ceiling_factor: int | None = None
    seed: str | None = None
    max_faults: int = 3
    reconnect_grace: float = 10.0
    max_sessions_per_token: int = 16
    max_matches_per_session: int | None = None
    max_messages_per_second: float = 1000.0
    max_message_bytes: int = 64 * 1024
    drain_seconds: float = 30.0
    max_lead: int = 2
    max_team_size: int = 4
    log_json: bool = False
    web: str | None = None
    #: Playouts a decision of a review the site's desk runs (issue 48.2).
    review_budget: int = DEFAULT_BUDGET
    #: A contest file's `[challenges]` (referee.challenges.terms.ChallengeTerms' fields).
    challenges: Mapping[str, Any] | None = None
    #: A contest file's `[house]`: the organiser's house bots, a bot folder by name.
    house: Mapping[str, Path] | None = None
    #: A contest file's `[hosted] qualify_positions` and `qualify_max_loss`: the positions file
    #: every version plays at its qualification, and the most points it may lose on them.
    qualify_positions: Path | None = None
    qualify_max_loss: float | None = None

    def over(self, settings: Mapping[str, Any]) -> ServeSettings:
        """These settings with `settings` (by name) laid over them; an unknown name is a bug of
        the caller's, so it raises TypeError as a constructor would."""
        known = {f.name for f in fields(self)}
        if unknown := sorted(set(settings) - known):
            raise TypeError(f"no serve setting named {', '.join(unknown)}")
        given = dict(settings)
        if given.get("option") is not None:
            given["option"] = tuple(given["option"])
        if isinstance(given.get("clock"), str):
            given["clock"] = ClockKind(given["clock"])
        return replace(self, **given)

    def game_and_options(self) -> tuple[Game, Options]:
        """The game and its options: those named, else the database's (a final round's are its
        contest's: issue 42.4), else DEFAULT_GAME's defaults."""
        game, option = self.game, self.option
        if game is None and option is None and self.tokens is not None:
            game, option = _database_game(self.tokens)
        chosen = get_game(game or DEFAULT_GAME)
        return chosen, parse_options(chosen, option_pairs(option or ()))

    def challenge_terms(self) -> ChallengeTerms:
        """The organiser's rules for challenges: the file's, the defaults for the rest."""
        given = dict(self.challenges or {})
        if "ranked" in given:
            known = [str(r) for r in Ranked]
            if given["ranked"] not in known:
                raise CroupierError(
                    f"[challenges] ranked must be one of {known}, not {given['ranked']!r}"
                )
            given["ranked"] = Ranked(given["ranked"])
        terms = ChallengeTerms(**given)
        problem = terms.check() or bounds_problem(
            terms.elo0, terms.elo1, terms.alpha, terms.beta, terms.on
        )
        if problem is not None:
            raise CroupierError(f"[challenges]: {problem}")
        return terms

    def time_control(self) -> TimeControl:
        return checked_time_control(self.move_ms, self.bank_ms, self.clock, self.ceiling_factor)

    def web_address(self) -> tuple[str, int] | None:
        """The web site's host and port (`web`), checked as the referee's address is."""
        if self.web is None:
            return None
        return web_address(self.web, self.tls_cert, self.tls_key, self.insecure)

    def check(self) -> None:
        """Refuse settings that cannot go together, or that name what is not there; each
        message names the option to change."""
        self._checked()

    def _checked(self) -> PositionsTest | None:
        """`check`, and the positions test it read (None: the contest has none)."""
        self.time_control()
        self.challenge_terms()
        check_tls_files(self.tls_cert, self.tls_key)
        if self.tls_cert is None and self.host not in LOOPBACK and not self.insecure:
            raise CroupierError(
                f"refusing plaintext on {self.host!r}: give --tls-cert/--tls-key (or --insecure)"
            )
        if self.tokens is None and self.host not in LOOPBACK:
            raise CroupierError(f"refusing to accept any token on {self.host!r}: give --db")
        self.web_address()
        if self.tokens is None:
            for given, what in (
                (self.web is not None, "--web shows a contest"),
                (self.versions is not None, "--versions keeps hosted bots of a contest"),
                (self.freeze_submissions, "--freeze-submissions freezes a contest's uploads"),
                (self.cluster is not None, "--cluster plays a contest's hosted bots"),
                (self.runtime is not None, "--runtime is for hosted bots of a contest"),
                (bool(self.house), "[house] bots are hosted bots of a contest"),
                (
                    self.qualify_positions is not None or self.qualify_max_loss is not None,
                    "[hosted] qualify_positions tests hosted bots of a contest",
                ),
            ):
                if given:
                    raise CroupierError(f"{what}: give --db too")
        if self.cluster is not None:
            _check_cluster(self.cluster)
        if self.runtime is not None:
            self._check_runtime(self.runtime)
        check_budget(self.review_budget)  # a contest file's value is not checked by the option
        if self.max_lead < 1:  # a contest file's value is not checked by the option
            raise CroupierError(f"max_lead must be at least 1, got {self.max_lead!r}")
        if self.tokens is not None:
            from referee.contest.tokens import TokenStore

            TokenStore(self.tokens, create=False)  # a mistyped --db must not start a contest
        return self.positions_test()

    def positions_test(self) -> PositionsTest | None:
        """The `[hosted]` positions test: a file of positions of the contest's game and options,
        each one the engine could produce (referee.review.positions), that no bot is shown."""
        path, most = self.qualify_positions, self.qualify_max_loss
        if path is None and most is None:
            return None
        if path is None:
            raise CroupierError(
                "[hosted] qualify_max_loss is the most points a version may lose on the "
                "positions: give qualify_positions too"
            )
        named = f"[hosted] qualify_positions {str(path)!r}"
        if most is None:
            raise CroupierError(
                f"{named}: give qualify_max_loss too, the most points against the reference a "
                "version may lose on them in all"
            )
        for folder in self._shown_to_bots():
            if is_inside(path.resolve(), folder.resolve()):
                raise CroupierError(
                    f"{named} lies in {str(folder)!r}, which every hosted bot is shown: keep "
                    "the positions apart from the runtime folder, the versions and croupier's "
                    "installation"
                )
        try:
            positions = positions_file(path)
        except CroupierError as error:
            raise CroupierError(f"{named}: {error}") from None
        test = PositionsTest(tuple(positions), most, path.resolve())
        game, options = self.game_and_options()
        if not test.of(game, options):
            view = positions[0].view
            raise CroupierError(
                f"{named} holds positions of {view.game.id} with options "
                f"{view.options.as_text()}, and this contest plays {game.id} with "
                f"{options.as_text()}"
            )
        return test

    def _shown_to_bots(self) -> list[Path]:
        """What a hosted bot's sandbox may show it: the system, croupier's installation (its
        Python, SDKs and referee package: referee.local.bot_root), the runtime folder, and
        the versions (its own among them)."""
        system = [Path("/usr"), Path("/etc"), Path("/bin"), Path("/lib")]
        installed = [
            *runtime_folders([sys.executable], Path("/"), confined=True),
            *runtime_folders(["node"], Path("/"), confined=True),
        ]
        stores = [self.versions or self.tokens.parent / "versions"] if self.tokens else []
        runtime = [self.runtime] if self.runtime is not None else []
        return [*system, *installed, *runtime, *stores]

    def _check_runtime(self, runtime: Path) -> None:
        """The runtime folder exists and shows every bot nothing of the contest's secrets."""
        if not runtime.is_dir():
            raise CroupierError(f"--runtime: no such folder {str(runtime)!r}")
        assert self.tokens is not None
        shown = runtime.resolve()
        versions = self.versions or self.tokens.parent / "versions"
        for secret in (self.tokens.resolve(), versions.resolve()):
            if secret.is_relative_to(shown) or shown.is_relative_to(secret):
                raise CroupierError(
                    f"--runtime {str(runtime)!r} would show {str(secret)!r} to every bot: "
                    "keep the runtime folder apart from the database and the versions"
                )

    def quotas(self) -> Quotas:
        """The authors' quotas: those given, the defaults for the rest."""
        given: dict[str, int | None] = {
            "submissions_per_hour": self.submissions_per_hour,
            "versions_kept": self.versions_kept,
        }
        if self.max_upload_mb is not None:
            given["upload_bytes"] = self.max_upload_mb * 1024 * 1024
        return Quotas(**{key: value for key, value in given.items() if value is not None})

    def config(self, seed: str) -> ServeConfig:
        """The checked settings as the server's config, with the master `seed` (a contest's
        own, kept in its database, where `tokens` is set)."""
        positions = self._checked()
        game, options = self.game_and_options()
        return ServeConfig(
            game=game,
            options=options,
            settings=ServerSettings(
                host=self.host,
                port=self.port,
                tls_cert=self.tls_cert,
                tls_key=self.tls_key,
                max_sessions_per_token=self.max_sessions_per_token,
                max_messages_per_second=self.max_messages_per_second,
                max_receive_bytes=self.max_message_bytes,
                max_team_size=self.max_team_size,
            ),
            tokens=self.tokens,
            versions=self.versions,
            quotas=self.quotas(),
            freeze_submissions=self.freeze_submissions,
            runtime=self.runtime.resolve() if self.runtime is not None else None,
            records=self.records,
            time_control=self.time_control(),
            seed=seed,
            matches=self.matches,
            max_faults=self.max_faults,
            reconnect_grace=self.reconnect_grace,
            max_matches_per_session=self.max_matches_per_session,
            drain_seconds=self.drain_seconds,
            max_lead=self.max_lead,
            hosted_slots=self.hosted_slots,
            cluster=self.cluster,
            challenges=self.challenge_terms(),
            house=dict(self.house or {}),
            qualify_positions=positions,
        )


def _check_cluster(scheduler: str) -> None:
    """A scheduler address that can be one, and Dask there to reach it."""
    from referee.cluster.dask_extra import require_dask
    from referee.ladder.config import check_scheduler

    if problem := check_scheduler(scheduler):
        raise CroupierError(f"--cluster {scheduler!r}: {problem}")
    require_dask()


def _database_game(database: Path) -> tuple[str | None, tuple[str, ...] | None]:
    """The game and options a contest database was made for; (None, None) for a database that
    holds no contest yet (or none at all: the serve then says so)."""
    from referee.contest.book import contest_game

    if not database.is_file():
        return None, None
    try:
        made = contest_game(database)
    except CroupierError:
        return None, None  # not a contest database: the serve says so
    if made is None:
        return None, None
    return made[0], tuple(f"{name}={value}" for name, value in sorted(made[1].items()))
