"""An ActionRequest as the wire carries it, assembled from pieces serialized once.

Building a request as a protobuf message copied every legal action, every event and the clock
into it, and the transport then copied it again into a RefereeMessage and serialized the lot:
most of the referee's own work per decision. Protobuf's encoding of a message is the
concatenation of its fields' encodings, so a request is assembled here from bytes: each legal
action and each event is encoded once per process (for every seat that sees it), the clock
once per bank, and only the observation at each decision. The bytes are exactly what
`SerializeToString` gives the same message (tests/test_wire.py holds every game to it); a seat
that wants the message (an in-process bot, a training environment) parses them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from croupier.v1 import game_pb2, referee_pb2

_WIRE_LENGTH_DELIMITED = 2
_ONE_BYTE = [bytes((value,)) for value in range(0x80)]


def varint(value: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative integer."""
    if value < 0x80:
        return _ONE_BYTE[value]
    if value < 0x4000:  # two bytes: a request's lengths, mostly
        return bytes(((value & 0x7F) | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int) -> bytes:
    """The key of a length-delimited field (a string, bytes or a message)."""
    return varint(number << 3 | _WIRE_LENGTH_DELIMITED)


def length_delimited(key: bytes, payload: bytes) -> bytes:
    """One length-delimited field: its key, the payload's length, the payload."""
    return key + varint(len(payload)) + payload


def _key(descriptor: Any, name: str) -> bytes:  # a Descriptor (upb's or Python's)
    return tag(descriptor.fields_by_name[name].number)


_REQUEST = referee_pb2.ActionRequest.DESCRIPTOR
_MATCH_ID = _key(_REQUEST, "match_id")
_REQUEST_ID = varint(_REQUEST.fields_by_name["request_id"].number << 3)  # a varint field
_DECISION = varint(_REQUEST.fields_by_name["decision"].number << 3)  # a varint field
_OBSERVATION = _key(_REQUEST, "observation")
LEGAL_ACTION = _key(_REQUEST, "legal_actions")
_CLOCK = _key(_REQUEST, "clock")
EVENT = _key(_REQUEST, "events")
_ACTION_REQUEST = _key(referee_pb2.RefereeMessage.DESCRIPTOR, "action_request")
_GAME_KEYS = {
    name: tag(field.number)
    for name, field in game_pb2.Observation.DESCRIPTOR.fields_by_name.items()
    if field.containing_oneof is not None
}


def observation_bytes(game_id: str, observation: bytes) -> bytes:
    """The encoding of a game_pb2.Observation holding the game's serialized observation."""
    return length_delimited(_GAME_KEYS[game_id], observation)


class WireRequest:
    """One decision's ActionRequest, encoded: what the transport writes (`data`, a whole
    RefereeMessage), the fields a seat reads without parsing, and the message on demand."""

    __slots__ = ("_message", "body", "legal_count", "match_id", "request_id")

    def __init__(self, match_id: str, request_id: int, legal_count: int, body: bytes) -> None:
        self.match_id = match_id
        self.request_id = request_id
        self.legal_count = legal_count
        #: The ActionRequest's own encoding.
        self.body = body
        self._message: referee_pb2.ActionRequest | None = None

    @property
    def data(self) -> bytes:
        """The RefereeMessage that carries this request, encoded."""
        return length_delimited(_ACTION_REQUEST, self.body)

    @property
    def message(self) -> referee_pb2.ActionRequest:
        """The request as a message (parsed once; callers do not change it)."""
        if self._message is None:
            self._message = referee_pb2.ActionRequest.FromString(self.body)
        return self._message

    @classmethod
    def of(cls, message: referee_pb2.ActionRequest) -> WireRequest:
        """A request that exists as a message already (sent again after a reconnect)."""
        request = cls(
            message.match_id,
            message.request_id,
            len(message.legal_actions),
            message.SerializeToString(),
        )
        request._message = message
        return request


def action_request(
    match_id: str,
    request_id: int,
    observation: bytes,
    legal_actions: Sequence[bytes],
    clock: bytes,
    events: Sequence[bytes],
    decision: int = 0,
) -> WireRequest:
    """The request from its pieces: `observation` an encoded game_pb2.Observation, `clock` an
    encoded Clock, and each legal action and event a field already (`LEGAL_ACTION` or `EVENT`
    key, length, message), in the proto's field order as SerializeToString writes them;
    `decision` the match's decision number (0, as proto3 leaves it, is not written)."""
    body = b"".join(
        (
            _match_id_field(match_id),
            _REQUEST_ID + varint(request_id) if request_id else b"",
            _OBSERVATION + varint(len(observation)),
            observation,
            *legal_actions,
            _CLOCK + varint(len(clock)),
            clock,
            *events,
            _DECISION + varint(decision) if decision else b"",
        )
    )
    return WireRequest(match_id, request_id, len(legal_actions), body)


@functools.lru_cache(maxsize=1024)
def _match_id_field(match_id: str) -> bytes:
    """A request's match_id field (a match's every request has the same)."""
    return length_delimited(_MATCH_ID, match_id.encode()) if match_id else b""
