from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClockKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLOCK_KIND_UNSPECIFIED: _ClassVar[ClockKind]
    CLOCK_KIND_WALL: _ClassVar[ClockKind]
    CLOCK_KIND_CPU: _ClassVar[ClockKind]

class FaultReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_REASON_UNSPECIFIED: _ClassVar[FaultReason]
    FAULT_REASON_TIMEOUT: _ClassVar[FaultReason]
    FAULT_REASON_ILLEGAL_ACTION: _ClassVar[FaultReason]
    FAULT_REASON_MALFORMED_MESSAGE: _ClassVar[FaultReason]
    FAULT_REASON_WRONG_REQUEST: _ClassVar[FaultReason]
    FAULT_REASON_OUT_OF_TURN: _ClassVar[FaultReason]
    FAULT_REASON_DISCONNECTED: _ClassVar[FaultReason]
    FAULT_REASON_CRASHED: _ClassVar[FaultReason]
    FAULT_REASON_MEMORY: _ClassVar[FaultReason]
    FAULT_REASON_PROCESSES: _ClassVar[FaultReason]
    FAULT_REASON_CPU: _ClassVar[FaultReason]
    FAULT_REASON_DISK: _ClassVar[FaultReason]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_NORMAL: _ClassVar[Termination]
    TERMINATION_RETIRED: _ClassVar[Termination]
    TERMINATION_ABORTED: _ClassVar[Termination]
CLOCK_KIND_UNSPECIFIED: ClockKind
CLOCK_KIND_WALL: ClockKind
CLOCK_KIND_CPU: ClockKind
FAULT_REASON_UNSPECIFIED: FaultReason
FAULT_REASON_TIMEOUT: FaultReason
FAULT_REASON_ILLEGAL_ACTION: FaultReason
FAULT_REASON_MALFORMED_MESSAGE: FaultReason
FAULT_REASON_WRONG_REQUEST: FaultReason
FAULT_REASON_OUT_OF_TURN: FaultReason
FAULT_REASON_DISCONNECTED: FaultReason
FAULT_REASON_CRASHED: FaultReason
FAULT_REASON_MEMORY: FaultReason
FAULT_REASON_PROCESSES: FaultReason
FAULT_REASON_CPU: FaultReason
FAULT_REASON_DISK: FaultReason
TERMINATION_UNSPECIFIED: Termination
TERMINATION_NORMAL: Termination
TERMINATION_RETIRED: Termination
TERMINATION_ABORTED: Termination

class TimeControl(_message.Message):
    __slots__ = ("move_ms", "bank_ms", "clock", "ceiling_factor")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    CEILING_FACTOR_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    clock: ClockKind
    ceiling_factor: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., clock: _Optional[_Union[ClockKind, str]] = ..., ceiling_factor: _Optional[int] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_ms", "bank_ms", "deadline_ms", "ceiling_ms")
    MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    CEILING_MS_FIELD_NUMBER: _ClassVar[int]
    move_ms: int
    bank_ms: int
    deadline_ms: int
    ceiling_ms: int
    def __init__(self, move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., deadline_ms: _Optional[int] = ..., ceiling_ms: _Optional[int] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("seat", "reason", "detail", "request_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: FaultReason
    detail: str
    request_id: int
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[_Union[FaultReason, str]] = ..., detail: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "name", "score", "rank", "faults", "retired", "team")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    score: int
    rank: int
    faults: int
    retired: bool
    team: int
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., faults: _Optional[int] = ..., retired: _Optional[bool] = ..., team: _Optional[int] = ...) -> None: ...

class Result(_message.Message):
    __slots__ = ("termination", "seats", "text")
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    termination: Termination
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    text: str
    def __init__(self, termination: _Optional[_Union[Termination, str]] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., text: _Optional[str] = ...) -> None: ...
