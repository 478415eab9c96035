from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VersionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VERSION_STATUS_UNSPECIFIED: _ClassVar[VersionStatus]
    VERSION_STATUS_RECEIVED: _ClassVar[VersionStatus]
    VERSION_STATUS_BUILDING: _ClassVar[VersionStatus]
    VERSION_STATUS_BUILT: _ClassVar[VersionStatus]
    VERSION_STATUS_BUILD_FAILED: _ClassVar[VersionStatus]
    VERSION_STATUS_QUALIFYING: _ClassVar[VersionStatus]
    VERSION_STATUS_QUALIFIED: _ClassVar[VersionStatus]
    VERSION_STATUS_FAILED: _ClassVar[VersionStatus]
    VERSION_STATUS_WITHDRAWN: _ClassVar[VersionStatus]
VERSION_STATUS_UNSPECIFIED: VersionStatus
VERSION_STATUS_RECEIVED: VersionStatus
VERSION_STATUS_BUILDING: VersionStatus
VERSION_STATUS_BUILT: VersionStatus
VERSION_STATUS_BUILD_FAILED: VersionStatus
VERSION_STATUS_QUALIFYING: VersionStatus
VERSION_STATUS_QUALIFIED: VersionStatus
VERSION_STATUS_FAILED: VersionStatus
VERSION_STATUS_WITHDRAWN: VersionStatus

class UploadRequest(_message.Message):
    __slots__ = ("metadata", "chunk")
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    metadata: UploadMetadata
    chunk: bytes
    def __init__(self, metadata: _Optional[_Union[UploadMetadata, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class UploadMetadata(_message.Message):
    __slots__ = ("file_name", "size_bytes")
    FILE_NAME_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    file_name: str
    size_bytes: int
    def __init__(self, file_name: _Optional[str] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class UploadResponse(_message.Message):
    __slots__ = ("version", "new_version")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    NEW_VERSION_FIELD_NUMBER: _ClassVar[int]
    version: Version
    new_version: bool
    def __init__(self, version: _Optional[_Union[Version, _Mapping]] = ..., new_version: _Optional[bool] = ...) -> None: ...

class Version(_message.Message):
    __slots__ = ("id", "status", "reason", "submitted_at", "updated_at", "active", "queued")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: VersionStatus
    reason: str
    submitted_at: str
    updated_at: str
    active: bool
    queued: bool
    def __init__(self, id: _Optional[str] = ..., status: _Optional[_Union[VersionStatus, str]] = ..., reason: _Optional[str] = ..., submitted_at: _Optional[str] = ..., updated_at: _Optional[str] = ..., active: _Optional[bool] = ..., queued: _Optional[bool] = ...) -> None: ...

class ListVersionsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListVersionsResponse(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[Version]
    def __init__(self, versions: _Optional[_Iterable[_Union[Version, _Mapping]]] = ...) -> None: ...

class GetVersionRequest(_message.Message):
    __slots__ = ("version_id",)
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    def __init__(self, version_id: _Optional[str] = ...) -> None: ...

class GetVersionResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: Version
    def __init__(self, version: _Optional[_Union[Version, _Mapping]] = ...) -> None: ...

class GetBuildLogRequest(_message.Message):
    __slots__ = ("version_id",)
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    def __init__(self, version_id: _Optional[str] = ...) -> None: ...

class GetBuildLogResponse(_message.Message):
    __slots__ = ("log",)
    LOG_FIELD_NUMBER: _ClassVar[int]
    log: str
    def __init__(self, log: _Optional[str] = ...) -> None: ...

class GetMatchLogRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchLogResponse(_message.Message):
    __slots__ = ("version_id", "log")
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    log: str
    def __init__(self, version_id: _Optional[str] = ..., log: _Optional[str] = ...) -> None: ...

class GetQualificationReportRequest(_message.Message):
    __slots__ = ("version_id",)
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    def __init__(self, version_id: _Optional[str] = ...) -> None: ...

class GetQualificationReportResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: str
    def __init__(self, report: _Optional[str] = ...) -> None: ...

class WithdrawRequest(_message.Message):
    __slots__ = ("version_id",)
    VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    version_id: str
    def __init__(self, version_id: _Optional[str] = ...) -> None: ...

class WithdrawResponse(_message.Message):
    __slots__ = ("version",)
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: Version
    def __init__(self, version: _Optional[_Union[Version, _Mapping]] = ...) -> None: ...
