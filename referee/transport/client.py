"""The referee's own gRPC client calls, for `croupier watch`: live matches and their events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc

from croupier.tls_check import tls_mismatch
from croupier.v1 import referee_pb2, referee_pb2_grpc
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


__all__ = ["list_matches", "watch"]
