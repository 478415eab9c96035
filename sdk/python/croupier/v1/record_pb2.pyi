from croupier.v1 import common_pb2 as _common_pb2
from croupier.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Record(_message.Message):
    __slots__ = ("header", "chance", "action", "fault", "event", "result")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHANCE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    header: RecordHeader
    chance: ChanceRecord
    action: ActionRecord
    fault: FaultRecord
    event: EventRecord
    result: ResultRecord
    def __init__(self, header: _Optional[_Union[RecordHeader, _Mapping]] = ..., chance: _Optional[_Union[ChanceRecord, _Mapping]] = ..., action: _Optional[_Union[ActionRecord, _Mapping]] = ..., fault: _Optional[_Union[FaultRecord, _Mapping]] = ..., event: _Optional[_Union[EventRecord, _Mapping]] = ..., result: _Optional[_Union[ResultRecord, _Mapping]] = ...) -> None: ...

class RecordSeat(_message.Message):
    __slots__ = ("name", "version", "cores", "clock")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CORES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    cores: _containers.RepeatedScalarFieldContainer[int]
    clock: _common_pb2.ClockKind
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., cores: _Optional[_Iterable[int]] = ..., clock: _Optional[_Union[_common_pb2.ClockKind, str]] = ...) -> None: ...

class Computer(_message.Message):
    __slots__ = ("host", "cpu_model", "cpus")
    HOST_FIELD_NUMBER: _ClassVar[int]
    CPU_MODEL_FIELD_NUMBER: _ClassVar[int]
    CPUS_FIELD_NUMBER: _ClassVar[int]
    host: str
    cpu_model: str
    cpus: int
    def __init__(self, host: _Optional[str] = ..., cpu_model: _Optional[str] = ..., cpus: _Optional[int] = ...) -> None: ...

class RecordHeader(_message.Message):
    __slots__ = ("schema_version", "match_id", "game", "rules_version", "options", "seats", "time_control", "seed", "deck", "software_version", "started_at", "computer", "challenge")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPUTER_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    schema_version: int
    match_id: str
    game: str
    rules_version: str
    options: _containers.ScalarMap[str, str]
    seats: _containers.RepeatedCompositeFieldContainer[RecordSeat]
    time_control: _common_pb2.TimeControl
    seed: str
    deck: _containers.RepeatedScalarFieldContainer[str]
    software_version: str
    started_at: str
    computer: Computer
    challenge: RecordChallenge
    def __init__(self, schema_version: _Optional[int] = ..., match_id: _Optional[str] = ..., game: _Optional[str] = ..., rules_version: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seats: _Optional[_Iterable[_Union[RecordSeat, _Mapping]]] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ..., seed: _Optional[str] = ..., deck: _Optional[_Iterable[str]] = ..., software_version: _Optional[str] = ..., started_at: _Optional[str] = ..., computer: _Optional[_Union[Computer, _Mapping]] = ..., challenge: _Optional[_Union[RecordChallenge, _Mapping]] = ...) -> None: ...

class RecordChallenge(_message.Message):
    __slots__ = ("id", "ranked")
    ID_FIELD_NUMBER: _ClassVar[int]
    RANKED_FIELD_NUMBER: _ClassVar[int]
    id: int
    ranked: bool
    def __init__(self, id: _Optional[int] = ..., ranked: _Optional[bool] = ...) -> None: ...

class ChanceRecord(_message.Message):
    __slots__ = ("deck", "pick", "label")
    DECK_FIELD_NUMBER: _ClassVar[int]
    PICK_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    deck: Deck
    pick: int
    label: str
    def __init__(self, deck: _Optional[_Union[Deck, _Mapping]] = ..., pick: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class Deck(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class ActionRecord(_message.Message):
    __slots__ = ("seat", "index", "text", "elapsed_ms", "defaulted", "lag_ms", "cpu_ms", "starved_ms")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    DEFAULTED_FIELD_NUMBER: _ClassVar[int]
    LAG_MS_FIELD_NUMBER: _ClassVar[int]
    CPU_MS_FIELD_NUMBER: _ClassVar[int]
    STARVED_MS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    index: int
    text: str
    elapsed_ms: int
    defaulted: bool
    lag_ms: int
    cpu_ms: int
    starved_ms: int
    def __init__(self, seat: _Optional[int] = ..., index: _Optional[int] = ..., text: _Optional[str] = ..., elapsed_ms: _Optional[int] = ..., defaulted: _Optional[bool] = ..., lag_ms: _Optional[int] = ..., cpu_ms: _Optional[int] = ..., starved_ms: _Optional[int] = ...) -> None: ...

class FaultRecord(_message.Message):
    __slots__ = ("fault", "retired")
    FAULT_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    fault: _common_pb2.Fault
    retired: bool
    def __init__(self, fault: _Optional[_Union[_common_pb2.Fault, _Mapping]] = ..., retired: _Optional[bool] = ...) -> None: ...

class EventRecord(_message.Message):
    __slots__ = ("event", "public", "seats")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    event: _game_pb2.Event
    public: bool
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ..., public: _Optional[bool] = ..., seats: _Optional[_Iterable[int]] = ...) -> None: ...

class ResultRecord(_message.Message):
    __slots__ = ("result", "luck", "luck_value")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    LUCK_FIELD_NUMBER: _ClassVar[int]
    LUCK_VALUE_FIELD_NUMBER: _ClassVar[int]
    result: _common_pb2.Result
    luck: _containers.RepeatedScalarFieldContainer[float]
    luck_value: str
    def __init__(self, result: _Optional[_Union[_common_pb2.Result, _Mapping]] = ..., luck: _Optional[_Iterable[float]] = ..., luck_value: _Optional[str] = ...) -> None: ...
