"""The Desk service (proto/croupier/v1/desk.proto): a contest's team manages its members,
follows its versions' events as they happen, and reads a version's output by decision.

The teams are the contest's account store (referee.contest.tokens.TokenStore) and the events
its versions' store (through referee.hosted.submitting.Submitting), each seen here through a
protocol, as the transport sits below both. Every call authenticates a member by their token,
read again from the store: a token revoked a moment ago is refused, and a FollowEvents stream
already open ends with UNAUTHENTICATED within TOKEN_CHECK_SECONDS of its revocation.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol, TypeVar

import grpc

from croupier.v1 import desk_pb2 as pb
from referee.errors import CroupierError, ForbiddenError, NotFoundError, QuotaError
from referee.match.lobby import UNKNOWN_TOKEN
from referee.transport.play import bearer_token

SERVICE = "croupier.v1.Desk"
#: How often a FollowEvents stream looks for new events (seconds): one indexed read.
FOLLOW_POLL_SECONDS = 0.25
#: How often it checks its token again (seconds): a revoked one's stream ends within this.
TOKEN_CHECK_SECONDS = 1.0
_Context = grpc.aio.ServicerContext[object, object]
_T = TypeVar("_T")


class StoredMember(Protocol):
    """A member as the store returns it (referee.contest.tokens.Member)."""

    @property
    def team(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def leader(self) -> bool: ...
    @property
    def created_at(self) -> str: ...


class StoredEvent(Protocol):
    """An event as the store returns it (referee.hosted.store.Event)."""

    @property
    def id(self) -> int: ...
    @property
    def version(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def match(self) -> str: ...
    @property
    def at(self) -> str: ...
    @property
    def challenge(self) -> int: ...


class Members(Protocol):
    """The contest's teams (referee.contest.tokens.TokenStore)."""

    def member(self, token: str) -> StoredMember | None: ...
    def team_members(self, team: str) -> Sequence[StoredMember]: ...
    def refusal(self, token: str) -> str | None: ...
    def add_member(
        self, team: str, member: str, *, by: str | None = None, max_size: int | None = None
    ) -> str: ...
    def remove_member(self, team: str, member: str, *, by: str | None = None) -> None: ...
    def rotate(self, team: str, member: str, *, by: str | None = None) -> str: ...


class Events(Protocol):
    """The versions' events and build logs (referee.hosted.submitting.Submitting)."""

    def events(self, account: str, after: int) -> Sequence[StoredEvent]: ...
    def log(self, account: str, id: str) -> str: ...
    def log_tail(self, account: str, id: str) -> list[str]: ...
    def decision_log(
        self, account: str, match_id: str, decision: int | None
    ) -> tuple[str, list[tuple[int, str]]]: ...


