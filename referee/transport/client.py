"""The referee's own gRPC client calls, for `croupier watch`: live matches and their events."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import grpc

from croupier.v1 import referee_pb2, referee_pb2_grpc
from referee.errors import CroupierError
from referee.match.glyphs import readable


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
    address: str,
    match_id: str | None,
    *,
    bot: str = "",
    secure: bool = False,
    ca_file: Path | None = None,
) -> Iterator[str]:
    """A match's public story as text lines, as it happens, until it ends; with no `match_id`,
    one match after another (only `bot`'s, if given) until the caller stops."""
    request = referee_pb2.WatchRequest(match_id=match_id or "", follow=match_id is None, bot=bot)
    what = repr(match_id) if match_id is not None else "the matches"
    with _channel(address, secure, ca_file) as channel:
        stream = referee_pb2_grpc.RefereeStub(channel).Watch(request)
        names: list[str] = []
        game = ""
        try:
            if request.follow:
                stream.initial_metadata()  # the referee has the spectator in its list
                yield f"following the matches on {address}" + (f" of {bot}" if bot else "")
            for message in stream:
                kind = message.WhichOneof("kind")
                if kind == "match_start":
                    start = message.match_start
                    game, names = start.game, list(start.seat_names)
                    seats = ", ".join(f"{i}={n}" for i, n in enumerate(names))
                    yield f"{start.game} match {start.match_id}: {seats}"
                elif kind == "event":
                    yield f"  {_named(readable(game, message.event.event.text), names)}"
                elif kind == "match_end":
                    yield f"result: {_named(message.match_end.result.text, names)}"
        except grpc.RpcError as error:
            raise CroupierError(f"cannot watch {what} on {address!r}: {_why(error)}") from None


_SEAT = re.compile(r"\bseat (\d+)\b")


def _named(text: str, names: list[str]) -> str:
    """`seat 1` as `seat 1 (alice)`: a spectator reads bots, not seat numbers."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return f"{match.group(0)} ({names[seat]})" if seat < len(names) else match.group(0)

    return _SEAT.sub(name, text)


def _why(error: grpc.RpcError) -> str:
    code = error.code() if isinstance(error, grpc.Call) else None
    details = error.details() if isinstance(error, grpc.Call) else str(error)
    return f"{code.name if code else 'error'}: {details}"


__all__ = ["list_matches", "watch_match"]
