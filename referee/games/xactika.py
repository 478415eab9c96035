"""Xactika, 2 to 10 players, 81 cards (RULES.md section 1 with the rulings XAC-R1..R9).

Each round every seat is dealt eight cards and bids how many of the eight tricks it will take; the
dealer may not make the bids total 8. The leader plays a card and calls one of its four
(count, shape) combinations; the others must follow with a card showing that combination if they
can. The highest matching face value takes the trick, the last one played on a tie. An exact bid
scores +bid, a missed one -1 per trick off.

Cards are ints 0..80 with precomputed tables (face value, text, which calls they match), so the
checked path stays fast: a random four-player game is about 290 decisions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING, Final

from croupier.v1 import xactika_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle, rank_by_score
from referee.games.catalog import XACTIKA, GameInfo
from referee.games.frozen import evolver, slot_store
from referee.games.options import Options, OptionSpec

HAND_SIZE: Final = 8  # also the number of tricks per round and the largest bid
MAX_PLAYERS: Final = XACTIKA.option("players").maximum  # XAC-R3: 8 * 10 = 80 < 81 cards
SHAPES: Final = ("ball", "cube", "cone", "star")

# Card c is the index of its text among the 81 texts in ascending order, so sorting cards as
# ints sorts them as text. COUNTS[c] is (balls, cubes, cones, stars).
COUNTS: Final = tuple(product((1, 2, 3), repeat=4))
CARDS: Final = tuple(range(len(COUNTS)))
CARD_TEXT: Final = tuple("".join(map(str, counts)) for counts in COUNTS)
CARD_BY_TEXT: Final = {text: card for card, text in enumerate(CARD_TEXT)}
FACE: Final = tuple(sum(counts) for counts in COUNTS)
DECK: Final = CARD_TEXT

# A call (count, shape) is the int shape * 3 + count - 1, 0..11.
CALLS: Final = tuple(range(12))
CALL_COUNT: Final = tuple(call % 3 + 1 for call in CALLS)
CALL_SHAPE: Final = tuple(call // 3 for call in CALLS)
CALL_TEXT: Final = tuple(f"{CALL_COUNT[call]}{SHAPES[CALL_SHAPE[call]]}" for call in CALLS)
CALL_BY_TEXT: Final = {text: call for call, text in enumerate(CALL_TEXT)}
#: The four calls card c shows, in shape order (XAC-R5: the only calls it may lead with).
CARD_CALLS: Final = tuple(
    tuple(shape * 3 + count - 1 for shape, count in enumerate(COUNTS[card])) for card in CARDS
)
#: MATCHES[call]: the cards that match the call.
MATCHES: Final = tuple(
    frozenset(card for card in CARDS if call in CARD_CALLS[card]) for call in CALLS
)
#: MATCH_FACE[call][card]: the card's face value if it matches the call, else 0 (XAC-R6).
MATCH_FACE: Final = tuple(
    tuple(FACE[card] if card in MATCHES[call] else 0 for card in CARDS) for call in CALLS
)

#: Who sees a seat's private events: the seat itself.
_SEATS: Final = tuple(frozenset((seat,)) for seat in range(MAX_PLAYERS))
_SHAPE_PROTO: Final = (
    pb.XACTIKA_SHAPE_BALL,
    pb.XACTIKA_SHAPE_CUBE,
    pb.XACTIKA_SHAPE_CONE,
    pb.XACTIKA_SHAPE_STAR,
)


def round_points(bid: int, taken: int) -> int:
    """An exact bid scores +bid (0 for a made bid of 0); otherwise -1 per trick off the bid."""
    return bid if taken == bid else -abs(taken - bid)


def trick_winner(call: int, cards: Sequence[int]) -> int:
    """The position in `cards` (play order) of the card that takes the trick (XAC-R6).

    The highest face value among the cards matching the call wins; on equal face value the one
    played last. The led card always matches its own call, so position 0 is the fallback.
    """
    faces = MATCH_FACE[call]
    best, best_face = 0, faces[cards[0]]
    for position in range(1, len(cards)):
        face = faces[cards[position]]
        if face >= best_face:  # >=: the later of equal cards wins; non-matching faces are 0
            best, best_face = position, face
    return best


def call_proto(call: int) -> pb.XactikaCall:
    return pb.XactikaCall(count=CALL_COUNT[call], shape=_SHAPE_PROTO[CALL_SHAPE[call]])


class Phase(Enum):
    FIRST_DEALER = "first dealer"
    DEAL = "deal"
    BID = "bid"
    PLAY = "play"
    OVER = "over"


_PHASE_PROTO: Final = {
    Phase.FIRST_DEALER: pb.XACTIKA_PHASE_UNSPECIFIED,
    Phase.DEAL: pb.XACTIKA_PHASE_UNSPECIFIED,
    Phase.BID: pb.XACTIKA_PHASE_BID,
    Phase.PLAY: pb.XACTIKA_PHASE_PLAY,
    Phase.OVER: pb.XACTIKA_PHASE_OVER,
}


class Kind(Enum):
    BID = "bid"
    LEAD = "lead"
    PLAY = "play"


@dataclass(frozen=True, slots=True)
class XactikaAction:
    """bid N, lead CARD CALL (e.g. `lead 1321 3cube`), or play CARD.

    `value` is the bid or the card (an int 0..80, see CARD_TEXT); `call` is set for a lead only.
    """

    kind: Kind
    value: int
    call: int = -1

    @property
    def text(self) -> str:
        if self.kind is Kind.BID:
            return f"bid {self.value}"
        if self.kind is Kind.LEAD:
            return f"lead {CARD_TEXT[self.value]} {CALL_TEXT[self.call]}"
        return f"play {CARD_TEXT[self.value]}"

    def to_proto(self) -> pb.XactikaAction:
        if self.kind is Kind.BID:
            return pb.XactikaAction(bid=self.value)
        if self.kind is Kind.LEAD:
            lead = pb.XactikaLead(card=CARD_TEXT[self.value], call=call_proto(self.call))
            return pb.XactikaAction(lead=lead)
        return pb.XactikaAction(play=CARD_TEXT[self.value])


# Every action a legal list can hold, built once: legal_actions only picks from these tables.
BIDS: Final = tuple(XactikaAction(Kind.BID, bid) for bid in range(HAND_SIZE + 1))
#: HOOKED_BIDS[b]: the dealer's bids when bidding b would make the total 8 (XAC-R4).
HOOKED_BIDS: Final = tuple(tuple(a for a in BIDS if a.value != hook) for hook in range(9))
LEADS: Final = tuple(
    tuple(XactikaAction(Kind.LEAD, card, call) for call in CARD_CALLS[card]) for card in CARDS
)
PLAYS: Final = tuple(XactikaAction(Kind.PLAY, card) for card in CARDS)
SHUFFLE: Final = Shuffle(DECK, "deal")

_ACTION_RE: Final = re.compile(
    r"bid (\d+)|lead ([1-3]{4}) ([1-3](?:ball|cube|cone|star))|play ([1-3]{4})"
)


def _signed(points: int) -> str:
    return f"+{points}" if points > 0 else str(points)


# Bid, lead, play and trick events depend only on a few small ints, so each one is built
# once and shared by every state that needs it (events are immutable; never mutate a payload).
_BID_EVENTS: Final[dict[int, Event]] = {}
_LED_EVENTS: Final[dict[int, Event]] = {}
_PLAYED_EVENTS: Final[dict[int, Event]] = {}
_WON_EVENTS: Final[dict[int, Event]] = {}


def _bid_event(seat: int, bid: int) -> Event:
    key = seat * 16 + bid
    event = _BID_EVENTS.get(key)
    if event is None:
        payload = pb.XactikaEvent(bid=pb.XactikaBid(seat=seat, bid=bid))
        event = _BID_EVENTS[key] = Event(f"seat {seat} bids {bid}", payload)
    return event


def _led_event(seat: int, card: int, call: int) -> Event:
    key = (seat * len(CARDS) + card) * len(CALLS) + call
    event = _LED_EVENTS.get(key)
    if event is None:
        text = CARD_TEXT[card]
        payload = pb.XactikaEvent(led=pb.XactikaLed(seat=seat, card=text, call=call_proto(call)))
        event = Event(f"seat {seat} leads {text} calling {CALL_TEXT[call]}", payload)
        _LED_EVENTS[key] = event
    return event


def _played_event(seat: int, card: int) -> Event:
    key = seat * len(CARDS) + card
    event = _PLAYED_EVENTS.get(key)
    if event is None:
        text = CARD_TEXT[card]
        payload = pb.XactikaEvent(played=pb.XactikaPlayed(seat=seat, card=text))
        event = _PLAYED_EVENTS[key] = Event(f"seat {seat} plays {text}", payload)
    return event


def _won_event(seat: int, card: int, taken: int) -> Event:
    key = (seat * len(CARDS) + card) * 16 + taken
    event = _WON_EVENTS.get(key)
    if event is None:
        text = CARD_TEXT[card]
        payload = pb.XactikaEvent(trick_won=pb.XactikaTrickWon(seat=seat, card=text, taken=taken))
        event = Event(f"seat {seat} wins the trick with {text} ({taken} taken)", payload)
        _WON_EVENTS[key] = event
    return event


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """The part of a position that changes at most once per bid or per round: the settings, the
    round and its dealer, the undealt cards, the bids (-1: not yet) and the total scores.

    Kept apart from `XactikaState` so that a trick's transitions copy fewer fields.
    """

    players: int
    rounds: int
    round: int = 0
    dealer: int = 0
    set_aside: tuple[int, ...] = ()
    bids: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()


# Python 3.11 looks a member up on an Enum class (`Phase.OVER`) about ten times slower than a
# module global, and the states' methods run at every decision: they use these aliases.
_KIND_BID: Final = Kind.BID
_PHASE_BID: Final = Phase.BID
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_FIRST_DEALER: Final = Phase.FIRST_DEALER
_PHASE_OVER: Final = Phase.OVER
_PHASE_PLAY: Final = Phase.PLAY


@dataclass(frozen=True, slots=True, kw_only=True)
class XactikaState:
    """An Xactika position. Cards are ints (see CARD_TEXT); hands are ascending tuples.

    The `table` fields read as properties here too: `round` counts the rounds begun (1 during the
    first round), `bids` holds -1 for a seat that has not bid, `set_aside` the undealt cards of
    this round's deal. `trick` lists the current trick's cards from the leader on; `played` every
    card played this round in order. After the last trick of a round, `hands`, `taken` and
    `played` keep the finished round until the next deal.
    """

    table: Table
    phase: Phase = Phase.FIRST_DEALER
    to_move_seat: int = -1
    hands: tuple[tuple[int, ...], ...] = ()
    leader: int = 0
    call: int = -1
    trick: tuple[int, ...] = ()
    taken: tuple[int, ...] = ()
    played: tuple[int, ...] = ()
    events: tuple[Event, ...] = ()
    # The legal actions, computed on first use: derived from the fields above, so neither compared
    # nor an __init__ argument (dataclasses.replace must not copy a stale list).
    _legal: tuple[XactikaAction, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )

    @property
    def players(self) -> int:
        return self.table.players

    @property
    def rounds(self) -> int:
        return self.table.rounds

    @property
    def round(self) -> int:
        return self.table.round

    @property
    def dealer(self) -> int:
        return self.table.dealer

    @property
    def set_aside(self) -> tuple[int, ...]:
        return self.table.set_aside

    @property
    def bids(self) -> tuple[int, ...]:
        return self.table.bids

    @property
    def scores(self) -> tuple[int, ...]:
        return self.table.scores

    @property
    def to_move(self) -> int | None:
        return self.to_move_seat if self.to_move_seat >= 0 else None

    def chance(self) -> Shuffle | Pick | None:
        if self.phase is _PHASE_DEAL:
            return SHUFFLE
        if self.phase is _PHASE_FIRST_DEALER:
            return Pick(self.table.players, "first dealer")  # XAC-R1
        return None

    def is_terminal(self) -> bool:
        return self.phase is _PHASE_OVER

    def legal_actions(self) -> tuple[XactikaAction, ...]:
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
            _SET_LEGAL(self, legal)
        return legal

    def _compute_legal(self) -> tuple[XactikaAction, ...]:
        seat = self.to_move_seat
        if self.phase is _PHASE_PLAY:
            hand = self.hands[seat]
            if not self.trick:
                # XAC-R5: lead any card with one of its own four calls.
                return tuple([lead for card in hand for lead in LEADS[card]])
            # Follow the call if you can, else play any card.
            matching = MATCHES[self.call]
            follow = tuple([PLAYS[card] for card in hand if card in matching])
            return follow or tuple([PLAYS[card] for card in hand])
        if self.phase is _PHASE_BID:
            table = self.table
            if seat != table.dealer:
                return BIDS
            # XAC-R4: the dealer may not bring the total to 8, for every player count.
            hook = HAND_SIZE - (sum(table.bids) + 1)  # the dealer's own entry is still -1
            return HOOKED_BIDS[hook] if 0 <= hook <= HAND_SIZE else BIDS
        return ()

    def apply_chance(self, outcome: ChanceOutcome) -> XactikaState:
        if self.phase is _PHASE_FIRST_DEALER:
            assert isinstance(outcome, int)
            event = Event(
                f"seat {outcome} deals first",
                pb.XactikaEvent(dealer_chosen=pb.XactikaDealerChosen(seat=outcome)),
            )
            table = self.table
            scores = (0,) * table.players
            return XactikaState(
                table=Table(
                    players=table.players, rounds=table.rounds, dealer=outcome, scores=scores
                ),
                phase=_PHASE_DEAL,
                events=(event,),
            )
        assert isinstance(outcome, tuple)
        return self._deal(tuple(map(CARD_BY_TEXT.__getitem__, outcome)))

    def _deal(self, deck: tuple[int, ...]) -> XactikaState:
        table = self.table
        n = table.players
        dealer = table.dealer
        round_number = table.round + 1
        dealt = HAND_SIZE * n
        # XAC-R2: one card at a time clockwise from the dealer's left: deck[k] goes to seat
        # (dealer + 1 + k) mod n, so the i-th seat after the dealer gets deck[i-1::n].
        hands: list[tuple[int, ...]] = [()] * n
        for offset in range(n):
            hands[(dealer + 1 + offset) % n] = tuple(sorted(deck[offset:dealt:n]))
        events = [
            Event(
                f"round {round_number}: seat {dealer} deals",
                pb.XactikaEvent(
                    round_started=pb.XactikaRoundStarted(round=round_number, dealer=dealer)
                ),
            )
        ]
        for seat, hand in enumerate(hands):
            texts = [CARD_TEXT[card] for card in hand]
            # Filled in place: half the cost of building the nested messages and copying them.
            payload = pb.XactikaEvent()
            payload.dealt.round = round_number
            payload.dealt.hand.extend(texts)
            events.append(Event(f"seat {seat} is dealt {' '.join(texts)}", payload, _SEATS[seat]))
        first = (dealer + 1) % n
        return _evolve(
            self,
            table=_evolve_table(table, round=round_number, set_aside=deck[dealt:], bids=(-1,) * n),
            phase=_PHASE_BID,
            to_move_seat=first,
            hands=tuple(hands),
            leader=first,
            call=-1,
            trick=(),
            taken=(0,) * n,
            played=(),
            events=tuple(events),
        )

    def apply(self, action: Action) -> XactikaState:
        assert isinstance(action, XactikaAction)
        if action.kind is _KIND_BID:
            return self._bid(action.value)
        return self._play(action.value, action.call)

    def _bid(self, bid: int) -> XactikaState:
        seat = self.to_move_seat
        t = self.table
        bids = (*t.bids[:seat], bid, *t.bids[seat + 1 :])
        done = seat == t.dealer  # the dealer bids last
        # After the bids the seat left of the dealer (the leader since the deal) leads.
        return _evolve(
            self,
            table=_evolve_table(t, bids=bids),
            phase=_PHASE_PLAY if done else _PHASE_BID,
            to_move_seat=self.leader if done else (seat + 1) % t.players,
            call=-1,
            trick=(),
            played=(),
            events=(_bid_event(seat, bid),),
        )

    def _play(self, card: int, call: int) -> XactikaState:
        seat = self.to_move_seat
        n = self.table.players
        hand = self.hands[seat]
        i = hand.index(card)
        hands = (*self.hands[:seat], hand[:i] + hand[i + 1 :], *self.hands[seat + 1 :])
        trick = (*self.trick, card)
        played = (*self.played, card)
        if call >= 0:
            event = _led_event(seat, card, call)
        else:
            call = self.call
            event = _played_event(seat, card)
        # A play is legal in the play phase only, which it leaves as it is until the round's end.
        if len(trick) < n:
            return _evolve(
                self,
                to_move_seat=(seat + 1) % n,
                hands=hands,
                call=call,
                trick=trick,
                played=played,
                events=(event,),
            )
        position = trick_winner(call, trick)
        winner = (self.leader + position) % n
        count = self.taken[winner] + 1
        taken = (*self.taken[:winner], count, *self.taken[winner + 1 :])
        won = _won_event(winner, trick[position], count)
        if len(played) < HAND_SIZE * n:
            # The winner leads the next trick.
            return _evolve(
                self,
                to_move_seat=winner,
                hands=hands,
                leader=winner,
                call=-1,
                trick=(),
                taken=taken,
                played=played,
                events=(event, won),
            )
        return self._score(hands, taken, played, (event, won))

    def _score(
        self,
        hands: tuple[tuple[int, ...], ...],
        taken: tuple[int, ...],
        played: tuple[int, ...],
        events: tuple[Event, ...],
    ) -> XactikaState:
        t = self.table
        points = tuple(map(round_points, t.bids, taken))
        scores = tuple(map(int.__add__, t.scores, points))
        scored = Event(
            f"round {t.round} scored: {' '.join(map(_signed, points))} "
            f"(scores {' '.join(map(str, scores))})",
            pb.XactikaEvent(
                round_scored=pb.XactikaRoundScored(
                    round=t.round, bids=t.bids, taken=taken, points=points, scores=scores
                )
            ),
        )
        over = t.round >= t.rounds  # XAC-R7
        # XAC-R1: the deal passes to the left for the next round.
        dealer = t.dealer if over else (t.dealer + 1) % t.players
        return _evolve(
            self,
            table=_evolve_table(t, dealer=dealer, scores=scores),
            phase=_PHASE_OVER if over else _PHASE_DEAL,
            to_move_seat=-1,
            hands=hands,
            call=-1,
            trick=(),
            taken=taken,
            played=played,
            events=(*events, scored),
        )

    def observation(self, seat: int) -> pb.XactikaObservation:
        t = self.table
        obs = pb.XactikaObservation(
            seat=seat,
            players=t.players,
            round=t.round,
            rounds=t.rounds,
            dealer=t.dealer,
            phase=_PHASE_PROTO[self.phase],
            to_move=max(self.to_move_seat, 0),
            hand=[CARD_TEXT[c] for c in self.hands[seat]] if self.hands else [],
            leader=self.leader,
            trick=[CARD_TEXT[c] for c in self.trick],
            taken=self.taken,
            played=[CARD_TEXT[c] for c in self.played],
            scores=t.scores,
            tricks_played=len(self.played) // t.players,
        )
        obs.MergeFromString(_bids_and_call(t.bids, self.call))
        return obs

    def result(self) -> Result:
        scores = self.table.scores
        best = max(scores)
        winners = [seat for seat, score in enumerate(scores) if score == best]
        # XAC-R8: every seat with the highest score shares the win; no tie-break.
        if len(winners) == 1:
            text = f"seat {winners[0]} wins with {best} points"
        else:
            names = ", ".join(map(str, winners[:-1])) + f" and {winners[-1]}"
            text = f"seats {names} share the win with {best} points"
        return Result(
            scores=scores,
            ranks=rank_by_score(scores),
            text=f"{text} (scores {' '.join(map(str, scores))})",
        )


@lru_cache(maxsize=4096)
def _bids_and_call(bids: tuple[int, ...], call: int) -> bytes:
    """The encoding of an observation's bids (-1: not yet) and call (-1: none), built once per
    value: an observation merges it with one parse (protobuf parses an encoding into a message
    as a merge), which costs less than building the bids' messages each time."""
    part = pb.XactikaObservation(
        bids=[pb.XactikaSeatBid(bid=bid if bid >= 0 else None) for bid in bids],
        bids_v1=bids,  # protocol version 1's field, which its bots still read
    )
    if call >= 0:
        part.call.CopyFrom(call_proto(call))
    return part.SerializeToString()


