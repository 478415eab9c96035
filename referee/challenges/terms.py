"""The organiser's rules for challenges, and an author's challenge as asked.

The defaults follow fishtest (alpha = beta = 0.05, Elo bounds [0, 5]) and the hosted platforms'
caps (Battlecode: 3 at once per pair, 10 an hour; Pokerbots: 5 outstanding per team), so that a
challenge decides what an author asks without letting one author take the contest's computers:
docs/contest.md, "Challenges", says why each.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.errors import CroupierError


class Ranked(enum.StrEnum):
    """Whether ranked challenges are allowed, and against whom."""

    #: Only unranked challenges: none of their matches ever counts.
    OFF = "off"
    #: Ranked against an equal or higher rating; downward only with the opponent's consent.
    UPWARD = "upward"


class Consent(enum.StrEnum):
    """What an account answers a ranked challenge from a higher-rated account."""

    ASK = "ask"
    ACCEPT = "accept"
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class ChallengeTerms:
    """The organiser's rules (a contest file's `[challenges]`)."""

    ranked: Ranked = Ranked.UPWARD
    #: Per account: challenges not yet ended (waiting, queued or playing).
    in_flight: int = 3
    #: Per account: challenges asked in the last hour (refused ones not counted).
    per_hour: int = 10
    #: Per pair of accounts (either way round): challenges in flight.
    per_pair: int = 3
    #: The most deals one challenge may ask for, and what it gets when it asks for none.
    max_deals: int = 500
    default_deals: int = 200
    #: The share of the hosted slots' time challenges take at most (a third: ranked matches keep
    #: two thirds of the computers whatever authors ask).
    share: float = 1 / 3
    #: The GSPRT's defaults (fishtest's): Elo bounds, error rates; `on` is what it tests
    #: (`score`: win/draw/loss Elo; `margin`: the point margin, elo0/elo1 then in points).
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    on: str = "score"
    #: A ranked challenge waiting for its opponent's consent expires after this (seconds).
    consent_seconds: float = 24 * 3600.0

    def check(self) -> str | None:
        """A problem with the organiser's values, or None."""
        if not 0 < self.share <= 1:
            return f"challenges' share of the hosted slots must be in (0, 1], got {self.share!r}"
        if not 1 <= self.default_deals <= self.max_deals:
            return (
                f"default_deals must be between 1 and max_deals ({self.max_deals}), "
                f"got {self.default_deals!r}"
            )
        return None


@dataclass(frozen=True, slots=True)
class Ask:
    """What an author asks: their version (None: the active one), the opponent as named
    (`ACCOUNT`: its active version; `ACCOUNT@VERSION`: a version by its id's first digits,
    another account's only while it is active), ranked or not, a budget, the bounds."""

    opponent: str
    version: str | None = None
    ranked: bool = False
    deals: int | None = None
    elo0: float | None = None
    elo1: float | None = None
    alpha: float | None = None
    beta: float | None = None


class ChallengeError(CroupierError):
    """A challenge that cannot be asked as it is: bad bounds, an unknown opponent."""
