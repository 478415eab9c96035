"""The Submissions service (proto/croupier/v1/submissions.proto): authors upload their bot's
versions and read their own.

The work is done by a grpc-free desk (referee.hosted.submitting.Submitting, seen here through
the `Desk` protocol, as the transport sits below the hosted package); this module
authenticates each call with the Play stream's token check, streams an upload to a file in the
desk's spool (never to memory), counting its bytes as they come, and maps the desk's errors to
status codes. An upload that stops sending for `idle_seconds`, or has not ended after
`total_seconds` (one that sends a byte now and then, issue 41.4), is ended, and its file
removed; a message that is no UploadRequest ends it too, with INVALID_ARGUMENT.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol, TypeVar

import grpc
from google.protobuf.message import DecodeError

from croupier.v1 import submissions_pb2 as pb
from referee.errors import (
    CroupierError,
)
from referee.match.lobby import Lobby
from referee.transport.accounts import Context, caller, refuse
from referee.transport.desk import Events
from referee.transport.settings import UPLOAD_IDLE_SECONDS, UPLOAD_TOTAL_SECONDS

SERVICE = "croupier.v1.Submissions"
_T = TypeVar("_T")


class StoredVersion(Protocol):
    """A version as the desk returns it (referee.hosted.store.Version)."""

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def submitted_at(self) -> str: ...
    @property
    def updated_at(self) -> str: ...
    @property
    def new(self) -> bool: ...
    @property
    def queued(self) -> bool: ...


class Receiving(Protocol):
    """An upload being received (referee.hosted.submitting.Upload): fed its chunks as they
    arrive, each counted against the size cap before it is written; closed whatever happens."""

    def add(self, chunk: bytes) -> None: ...
    def submit(self) -> StoredVersion: ...
    def close(self) -> None: ...


class Desk(Events, Protocol):
    """What the service calls (referee.hosted.submitting.Submitting), blocking calls run off the
    event loop; its events and build logs are the Desk service's too."""

    def receive(self, account: str, declared_bytes: int = 0) -> Receiving: ...
    def versions(self, account: str) -> Sequence[StoredVersion]: ...
    def match_log(self, account: str, match_id: str) -> tuple[str, str]: ...
    def active(self, account: str) -> StoredVersion | None: ...
    def version(self, account: str, id: str) -> StoredVersion: ...
    def log(self, account: str, id: str) -> str: ...
    def qualification_report(self, account: str, id: str) -> str: ...
    def withdraw(self, account: str, id: str) -> StoredVersion: ...


