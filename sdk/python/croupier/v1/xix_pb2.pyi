from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class XixPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    XIX_PHASE_UNSPECIFIED: _ClassVar[XixPhase]
    XIX_PHASE_PLAY: _ClassVar[XixPhase]
    XIX_PHASE_STRIKE: _ClassVar[XixPhase]
    XIX_PHASE_DRAFT: _ClassVar[XixPhase]
    XIX_PHASE_TRADE: _ClassVar[XixPhase]
    XIX_PHASE_OVER: _ClassVar[XixPhase]
XIX_PHASE_UNSPECIFIED: XixPhase
XIX_PHASE_PLAY: XixPhase
XIX_PHASE_STRIKE: XixPhase
XIX_PHASE_DRAFT: XixPhase
XIX_PHASE_TRADE: XixPhase
XIX_PHASE_OVER: XixPhase

class XixStrikeSlot(_message.Message):
    __slots__ = ("slid", "known_value")
    SLID_FIELD_NUMBER: _ClassVar[int]
    KNOWN_VALUE_FIELD_NUMBER: _ClassVar[int]
    slid: bool
    known_value: int
    def __init__(self, slid: _Optional[bool] = ..., known_value: _Optional[int] = ...) -> None: ...

class XixObservation(_message.Message):
    __slots__ = ("seat", "hand", "opponent_hand_size", "phase", "to_move", "leader", "trick", "scores", "strikes", "strike_row", "played", "draft_pool", "exchange", "hand_sizes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    STRIKE_ROW_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    DRAFT_POOL_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand: _containers.RepeatedScalarFieldContainer[int]
    opponent_hand_size: int
    phase: XixPhase
    to_move: int
    leader: int
    trick: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    strikes: _containers.RepeatedScalarFieldContainer[int]
    strike_row: _containers.RepeatedCompositeFieldContainer[XixStrikeSlot]
    played: _containers.RepeatedScalarFieldContainer[int]
    draft_pool: _containers.RepeatedScalarFieldContainer[int]
    exchange: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., hand: _Optional[_Iterable[int]] = ..., opponent_hand_size: _Optional[int] = ..., phase: _Optional[_Union[XixPhase, str]] = ..., to_move: _Optional[int] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., strikes: _Optional[_Iterable[int]] = ..., strike_row: _Optional[_Iterable[_Union[XixStrikeSlot, _Mapping]]] = ..., played: _Optional[_Iterable[int]] = ..., draft_pool: _Optional[_Iterable[int]] = ..., exchange: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class XixTrade(_message.Message):
    __slots__ = ("position", "card")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: int
    def __init__(self, position: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class XixAction(_message.Message):
    __slots__ = ("play", "strike", "draft", "trade")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    STRIKE_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    TRADE_FIELD_NUMBER: _ClassVar[int]
    play: int
    strike: int
    draft: int
    trade: XixTrade
    def __init__(self, play: _Optional[int] = ..., strike: _Optional[int] = ..., draft: _Optional[int] = ..., trade: _Optional[_Union[XixTrade, _Mapping]] = ...) -> None: ...

class XixFirstLeader(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class XixDealt(_message.Message):
    __slots__ = ("hand",)
    HAND_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, hand: _Optional[_Iterable[int]] = ...) -> None: ...

class XixPlayed(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class XixTrickTaken(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ...) -> None: ...

class XixStruck(_message.Message):
    __slots__ = ("seat", "position", "strikes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    position: int
    strikes: int
    def __init__(self, seat: _Optional[int] = ..., position: _Optional[int] = ..., strikes: _Optional[int] = ...) -> None: ...

class XixPeeked(_message.Message):
    __slots__ = ("position", "value")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    position: int
    value: int
    def __init__(self, position: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...

class XixExchangeWon(_message.Message):
    __slots__ = ("seat", "stakes", "scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STAKES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    stakes: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., stakes: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class XixDrafted(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[int] = ...) -> None: ...

class XixTraded(_message.Message):
    __slots__ = ("seat", "position")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    position: int
    def __init__(self, seat: _Optional[int] = ..., position: _Optional[int] = ...) -> None: ...

class XixTradeDetail(_message.Message):
    __slots__ = ("position", "taken", "given")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    GIVEN_FIELD_NUMBER: _ClassVar[int]
    position: int
    taken: int
    given: int
    def __init__(self, position: _Optional[int] = ..., taken: _Optional[int] = ..., given: _Optional[int] = ...) -> None: ...

class XixEvent(_message.Message):
    __slots__ = ("dealt", "played", "trick_taken", "struck", "peeked", "exchange_won", "drafted", "traded", "trade_detail", "first_leader")
    DEALT_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_TAKEN_FIELD_NUMBER: _ClassVar[int]
    STRUCK_FIELD_NUMBER: _ClassVar[int]
    PEEKED_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_WON_FIELD_NUMBER: _ClassVar[int]
    DRAFTED_FIELD_NUMBER: _ClassVar[int]
    TRADED_FIELD_NUMBER: _ClassVar[int]
    TRADE_DETAIL_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEADER_FIELD_NUMBER: _ClassVar[int]
    dealt: XixDealt
    played: XixPlayed
    trick_taken: XixTrickTaken
    struck: XixStruck
    peeked: XixPeeked
    exchange_won: XixExchangeWon
    drafted: XixDrafted
    traded: XixTraded
    trade_detail: XixTradeDetail
    first_leader: XixFirstLeader
    def __init__(self, dealt: _Optional[_Union[XixDealt, _Mapping]] = ..., played: _Optional[_Union[XixPlayed, _Mapping]] = ..., trick_taken: _Optional[_Union[XixTrickTaken, _Mapping]] = ..., struck: _Optional[_Union[XixStruck, _Mapping]] = ..., peeked: _Optional[_Union[XixPeeked, _Mapping]] = ..., exchange_won: _Optional[_Union[XixExchangeWon, _Mapping]] = ..., drafted: _Optional[_Union[XixDrafted, _Mapping]] = ..., traded: _Optional[_Union[XixTraded, _Mapping]] = ..., trade_detail: _Optional[_Union[XixTradeDetail, _Mapping]] = ..., first_leader: _Optional[_Union[XixFirstLeader, _Mapping]] = ...) -> None: ...
