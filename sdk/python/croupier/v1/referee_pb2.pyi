from croupier.v1 import common_pb2 as _common_pb2
from croupier.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotMessage(_message.Message):
    __slots__ = ("hello", "action_reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action_reply: ActionReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action_reply: _Optional[_Union[ActionReply, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("name", "version", "games", "protocol_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    games: _containers.RepeatedScalarFieldContainer[str]
    protocol_version: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("match_id", "request_id", "action_index")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_INDEX_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    action_index: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action_index: _Optional[int] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "action_request", "match_end", "goodbye")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    ACTION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    action_request: ActionRequest
    match_end: MatchEnd
    goodbye: Goodbye
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., action_request: _Optional[_Union[ActionRequest, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "referee_version", "protocol_version")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REFEREE_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    referee_version: str
    protocol_version: int
    def __init__(self, session_id: _Optional[str] = ..., referee_version: _Optional[str] = ..., protocol_version: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "rules_version", "options", "seat", "seat_names", "time_control")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    rules_version: str
    options: _containers.ScalarMap[str, str]
    seat: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    time_control: _common_pb2.TimeControl
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., rules_version: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., seat: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[_common_pb2.TimeControl, _Mapping]] = ...) -> None: ...

class MatchEvent(_message.Message):
    __slots__ = ("match_id", "event")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    event: _game_pb2.Event
    def __init__(self, match_id: _Optional[str] = ..., event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "observation", "legal_actions", "clock", "events", "decision")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    observation: _game_pb2.Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.Action]
    clock: _common_pb2.Clock
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    decision: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_game_pb2.Action, _Mapping]]] = ..., clock: _Optional[_Union[_common_pb2.Clock, _Mapping]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ..., decision: _Optional[int] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "result", "faults", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    result: _common_pb2.Result
    faults: _containers.RepeatedCompositeFieldContainer[_common_pb2.Fault]
    events: _containers.RepeatedCompositeFieldContainer[_game_pb2.Event]
    def __init__(self, match_id: _Optional[str] = ..., result: _Optional[_Union[_common_pb2.Result, _Mapping]] = ..., faults: _Optional[_Iterable[_Union[_common_pb2.Fault, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[_game_pb2.Event, _Mapping]]] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("match_id", "follow", "bot")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    follow: bool
    bot: str
    def __init__(self, match_id: _Optional[str] = ..., follow: _Optional[bool] = ..., bot: _Optional[str] = ...) -> None: ...

class WatchMessage(_message.Message):
    __slots__ = ("match_start", "event", "match_end", "public_table")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_TABLE_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    event: MatchEvent
    match_end: MatchEnd
    public_table: _game_pb2.Observation
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., event: _Optional[_Union[MatchEvent, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., public_table: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GameOption(_message.Message):
    __slots__ = ("name", "type", "default", "min", "max", "description", "choices")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    default: str
    min: int
    max: int
    description: str
    choices: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., default: _Optional[str] = ..., min: _Optional[int] = ..., max: _Optional[int] = ..., description: _Optional[str] = ..., choices: _Optional[_Iterable[int]] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("id", "title", "rules_version", "options")
    ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    RULES_VERSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    title: str
    rules_version: str
    options: _containers.RepeatedCompositeFieldContainer[GameOption]
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., rules_version: _Optional[str] = ..., options: _Optional[_Iterable[_Union[GameOption, _Mapping]]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LiveMatch(_message.Message):
    __slots__ = ("match_id", "game", "seat_names", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    options: _containers.ScalarMap[str, str]
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[LiveMatch]
    def __init__(self, matches: _Optional[_Iterable[_Union[LiveMatch, _Mapping]]] = ...) -> None: ...