#: A store's error, by class, as a status code; any other CroupierError is the request's fault.
_CODES: tuple[tuple[type[CroupierError], grpc.StatusCode], ...] = (
    (ForbiddenError, grpc.StatusCode.PERMISSION_DENIED),
    (QuotaError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (NotFoundError, grpc.StatusCode.NOT_FOUND),
    (CroupierError, grpc.StatusCode.INVALID_ARGUMENT),
)


class DeskService:
    """Implements croupier.v1.Desk for one contest's teams. `max_members`: the contest's cap
    on a team's members, the leader counted (None: none)."""

    def __init__(
        self,
        members: Members,
        events: Events,
        max_members: int | None = None,
        poll_seconds: float = FOLLOW_POLL_SECONDS,
    ) -> None:
        self.members = members
        self.events = events
        self.max_members = max_members
        self.poll_seconds = poll_seconds

    async def _caller(self, context: _Context) -> tuple[str, StoredMember]:
        """The caller's token and who they are; aborts the call for a token that does not work
        now, saying why when it once did (a removed member's, a replaced one's)."""
        token = bearer_token(context.invocation_metadata())
        member = await asyncio.to_thread(self.members.member, token) if token else None
        if member is None:
            why = await asyncio.to_thread(self.members.refusal, token) if token else None
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, why or UNKNOWN_TOKEN)
        assert member is not None  # abort raises
        return token, member

    async def get_team(self, request: pb.GetTeamRequest, context: _Context) -> pb.GetTeamResponse:
        _, member = await self._caller(context)
        members = await self._call(context, self.members.team_members, member.team)
        return pb.GetTeamResponse(
            team=member.team,
            members=[_member(m) for m in members],
            you=member.name,
            max_members=self.max_members or 0,
        )

    async def add_member(
        self, request: pb.AddMemberRequest, context: _Context
    ) -> pb.AddMemberResponse:
        token, member = await self._caller(context)

        def add() -> tuple[str, StoredMember]:
            made = self.members.add_member(
                member.team, request.name, by=token, max_size=self.max_members
            )
            added = [m for m in self.members.team_members(member.team) if m.name == request.name]
            return made, added[0]

        made, added = await self._call(context, add)
        return pb.AddMemberResponse(member=_member(added), token=made)

    async def remove_member(
        self, request: pb.RemoveMemberRequest, context: _Context
    ) -> pb.RemoveMemberResponse:
        token, member = await self._caller(context)
        remove = functools.partial(self.members.remove_member, by=token)
        await self._call(context, remove, member.team, request.name)
        return pb.RemoveMemberResponse()

    async def rotate_token(
        self, request: pb.RotateTokenRequest, context: _Context
    ) -> pb.RotateTokenResponse:
        token, member = await self._caller(context)
        whose = request.name or member.name
        rotate = functools.partial(self.members.rotate, by=token)
        made = await self._call(context, rotate, member.team, whose)
        return pb.RotateTokenResponse(token=made)

    async def follow_events(
        self, request: pb.FollowEventsRequest, context: _Context
    ) -> AsyncIterator[pb.FollowEventsResponse]:
        _, member = await self._caller(context)
        after = request.after_event
        loop = asyncio.get_running_loop()
        checked = loop.time()
        while True:
            events = await self._call(context, self.events.events, member.team, after)
            for event in events:
                yield await self._event(member.team, event)
                after = event.id
            if not events:
                await asyncio.sleep(self.poll_seconds)
            if loop.time() - checked >= TOKEN_CHECK_SECONDS:
                await self._caller(context)  # a token revoked meanwhile ends the stream
                checked = loop.time()

    async def get_decision_log(
        self, request: pb.GetDecisionLogRequest, context: _Context
    ) -> pb.GetDecisionLogResponse:
        _, member = await self._caller(context)
        decision = None if request.every_decision else request.decision
        version, lines = await self._call(
            context, self.events.decision_log, member.team, request.match_id, decision
        )
        if decision is not None:
            return pb.GetDecisionLogResponse(version_id=version, lines=[line for _, line in lines])
        by_decision = [pb.DecisionLine(decision=number, line=line) for number, line in lines]
        return pb.GetDecisionLogResponse(version_id=version, by_decision=by_decision)

    async def _event(self, team: str, event: StoredEvent) -> pb.FollowEventsResponse:
        tail: list[str] = []
        if event.kind == "build-failed":
            tail = await asyncio.to_thread(self.events.log_tail, team, event.version)
        return pb.FollowEventsResponse(
            event_id=event.id,
            version_id=event.version,
            kind="DESK_EVENT_KIND_" + event.kind.upper().replace("-", "_"),  # a value by name
            reason=event.reason,
            at=event.at,
            log_tail=tail,
            match_id=event.match,
            challenge_id=event.challenge,
        )

    async def _call(self, context: _Context, function: Callable[..., _T], *args: object) -> _T:
        """`function(*args)` on a worker thread; a store's error aborts the call with its
        status code and its one-line message."""
        try:
            return await asyncio.to_thread(function, *args)
        except CroupierError as error:
            code = next(code for kind, code in _CODES if isinstance(error, kind))
            await context.abort(code, str(error))
            raise  # abort raises first

    def handler(self) -> grpc.GenericRpcHandler:
        unary = grpc.unary_unary_rpc_method_handler
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "GetTeam": unary(
                    self.get_team,
                    request_deserializer=pb.GetTeamRequest.FromString,
                    response_serializer=pb.GetTeamResponse.SerializeToString,
                ),
                "AddMember": unary(
                    self.add_member,
                    request_deserializer=pb.AddMemberRequest.FromString,
                    response_serializer=pb.AddMemberResponse.SerializeToString,
                ),
                "RemoveMember": unary(
                    self.remove_member,
                    request_deserializer=pb.RemoveMemberRequest.FromString,
                    response_serializer=pb.RemoveMemberResponse.SerializeToString,
                ),
                "RotateToken": unary(
                    self.rotate_token,
                    request_deserializer=pb.RotateTokenRequest.FromString,
                    response_serializer=pb.RotateTokenResponse.SerializeToString,
                ),
                "GetDecisionLog": unary(
                    self.get_decision_log,
                    request_deserializer=pb.GetDecisionLogRequest.FromString,
                    response_serializer=pb.GetDecisionLogResponse.SerializeToString,
                ),
                "FollowEvents": grpc.unary_stream_rpc_method_handler(
                    self.follow_events,
                    request_deserializer=pb.FollowEventsRequest.FromString,
                    response_serializer=pb.FollowEventsResponse.SerializeToString,
                ),
            },
        )


def _member(member: StoredMember) -> pb.TeamMember:
    return pb.TeamMember(name=member.name, leader=member.leader, added_at=member.created_at)