# Transitions copy a state with their changes, fast (see referee/games/frozen.py); the legal
# actions' cache is stored into a state once built.
if TYPE_CHECKING:
    from dataclasses import replace as _evolve
    from dataclasses import replace as _evolve_table
else:
    _evolve = evolver(XactikaState)
    _evolve_table = evolver(Table)
_SET_LEGAL: Final = slot_store(XactikaState, "_legal")


@dataclass(frozen=True, slots=True)
class Xactika:
    """The Xactika game ("Play to Bid", XAC-R9): options `players` and `rounds`."""

    id: str = XACTIKA.id
    info: GameInfo = XACTIKA
    title: str = XACTIKA.title
    rules_version: str = XACTIKA.rules_version
    option_specs: tuple[OptionSpec, ...] = XACTIKA.option_specs

    def seat_count(self, options: Options) -> int:
        return options.integer("players")

    def new_game(self, options: Options) -> XactikaState:
        return XactikaState(
            table=Table(players=options.integer("players"), rounds=options.integer("rounds"))
        )

    def parse_action(self, text: str) -> XactikaAction:
        match = _ACTION_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidActionError(
                f"malformed Xactika action {text!r}: expected 'bid N', 'lead CARD CALL' "
                "(e.g. 'lead 1321 3cube') or 'play CARD' (e.g. 'play 2213')"
            )
        bid, lead_card, lead_call, play_card = match.groups()
        if bid is not None:
            return XactikaAction(Kind.BID, int(bid))
        if lead_card is not None:
            return XactikaAction(Kind.LEAD, CARD_BY_TEXT[lead_card], CALL_BY_TEXT[lead_call])
        return XactikaAction(Kind.PLAY, CARD_BY_TEXT[play_card])
