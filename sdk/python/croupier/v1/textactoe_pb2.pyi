from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TexTacToePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEXTACTOE_PHASE_UNSPECIFIED: _ClassVar[TexTacToePhase]
    TEXTACTOE_PHASE_TURN: _ClassVar[TexTacToePhase]
    TEXTACTOE_PHASE_RESPOND: _ClassVar[TexTacToePhase]
    TEXTACTOE_PHASE_EXTRA_TURN: _ClassVar[TexTacToePhase]
    TEXTACTOE_PHASE_COMMIT: _ClassVar[TexTacToePhase]
    TEXTACTOE_PHASE_OVER: _ClassVar[TexTacToePhase]

class TexTacToeResponse(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEXTACTOE_RESPONSE_UNSPECIFIED: _ClassVar[TexTacToeResponse]
    TEXTACTOE_RESPONSE_CALLER: _ClassVar[TexTacToeResponse]
    TEXTACTOE_RESPONSE_CONCEDED: _ClassVar[TexTacToeResponse]
    TEXTACTOE_RESPONSE_CHALLENGED: _ClassVar[TexTacToeResponse]

class TexTacToeCategory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEXTACTOE_CATEGORY_UNSPECIFIED: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_HIGH_CARD: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_PAIR: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_TWO_PAIR: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_THREE_OF_A_KIND: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_STRAIGHT: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_FLUSH: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_FULL_HOUSE: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_FOUR_OF_A_KIND: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_STRAIGHT_FLUSH: _ClassVar[TexTacToeCategory]
    TEXTACTOE_CATEGORY_ROYAL_FLUSH: _ClassVar[TexTacToeCategory]
TEXTACTOE_PHASE_UNSPECIFIED: TexTacToePhase
TEXTACTOE_PHASE_TURN: TexTacToePhase
TEXTACTOE_PHASE_RESPOND: TexTacToePhase
TEXTACTOE_PHASE_EXTRA_TURN: TexTacToePhase
TEXTACTOE_PHASE_COMMIT: TexTacToePhase
TEXTACTOE_PHASE_OVER: TexTacToePhase
TEXTACTOE_RESPONSE_UNSPECIFIED: TexTacToeResponse
TEXTACTOE_RESPONSE_CALLER: TexTacToeResponse
TEXTACTOE_RESPONSE_CONCEDED: TexTacToeResponse
TEXTACTOE_RESPONSE_CHALLENGED: TexTacToeResponse
TEXTACTOE_CATEGORY_UNSPECIFIED: TexTacToeCategory
TEXTACTOE_CATEGORY_HIGH_CARD: TexTacToeCategory
TEXTACTOE_CATEGORY_PAIR: TexTacToeCategory
TEXTACTOE_CATEGORY_TWO_PAIR: TexTacToeCategory
TEXTACTOE_CATEGORY_THREE_OF_A_KIND: TexTacToeCategory
TEXTACTOE_CATEGORY_STRAIGHT: TexTacToeCategory
TEXTACTOE_CATEGORY_FLUSH: TexTacToeCategory
TEXTACTOE_CATEGORY_FULL_HOUSE: TexTacToeCategory
TEXTACTOE_CATEGORY_FOUR_OF_A_KIND: TexTacToeCategory
TEXTACTOE_CATEGORY_STRAIGHT_FLUSH: TexTacToeCategory
TEXTACTOE_CATEGORY_ROYAL_FLUSH: TexTacToeCategory

class TexTacToePosition(_message.Message):
    __slots__ = ("face_up", "stack", "empty")
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    EMPTY_FIELD_NUMBER: _ClassVar[int]
    face_up: bool
    stack: _containers.RepeatedScalarFieldContainer[str]
    empty: bool
    def __init__(self, face_up: _Optional[bool] = ..., stack: _Optional[_Iterable[str]] = ..., empty: _Optional[bool] = ...) -> None: ...

class TexTacToeObservation(_message.Message):
    __slots__ = ("seat", "players", "phase", "to_move", "grid", "stash", "draw_pile_size", "call_made", "caller", "responses", "committed", "has_committed", "scores", "hand", "starter", "turns", "max_turns_per_hand", "jokers", "removed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    STASH_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    CALL_MADE_FIELD_NUMBER: _ClassVar[int]
    CALLER_FIELD_NUMBER: _ClassVar[int]
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_FIELD_NUMBER: _ClassVar[int]
    HAS_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_PER_HAND_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    phase: TexTacToePhase
    to_move: int
    grid: _containers.RepeatedCompositeFieldContainer[TexTacToePosition]
    stash: _containers.RepeatedScalarFieldContainer[str]
    draw_pile_size: int
    call_made: bool
    caller: int
    responses: _containers.RepeatedScalarFieldContainer[TexTacToeResponse]
    committed: _containers.RepeatedScalarFieldContainer[str]
    has_committed: _containers.RepeatedScalarFieldContainer[bool]
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand: int
    starter: int
    turns: int
    max_turns_per_hand: int
    jokers: bool
    removed: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., phase: _Optional[_Union[TexTacToePhase, str]] = ..., to_move: _Optional[int] = ..., grid: _Optional[_Iterable[_Union[TexTacToePosition, _Mapping]]] = ..., stash: _Optional[_Iterable[str]] = ..., draw_pile_size: _Optional[int] = ..., call_made: _Optional[bool] = ..., caller: _Optional[int] = ..., responses: _Optional[_Iterable[_Union[TexTacToeResponse, str]]] = ..., committed: _Optional[_Iterable[str]] = ..., has_committed: _Optional[_Iterable[bool]] = ..., scores: _Optional[_Iterable[int]] = ..., hand: _Optional[int] = ..., starter: _Optional[int] = ..., turns: _Optional[int] = ..., max_turns_per_hand: _Optional[int] = ..., jokers: _Optional[bool] = ..., removed: _Optional[_Iterable[str]] = ...) -> None: ...

class TexTacToePlay(_message.Message):
    __slots__ = ("card", "position")
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    card: str
    position: int
    def __init__(self, card: _Optional[str] = ..., position: _Optional[int] = ...) -> None: ...

class TexTacToePair(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TexTacToeAction(_message.Message):
    __slots__ = ("reveal", "play", "discard", "call", "concede", "challenge", "commit")
    REVEAL_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CONCEDE_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    reveal: int
    play: TexTacToePlay
    discard: str
    call: TexTacToePair
    concede: bool
    challenge: bool
    commit: TexTacToePair
    def __init__(self, reveal: _Optional[int] = ..., play: _Optional[_Union[TexTacToePlay, _Mapping]] = ..., discard: _Optional[str] = ..., call: _Optional[_Union[TexTacToePair, _Mapping]] = ..., concede: _Optional[bool] = ..., challenge: _Optional[bool] = ..., commit: _Optional[_Union[TexTacToePair, _Mapping]] = ...) -> None: ...

class TexTacToeFirstPlayer(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeDealt(_message.Message):
    __slots__ = ("stash",)
    STASH_FIELD_NUMBER: _ClassVar[int]
    stash: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, stash: _Optional[_Iterable[str]] = ...) -> None: ...

class TexTacToeTurnedUp(_message.Message):
    __slots__ = ("position", "card")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    position: int
    card: str
    def __init__(self, position: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class TexTacToeRevealed(_message.Message):
    __slots__ = ("seat", "position", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    position: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., position: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class TexTacToePlayed(_message.Message):
    __slots__ = ("seat", "card", "position")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    position: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., position: _Optional[int] = ...) -> None: ...

class TexTacToeDiscarded(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeDiscardDetail(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class TexTacToeDrew(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class TexTacToeCalled(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeConceded(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeChallenged(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeExtraTurnSkipped(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeCommitted(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TexTacToeCommitDetail(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TexTacToeShowdownHand(_message.Message):
    __slots__ = ("seat", "committed", "line", "positions", "line_cards", "category", "tiebreak")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    LINE_CARDS_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    committed: _containers.RepeatedScalarFieldContainer[str]
    line: int
    positions: _containers.RepeatedScalarFieldContainer[int]
    line_cards: _containers.RepeatedScalarFieldContainer[str]
    category: TexTacToeCategory
    tiebreak: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., committed: _Optional[_Iterable[str]] = ..., line: _Optional[int] = ..., positions: _Optional[_Iterable[int]] = ..., line_cards: _Optional[_Iterable[str]] = ..., category: _Optional[_Union[TexTacToeCategory, str]] = ..., tiebreak: _Optional[_Iterable[int]] = ...) -> None: ...

class TexTacToeShowdown(_message.Message):
    __slots__ = ("hands",)
    HANDS_FIELD_NUMBER: _ClassVar[int]
    hands: _containers.RepeatedCompositeFieldContainer[TexTacToeShowdownHand]
    def __init__(self, hands: _Optional[_Iterable[_Union[TexTacToeShowdownHand, _Mapping]]] = ...) -> None: ...

class TexTacToeHandScored(_message.Message):
    __slots__ = ("tie", "seat", "points", "category", "doubled", "scores")
    TIE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DOUBLED_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    tie: bool
    seat: int
    points: int
    category: TexTacToeCategory
    doubled: bool
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, tie: _Optional[bool] = ..., seat: _Optional[int] = ..., points: _Optional[int] = ..., category: _Optional[_Union[TexTacToeCategory, str]] = ..., doubled: _Optional[bool] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class TexTacToeLineCleared(_message.Message):
    __slots__ = ("line", "positions", "cards")
    LINE_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    line: int
    positions: _containers.RepeatedScalarFieldContainer[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, line: _Optional[int] = ..., positions: _Optional[_Iterable[int]] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TexTacToeRefilled(_message.Message):
    __slots__ = ("positions", "draw_pile_size")
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    positions: _containers.RepeatedScalarFieldContainer[int]
    draw_pile_size: int
    def __init__(self, positions: _Optional[_Iterable[int]] = ..., draw_pile_size: _Optional[int] = ...) -> None: ...

class TexTacToeHandStarted(_message.Message):
    __slots__ = ("hand", "starter")
    HAND_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    hand: int
    starter: int
    def __init__(self, hand: _Optional[int] = ..., starter: _Optional[int] = ...) -> None: ...

class TexTacToeGameEnded(_message.Message):
    __slots__ = ("draw_pile_size", "scores")
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    draw_pile_size: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, draw_pile_size: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class TexTacToeEvent(_message.Message):
    __slots__ = ("first_player", "dealt", "turned_up", "revealed", "played", "discarded", "discard_detail", "drew", "called", "conceded", "challenged", "extra_turn_skipped", "committed", "commit_detail", "showdown", "hand_scored", "line_cleared", "refilled", "hand_started", "game_ended")
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    DEALT_FIELD_NUMBER: _ClassVar[int]
    TURNED_UP_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_DETAIL_FIELD_NUMBER: _ClassVar[int]
    DREW_FIELD_NUMBER: _ClassVar[int]
    CALLED_FIELD_NUMBER: _ClassVar[int]
    CONCEDED_FIELD_NUMBER: _ClassVar[int]
    CHALLENGED_FIELD_NUMBER: _ClassVar[int]
    EXTRA_TURN_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_FIELD_NUMBER: _ClassVar[int]
    COMMIT_DETAIL_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    HAND_SCORED_FIELD_NUMBER: _ClassVar[int]
    LINE_CLEARED_FIELD_NUMBER: _ClassVar[int]
    REFILLED_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    first_player: TexTacToeFirstPlayer
    dealt: TexTacToeDealt
    turned_up: TexTacToeTurnedUp
    revealed: TexTacToeRevealed
    played: TexTacToePlayed
    discarded: TexTacToeDiscarded
    discard_detail: TexTacToeDiscardDetail
    drew: TexTacToeDrew
    called: TexTacToeCalled
    conceded: TexTacToeConceded
    challenged: TexTacToeChallenged
    extra_turn_skipped: TexTacToeExtraTurnSkipped
    committed: TexTacToeCommitted
    commit_detail: TexTacToeCommitDetail
    showdown: TexTacToeShowdown
    hand_scored: TexTacToeHandScored
    line_cleared: TexTacToeLineCleared
    refilled: TexTacToeRefilled
    hand_started: TexTacToeHandStarted
    game_ended: TexTacToeGameEnded
    def __init__(self, first_player: _Optional[_Union[TexTacToeFirstPlayer, _Mapping]] = ..., dealt: _Optional[_Union[TexTacToeDealt, _Mapping]] = ..., turned_up: _Optional[_Union[TexTacToeTurnedUp, _Mapping]] = ..., revealed: _Optional[_Union[TexTacToeRevealed, _Mapping]] = ..., played: _Optional[_Union[TexTacToePlayed, _Mapping]] = ..., discarded: _Optional[_Union[TexTacToeDiscarded, _Mapping]] = ..., discard_detail: _Optional[_Union[TexTacToeDiscardDetail, _Mapping]] = ..., drew: _Optional[_Union[TexTacToeDrew, _Mapping]] = ..., called: _Optional[_Union[TexTacToeCalled, _Mapping]] = ..., conceded: _Optional[_Union[TexTacToeConceded, _Mapping]] = ..., challenged: _Optional[_Union[TexTacToeChallenged, _Mapping]] = ..., extra_turn_skipped: _Optional[_Union[TexTacToeExtraTurnSkipped, _Mapping]] = ..., committed: _Optional[_Union[TexTacToeCommitted, _Mapping]] = ..., commit_detail: _Optional[_Union[TexTacToeCommitDetail, _Mapping]] = ..., showdown: _Optional[_Union[TexTacToeShowdown, _Mapping]] = ..., hand_scored: _Optional[_Union[TexTacToeHandScored, _Mapping]] = ..., line_cleared: _Optional[_Union[TexTacToeLineCleared, _Mapping]] = ..., refilled: _Optional[_Union[TexTacToeRefilled, _Mapping]] = ..., hand_started: _Optional[_Union[TexTacToeHandStarted, _Mapping]] = ..., game_ended: _Optional[_Union[TexTacToeGameEnded, _Mapping]] = ...) -> None: ...
