"""What every account's service (Submissions, Challenges) does alike: authenticate a call with
the Play stream's token check, and answer a desk's error with its status code."""

from __future__ import annotations

import grpc

from referee.errors import (
    ConflictError,
    CroupierError,
    FrozenError,
    NotFoundError,
    QuotaError,
    RefusedError,
)
from referee.match.lobby import Lobby
from referee.transport.play import bearer_token

Context = grpc.aio.ServicerContext[object, object]

#: A desk's error, by class, as a status code; any other CroupierError is the request's fault.
STATUS_CODES: tuple[tuple[type[CroupierError], grpc.StatusCode], ...] = (
    (QuotaError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (NotFoundError, grpc.StatusCode.NOT_FOUND),
    (ConflictError, grpc.StatusCode.ALREADY_EXISTS),
    (FrozenError, grpc.StatusCode.FAILED_PRECONDITION),
    (RefusedError, grpc.StatusCode.FAILED_PRECONDITION),
    (CroupierError, grpc.StatusCode.INVALID_ARGUMENT),
)


async def caller(lobby: Lobby, context: Context) -> str:
    """The caller's account, as Play checks a token; aborts the call when there is none."""
    token = bearer_token(context.invocation_metadata())
    identity = lobby.identity(token)
    if identity is None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, lobby.refusal(token))
    assert identity is not None  # abort raises
    return lobby.label(identity)


async def refuse(context: Context, error: CroupierError) -> None:
    """Abort the call with the error's status code and its one-line message (raises)."""
    code = next(code for kind, code in STATUS_CODES if isinstance(error, kind))
    await context.abort(code, str(error))
