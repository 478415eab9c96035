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
from dataclasses import dataclass, replace
from enum import Enum
from typing import Final, TypeVar

from croupier.v1 import xix_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle
from referee.games.options import Options, OptionSpec

RULES_VERSION: Final = "xix-2.0"
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


def _other(seat: int) -> int:
    return 1 - seat


def _remove(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(c for c in cards if c != card)


def _add(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(sorted((*cards, card)))


def _set(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _per_seat(pair: tuple[T, T], seat: int, value: T) -> tuple[T, T]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def trick_taker(leader: int, lead: int, follow: int) -> int:
    """The seat that takes a trick: the higher card, or the lower one when they sum to 19."""
    lower_takes = lead + follow == TARGET
    lead_wins = (lead < follow) if lower_takes else (lead > follow)
    return leader if lead_wins else _other(leader)


@dataclass(frozen=True, slots=True)
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
        if self.phase is Phase.DEAL:
            return Shuffle(DECK)
        if self.phase is Phase.FIRST_LEADER:
            return Pick(2, "first leader")  # XIX-R2
        return None

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def legal_actions(self) -> Sequence[XixAction]:
        seat = self.to_move_seat
        if self.phase is Phase.PLAY:
            return [XixAction(Kind.PLAY, card) for card in self.hands[seat]]  # XIX-R3: no follow
        if self.phase is Phase.STRIKE:
            # XIX-R5: the receiver chooses any position not yet slid in this exchange.
            return [XixAction(Kind.STRIKE, p) for p in range(ROW_SIZE) if not self.slid[p]]
        if self.phase is Phase.DRAFT:
            return [XixAction(Kind.DRAFT, card) for card in self.pool]
        if self.phase is Phase.TRADE:
            # XIX-R10: any position, peeked or not, for any of the loser's hand cards.
            return [
                XixAction(Kind.TRADE, p, card) for p in range(ROW_SIZE) for card in self.hands[seat]
            ]
        return []

    def apply_chance(self, outcome: ChanceOutcome) -> XixState:
        if self.phase is Phase.DEAL:
            assert isinstance(outcome, tuple)
            return self._deal(tuple(int(card) for card in outcome))
        assert isinstance(outcome, int)
        leader = outcome
        event = Event(
            f"seat {leader} leads first", pb.XixEvent(first_leader=pb.XixFirstLeader(seat=leader))
        )
        return replace(self, phase=Phase.PLAY, leader=leader, to_move_seat=leader, events=(event,))

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
        return replace(
            self,
            phase=Phase.FIRST_LEADER,
            hands=hands,
            row=deck[12:17],
            discard=deck[17],
            events=events,
        )

    def apply(self, action: Action) -> XixState:
        assert isinstance(action, XixAction)
        if action.kind is Kind.PLAY:
            return self._play(action.value)
        if action.kind is Kind.STRIKE:
            return self._strike(action.value)
        if action.kind is Kind.DRAFT:
            return self._draft(action.value)
        return self._trade(action.value, action.card)

    def _play(self, card: int) -> XixState:
        seat = self.to_move_seat
        hands = _per_seat(self.hands, seat, _remove(self.hands[seat], card))
        trick = (*self.trick, card)
        played_event = Event(
            f"seat {seat} plays {card}", pb.XixEvent(played=pb.XixPlayed(seat=seat, card=card))
        )
        if len(trick) == 1:
            return replace(
                self,
                hands=hands,
                trick=trick,
                played=(*self.played, card),
                to_move_seat=_other(seat),
                events=(played_event,),
            )
        taker = trick_taker(self.leader, trick[0], trick[1])
        taken_event = Event(
            f"seat {taker} takes the trick {trick[0]} {trick[1]}",
            pb.XixEvent(trick_taken=pb.XixTrickTaken(seat=taker, cards=trick)),
        )
        # The taker leads next (XIX-R4); first the other seat takes its strike (XIX-R5).
        return replace(
            self,
            phase=Phase.STRIKE,
            hands=hands,
            trick=(),
            played=(*self.played, card),
            leader=taker,
            to_move_seat=_other(taker),
            events=(played_event, taken_event),
        )

    def _strike(self, position: int) -> XixState:
        seat = self.to_move_seat
        value = self.row[position]
        strikes = _per_seat(self.strikes, seat, self.strikes[seat] + 1)
        slid = tuple(s or p == position for p, s in enumerate(self.slid))
        known = _per_seat(self.known, seat, _set(self.known[seat], position, value))
        events = (
            Event(
                f"seat {seat} slides position {position} (strike {strikes[seat]})",
                pb.XixEvent(
                    struck=pb.XixStruck(seat=seat, position=position, strikes=strikes[seat])
                ),
            ),
            Event(
                f"seat {seat} peeks {value} at position {position}",
                pb.XixEvent(peeked=pb.XixPeeked(position=position, value=value)),
                frozenset({seat}),
            ),
        )
        if strikes[seat] < STRIKES_TO_LOSE:
            return replace(
                self,
                phase=Phase.PLAY,
                slid=slid,
                strikes=strikes,
                known=known,
                to_move_seat=self.leader,
                events=events,
            )
        # XIX-R7: the third strike ends the exchange; the other seat scores the stakes.
        winner = _other(seat)
        stakes = STAKES[sum(strikes)]
        scores = _per_seat(self.scores, winner, self.scores[winner] + stakes)
        won = Event(
            f"seat {winner} wins the exchange for {stakes} points ({scores[0]}-{scores[1]})",
            pb.XixEvent(exchange_won=pb.XixExchangeWon(seat=winner, stakes=stakes, scores=scores)),
        )
        ended = replace(
            self,
            known=known,
            scores=scores,
            strikes=(0, 0),
            slid=(False,) * ROW_SIZE,  # XIX-R6: slid cards are pushed back into the row.
            exchange=self.exchange + 1,
            loser=seat,
            events=(*events, won),
        )
        if scores[winner] >= TARGET:  # XIX-R8: no draft or trade after the final exchange.
            return replace(ended, phase=Phase.OVER, to_move_seat=-1)
        # XIX-R9: the loser drafts first from the cards played in the exchange.
        return replace(ended, phase=Phase.DRAFT, pool=tuple(sorted(self.played)), to_move_seat=seat)

    def _draft(self, card: int) -> XixState:
        seat = self.to_move_seat
        hands = _per_seat(self.hands, seat, _add(self.hands[seat], card))
        pool = _remove(self.pool, card)
        event = Event(
            f"seat {seat} drafts {card}", pb.XixEvent(drafted=pb.XixDrafted(seat=seat, card=card))
        )
        if pool:
            return replace(self, hands=hands, pool=pool, to_move_seat=_other(seat), events=(event,))
        # XIX-R10: the trade is mandatory for the loser once the pool is empty.
        return replace(
            self,
            phase=Phase.TRADE,
            hands=hands,
            pool=(),
            played=(),
            to_move_seat=self.loser,
            events=(event,),
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
        return replace(
            self,
            phase=Phase.PLAY,
            hands=_per_seat(self.hands, seat, hand),
            row=_set(self.row, position, card),
            known=known,
            to_move_seat=self.leader,
            events=events,
        )

    def observation(self, seat: int) -> pb.XixObservation:
        return pb.XixObservation(
            seat=seat,
            hand=self.hands[seat],
            opponent_hand_size=len(self.hands[_other(seat)]),
            phase=_PHASE_PROTO[self.phase],
            to_move=max(self.to_move_seat, 0),
            leader=self.leader,
            trick=self.trick,
            scores=self.scores,
            strikes=self.strikes,
            strike_row=[
                pb.XixStrikeSlot(slid=slid, known_value=value or None)  # 0: not known
                for slid, value in zip(self.slid, self.known[seat], strict=True)
            ],
            played=self.played,
            draft_pool=self.pool,
            exchange=self.exchange,
        )

    def result(self) -> Result:
        winner = 0 if self.scores[0] >= TARGET else 1
        ranks = (1, 2) if winner == 0 else (2, 1)
        return Result(
            scores=self.scores,
            ranks=ranks,
            text=f"seat {winner} wins {self.scores[winner]}-{self.scores[_other(winner)]}",
        )


@dataclass(frozen=True, slots=True)
class Xix:
    """The XIX game: no options (target 19 and stakes 3/5/8 are fixed)."""

    id: str = "xix"
    title: str = "XIX"
    rules_version: str = RULES_VERSION
    option_specs: tuple[OptionSpec, ...] = ()

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
