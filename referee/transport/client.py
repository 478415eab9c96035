"""The referee's own gRPC client calls: for `croupier watch`, live matches and their events; for
`croupier submit` and `croupier submissions`, an author's uploads and versions."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Self, TypeVar

import grpc

from croupier.tls_check import tls_mismatch
from croupier.v1 import (
    challenges_pb2,
    challenges_pb2_grpc,
    desk_pb2,
    desk_pb2_grpc,
    referee_pb2,
    referee_pb2_grpc,
    submissions_pb2,
    submissions_pb2_grpc,
)
from referee.errors import CroupierError


def _channel(address: str, secure: bool, ca_file: Path | None) -> grpc.Channel:
    if not secure:
        return grpc.insecure_channel(address)
    roots = ca_file.read_bytes() if ca_file is not None else None
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots))


def list_matches(
    address: str, *, secure: bool = False, ca_file: Path | None = None
) -> list[referee_pb2.LiveMatch]:
    with _channel(address, secure, ca_file) as channel:
        try:
            response = referee_pb2_grpc.RefereeStub(channel).ListMatches(
                referee_pb2.ListMatchesRequest(), timeout=10
            )
        except grpc.RpcError as error:
            why = _why(error, address, secure)
            raise CroupierError(f"cannot list matches on {address!r}: {why}") from None
    return list(response.matches)


def watch(
    address: str,
    match_id: str | None,
    *,
    bot: str = "",
    secure: bool = False,
    ca_file: Path | None = None,
) -> Iterator[referee_pb2.WatchMessage]:
    """A match's public messages as they come, until it ends; with no `match_id`, one match
    after another (only `bot`'s, if given) until the caller stops. Following, the first message
    (a MatchStart with no match id) comes once the referee has the spectator in its list."""
    request = referee_pb2.WatchRequest(
        match_id=match_id or "", follow=match_id is None, bot=bot or None
    )
    what = repr(match_id) if match_id is not None else "the matches"
    with _channel(address, secure, ca_file) as channel:
        stream = referee_pb2_grpc.RefereeStub(channel).Watch(request)
        try:
            if request.follow:
                stream.initial_metadata()
                yield referee_pb2.WatchMessage(match_start=referee_pb2.MatchStart())
            yield from stream
        except grpc.RpcError as error:
            why = _why(error, address, secure)
            raise CroupierError(f"cannot watch {what} on {address!r}: {why}") from None


#: How long a broken FollowEvents stream waits before it is opened again (seconds).
RECONNECT_SECONDS = 1.0
#: How long `follow` waits for the referee at first (seconds).
REACH_SECONDS = 10.0
#: The statuses that end a FollowEvents stream for good: the referee's answer, not a broken
#: connection (a referee shutting down cancels its streams; one restarting is unavailable).
REFUSALS = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.FAILED_PRECONDITION,
    }
)
_T = TypeVar("_T")

#: Bytes an upload sends a message: under the server's 64 KiB message limit (submissions.proto).
UPLOAD_CHUNK_BYTES = 32 * 1024


class _Caller:
    """A channel to a contest's referee and the token its calls carry; closed on exit."""

    def __init__(
        self, address: str, token: str, *, secure: bool = False, ca_file: Path | None = None
    ) -> None:
        self.address = address
        self.secure = secure
        self.channel = _channel(address, secure, ca_file)
        self.metadata = (("authorization", f"Bearer {token}"),)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.channel.close()

    def _why(self, error: grpc.RpcError) -> str:
        """What a call's error says, in one line."""
        return _why(error, self.address, self.secure)

    def _call(self, what: str, subject: str, call: Callable[[], _T]) -> _T:
        try:
            return call()
        except grpc.RpcError as error:
            named = f" {subject!r}" if subject else ""
            why = self._why(error)
            raise CroupierError(f"cannot {what}{named} on {self.address!r}: {why}") from None


class Author(_Caller):
    """An account's calls to a contest's Submissions service, with its token."""

    def __init__(
        self, address: str, token: str, *, secure: bool = False, ca_file: Path | None = None
    ) -> None:
        super().__init__(address, token, secure=secure, ca_file=ca_file)
        self.stub = submissions_pb2_grpc.SubmissionsStub(self.channel)

    def upload(
        self, archive: Path, name: str, sent: Callable[[int, int], None] = lambda n, total: None
    ) -> submissions_pb2.UploadResponse:
        """Upload `archive` (named `name` in messages), calling `sent(bytes, total)` as it goes."""
        total = archive.stat().st_size

        def messages() -> Iterator[submissions_pb2.UploadRequest]:
            metadata = submissions_pb2.UploadMetadata(file_name=name, size_bytes=total)
            yield submissions_pb2.UploadRequest(metadata=metadata)
            done = 0
            with archive.open("rb") as data:
                while chunk := data.read(UPLOAD_CHUNK_BYTES):
                    yield submissions_pb2.UploadRequest(chunk=chunk)
                    done += len(chunk)
                    sent(done, total)

        return self._call(
            "upload", name, partial(self.stub.Upload, messages(), metadata=self.metadata)
        )

    def versions(self) -> list[submissions_pb2.Version]:
        request = submissions_pb2.ListVersionsRequest()
        call = partial(self.stub.ListVersions, request, metadata=self.metadata, timeout=30)
        return list(self._call("list the versions", "", call).versions)

    def version(self, id: str) -> submissions_pb2.Version:
        request = submissions_pb2.GetVersionRequest(version_id=id)
        call = partial(self.stub.GetVersion, request, metadata=self.metadata, timeout=30)
        return self._call("read", id, call).version

    def log(self, id: str) -> str:
        request = submissions_pb2.GetBuildLogRequest(version_id=id)
        call = partial(self.stub.GetBuildLog, request, metadata=self.metadata, timeout=30)
        return self._call("read the build log of", id, call).log

    def match_log(self, match_id: str) -> submissions_pb2.GetMatchLogResponse:
        request = submissions_pb2.GetMatchLogRequest(match_id=match_id)
        call = partial(self.stub.GetMatchLog, request, metadata=self.metadata, timeout=30)
        return self._call("read the log of match", match_id, call)

    def qualification_report(self, id: str) -> str | None:
        """The version's whole qualification report; None from a referee that predates
        GetQualificationReport (it answers UNIMPLEMENTED), whose Version.reason is all there is."""
        request = submissions_pb2.GetQualificationReportRequest(version_id=id)
        try:
            answer = self.stub.GetQualificationReport(request, metadata=self.metadata, timeout=30)
        except grpc.RpcError as error:
            if isinstance(error, grpc.Call) and error.code() is grpc.StatusCode.UNIMPLEMENTED:
                return None
            why = _why(error, self.address, self.secure)
            raise CroupierError(
                f"cannot read the qualification report of {id!r} on {self.address!r}: {why}"
            ) from None
        return answer.report

    def withdraw(self, id: str) -> submissions_pb2.Version:
        request = submissions_pb2.WithdrawRequest(version_id=id)
        call = partial(self.stub.Withdraw, request, metadata=self.metadata, timeout=30)
        return self._call("withdraw", id, call).version


class Member(_Caller):
    """A team member's calls to a contest's Desk service, with their token."""

    def __init__(
        self, address: str, token: str, *, secure: bool = False, ca_file: Path | None = None
    ) -> None:
        super().__init__(address, token, secure=secure, ca_file=ca_file)
        self.stub = desk_pb2_grpc.DeskStub(self.channel)

    def team(self) -> desk_pb2.GetTeamResponse:
        call = partial(self.stub.GetTeam, desk_pb2.GetTeamRequest(), metadata=self.metadata)
        return self._call("read the team", "", call)

    def add(self, name: str) -> desk_pb2.AddMemberResponse:
        request = desk_pb2.AddMemberRequest(name=name)
        call = partial(self.stub.AddMember, request, metadata=self.metadata, timeout=30)
        return self._call("add the member", name, call)

    def remove(self, name: str) -> None:
        request = desk_pb2.RemoveMemberRequest(name=name)
        call = partial(self.stub.RemoveMember, request, metadata=self.metadata, timeout=30)
        self._call("remove the member", name, call)

    def rotate(self, name: str = "") -> str:
        request = desk_pb2.RotateTokenRequest(name=name)
        call = partial(self.stub.RotateToken, request, metadata=self.metadata, timeout=30)
        return self._call("rotate the token of", name, call).token

    def decision_log(self, match_id: str, decision: int | None) -> desk_pb2.GetDecisionLogResponse:
        """One decision's lines, or (None) every decision's, in `by_decision`."""
        request = desk_pb2.GetDecisionLogRequest(
            match_id=match_id, decision=decision or 0, every_decision=decision is None
        )
        call = partial(self.stub.GetDecisionLog, request, metadata=self.metadata, timeout=30)
        what = (
            "read every decision's lines of match"
            if decision is None
            else (f"read decision {decision} of match")
        )
        return self._call(what, match_id, call)

    def follow(
        self, after: int = 0, reconnecting: Callable[[int, str], None] = lambda last, why: None
    ) -> Iterator[desk_pb2.FollowEventsResponse]:
        """The team's events after the event `after`, as they happen, for ever. A connection
        that breaks (the referee restarting, the network) is opened again after the last event
        seen, every RECONNECT_SECONDS, calling `reconnecting(last, why)` first, so nothing is
        missed or seen twice; a refusal (REFUSALS: a revoked token) raises CroupierError, and
        so does a referee not reached at first."""
        try:  # a referee never reached is a mistake to say, not a connection to wait for
            grpc.channel_ready_future(self.channel).result(timeout=REACH_SECONDS)
        except grpc.FutureTimeoutError:
            raise CroupierError(
                f"cannot follow the team's events on {self.address!r}: no referee answered "
                f"within {REACH_SECONDS:g} s (is the address right, and TLS as the referee's?)"
            ) from None
        while True:
            request = desk_pb2.FollowEventsRequest(after_event=after)
            try:
                for event in self.stub.FollowEvents(request, metadata=self.metadata):
                    after = event.event_id
                    yield event
            except grpc.RpcError as error:
                code = error.code() if isinstance(error, grpc.Call) else None
                if code in REFUSALS:
                    raise CroupierError(
                        f"cannot follow the team's events on {self.address!r}: {self._why(error)}"
                    ) from None
                reconnecting(after, self._why(error))
            time.sleep(RECONNECT_SECONDS)


class Challenger(Author):
    """An account's calls to a contest's Challenges service, with its token."""

    def __init__(
        self, address: str, token: str, *, secure: bool = False, ca_file: Path | None = None
    ) -> None:
        super().__init__(address, token, secure=secure, ca_file=ca_file)
        self.challenges = challenges_pb2_grpc.ChallengesStub(self.channel)

    def __enter__(self) -> Challenger:
        return self

    def ask(self, request: challenges_pb2.CreateChallengeRequest) -> challenges_pb2.Challenge:
        call = partial(self.challenges.CreateChallenge, request, metadata=self.metadata, timeout=30)
        return self._call("challenge", request.opponent, call).challenge

    def listed(self) -> list[challenges_pb2.Challenge]:
        request = challenges_pb2.ListChallengesRequest()
        call = partial(self.challenges.ListChallenges, request, metadata=self.metadata, timeout=30)
        return list(self._call("list the challenges", "", call).challenges)

    def get(self, id: int) -> challenges_pb2.Challenge:
        request = challenges_pb2.GetChallengeRequest(id=id)
        call = partial(self.challenges.GetChallenge, request, metadata=self.metadata, timeout=30)
        return self._call("read challenge", str(id), call).challenge

    def cancel(self, id: int) -> challenges_pb2.Challenge:
        request = challenges_pb2.CancelChallengeRequest(id=id)
        call = partial(self.challenges.CancelChallenge, request, metadata=self.metadata, timeout=30)
        return self._call("cancel challenge", str(id), call).challenge

    def consent(self, answer: str) -> None:
        """`answer` one of ask, accept, refuse."""
        request = challenges_pb2.SetConsentRequest(consent="CONSENT_" + answer.upper())
        call = partial(self.challenges.SetConsent, request, metadata=self.metadata, timeout=30)
        self._call("set the consent", "", call)

    def answer(self, id: int, accept: bool) -> challenges_pb2.Challenge:
        request = challenges_pb2.AnswerChallengeRequest(id=id, accept=accept)
        call = partial(self.challenges.AnswerChallenge, request, metadata=self.metadata, timeout=30)
        return self._call("answer challenge", str(id), call).challenge


def _why(error: grpc.RpcError, address: str, secure: bool) -> str:
    """The status and its detail, or, when the two ends disagree about TLS, what to do."""
    code = error.code() if isinstance(error, grpc.Call) else None
    details = error.details() if isinstance(error, grpc.Call) else str(error)
    if code is grpc.StatusCode.UNAVAILABLE:
        mismatch = tls_mismatch(
            address,
            tls=secure,
            detail=details or "",
            give_ca="give its CA certificate with --ca-file FILE (or --tls for a public one)",
            drop_tls="drop --ca-file and --tls",
        )
        if mismatch is not None:
            return mismatch
    return f"{code.name if code else 'error'}: {details}"


__all__ = ["Author", "Challenger", "Member", "list_matches", "watch"]
