"""Challenges on the site (issue 45): `/api/v1/challenges` lists the decided ranked challenges
for everyone, and, to a caller who sends an account's token (`Authorization: Bearer TOKEN`),
that account's own challenges, asked or asked of it, whatever became of them. Never another
account's unranked challenge: an author's tests are their own business. The token is checked
as the referee checks it (referee.contest.tokens), never logged or echoed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio
from starlette.requests import Request

from referee.challenges.book import (
    Challenge,
    Outcome,
    State,
    challenge_entrant,
    opponent_entrant,
    read_challenges,
)
from referee.contest.tokens import TokenStore

DECIDED = (str(Outcome.BETTER), str(Outcome.NOT_BETTER))


def _when(stamp: float | None) -> str | None:
    return (
        None if stamp is None else datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")
    )


def challenge_json(challenge: Challenge) -> dict[str, Any]:
    """A challenge as the API lists it (what its author's `croupier challenge show` says)."""
    return {
        "id": challenge.id,
        "challenger": challenge_entrant(challenge),
        "opponent": opponent_entrant(challenge),
        "ranked": challenge.ranked,
        "state": str(challenge.state),
        "outcome": challenge.outcome or None,
        "reason": challenge.reason,
        "summary": challenge.summary,
        "deals": challenge.deals,
        "deals_played": challenge.played,
        "llr": challenge.llr,
        "test": {
            "on": challenge.on,
            "elo0": challenge.elo0,
            "elo1": challenge.elo1,
            "alpha": challenge.alpha,
            "beta": challenge.beta,
        },
        "created_at": _when(challenge.created_at),
        "ended_at": _when(challenge.ended_at),
    }


def public(challenges: list[Challenge]) -> list[Challenge]:
    """What everyone may read: the ranked challenges that decided."""
    return [c for c in challenges if c.ranked and c.state is State.ENDED and c.outcome in DECIDED]


def asked_by(challenges: list[Challenge], account: str) -> int:
    """How many challenges `account` ran (its bot page's count, for readers judging a
    best-of-N)."""
    return sum(c.account == account for c in challenges)


class Refused(Exception):
    """A request the API answers with `status` and this message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def challenges_data(request: Request, database: Path | None) -> dict[str, Any]:
    """`/api/v1/challenges`: the decided ranked ones, and with a token its account's own;
    Refused for no database (404) or a token that is no account's (401)."""
    if database is None:
        raise Refused(404, "no contest database")
    stored = await trio.to_thread.run_sync(read_challenges, database)
    data: dict[str, Any] = {"decided_ranked": [challenge_json(c) for c in public(stored)]}
    header = request.headers.get("authorization", "")
    if header:
        token = header.removeprefix("Bearer ").strip()
        account = await trio.to_thread.run_sync(
            lambda: TokenStore(database, create=False).lookup(token)
        )
        if account is None:
            raise Refused(401, "unknown or revoked token: send your account's token")
        own = [c for c in stored if account in (c.account, c.opponent)]
        data |= {"account": account, "own": [challenge_json(c) for c in own]}
    return data
