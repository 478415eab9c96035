"""The referee's own gRPC client calls, for `croupier watch`: live matches and their events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc

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
            raise CroupierError(f"cannot list matches on {address!r}: {_why(error)}") from None
    return list(response.matches)


def watch_match(
    address: str, match_id: str, *, secure: bool = False, ca_file: Path | None = None
) -> Iterator[str]:
    """The match's public story as text lines, as it happens, until it ends."""
    with _channel(address, secure, ca_file) as channel:
        stream = referee_pb2_grpc.RefereeStub(channel).Watch(
            referee_pb2.WatchRequest(match_id=match_id)
        )
        try:
            for message in stream:
                kind = message.WhichOneof("kind")
                if kind == "match_start":
                    start = message.match_start
                    seats = ", ".join(f"{i}={n}" for i, n in enumerate(start.seat_names))
                    yield f"{start.game} match {start.match_id}: {seats}"
                elif kind == "event":
                    yield f"  {message.event.event.text}"
                elif kind == "match_end":
                    yield f"result: {message.match_end.result.text}"
        except grpc.RpcError as error:
            raise CroupierError(
                f"cannot watch {match_id!r} on {address!r}: {_why(error)}"
            ) from None


def _why(error: grpc.RpcError) -> str:
    code = error.code() if isinstance(error, grpc.Call) else None
    details = error.details() if isinstance(error, grpc.Call) else str(error)
    return f"{code.name if code else 'error'}: {details}"


__all__ = ["list_matches", "watch_match"]
