"""XIX, 2 players, 18 cards (designer's rules v2.0 with the rulings XIX-R1..R10 of RULES.md).

A game is a series of exchanges of tricks. The higher card takes a trick unless the two cards sum
to 19, when the lower one does. The seat that did not take the trick receives a strike: it chooses
a strike-row position, slides it out and peeks at it. A seat's third strike ends the exchange and
the other seat scores the stakes (3, 5 or 8 by the total strikes). Then the played cards are
drafted, loser first, and the loser trades a hand card for any strike-row card. First to 19 wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, lru_cache
from itertools import product
from typing import TYPE_CHECKING, Final, TypeVar

from croupier.v1 import xix_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle
from referee.games.catalog import XIX, GameInfo
from referee.games.frozen import evolver
from referee.games.options import Options, OptionSpec

CARDS: Final = tuple(range(1, 19))
DECK: Final = tuple(str(card) for card in CARDS)
ROW_SIZE: Final = 5
HAND_SIZE: Final = 6
TARGET: Final = 19
STRIKES_TO_LOSE: Final = 3
STAKES: Final = {3: 3, 4: 5, 5: 8}


class Phase(Enum):
    DEAL = "deal"
    FIRST_LEADER = "first leader"
    PLAY = "play"
    STRIKE = "strike"
    DRAFT = "draft"
    TRADE = "trade"
    OVER = "over"


_PHASE_PROTO: Final = {
    Phase.DEAL: pb.XIX_PHASE_UNSPECIFIED,
    Phase.FIRST_LEADER: pb.XIX_PHASE_UNSPECIFIED,
    Phase.PLAY: pb.XIX_PHASE_PLAY,
    Phase.STRIKE: pb.XIX_PHASE_STRIKE,
    Phase.DRAFT: pb.XIX_PHASE_DRAFT,
    Phase.TRADE: pb.XIX_PHASE_TRADE,
    Phase.OVER: pb.XIX_PHASE_OVER,
}


class Kind(Enum):
    PLAY = "play"
    STRIKE = "strike"
    DRAFT = "draft"
    TRADE = "trade"


@dataclass(frozen=True, slots=True)
class XixAction:
    """play CARD, strike POSITION, draft CARD, or trade POSITION CARD."""

    kind: Kind
    value: int
    card: int = 0

    @property
    def text(self) -> str:
        if self.kind is Kind.TRADE:
            return f"trade {self.value} {self.card}"
        return f"{self.kind.value} {self.value}"

    def to_proto(self) -> pb.XixAction:
        if self.kind is Kind.PLAY:
            return pb.XixAction(play=self.value)
        if self.kind is Kind.STRIKE:
            return pb.XixAction(strike=self.value)
        if self.kind is Kind.DRAFT:
            return pb.XixAction(draft=self.value)
        return pb.XixAction(trade=pb.XixTrade(position=self.value, card=self.card))


T = TypeVar("T")

_ACTION_RE: Final = re.compile(r"(play|strike|draft) (\d+)|trade (\d+) (\d+)")

# Every action built once, indexed by card (0 is no card) or position: legal_actions only picks
# from these tables, since a frozen dataclass costs a microsecond or so to construct.
_PLAY: Final = tuple(XixAction(Kind.PLAY, card) for card in range(TARGET))
_DRAFT: Final = tuple(XixAction(Kind.DRAFT, card) for card in range(TARGET))
_TRADE: Final = tuple(
    tuple(XixAction(Kind.TRADE, p, card) for card in range(TARGET)) for p in range(ROW_SIZE)
)
#: XIX-R5: the strike choices for each pattern of slid positions, any position not yet slid.
_STRIKES: Final = {
    slid: tuple(XixAction(Kind.STRIKE, p) for p in range(ROW_SIZE) if not slid[p])
    for slid in product((False, True), repeat=ROW_SIZE)
}
_DEAL: Final = Shuffle(DECK)
_FIRST_LEADER: Final = Pick(2, "first leader")  # XIX-R2


def _other(seat: int) -> int:
    return 1 - seat


def _remove(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _add(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(sorted((*cards, card)))


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _per_seat(pair: tuple[T, T], seat: int, value: T) -> tuple[T, T]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def trick_taker(leader: int, lead: int, follow: int) -> int:
    """The seat that takes a trick: the higher card, or the lower one when they sum to 19."""
    lower_takes = lead + follow == TARGET
    lead_wins = (lead < follow) if lower_takes else (lead > follow)
    return leader if lead_wins else _other(leader)


# Python 3.11 looks a member up on an Enum class (`Phase.OVER`) about ten times slower than a
# module global, and the states' methods run at every decision: they use these aliases.
_KIND_DRAFT: Final = Kind.DRAFT
_KIND_PLAY: Final = Kind.PLAY
_KIND_STRIKE: Final = Kind.STRIKE
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_DRAFT: Final = Phase.DRAFT
_PHASE_FIRST_LEADER: Final = Phase.FIRST_LEADER
_PHASE_OVER: Final = Phase.OVER
_PHASE_PLAY: Final = Phase.PLAY
_PHASE_STRIKE: Final = Phase.STRIKE
_PHASE_TRADE: Final = Phase.TRADE


@dataclass(frozen=True, slots=True, kw_only=True)
class XixState:
    """A XIX position. Hands are ascending tuples; `known[s][p]` is what seat s knows of row p."""

    phase: Phase = Phase.DEAL
    hands: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    row: tuple[int, ...] = ()
    slid: tuple[bool, ...] = (False,) * ROW_SIZE
    known: tuple[tuple[int, ...], tuple[int, ...]] = ((0,) * ROW_SIZE, (0,) * ROW_SIZE)
    discard: int = 0
    to_move_seat: int = -1
    leader: int = 0
    trick: tuple[int, ...] = ()
    strikes: tuple[int, int] = (0, 0)
    scores: tuple[int, int] = (0, 0)
    played: tuple[int, ...] = ()
    pool: tuple[int, ...] = ()
    exchange: int = 0
    loser: int = 0
    events: tuple[Event, ...] = ()

    @property
    def to_move(self) -> int | None:
        return self.to_move_seat if self.to_move_seat >= 0 else None

    def chance(self) -> Shuffle | Pick | None:
        if self.phase is _PHASE_DEAL:
            return _DEAL
        if self.phase is _PHASE_FIRST_LEADER:
            return _FIRST_LEADER
        return None

    def is_terminal(self) -> bool:
        return self.phase is _PHASE_OVER

    def legal_actions(self) -> Sequence[XixAction]:
        phase = self.phase
        if phase is _PHASE_PLAY:
            plays = _PLAY
            return [plays[card] for card in self.hands[self.to_move_seat]]  # XIX-R3: no follow
        if phase is _PHASE_STRIKE:
            return list(_STRIKES[self.slid])  # XIX-R5
        if phase is _PHASE_DRAFT:
            drafts = _DRAFT
            return [drafts[card] for card in self.pool]
        if phase is _PHASE_TRADE:
            # XIX-R10: any position, peeked or not, for any of the loser's hand cards.
            hand = self.hands[self.to_move_seat]
            return [trades[card] for trades in _TRADE for card in hand]
        return []

    def apply_chance(self, outcome: ChanceOutcome) -> XixState:
        if self.phase is _PHASE_DEAL:
            assert isinstance(outcome, tuple)
            return self._deal(tuple(int(card) for card in outcome))
        assert isinstance(outcome, int)
        leader = outcome
        event = Event(
            f"seat {leader} leads first", pb.XixEvent(first_leader=pb.XixFirstLeader(seat=leader))
        )
        return _evolve(self, phase=_PHASE_PLAY, to_move_seat=leader, leader=leader, events=(event,))

    def _deal(self, deck: tuple[int, ...]) -> XixState:
        # XIX-R1: cards 1-12 alternate seat 0, seat 1; 13-17 fill the strike row; 18 is discarded.
        hands = (tuple(sorted(deck[0:12:2])), tuple(sorted(deck[1:12:2])))
        events = tuple(
            Event(
                f"seat {seat} is dealt {' '.join(map(str, hand))}",
                pb.XixEvent(dealt=pb.XixDealt(hand=hand)),
                frozenset({seat}),
            )
            for seat, hand in enumerate(hands)
        )
        return _evolve(
            self,
            phase=_PHASE_FIRST_LEADER,
            hands=hands,
            row=deck[12:17],
            discard=deck[17],
            events=events,
        )

    def apply(self, action: Action) -> XixState:
        assert isinstance(action, XixAction)
        kind = action.kind
        if kind is _KIND_PLAY:
            return self._play(action.value)
        if kind is _KIND_STRIKE:
            return self._strike(action.value)
        if kind is _KIND_DRAFT:
            return self._draft(action.value)
        return self._trade(action.value, action.card)

    def _play(self, card: int) -> XixState:
        seat = self.to_move_seat
        hands = _per_seat(self.hands, seat, _remove(self.hands[seat], card))
        played = (*self.played, card)
        if not self.trick:
            return _evolve(
                self,
                hands=hands,
                to_move_seat=1 - seat,
                trick=(card,),
                played=played,
                events=_played_events(seat, card),
            )
        lead = self.trick[0]
        taker = trick_taker(self.leader, lead, card)
        # The taker leads next (XIX-R4); first the other seat takes its strike (XIX-R5).
        return _evolve(
            self,
            phase=_PHASE_STRIKE,
            hands=hands,
            to_move_seat=1 - taker,
            leader=taker,
            trick=(),
            played=played,
            events=_trick_events(seat, lead, card, taker),
        )

    def _strike(self, position: int) -> XixState:
        seat = self.to_move_seat
        value = self.row[position]
        count = self.strikes[seat] + 1
        strikes = _per_seat(self.strikes, seat, count)
        known = _per_seat(self.known, seat, _set(self.known[seat], position, value))
        events = _strike_events(seat, position, count, value)
        if count < STRIKES_TO_LOSE:
            return _evolve(
                self,
                phase=_PHASE_PLAY,
                slid=_set(self.slid, position, True),
                known=known,
                to_move_seat=self.leader,
                strikes=strikes,
                events=events,
            )
        # XIX-R7: the third strike ends the exchange; the other seat scores the stakes.
        winner = 1 - seat
        stakes = STAKES[sum(strikes)]
        scores = _per_seat(self.scores, winner, self.scores[winner] + stakes)
        won = Event(
            f"seat {winner} wins the exchange for {stakes} points ({scores[0]}-{scores[1]})",
            pb.XixEvent(exchange_won=pb.XixExchangeWon(seat=winner, stakes=stakes, scores=scores)),
        )
        over = scores[winner] >= TARGET  # XIX-R8: no draft or trade after the final exchange.
        # XIX-R9: otherwise the loser drafts first from the cards played in the exchange.
        return _evolve(
            self,
            phase=_PHASE_OVER if over else _PHASE_DRAFT,
            slid=_UNSLID,  # XIX-R6: slid cards are pushed back into the row.
            known=known,
            to_move_seat=-1 if over else seat,
            strikes=(0, 0),
            scores=scores,
            pool=self.pool if over else tuple(sorted(self.played)),
            exchange=self.exchange + 1,
            loser=seat,
            events=(*events, won),
        )

    def _draft(self, card: int) -> XixState:
        seat = self.to_move_seat
        hands = _per_seat(self.hands, seat, _add(self.hands[seat], card))
        pool = _remove(self.pool, card)
        # XIX-R10: the trade is mandatory for the loser once the pool is empty.
        return _evolve(
            self,
            phase=self.phase if pool else _PHASE_TRADE,
            hands=hands,
            to_move_seat=1 - seat if pool else self.loser,
            played=self.played if pool else (),
            pool=pool,
            events=_drafted_events(seat, card),
        )

    def _trade(self, position: int, card: int) -> XixState:
        seat = self.to_move_seat
        taken = self.row[position]
        hand = _add(_remove(self.hands[seat], card), taken)
        mine = _set(self.known[seat], position, card)
        # The other seat's peek at this position is stale now: it only knows a swap happened.
        theirs = _set(self.known[_other(seat)], position, 0)
        known = (mine, theirs) if seat == 0 else (theirs, mine)
        events = (
            Event(
                f"seat {seat} trades with position {position}",
                pb.XixEvent(traded=pb.XixTraded(seat=seat, position=position)),
            ),
            Event(
                f"seat {seat} takes {taken} from position {position} and gives {card}",
                pb.XixEvent(
                    trade_detail=pb.XixTradeDetail(position=position, taken=taken, given=card)
                ),
                frozenset({seat}),
            ),
        )
        # XIX-R4: the exchange's winner took its last trick, so it leads the next exchange.
        return _evolve(
            self,
            phase=_PHASE_PLAY,
            hands=_per_seat(self.hands, seat, hand),
            row=_set(self.row, position, card),
            known=known,
            to_move_seat=self.leader,
            events=events,
        )

    def observation(self, seat: int) -> pb.XixObservation:
        observation = pb.XixObservation(
            seat=seat,
            hand=self.hands[seat],
            opponent_hand_size=len(self.hands[1 - seat]),
            hand_sizes=[len(hand) for hand in self.hands],
            phase=_PHASE_PROTO[self.phase],
            to_move=max(self.to_move_seat, 0),
            leader=self.leader,
            trick=self.trick,
            scores=self.scores,
            strikes=self.strikes,
            played=self.played,
            draft_pool=self.pool,
            exchange=self.exchange,
        )
        observation.MergeFromString(_strike_row(self.slid, self.known[seat]))
        return observation

    def result(self) -> Result:
        winner = 0 if self.scores[0] >= TARGET else 1
        ranks = (1, 2) if winner == 0 else (2, 1)
        return Result(
            scores=self.scores,
            ranks=ranks,
            text=f"seat {winner} wins {self.scores[winner]}-{self.scores[_other(winner)]}",
        )


_UNSLID: Final = (False,) * ROW_SIZE


@lru_cache(maxsize=4096)
def _strike_row(slid: tuple[bool, ...], known: tuple[int, ...]) -> bytes:
    """The encoding of the strike row as a seat knowing `known` sees it, built once per value: an
    observation merges it with one parse (protobuf parses an encoding into a message as a
    merge), which costs less than building five small messages each time."""
    row = [
        pb.XixStrikeSlot(slid=slid, known_value=value or None)  # 0: not known
        for slid, value in zip(slid, known, strict=True)
    ]
    return pb.XixObservation(strike_row=row).SerializeToString()


# The events of plays, tricks, strikes and drafts depend only on a few small ints, so each tuple
# of them is built once and shared by every state that has it (events are immutable values;
# never mutate a payload). The caches are bounded by the 2 seats, 18 cards and 5 positions.


def _played_event(seat: int, card: int) -> Event:
    return Event(
        f"seat {seat} plays {card}", pb.XixEvent(played=pb.XixPlayed(seat=seat, card=card))
    )


@cache
def _played_events(seat: int, card: int) -> tuple[Event]:
    return (_played_event(seat, card),)


@cache
def _trick_events(seat: int, lead: int, card: int, taker: int) -> tuple[Event, Event]:
    """`seat` plays `card` on `lead`, and `taker` takes the trick."""
    taken = Event(
        f"seat {taker} takes the trick {lead} {card}",
        pb.XixEvent(trick_taken=pb.XixTrickTaken(seat=taker, cards=(lead, card))),
    )
    return _played_event(seat, card), taken


@cache
def _strike_events(seat: int, position: int, count: int, value: int) -> tuple[Event, Event]:
    """`seat` slides `position` (its strike `count`) and peeks at `value` there."""
    struck = Event(
        f"seat {seat} slides position {position} (strike {count})",
        pb.XixEvent(struck=pb.XixStruck(seat=seat, position=position, strikes=count)),
    )
    peeked = Event(
        f"seat {seat} peeks {value} at position {position}",
        pb.XixEvent(peeked=pb.XixPeeked(position=position, value=value)),
        frozenset({seat}),
    )
    return struck, peeked


@cache
def _drafted_events(seat: int, card: int) -> tuple[Event]:
    payload = pb.XixEvent(drafted=pb.XixDrafted(seat=seat, card=card))
    return (Event(f"seat {seat} drafts {card}", payload),)


# Transitions copy a state with their changes, fast (see referee/games/frozen.py).
if TYPE_CHECKING:
    from dataclasses import replace as _evolve
else:
    _evolve = evolver(XixState)


@dataclass(frozen=True, slots=True)
class Xix:
    """The XIX game: no options (target 19 and stakes 3/5/8 are fixed)."""

    id: str = XIX.id
    info: GameInfo = XIX
    title: str = XIX.title
    rules_version: str = XIX.rules_version
    option_specs: tuple[OptionSpec, ...] = XIX.option_specs

    def seat_count(self, options: Options) -> int:
        return 2

    def new_game(self, options: Options) -> XixState:
        return XixState()

    def parse_action(self, text: str) -> XixAction:
        match = _ACTION_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidActionError(
                f"malformed XIX action {text!r}: expected 'play CARD', 'strike POSITION', "
                "'draft CARD' or 'trade POSITION CARD'"
            )
        if match.group(1):
            return XixAction(Kind(match.group(1)), int(match.group(2)))
        return XixAction(Kind.TRADE, int(match.group(3)), int(match.group(4)))
