"""An Xactika bot that bids its hand's expected tricks and then plays to make that bid exactly.

A card's chance to take a trick is estimated against the cards it has not seen (neither in its
hand nor played this round): a lead with call k wins unless an opponent holds an unseen card that
matches k with at least the same face value (ties go to the card played last), and each unseen
card is in an opponent's hand with probability (cards in opponents' hands) / (unseen cards).
"""

from __future__ import annotations

from itertools import product

from croupier.bot import Bot
from croupier.v1 import referee_pb2, xactika_pb2

HAND_SIZE = 8
DECK = tuple("".join(map(str, counts)) for counts in product((1, 2, 3), repeat=4))
#: Calls as (shape index 0..3, count 1..3); shape index = the digit position in the card text.
CALLS = tuple((shape, count) for shape in range(4) for count in (1, 2, 3))
#: Bidding scales up the summed lead chances: cards also take tricks when following, and
#: opponents do not always play their threats (1.4 measured best against random play).
BID_SCALE = 1.4


def face(card: str) -> int:
    """The card's face value: the sum of its four counts."""
    return sum(map(int, card))


def shows(card: str, call: tuple[int, int]) -> bool:
    """True if the card matches the call (shape index, count)."""
    return int(card[call[0]]) == call[1]


class _View:
    """The unseen cards and how likely each is in the hands of seats still to play."""

    def __init__(self, obs: xactika_pb2.XactikaObservation) -> None:
        seen = set(obs.hand) | set(obs.played)
        self.unseen = [card for card in DECK if card not in seen]
        # Every seat holds 8 cards minus those it played; the rest of the unseen are set aside.
        held = HAND_SIZE * obs.players - len(obs.played) - len(obs.hand)
        self.held_share = held / len(self.unseen) if self.unseen else 0.0

    def beat_chance(self, card: str, call: tuple[int, int], share: float) -> float:
        """The chance that no unseen card of at least this face value and matching the call is
        held by the seats whose part of the unseen cards is `share`."""
        value = face(card)
        threats = sum(1 for c in self.unseen if shows(c, call) and face(c) >= value)
        return (1.0 - share) ** threats

    def lead_chance(self, card: str, call: tuple[int, int]) -> float:
        return self.beat_chance(card, call, self.held_share)

    def strength(self, card: str) -> float:
        """The card's best chance to take a trick if it leads."""
        return max(self.lead_chance(card, call) for call in CALLS if shows(card, call))


class XactikaHeuristicBot(Bot):
    """Bids the summed lead chances of its cards, then takes tricks while it needs them and ducks
    once its bid is made."""

    name = "xactika-heuristic"
    games = ("xactika",)
    version = "1"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        obs = request.observation.xactika
        actions = [action.xactika for action in request.legal_actions]
        kind = actions[0].WhichOneof("kind")
        view = _View(obs)
        if kind == "bid":
            return self._bid(obs, view, [a.bid for a in actions])
        need = obs.bids[obs.seat].bid - obs.taken[obs.seat]  # past bidding: every bid is set
        if kind == "lead":
            return self._lead(view, actions, need > 0)
        return self._follow(obs, view, [a.play for a in actions], need > 0)

    def _bid(self, obs: xactika_pb2.XactikaObservation, view: _View, allowed: list[int]) -> int:
        expected = BID_SCALE * sum(view.strength(card) for card in obs.hand)
        # The dealer may be barred from one number: take the nearest allowed, the lower on a tie.
        return min(range(len(allowed)), key=lambda i: (abs(allowed[i] - expected), allowed[i]))

    def _lead(self, view: _View, actions: list[xactika_pb2.XactikaAction], want: bool) -> int:
        def chance(i: int) -> float:
            lead = actions[i].lead
            return view.lead_chance(lead.card, (lead.call.shape - 1, lead.call.count))

        if want:  # the surest winner, the cheapest card among equals
            return max(range(len(actions)), key=lambda i: (chance(i), -face(actions[i].lead.card)))
        # The surest loser; among equals get rid of the card most likely to win a trick later.
        return min(
            range(len(actions)), key=lambda i: (chance(i), -view.strength(actions[i].lead.card))
        )

    def _follow(
        self, obs: xactika_pb2.XactikaObservation, view: _View, cards: list[str], want: bool
    ) -> int:
        call = (obs.call.shape - 1, obs.call.count)
        best = max(face(card) for card in obs.trick if shows(card, call))
        later = obs.players - len(obs.trick) - 1
        # The seats after this one hold about later/(all opponents) of the opponents' cards.
        opponents = obs.players - 1
        share = view.held_share * later / opponents

        def chance(card: str) -> float:
            if not shows(card, call) or face(card) < best:
                return 0.0
            return view.beat_chance(card, call, share) if later else 1.0

        if want:  # the surest winner, the cheapest among equals; else throw the weakest card
            return max(
                range(len(cards)),
                key=lambda i: (chance(cards[i]), -view.strength(cards[i]), -face(cards[i])),
            )
        # Duck: the surest loser, shedding the card most likely to win a trick later.
        return min(
            range(len(cards)),
            key=lambda i: (chance(cards[i]), -view.strength(cards[i]), -face(cards[i])),
        )
