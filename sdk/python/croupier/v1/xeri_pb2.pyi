from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class XeriSide(_message.Message):
    __slots__ = ("seats", "captured", "xeris", "points", "round_wins")
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_FIELD_NUMBER: _ClassVar[int]
    XERIS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    captured: int
    xeris: _containers.RepeatedScalarFieldContainer[str]
    points: int
    round_wins: int
    def __init__(self, seats: _Optional[_Iterable[int]] = ..., captured: _Optional[int] = ..., xeris: _Optional[_Iterable[str]] = ..., points: _Optional[int] = ..., round_wins: _Optional[int] = ...) -> None: ...

class XeriObservation(_message.Message):
    __slots__ = ("seat", "players", "team", "hand", "hand_sizes", "pile_cards", "top_card", "pile_size", "stock_size", "sides", "dealer", "to_move", "round", "rounds", "plays", "deal", "bottom_card", "target", "last_capturer")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    PILE_CARDS_FIELD_NUMBER: _ClassVar[int]
    TOP_CARD_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_CARD_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    LAST_CAPTURER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    team: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    pile_cards: _containers.RepeatedScalarFieldContainer[str]
    top_card: str
    pile_size: int
    stock_size: int
    sides: _containers.RepeatedCompositeFieldContainer[XeriSide]
    dealer: int
    to_move: int
    round: int
    rounds: int
    plays: int
    deal: int
    bottom_card: str
    target: int
    last_capturer: int
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., team: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., pile_cards: _Optional[_Iterable[str]] = ..., top_card: _Optional[str] = ..., pile_size: _Optional[int] = ..., stock_size: _Optional[int] = ..., sides: _Optional[_Iterable[_Union[XeriSide, _Mapping]]] = ..., dealer: _Optional[int] = ..., to_move: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., plays: _Optional[int] = ..., deal: _Optional[int] = ..., bottom_card: _Optional[str] = ..., target: _Optional[int] = ..., last_capturer: _Optional[int] = ...) -> None: ...

class XeriAction(_message.Message):
    __slots__ = ("play",)
    PLAY_FIELD_NUMBER: _ClassVar[int]
    play: str
    def __init__(self, play: _Optional[str] = ...) -> None: ...

class XeriDealerChosen(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class XeriRoundStarted(_message.Message):
    __slots__ = ("round", "dealer")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    round: int
    dealer: int
    def __init__(self, round: _Optional[int] = ..., dealer: _Optional[int] = ...) -> None: ...

class XeriBottomCard(_message.Message):
    __slots__ = ("card", "moved")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    card: str
    moved: bool
    def __init__(self, card: _Optional[str] = ..., moved: _Optional[bool] = ...) -> None: ...

class XeriDealt(_message.Message):
    __slots__ = ("hand",)
    HAND_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hand: _Optional[_Iterable[str]] = ...) -> None: ...

class XeriHandsDealt(_message.Message):
    __slots__ = ("deal", "stock_size")
    DEAL_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    deal: int
    stock_size: int
    def __init__(self, deal: _Optional[int] = ..., stock_size: _Optional[int] = ...) -> None: ...

class XeriInitialPile(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class XeriPileRejected(_message.Message):
    __slots__ = ("cards", "reason")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ...) -> None: ...