class SubmissionsService:
    """Implements croupier.v1.Submissions for one contest's accounts (the lobby's tokens)."""

    def __init__(
        self,
        desk: Desk,
        lobby: Lobby,
        idle_seconds: float = UPLOAD_IDLE_SECONDS,
        total_seconds: float = UPLOAD_TOTAL_SECONDS,
    ) -> None:
        self.desk = desk
        self.lobby = lobby
        self.idle_seconds = idle_seconds
        self.total_seconds = total_seconds

    async def upload(
        self, requests: AsyncIterator[pb.UploadRequest], context: Context
    ) -> pb.UploadResponse:
        account = await caller(self.lobby, context)
        ends = asyncio.get_running_loop().time() + self.total_seconds
        first = await self._next(requests, context, ends)
        if first is None or first.WhichOneof("kind") != "metadata":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of an upload is its metadata"
            )
        assert first is not None
        metadata = first.metadata
        upload = await self._call(context, self.desk.receive, account, metadata.size_bytes)
        with contextlib.closing(upload):
            while (message := await self._next(requests, context, ends)) is not None:
                if message.WhichOneof("kind") != "chunk":
                    await context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "after its metadata an upload sends only chunks",
                    )
                await self._call(context, upload.add, message.chunk)
            version = await self._call(context, upload.submit, thread=True)
        active = await self._call(context, self.desk.active, account)
        return pb.UploadResponse(version=_version(version, active), new_version=version.new)

    async def _next(
        self, requests: AsyncIterator[pb.UploadRequest], context: Context, ends: float
    ) -> pb.UploadRequest | None:
        """The upload's next message, None at its end; aborts one idle too long, one past its
        time in all (`ends`, loop time), and one whose message is no UploadRequest."""
        left = ends - asyncio.get_running_loop().time()
        try:
            return await asyncio.wait_for(anext(aiter(requests)), min(self.idle_seconds, left))
        except StopAsyncIteration:
            return None
        except TimeoutError:
            why = f"the upload sent nothing for {self.idle_seconds:g} s"
            if left < self.idle_seconds:
                why = (
                    f"the upload did not end within {self.total_seconds:g} s: send the archive "
                    "at once (a smaller one, or over a faster link)"
                )
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, why)
            raise  # abort raises first
        except DecodeError:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                "an upload's message could not be read as an UploadRequest "
                "(proto/croupier/v1/submissions.proto)",
            )
            raise  # abort raises first

    async def list_versions(
        self, request: pb.ListVersionsRequest, context: Context
    ) -> pb.ListVersionsResponse:
        account = await caller(self.lobby, context)
        versions = await self._call(context, self.desk.versions, account)
        active = await self._call(context, self.desk.active, account)
        return pb.ListVersionsResponse(versions=[_version(v, active) for v in versions])

    async def get_version(
        self, request: pb.GetVersionRequest, context: Context
    ) -> pb.GetVersionResponse:
        account = await caller(self.lobby, context)
        version = await self._call(context, self.desk.version, account, request.version_id)
        active = await self._call(context, self.desk.active, account)
        return pb.GetVersionResponse(version=_version(version, active))

    async def get_build_log(
        self, request: pb.GetBuildLogRequest, context: Context
    ) -> pb.GetBuildLogResponse:
        account = await caller(self.lobby, context)
        log = await self._call(context, self.desk.log, account, request.version_id, thread=True)
        return pb.GetBuildLogResponse(log=log)

    async def get_match_log(
        self, request: pb.GetMatchLogRequest, context: Context
    ) -> pb.GetMatchLogResponse:
        account = await caller(self.lobby, context)
        found = await self._call(
            context, self.desk.match_log, account, request.match_id, thread=True
        )
        return pb.GetMatchLogResponse(version_id=found[0], log=found[1])

    async def get_qualification_report(
        self, request: pb.GetQualificationReportRequest, context: Context
    ) -> pb.GetQualificationReportResponse:
        account = await caller(self.lobby, context)
        report = await self._call(
            context, self.desk.qualification_report, account, request.version_id, thread=True
        )
        return pb.GetQualificationReportResponse(report=report)

    async def withdraw(self, request: pb.WithdrawRequest, context: Context) -> pb.WithdrawResponse:
        account = await caller(self.lobby, context)
        version = await self._call(context, self.desk.withdraw, account, request.version_id)
        active = await self._call(context, self.desk.active, account)
        return pb.WithdrawResponse(version=_version(version, active))

    async def _call(
        self,
        context: Context,
        function: Callable[..., _T],
        *args: object,
        thread: bool = False,
    ) -> _T:
        """`function(*args)`, on a worker thread if `thread`; a desk's error aborts the call
        with its status code and its one-line message."""
        try:
            if thread:
                return await asyncio.to_thread(function, *args)
            return function(*args)
        except CroupierError as error:
            await refuse(context, error)
            raise  # abort raises first

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            SERVICE,
            {
                "Upload": grpc.stream_unary_rpc_method_handler(
                    self.upload,
                    request_deserializer=pb.UploadRequest.FromString,
                    response_serializer=pb.UploadResponse.SerializeToString,
                ),
                "ListVersions": grpc.unary_unary_rpc_method_handler(
                    self.list_versions,
                    request_deserializer=pb.ListVersionsRequest.FromString,
                    response_serializer=pb.ListVersionsResponse.SerializeToString,
                ),
                "GetVersion": grpc.unary_unary_rpc_method_handler(
                    self.get_version,
                    request_deserializer=pb.GetVersionRequest.FromString,
                    response_serializer=pb.GetVersionResponse.SerializeToString,
                ),
                "GetBuildLog": grpc.unary_unary_rpc_method_handler(
                    self.get_build_log,
                    request_deserializer=pb.GetBuildLogRequest.FromString,
                    response_serializer=pb.GetBuildLogResponse.SerializeToString,
                ),
                "Withdraw": grpc.unary_unary_rpc_method_handler(
                    self.withdraw,
                    request_deserializer=pb.WithdrawRequest.FromString,
                    response_serializer=pb.WithdrawResponse.SerializeToString,
                ),
                "GetMatchLog": grpc.unary_unary_rpc_method_handler(
                    self.get_match_log,
                    request_deserializer=pb.GetMatchLogRequest.FromString,
                    response_serializer=pb.GetMatchLogResponse.SerializeToString,
                ),
                "GetQualificationReport": grpc.unary_unary_rpc_method_handler(
                    self.get_qualification_report,
                    request_deserializer=pb.GetQualificationReportRequest.FromString,
                    response_serializer=pb.GetQualificationReportResponse.SerializeToString,
                ),
            },
        )


def _version(version: StoredVersion, active: StoredVersion | None) -> pb.Version:
    """The version on the wire; `active` is the account's active version, if any."""
    # Queued goes on the wire as received, and `queued` (a client of an older release could
    # not name a status of its own: proto/croupier/v1/submissions.proto).
    status = "received" if version.queued else version.status
    return pb.Version(
        id=version.id,
        status="VERSION_STATUS_" + status.upper().replace("-", "_"),  # an enum value by its name
        queued=version.queued,
        reason=version.reason,
        submitted_at=version.submitted_at,
        updated_at=version.updated_at,
        active=active is not None and active.id == version.id,
    )
