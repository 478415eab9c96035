from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class XactikaShape(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    XACTIKA_SHAPE_UNSPECIFIED: _ClassVar[XactikaShape]
    XACTIKA_SHAPE_BALL: _ClassVar[XactikaShape]
    XACTIKA_SHAPE_CUBE: _ClassVar[XactikaShape]
    XACTIKA_SHAPE_CONE: _ClassVar[XactikaShape]
    XACTIKA_SHAPE_STAR: _ClassVar[XactikaShape]

class XactikaPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    XACTIKA_PHASE_UNSPECIFIED: _ClassVar[XactikaPhase]
    XACTIKA_PHASE_BID: _ClassVar[XactikaPhase]
    XACTIKA_PHASE_PLAY: _ClassVar[XactikaPhase]
    XACTIKA_PHASE_OVER: _ClassVar[XactikaPhase]
XACTIKA_SHAPE_UNSPECIFIED: XactikaShape
XACTIKA_SHAPE_BALL: XactikaShape
XACTIKA_SHAPE_CUBE: XactikaShape
XACTIKA_SHAPE_CONE: XactikaShape
XACTIKA_SHAPE_STAR: XactikaShape
XACTIKA_PHASE_UNSPECIFIED: XactikaPhase
XACTIKA_PHASE_BID: XactikaPhase
XACTIKA_PHASE_PLAY: XactikaPhase
XACTIKA_PHASE_OVER: XactikaPhase

class XactikaCall(_message.Message):
    __slots__ = ("count", "shape")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    count: int
    shape: XactikaShape
    def __init__(self, count: _Optional[int] = ..., shape: _Optional[_Union[XactikaShape, str]] = ...) -> None: ...

class XactikaSeatBid(_message.Message):
    __slots__ = ("bid",)
    BID_FIELD_NUMBER: _ClassVar[int]
    bid: int
    def __init__(self, bid: _Optional[int] = ...) -> None: ...

class XactikaObservation(_message.Message):
    __slots__ = ("bids_v1", "seat", "players", "round", "rounds", "dealer", "phase", "to_move", "hand", "bids", "leader", "call", "trick", "taken", "played", "scores", "tricks_played")
    BIDS_V1_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    TRICKS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    bids_v1: _containers.RepeatedScalarFieldContainer[int]
    seat: int
    players: int
    round: int
    rounds: int
    dealer: int
    phase: XactikaPhase
    to_move: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    bids: _containers.RepeatedCompositeFieldContainer[XactikaSeatBid]
    leader: int
    call: XactikaCall
    trick: _containers.RepeatedScalarFieldContainer[str]
    taken: _containers.RepeatedScalarFieldContainer[int]
    played: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    tricks_played: int
    def __init__(self, bids_v1: _Optional[_Iterable[int]] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., dealer: _Optional[int] = ..., phase: _Optional[_Union[XactikaPhase, str]] = ..., to_move: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., bids: _Optional[_Iterable[_Union[XactikaSeatBid, _Mapping]]] = ..., leader: _Optional[int] = ..., call: _Optional[_Union[XactikaCall, _Mapping]] = ..., trick: _Optional[_Iterable[str]] = ..., taken: _Optional[_Iterable[int]] = ..., played: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., tricks_played: _Optional[int] = ...) -> None: ...

class XactikaLead(_message.Message):
    __slots__ = ("card", "call")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    card: str
    call: XactikaCall
    def __init__(self, card: _Optional[str] = ..., call: _Optional[_Union[XactikaCall, _Mapping]] = ...) -> None: ...

class XactikaAction(_message.Message):
    __slots__ = ("bid", "lead", "play")
    BID_FIELD_NUMBER: _ClassVar[int]
    LEAD_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    bid: int
    lead: XactikaLead
    play: str
    def __init__(self, bid: _Optional[int] = ..., lead: _Optional[_Union[XactikaLead, _Mapping]] = ..., play: _Optional[str] = ...) -> None: ...

class XactikaDealerChosen(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class XactikaRoundStarted(_message.Message):
    __slots__ = ("round", "dealer")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    round: int
    dealer: int
    def __init__(self, round: _Optional[int] = ..., dealer: _Optional[int] = ...) -> None: ...

class XactikaDealt(_message.Message):
    __slots__ = ("round", "hand")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    round: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class XactikaBid(_message.Message):
    __slots__ = ("seat", "bid")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: int
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[int] = ...) -> None: ...

class XactikaLed(_message.Message):
    __slots__ = ("seat", "card", "call")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    call: XactikaCall
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., call: _Optional[_Union[XactikaCall, _Mapping]] = ...) -> None: ...

class XactikaPlayed(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class XactikaTrickWon(_message.Message):
    __slots__ = ("seat", "card", "taken")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    taken: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., taken: _Optional[int] = ...) -> None: ...

class XactikaRoundScored(_message.Message):
    __slots__ = ("round", "bids", "taken", "points", "scores")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    round: int
    bids: _containers.RepeatedScalarFieldContainer[int]
    taken: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., bids: _Optional[_Iterable[int]] = ..., taken: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class XactikaEvent(_message.Message):
    __slots__ = ("dealer_chosen", "round_started", "dealt", "bid", "led", "played", "trick_won", "round_scored")
    DEALER_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    LED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    TRICK_WON_FIELD_NUMBER: _ClassVar[int]
    ROUND_SCORED_FIELD_NUMBER: _ClassVar[int]
    dealer_chosen: XactikaDealerChosen
    round_started: XactikaRoundStarted
    dealt: XactikaDealt
    bid: XactikaBid
    led: XactikaLed
    played: XactikaPlayed
    trick_won: XactikaTrickWon
    round_scored: XactikaRoundScored
    def __init__(self, dealer_chosen: _Optional[_Union[XactikaDealerChosen, _Mapping]] = ..., round_started: _Optional[_Union[XactikaRoundStarted, _Mapping]] = ..., dealt: _Optional[_Union[XactikaDealt, _Mapping]] = ..., bid: _Optional[_Union[XactikaBid, _Mapping]] = ..., led: _Optional[_Union[XactikaLed, _Mapping]] = ..., played: _Optional[_Union[XactikaPlayed, _Mapping]] = ..., trick_won: _Optional[_Union[XactikaTrickWon, _Mapping]] = ..., round_scored: _Optional[_Union[XactikaRoundScored, _Mapping]] = ...) -> None: ...
