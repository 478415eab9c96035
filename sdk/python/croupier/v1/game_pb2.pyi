from croupier.v1 import xactika_pb2 as _xactika_pb2
from croupier.v1 import xeri_pb2 as _xeri_pb2
from croupier.v1 import textactoe_pb2 as _textactoe_pb2
from croupier.v1 import xix_pb2 as _xix_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Observation(_message.Message):
    __slots__ = ("xactika", "xix", "xeri", "textactoe")
    XACTIKA_FIELD_NUMBER: _ClassVar[int]
    XIX_FIELD_NUMBER: _ClassVar[int]
    XERI_FIELD_NUMBER: _ClassVar[int]
    TEXTACTOE_FIELD_NUMBER: _ClassVar[int]
    xactika: _xactika_pb2.XactikaObservation
    xix: _xix_pb2.XixObservation
    xeri: _xeri_pb2.XeriObservation
    textactoe: _textactoe_pb2.TexTacToeObservation
    def __init__(self, xactika: _Optional[_Union[_xactika_pb2.XactikaObservation, _Mapping]] = ..., xix: _Optional[_Union[_xix_pb2.XixObservation, _Mapping]] = ..., xeri: _Optional[_Union[_xeri_pb2.XeriObservation, _Mapping]] = ..., textactoe: _Optional[_Union[_textactoe_pb2.TexTacToeObservation, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("text", "xactika", "xix", "xeri", "textactoe")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    XACTIKA_FIELD_NUMBER: _ClassVar[int]
    XIX_FIELD_NUMBER: _ClassVar[int]
    XERI_FIELD_NUMBER: _ClassVar[int]
    TEXTACTOE_FIELD_NUMBER: _ClassVar[int]
    text: str
    xactika: _xactika_pb2.XactikaAction
    xix: _xix_pb2.XixAction
    xeri: _xeri_pb2.XeriAction
    textactoe: _textactoe_pb2.TexTacToeAction
    def __init__(self, text: _Optional[str] = ..., xactika: _Optional[_Union[_xactika_pb2.XactikaAction, _Mapping]] = ..., xix: _Optional[_Union[_xix_pb2.XixAction, _Mapping]] = ..., xeri: _Optional[_Union[_xeri_pb2.XeriAction, _Mapping]] = ..., textactoe: _Optional[_Union[_textactoe_pb2.TexTacToeAction, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("text", "xactika", "xix", "xeri", "textactoe")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    XACTIKA_FIELD_NUMBER: _ClassVar[int]
    XIX_FIELD_NUMBER: _ClassVar[int]
    XERI_FIELD_NUMBER: _ClassVar[int]
    TEXTACTOE_FIELD_NUMBER: _ClassVar[int]
    text: str
    xactika: _xactika_pb2.XactikaEvent
    xix: _xix_pb2.XixEvent
    xeri: _xeri_pb2.XeriEvent
    textactoe: _textactoe_pb2.TexTacToeEvent
    def __init__(self, text: _Optional[str] = ..., xactika: _Optional[_Union[_xactika_pb2.XactikaEvent, _Mapping]] = ..., xix: _Optional[_Union[_xix_pb2.XixEvent, _Mapping]] = ..., xeri: _Optional[_Union[_xeri_pb2.XeriEvent, _Mapping]] = ..., textactoe: _Optional[_Union[_textactoe_pb2.TexTacToeEvent, _Mapping]] = ...) -> None: ...
