from croupier.v1 import xix_pb2 as _xix_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Observation(_message.Message):
    __slots__ = ("xix",)
    XIX_FIELD_NUMBER: _ClassVar[int]
    xix: _xix_pb2.XixObservation
    def __init__(self, xix: _Optional[_Union[_xix_pb2.XixObservation, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("text", "xix")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    XIX_FIELD_NUMBER: _ClassVar[int]
    text: str
    xix: _xix_pb2.XixAction
    def __init__(self, text: _Optional[str] = ..., xix: _Optional[_Union[_xix_pb2.XixAction, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("text", "xix")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    XIX_FIELD_NUMBER: _ClassVar[int]
    text: str
    xix: _xix_pb2.XixEvent
    def __init__(self, text: _Optional[str] = ..., xix: _Optional[_Union[_xix_pb2.XixEvent, _Mapping]] = ...) -> None: ...
