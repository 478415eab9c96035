from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChallengeState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_STATE_UNSPECIFIED: _ClassVar[ChallengeState]
    CHALLENGE_STATE_WAITING: _ClassVar[ChallengeState]
    CHALLENGE_STATE_QUEUED: _ClassVar[ChallengeState]
    CHALLENGE_STATE_PLAYING: _ClassVar[ChallengeState]
    CHALLENGE_STATE_ENDED: _ClassVar[ChallengeState]

class ChallengeOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_OUTCOME_UNSPECIFIED: _ClassVar[ChallengeOutcome]
    CHALLENGE_OUTCOME_BETTER: _ClassVar[ChallengeOutcome]
    CHALLENGE_OUTCOME_NOT_BETTER: _ClassVar[ChallengeOutcome]
    CHALLENGE_OUTCOME_UNDECIDED: _ClassVar[ChallengeOutcome]
    CHALLENGE_OUTCOME_REFUSED: _ClassVar[ChallengeOutcome]

class Consent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONSENT_UNSPECIFIED: _ClassVar[Consent]
    CONSENT_ASK: _ClassVar[Consent]
    CONSENT_ACCEPT: _ClassVar[Consent]
    CONSENT_REFUSE: _ClassVar[Consent]
CHALLENGE_STATE_UNSPECIFIED: ChallengeState
CHALLENGE_STATE_WAITING: ChallengeState
CHALLENGE_STATE_QUEUED: ChallengeState
CHALLENGE_STATE_PLAYING: ChallengeState
CHALLENGE_STATE_ENDED: ChallengeState
CHALLENGE_OUTCOME_UNSPECIFIED: ChallengeOutcome
CHALLENGE_OUTCOME_BETTER: ChallengeOutcome
CHALLENGE_OUTCOME_NOT_BETTER: ChallengeOutcome
CHALLENGE_OUTCOME_UNDECIDED: ChallengeOutcome
CHALLENGE_OUTCOME_REFUSED: ChallengeOutcome
CONSENT_UNSPECIFIED: Consent
CONSENT_ASK: Consent
CONSENT_ACCEPT: Consent
CONSENT_REFUSE: Consent

class Challenge(_message.Message):
    __slots__ = ("id", "challenger", "opponent", "ranked", "deals", "elo0", "elo1", "alpha", "beta", "test_on", "state", "outcome", "reason", "summary", "deals_played", "llr", "lower", "upper", "match_ids", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    RANKED_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    TEST_ON_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DEALS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    LLR_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: int
    challenger: str
    opponent: str
    ranked: bool
    deals: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    test_on: str
    state: ChallengeState
    outcome: ChallengeOutcome
    reason: str
    summary: str
    deals_played: int
    llr: float
    lower: float
    upper: float
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    created_at: str
    def __init__(self, id: _Optional[int] = ..., challenger: _Optional[str] = ..., opponent: _Optional[str] = ..., ranked: _Optional[bool] = ..., deals: _Optional[int] = ..., elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ..., test_on: _Optional[str] = ..., state: _Optional[_Union[ChallengeState, str]] = ..., outcome: _Optional[_Union[ChallengeOutcome, str]] = ..., reason: _Optional[str] = ..., summary: _Optional[str] = ..., deals_played: _Optional[int] = ..., llr: _Optional[float] = ..., lower: _Optional[float] = ..., upper: _Optional[float] = ..., match_ids: _Optional[_Iterable[str]] = ..., created_at: _Optional[str] = ...) -> None: ...

class CreateChallengeRequest(_message.Message):
    __slots__ = ("opponent", "version", "ranked", "deals", "elo0", "elo1", "alpha", "beta")
    OPPONENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RANKED_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    ELO0_FIELD_NUMBER: _ClassVar[int]
    ELO1_FIELD_NUMBER: _ClassVar[int]
    ALPHA_FIELD_NUMBER: _ClassVar[int]
    BETA_FIELD_NUMBER: _ClassVar[int]
    opponent: str
    version: str
    ranked: bool
    deals: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    def __init__(self, opponent: _Optional[str] = ..., version: _Optional[str] = ..., ranked: _Optional[bool] = ..., deals: _Optional[int] = ..., elo0: _Optional[float] = ..., elo1: _Optional[float] = ..., alpha: _Optional[float] = ..., beta: _Optional[float] = ...) -> None: ...

class CreateChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class ListChallengesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListChallengesResponse(_message.Message):
    __slots__ = ("challenges",)
    CHALLENGES_FIELD_NUMBER: _ClassVar[int]
    challenges: _containers.RepeatedCompositeFieldContainer[Challenge]
    def __init__(self, challenges: _Optional[_Iterable[_Union[Challenge, _Mapping]]] = ...) -> None: ...

class GetChallengeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class GetChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class CancelChallengeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class CancelChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...

class SetConsentRequest(_message.Message):
    __slots__ = ("consent",)
    CONSENT_FIELD_NUMBER: _ClassVar[int]
    consent: Consent
    def __init__(self, consent: _Optional[_Union[Consent, str]] = ...) -> None: ...

class SetConsentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AnswerChallengeRequest(_message.Message):
    __slots__ = ("id", "accept")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    id: int
    accept: bool
    def __init__(self, id: _Optional[int] = ..., accept: _Optional[bool] = ...) -> None: ...

class AnswerChallengeResponse(_message.Message):
    __slots__ = ("challenge",)
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    challenge: Challenge
    def __init__(self, challenge: _Optional[_Union[Challenge, _Mapping]] = ...) -> None: ...
