"""The Challenges service (proto/croupier/v1/challenges.proto): authors ask, follow, cancel and
consent to challenges.

The work is done by a grpc-free desk (referee.challenges.desk.ChallengeDesk, seen here through
the `ChallengeDesk` protocol, as the transport sits below it); this module authenticates each
call with the Play stream's token check and maps the desk's errors to status codes, each with
its one-line message (a limit names itself and when to retry).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

import grpc
from google.protobuf.message import Message

from croupier.v1 import challenges_pb2 as pb
from referee.errors import (
    CroupierError,
)
from referee.match.lobby import Lobby
from referee.transport.accounts import Context, caller, refuse

SERVICE = "croupier.v1.Challenges"
_T = TypeVar("_T")


class ShownChallenge(Protocol):
    """A challenge as the desk shows it to one account (referee.challenges.desk.Shown)."""

    @property
    def id(self) -> int: ...
    @property
    def challenger(self) -> str: ...
    @property
    def opponent(self) -> str: ...
    @property
    def ranked(self) -> bool: ...
    @property
    def deals(self) -> int: ...
    @property
    def elo0(self) -> float: ...
    @property
    def elo1(self) -> float: ...
    @property
    def alpha(self) -> float: ...
    @property
    def beta(self) -> float: ...
    @property
    def on(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def played(self) -> int: ...
    @property
    def llr(self) -> float: ...
    @property
    def lower(self) -> float: ...
    @property
    def upper(self) -> float: ...
    @property
    def match_ids(self) -> Sequence[str]: ...
    @property
    def created_at(self) -> float: ...


class ChallengeDesk(Protocol):
    """What the service calls; every call blocks (SQLite), so each runs off the event loop."""

    def ask(
        self,
        account: str,
        opponent: str,
        version: str | None,
        ranked: bool,
        deals: int | None,
        bounds: tuple[float | None, float | None, float | None, float | None],
    ) -> ShownChallenge: ...
    def shown(self, account: str) -> Sequence[ShownChallenge]: ...
    def shown_one(self, account: str, id: int) -> ShownChallenge: ...
    def cancelled(self, account: str, id: int) -> ShownChallenge: ...
    def consent_to(self, account: str, consent: str) -> None: ...
    def answered(self, account: str, id: int, accept: bool) -> ShownChallenge: ...


_CONSENTS = {pb.CONSENT_ASK: "ask", pb.CONSENT_ACCEPT: "accept", pb.CONSENT_REFUSE: "refuse"}


class ChallengesService:
    """Implements croupier.v1.Challenges for one contest's accounts (the lobby's tokens)."""

    def __init__(self, desk: ChallengeDesk, lobby: Lobby) -> None:
        self.desk = desk
        self.lobby = lobby

    async def _call(self, context: Context, function: Callable[..., _T], *args: object) -> _T:
        try:
            return await asyncio.to_thread(function, *args)
        except CroupierError as error:
            await refuse(context, error)
            raise  # abort raises first

    async def create_challenge(
        self, request: pb.CreateChallengeRequest, context: Context
    ) -> pb.CreateChallengeResponse:
        account = await caller(self.lobby, context)
        bounds = tuple(
            getattr(request, name) if request.HasField(name) else None
            for name in ("elo0", "elo1", "alpha", "beta")
        )
        found = await self._call(
            context,
            self.desk.ask,
            account,
            request.opponent,
            request.version if request.HasField("version") else None,
            request.ranked,
            request.deals if request.HasField("deals") else None,
            bounds,
        )
        return pb.CreateChallengeResponse(challenge=_wire(found))

    async def list_challenges(
        self, request: pb.ListChallengesRequest, context: Context
    ) -> pb.ListChallengesResponse:
        account = await caller(self.lobby, context)
        found = await self._call(context, self.desk.shown, account)
        return pb.ListChallengesResponse(challenges=[_wire(c) for c in found])

    async def get_challenge(
        self, request: pb.GetChallengeRequest, context: Context
    ) -> pb.GetChallengeResponse:
        account = await caller(self.lobby, context)
        found = await self._call(context, self.desk.shown_one, account, request.id)
        return pb.GetChallengeResponse(challenge=_wire(found))

    async def cancel_challenge(
        self, request: pb.CancelChallengeRequest, context: Context
    ) -> pb.CancelChallengeResponse:
        account = await caller(self.lobby, context)
        found = await self._call(context, self.desk.cancelled, account, request.id)
        return pb.CancelChallengeResponse(challenge=_wire(found))

    async def set_consent(
        self, request: pb.SetConsentRequest, context: Context
    ) -> pb.SetConsentResponse:
        account = await caller(self.lobby, context)
        consent = _CONSENTS.get(request.consent)
        if consent is None:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "consent must be ASK, ACCEPT or REFUSE"
            )
        await self._call(context, self.desk.consent_to, account, consent)
        return pb.SetConsentResponse()

    async def answer_challenge(
        self, request: pb.AnswerChallengeRequest, context: Context
    ) -> pb.AnswerChallengeResponse:
        account = await caller(self.lobby, context)
        found = await self._call(context, self.desk.answered, account, request.id, request.accept)
        return pb.AnswerChallengeResponse(challenge=_wire(found))

    def handler(self) -> grpc.GenericRpcHandler:
        methods: dict[str, tuple[Callable[..., Any], Callable[[bytes], Message]]] = {
            "CreateChallenge": (self.create_challenge, pb.CreateChallengeRequest.FromString),
            "ListChallenges": (self.list_challenges, pb.ListChallengesRequest.FromString),
            "GetChallenge": (self.get_challenge, pb.GetChallengeRequest.FromString),
            "CancelChallenge": (self.cancel_challenge, pb.CancelChallengeRequest.FromString),
            "SetConsent": (self.set_consent, pb.SetConsentRequest.FromString),
            "AnswerChallenge": (self.answer_challenge, pb.AnswerChallengeRequest.FromString),
        }
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                name: grpc.unary_unary_rpc_method_handler(
                    method,
                    request_deserializer=request,
                    response_serializer=lambda message: message.SerializeToString(),
                )
                for name, (method, request) in methods.items()
            },
        )


def _wire(found: ShownChallenge) -> pb.Challenge:
    return pb.Challenge(
        id=found.id,
        challenger=found.challenger,
        opponent=found.opponent,
        ranked=found.ranked,
        deals=found.deals,
        elo0=found.elo0,
        elo1=found.elo1,
        alpha=found.alpha,
        beta=found.beta,
        test_on=found.on,
        state=pb.ChallengeState.Name(
            pb.ChallengeState.Value("CHALLENGE_STATE_" + found.state.upper())
        ),
        outcome=pb.ChallengeOutcome.Name(
            pb.ChallengeOutcome.Value(
                "CHALLENGE_OUTCOME_" + (found.outcome or "unspecified").upper().replace("-", "_")
            )
        ),
        reason=found.reason,
        summary=found.summary,
        deals_played=found.played,
        llr=found.llr,
        lower=found.lower,
        upper=found.upper,
        match_ids=list(found.match_ids),
        created_at=datetime.fromtimestamp(found.created_at, UTC).isoformat(timespec="seconds"),
    )
