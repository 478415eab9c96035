"""Xactika's playouts (referee.review.rollout): a history sampled from a seat's view by dealing
each round's hands to fit it, and a greedy policy that sees every hand.

Every Xactika action is public (a bid, a card led with its call, a card played: RULES.md 1.6),
so a seat's view holds the whole sequence of actions and only the deals are hidden. A round's
deal is known but for the cards nobody has played yet: the seat's own hand; each other seat's
cards played so far, and the rest of its eight from the cards nobody was seen to hold, none of
them matching a call it did not follow (it held none then, and every card it holds later it held
then); the rest set aside (XAC-R2). The deck is that deal in dealing order. A random deal that
the generic walk repairs card by card found no history in most of its attempts (issue 48.1).

Random playouts bid at random and take tricks by chance: the policy bids its strong cards, then
plays high while its bid needs tricks and low once it is made, reading no other hand; a tenth of
its moves random. One that read every hand (bidding its cards no other hand beats, taking a
trick with the cheapest sure winner) lost to the heuristic by 6.7 ±2.6 points a match where
uniform playouts were level with it (+1.5 ±3.2; 2 players, 2 rounds, budget 200, 10 deals
each in both seat orders): perfect-information play makes every bid look easy to make.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

from croupier.v1 import xactika_pb2 as pb
from referee.games.base import Action, State
from referee.games.xactika import (
    CALL_TEXT,
    CALLS,
    CARD_BY_TEXT,
    CARD_CALLS,
    CARD_TEXT,
    CARDS,
    FACE,
    HAND_SIZE,
    MATCH_FACE,
    MATCHES,
    Kind,
    Phase,
    XactikaAction,
    XactikaState,
)
from referee.review.rollout import EXPLORE, Step
from referee.review.view import SeatView

_SHAPE_INDEX: Final = {
    pb.XACTIKA_SHAPE_BALL: 0,
    pb.XACTIKA_SHAPE_CUBE: 1,
    pb.XACTIKA_SHAPE_CONE: 2,
    pb.XACTIKA_SHAPE_STAR: 3,
}
#: Every card, as a bit mask (bit c: card c).
ALL: Final = (1 << len(CARDS)) - 1
#: THREATS[call][face]: the cards that match `call` with a face value of `face` or more.
THREATS: Final = tuple(
    tuple(sum(1 << c for c in MATCHES[call] if FACE[c] >= face) for face in range(max(FACE) + 1))
    for call in CALLS
)
#: The heuristic's scale of its summed lead chances when it bids.
BID_SCALE: Final = 1.4
#: Deals tried for a round before the history is given up (a seat's voids may leave few cards).
DEALS: Final = 20
#: Hands drawn for a seat, each fitting its voids, for one on which the heuristic's count makes
#: the seat's bid (the last is taken where none does).
BID_READS: Final = 40
#: A bid's playouts, as a multiple of the bot's budget: the bid is the decision that scores.
BID_BUDGET: Final = 8


def policy(state: State, rng: random.Random) -> Action:
    """The heuristic's play (croupier.bots.xactika_heuristic) on the engine's state, from the
    mover's own cards alone: bid the summed chances of its cards to take a trick when led; take
    tricks with the surest winner while the bid needs them, else duck with the surest loser."""
    assert isinstance(state, XactikaState)
    legal = state.legal_actions()
    if rng.random() < EXPLORE:
        return rng.choice(legal)
    seat = state.to_move_seat
    hand = state.hands[seat]
    n = state.players
    unseen = ALL & ~_mask(hand) & ~_mask(state.played)
    count = unseen.bit_count()
    share = (HAND_SIZE * n - len(state.played) - len(hand)) / count if count else 0.0
    first = legal[0]
    if first.kind is Kind.BID:
        expected = BID_SCALE * sum(_strength(card, unseen, share) for card in hand)
        return min(legal, key=lambda a: (abs(a.value - expected), a.value))
    want = state.taken[seat] < state.bids[seat]
    if first.kind is Kind.LEAD:
        if want:  # the surest winner, the cheapest among equals
            return max(
                legal, key=lambda a: (_chance(a.value, a.call, unseen, share), -FACE[a.value])
            )
        return min(
            legal,
            key=lambda a: (
                _chance(a.value, a.call, unseen, share),
                -_strength(a.value, unseen, share),
            ),
        )
    call = state.call
    best = max(MATCH_FACE[call][c] for c in state.trick)
    later = n - len(state.trick) - 1
    part = share * later / (n - 1)

    def key(a: XactikaAction) -> tuple[float, float, int]:
        card = a.value
        face = MATCH_FACE[call][card]
        chance = (
            0.0 if face < best or not face else _chance(card, call, unseen, part) if later else 1.0
        )
        return chance, -_strength(card, unseen, share), -FACE[card]

    return max(legal, key=key) if want else min(legal, key=key)


def prior(legal: tuple[str, ...]) -> bool:
    """The reference bot keeps the heuristic's card unless the search confirms a better one
    (referee.review.rollout.heuristic_prior); its bid is the search's."""
    return not legal[0].startswith("bid")


def budget(legal: tuple[str, ...], budget: int) -> int:
    """A bid gets BID_BUDGET times the bot's budget of playouts, a card its budget."""
    return budget * BID_BUDGET if legal[0].startswith("bid") else budget


def settled(state: State) -> bool:
    """True once the round is scored: a decision changes nothing after it (rounds are dealt
    afresh and score apart), so a playout stops there and the rest of the match is noise."""
    assert isinstance(state, XactikaState)
    return state.phase is Phase.DEAL or state.phase is Phase.OVER


