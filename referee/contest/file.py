"""`croupier serve CONTEST.toml`: a contest's settings in a file, each key one `serve` option.

    game = "xix"
    host = "0.0.0.0"
    port = 50051
    database = "contest.db"      # accounts (croupier token add), standings and history
    records = "records"
    tls_cert = "server.pem"
    tls_key = "server.key"
    matches = 1000                # optional: the contest ends (and reveals its seed) after these,
                                  # counted over every run of it
    [options]                     # the game's options
    [time_control]                # move_ms, bank_ms, clock ("wall" or "cpu"), ceiling_factor
    [limits]                      # max_faults, reconnect_grace, max_sessions_per_token,
                                  # max_matches_per_session, max_messages_per_second,
                                  # max_message_bytes, drain_seconds, max_lead,
                                  # max_team_size
    [web]                         # host, port: the contest's web site (serve --web);
                                  # review_budget: its desk's reviews (--review-budget)
    [hosted]                      # versions, runtime, submissions_per_hour, max_upload_mb,
                                  # versions_kept, slots, freeze, cluster: hosted bots
                                  # (serve --versions, ..., --hosted-slots,
                                  # --freeze-submissions, --cluster); qualify_positions,
                                  # qualify_max_loss: a positions test at qualification
                                  # (the file only; referee.hosted.qualify)
    [challenges]                  # ranked, in_flight, per_hour, per_pair, max_deals,
                                  # default_deals, share, elo0, elo1, alpha, beta, on,
                                  # consent_seconds: authors' challenges (the file only;
                                  # referee.challenges.terms)
    [house]                       # NAME = "bot folder": the organiser's house bots, which
                                  # authors challenge as house.NAME (the file only;
                                  # referee.hosted.house)

Relative paths start from the file's folder. A mistake names the file, the line and the key, as
in a ladder file (referee.tomlfile reads both).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee import tomlfile
from referee.clock_kind import ClockKind
from referee.contest.tokens import BOT_NAME
from referee.errors import CroupierError
from referee.hosted.house import account_of
from referee.match.bounds import time_problem
from referee.text import tidy_path
from referee.tomlfile import TomlReader

#: Key (as written in the file) -> (expected type, the `serve` option it sets).
_TOP: dict[str, tuple[type, str]] = {
    "game": (str, "game"),
    "host": (str, "host"),
    "port": (int, "port"),
    "database": (str, "tokens"),
    "records": (str, "records"),
    "tls_cert": (str, "tls_cert"),
    "tls_key": (str, "tls_key"),
    "insecure": (bool, "insecure"),
    "matches": (int, "matches"),
    "log_json": (bool, "log_json"),
}
_TABLES: dict[str, dict[str, tuple[type, str]]] = {
    "time_control": {
        "move_ms": (int, "move_ms"),
        "bank_ms": (int, "bank_ms"),
        "clock": (str, "clock"),
        "ceiling_factor": (int, "ceiling_factor"),
    },
    "limits": {
        "max_faults": (int, "max_faults"),
        "reconnect_grace": (float, "reconnect_grace"),
        "max_sessions_per_token": (int, "max_sessions_per_token"),
        "max_matches_per_session": (int, "max_matches_per_session"),
        "max_messages_per_second": (float, "max_messages_per_second"),
        "max_message_bytes": (int, "max_message_bytes"),
        "drain_seconds": (float, "drain_seconds"),
        "max_lead": (int, "max_lead"),
        "max_team_size": (int, "max_team_size"),
    },
    # The web site (`serve --web HOST:PORT`): host defaults to loopback, port to 8080.
    "web": {
        "host": (str, "web_host"),
        "port": (int, "web_port"),
        "review_budget": (int, "review_budget"),
    },
    # Hosted bots (docs/contest.md, "Hosted bots"): where their versions are kept, the runtime
    # folder every build and bot sees, and the authors' quotas.
    "hosted": {
        "versions": (str, "versions"),
        "runtime": (str, "runtime"),
        "submissions_per_hour": (int, "submissions_per_hour"),
        "max_upload_mb": (int, "max_upload_mb"),
        "versions_kept": (int, "versions_kept"),
        "slots": (int, "hosted_slots"),
        "freeze": (bool, "freeze_submissions"),
        "cluster": (str, "cluster"),
        "qualify_positions": (str, "qualify_positions"),
        "qualify_max_loss": (float, "qualify_max_loss"),
    },
}
#: The `[challenges]` keys (referee.challenges.terms.ChallengeTerms' fields) and their types.
_CHALLENGES: dict[str, type] = {
    "ranked": str,
    "in_flight": int,
    "per_hour": int,
    "per_pair": int,
    "max_deals": int,
    "default_deals": int,
    "share": float,
    "elo0": float,
    "elo1": float,
    "alpha": float,
    "beta": float,
    "on": str,
    "consent_seconds": float,
}
_PATHS = {"tokens", "records", "tls_cert", "tls_key", "versions", "runtime", "qualify_positions"}


def _clock_problem(kind: str) -> str | None:
    """Why `kind` cannot be a clock, or None."""
    known = [str(k) for k in ClockKind]
    return None if kind in known else f"expected one of {known!r}"


def _points(points: float) -> str | None:
    """Why `points` cannot be the most a version may lose, or None."""
    return None if 0 <= points < float("inf") else "expected a number of points from 0"


def _at_least_one(count: int) -> str | None:
    """Why `count` cannot be a quota (serve's options say min=1), or None."""
    return None if count >= 1 else "expected at least 1"


#: Options whose values are bounded by what they can mean (referee.match.bounds).
_BOUNDS: dict[str, Callable[[Any], str | None]] = {
    "move_ms": time_problem,
    "bank_ms": time_problem,
    "submissions_per_hour": _at_least_one,
    "max_upload_mb": _at_least_one,
    "versions_kept": _at_least_one,
    "hosted_slots": _at_least_one,
    "max_team_size": _at_least_one,
    "clock": _clock_problem,
    "qualify_max_loss": _points,
}


class ContestFileError(CroupierError):
    """A contest file that cannot be used: the message names the file, line and key."""


def load(path: Path) -> dict[str, Any]:
    """The `serve` options the file sets, by option name."""
    text = tomlfile.read(path, "contest", ContestFileError)
    data = tomlfile.parse(text, path, ContestFileError)
    reader = TomlReader(path, text, ContestFileError)
    settings: dict[str, Any] = {}

    def take(table: dict[str, Any], where: tuple[str, ...], key: str) -> None:
        expected, option = (_TABLES[where[0]] if where else _TOP)[key]
        value = reader.value(table, where, key, expected, check=_BOUNDS.get(option))
        settings[option] = tidy_path(path.parent / str(value)) if option in _PATHS else value

    reader.check_keys(data, sorted([*_TOP, *_TABLES, "options", "challenges", "house"]), ())
    for key, value in data.items():
        if key == "house":
            settings["house"] = _house(reader, value, path.parent)
        elif key == "challenges":
            if not isinstance(value, dict):
                raise reader.error((key,), "expected a table")
            reader.check_keys(value, sorted(_CHALLENGES), (key,))
            settings["challenges"] = {
                inner: reader.value(value, (key,), inner, _CHALLENGES[inner]) for inner in value
            }
        elif key == "options":
            if not isinstance(value, dict):
                raise reader.error((key,), "expected a table of game options")
            settings["option"] = [f"{name}={_text(v)}" for name, v in value.items()]
        elif key in _TABLES:
            if not isinstance(value, dict):
                raise reader.error((key,), "expected a table")
            reader.check_keys(value, sorted(_TABLES[key]), (key,))
            for inner in value:
                take(value, (key,), inner)
        else:
            take(data, (), key)
    if "web_host" in settings or "web_port" in settings:
        host = settings.pop("web_host", "127.0.0.1")
        settings["web"] = f"{host}:{settings.pop('web_port', 8080)}"
    return settings


def _house(reader: TomlReader[ContestFileError], table: object, folder: Path) -> dict[str, Path]:
    """`[house]`: each house bot's folder by its name, a name a token could have."""
    if not isinstance(table, dict):
        raise reader.error(("house",), 'expected a table: NAME = "bot folder"')
    bots: dict[str, Path] = {}
    for name in table:
        if not BOT_NAME.fullmatch(account_of(name)):
            raise reader.error(
                ("house", name), "a house bot's name is 1 to 58 letters, digits, '_', '.' or '-'"
            )
        where = reader.value(table, ("house",), name, str)
        bots[name] = tidy_path(folder / where)
    return bots


def _text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
