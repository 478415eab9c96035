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
from urllib.parse import quote

import trio
from starlette.requests import Request

from referee.challenges.book import (
    Challenge,
    ChallengeMatch,
    Outcome,
    State,
    challenge_entrant,
    opponent_entrant,
    read_challenges,
)
from referee.contest.tokens import TokenStore
from referee.text import named

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


def challenge_match_json(challenge: Challenge, match: ChallengeMatch, team: str) -> dict[str, Any]:
    """A committed match of `challenge` as `team` (its challenger's or its opponent's) sees it
    on its desk (issue 45.4): the deal, the rotation, the seats its version held, the result
    for it (the challenger's side when the team holds both) and where its seat replay is."""
    assert match.rows is not None
    ours = (
        challenge_entrant(challenge) if team == challenge.account else opponent_entrant(challenge)
    )
    bots = list(match.match.bots)
    seats = [row for row in sorted(match.rows.seats) if row.bot == ours]
    others = [row for row in match.rows.seats if row.bot != ours]
    rank = min(row.rank for row in seats) - min(row.rank for row in others)
    return {
        "match": match.match_id,
        "deal": match.match.deal,
        "rotation": match.match.rotation,
        "bots": bots,
        "seats": [row.seat for row in seats],
        "outcome": "won" if rank < 0 else "lost" if rank > 0 else "drew",
        "score": [seats[0].score, max(row.score for row in others)],
        "result": named(match.rows.result, bots),
        "replay": f"/desk/replay/{quote(match.match_id, safe='')}",
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