class XeriPlayed(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class XeriCaptured(_message.Message):
    __slots__ = ("seat", "team", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class XeriXeri(_message.Message):
    __slots__ = ("seat", "team", "card", "jack", "points")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    JACK_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    team: int
    card: str
    jack: bool
    points: int
    def __init__(self, seat: _Optional[int] = ..., team: _Optional[int] = ..., card: _Optional[str] = ..., jack: _Optional[bool] = ..., points: _Optional[int] = ...) -> None: ...

class XeriLastCards(_message.Message):
    __slots__ = ("team", "cards")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    team: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, team: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class XeriSideScore(_message.Message):
    __slots__ = ("cards", "most_cards", "card_points", "xeris", "jack_xeris", "xeri_points", "total", "points", "round_wins")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    MOST_CARDS_FIELD_NUMBER: _ClassVar[int]
    CARD_POINTS_FIELD_NUMBER: _ClassVar[int]
    XERIS_FIELD_NUMBER: _ClassVar[int]
    JACK_XERIS_FIELD_NUMBER: _ClassVar[int]
    XERI_POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINS_FIELD_NUMBER: _ClassVar[int]
    cards: int
    most_cards: bool
    card_points: int
    xeris: int
    jack_xeris: int
    xeri_points: int
    total: int
    points: int
    round_wins: int
    def __init__(self, cards: _Optional[int] = ..., most_cards: _Optional[bool] = ..., card_points: _Optional[int] = ..., xeris: _Optional[int] = ..., jack_xeris: _Optional[int] = ..., xeri_points: _Optional[int] = ..., total: _Optional[int] = ..., points: _Optional[int] = ..., round_wins: _Optional[int] = ...) -> None: ...

class XeriRoundScored(_message.Message):
    __slots__ = ("round", "sides", "winner")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    round: int
    sides: _containers.RepeatedCompositeFieldContainer[XeriSideScore]
    winner: int
    def __init__(self, round: _Optional[int] = ..., sides: _Optional[_Iterable[_Union[XeriSideScore, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class XeriTargetRaised(_message.Message):
    __slots__ = ("target",)
    TARGET_FIELD_NUMBER: _ClassVar[int]
    target: int
    def __init__(self, target: _Optional[int] = ...) -> None: ...

class XeriGameOver(_message.Message):
    __slots__ = ("winner", "points", "round_wins")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    ROUND_WINS_FIELD_NUMBER: _ClassVar[int]
    winner: int
    points: _containers.RepeatedScalarFieldContainer[int]
    round_wins: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, winner: _Optional[int] = ..., points: _Optional[_Iterable[int]] = ..., round_wins: _Optional[_Iterable[int]] = ...) -> None: ...

class XeriEvent(_message.Message):
    __slots__ = ("dealer_chosen", "round_started", "bottom_card", "dealt", "hands_dealt", "initial_pile", "pile_rejected", "played", "captured", "xeri", "last_cards", "round_scored", "target_raised", "game_over")
    DEALER_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_CARD_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    HANDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_PILE_FIELD_NUMBER: _ClassVar[int]
    PILE_REJECTED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_FIELD_NUMBER: _ClassVar[int]
    XERI_FIELD_NUMBER: _ClassVar[int]
    LAST_CARDS_FIELD_NUMBER: _ClassVar[int]
    ROUND_SCORED_FIELD_NUMBER: _ClassVar[int]
    TARGET_RAISED_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    dealer_chosen: XeriDealerChosen
    round_started: XeriRoundStarted
    bottom_card: XeriBottomCard
    dealt: XeriDealt
    hands_dealt: XeriHandsDealt
    initial_pile: XeriInitialPile
    pile_rejected: XeriPileRejected
    played: XeriPlayed
    captured: XeriCaptured
    xeri: XeriXeri
    last_cards: XeriLastCards
    round_scored: XeriRoundScored
    target_raised: XeriTargetRaised
    game_over: XeriGameOver
    def __init__(self, dealer_chosen: _Optional[_Union[XeriDealerChosen, _Mapping]] = ..., round_started: _Optional[_Union[XeriRoundStarted, _Mapping]] = ..., bottom_card: _Optional[_Union[XeriBottomCard, _Mapping]] = ..., dealt: _Optional[_Union[XeriDealt, _Mapping]] = ..., hands_dealt: _Optional[_Union[XeriHandsDealt, _Mapping]] = ..., initial_pile: _Optional[_Union[XeriInitialPile, _Mapping]] = ..., pile_rejected: _Optional[_Union[XeriPileRejected, _Mapping]] = ..., played: _Optional[_Union[XeriPlayed, _Mapping]] = ..., captured: _Optional[_Union[XeriCaptured, _Mapping]] = ..., xeri: _Optional[_Union[XeriXeri, _Mapping]] = ..., last_cards: _Optional[_Union[XeriLastCards, _Mapping]] = ..., round_scored: _Optional[_Union[XeriRoundScored, _Mapping]] = ..., target_raised: _Optional[_Union[XeriTargetRaised, _Mapping]] = ..., game_over: _Optional[_Union[XeriGameOver, _Mapping]] = ...) -> None: ...
