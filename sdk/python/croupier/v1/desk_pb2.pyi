from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeskEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DESK_EVENT_KIND_UNSPECIFIED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_RECEIVED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_QUEUED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_BUILDING: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_BUILT: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_BUILD_FAILED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_QUALIFYING: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_QUALIFIED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_FAILED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_WITHDRAWN: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_ACTIVE: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_FIRST_MATCH: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_RETIRED: _ClassVar[DeskEventKind]
    DESK_EVENT_KIND_CHALLENGE_DECIDED: _ClassVar[DeskEventKind]
DESK_EVENT_KIND_UNSPECIFIED: DeskEventKind
DESK_EVENT_KIND_RECEIVED: DeskEventKind
DESK_EVENT_KIND_QUEUED: DeskEventKind
DESK_EVENT_KIND_BUILDING: DeskEventKind
DESK_EVENT_KIND_BUILT: DeskEventKind
DESK_EVENT_KIND_BUILD_FAILED: DeskEventKind
DESK_EVENT_KIND_QUALIFYING: DeskEventKind
DESK_EVENT_KIND_QUALIFIED: DeskEventKind
DESK_EVENT_KIND_FAILED: DeskEventKind
DESK_EVENT_KIND_WITHDRAWN: DeskEventKind
DESK_EVENT_KIND_ACTIVE: DeskEventKind
DESK_EVENT_KIND_FIRST_MATCH: DeskEventKind
DESK_EVENT_KIND_RETIRED: DeskEventKind
DESK_EVENT_KIND_CHALLENGE_DECIDED: DeskEventKind

class GetTeamRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TeamMember(_message.Message):
    __slots__ = ("name", "leader", "added_at")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    ADDED_AT_FIELD_NUMBER: _ClassVar[int]
    name: str
    leader: bool
    added_at: str
    def __init__(self, name: _Optional[str] = ..., leader: _Optional[bool] = ..., added_at: _Optional[str] = ...) -> None: ...

class GetTeamResponse(_message.Message):
    __slots__ = ("team", "members", "you", "max_members")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    YOU_FIELD_NUMBER: _ClassVar[int]
    MAX_MEMBERS_FIELD_NUMBER: _ClassVar[int]
    team: str
    members: _containers.RepeatedCompositeFieldContainer[TeamMember]
    you: str
    max_members: int
    def __init__(self, team: _Optional[str] = ..., members: _Optional[_Iterable[_Union[TeamMember, _Mapping]]] = ..., you: _Optional[str] = ..., max_members: _Optional[int] = ...) -> None: ...

class AddMemberRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class AddMemberResponse(_message.Message):
    __slots__ = ("member", "token")
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    member: TeamMember
    token: str
    def __init__(self, member: _Optional[_Union[TeamMember, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RemoveMemberRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemoveMemberResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RotateTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RotateTokenResponse(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class FollowEventsRequest(_message.Message):
    __slots__ = ("after_event",)
    AFTER_EVENT_FIELD_NUMBER: _ClassVar[int]
    after_event: int
    def __init__(self, after_event: _Optional[int] = ...) -> None: ...

class FollowEventsResponse(_message.Message):
    __slots__ = ("event_id", "version_id", "kind", "reason", "at", "log_tail", "match_id", "challenge_id")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    LOG_TAIL_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    version_id: str
    kind: DeskEventKind
    reason: str
    at: str
    log_tail: _containers.RepeatedScalarFieldContainer[str]
    match_id: str
    challenge_id: int
    def __init__(self, event_id: _Optional[int] = ..., version_id: _Optional[str] = ..., kind: _Optional[_Union[DeskEventKind, str]] = ..., reason: _Optional[str] = ..., at: _Optional[str] = ..., log_tail: _Optional[_Iterable[str]] = ..., match_id: _Optional[str] = ..., challenge_id: _Optional[int] = ...) -> None: ...

class GetDecisionLogRequest(_message.Message):
    __slots__ = ("match_id", "decision")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    decision: int
    def __init__(self, match_id: _Optional[str] = ..., decision: _Optional[int] = ...) -> None: ...

class GetDecisionLogResponse(_message.Message):
    __slots__ = ("version_id", "lines")
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    lines: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, version_id: _Optional[str] = ..., lines: _Optional[_Iterable[str]] = ...) -> None: ...