def _mask(cards: tuple[int, ...]) -> int:
    bits = 0
    for card in cards:
        bits |= 1 << card
    return bits


def _chance(card: int, call: int, unseen: int, share: float) -> float:
    """The chance that no unseen card matching `call` with at least this card's face value is in
    the hands whose part of the unseen cards is `share`."""
    return (1.0 - share) ** (unseen & THREATS[call][FACE[card]]).bit_count()


def _strength(card: int, unseen: int, share: float) -> float:
    """The card's best chance to take a trick if it leads."""
    return max(_chance(card, call, unseen, share) for call in CARD_CALLS[card])


@dataclass(slots=True)
class _Round:
    """What the seat saw of one round: where its deal goes among the steps, the dealer, its own
    hand, each seat's cards played, and the calls each seat did not follow."""

    at: int
    dealer: int
    players: int
    mine: tuple[int, ...] = ()
    played: list[list[int]] = field(default_factory=list)
    voids: list[set[int]] = field(default_factory=list)
    call: int = -1
    #: The bids in the order made, (seat, bid).
    bids: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.played = [[] for _ in range(self.players)]
        self.voids = [set() for _ in range(self.players)]


def history(view: SeatView, rng: random.Random) -> list[Step] | None:
    """A history that shows the seat what its view shows, or None where no deal fits."""
    players = view.options.integer("players")
    steps: list[Step] = []
    rounds: list[_Round] = []
    for decision in view.decisions:
        for event in decision.events:
            _read(event.xactika, players, steps, rounds)
    for played in rounds:
        deck = _deck(played, view.seat, rng)
        if deck is None:
            return None
        steps[played.at] = ("shuffle", deck)
    return steps


def _read(event: pb.XactikaEvent, players: int, steps: list[Step], rounds: list[_Round]) -> None:
    kind = event.WhichOneof("kind")
    if kind == "dealer_chosen":
        steps.append(("pick", event.dealer_chosen.seat))
    elif kind == "round_started":
        rounds.append(_Round(len(steps), event.round_started.dealer, players))
        steps.append(("shuffle", ()))  # dealt once the round is read
    elif kind == "dealt":
        rounds[-1].mine = tuple(CARD_BY_TEXT[card] for card in event.dealt.hand)
    elif kind == "bid":
        rounds[-1].bids.append((event.bid.seat, event.bid.bid))
        steps.append(("act", f"bid {event.bid.bid}"))
    elif kind == "led":
        led = event.led
        call = _SHAPE_INDEX[led.call.shape] * 3 + led.call.count - 1
        rounds[-1].call = call
        rounds[-1].played[led.seat].append(CARD_BY_TEXT[led.card])
        steps.append(("act", f"lead {led.card} {CALL_TEXT[call]}"))
    elif kind == "played":
        now = rounds[-1]
        card = CARD_BY_TEXT[event.played.card]
        now.played[event.played.seat].append(card)
        if card not in MATCHES[now.call]:  # it could not follow: it held no such card
            now.voids[event.played.seat].add(now.call)
        steps.append(("act", f"play {event.played.card}"))


def _bid_fits(played: _Round, seat: int, hand: list[int]) -> bool:
    """Whether the seat's bid this round is the one the heuristic's count makes of `hand` (its
    cards' summed lead chances against every card it had not seen, XAC-R4's hook applied)."""
    n = played.players
    share = HAND_SIZE * (n - 1) / (len(CARDS) - HAND_SIZE)
    made = 0
    for bidder, bid in played.bids:
        if bidder == seat:
            unseen = ALL & ~_mask(tuple(hand))
            expected = BID_SCALE * sum(_strength(card, unseen, share) for card in hand)
            hook = HAND_SIZE - made if bidder == played.dealer else -1
            allowed = [b for b in range(HAND_SIZE + 1) if b != hook]
            return min(allowed, key=lambda b: (abs(b - expected), b)) == bid
        made += bid
    return True  # it has not bid yet


def _deck(played: _Round, seat: int, rng: random.Random) -> tuple[str, ...] | None:
    """The round's deck: the seat's hand and each other seat's, dealt one card at a time from
    the dealer's left (XAC-R2), then the cards set aside."""
    n = played.players
    seen = set(played.mine).union(*played.played)
    pool = [card for card in CARDS if card not in seen]
    others = [s for s in range(n) if s != seat]
    allowed = {
        s: [c for c in pool if not any(c in MATCHES[call] for call in played.voids[s])]
        for s in others
    }
    # The seat with the fewest cards to choose from is dealt first.
    others.sort(key=lambda s: len(allowed[s]) - (HAND_SIZE - len(played.played[s])))
    for _ in range(DEALS):
        left = set(pool)
        hands = {seat: list(played.mine)}
        for s in others:
            free = [c for c in allowed[s] if c in left]
            need = HAND_SIZE - len(played.played[s])
            if len(free) < need:
                break
            for _ in range(BID_READS):  # the first hand that makes its bid, else the last
                hand = [*played.played[s], *rng.sample(free, need)]
                if _bid_fits(played, s, hand):
                    break
            left.difference_update(hand)
            hands[s] = hand
        else:
            deck = [0] * len(CARDS)
            for offset in range(n):
                hand = hands[(played.dealer + 1 + offset) % n]
                rng.shuffle(hand)
                deck[offset : HAND_SIZE * n : n] = hand
            aside = sorted(left)
            rng.shuffle(aside)
            deck[HAND_SIZE * n :] = aside
            return tuple(CARD_TEXT[card] for card in deck)
    return None
