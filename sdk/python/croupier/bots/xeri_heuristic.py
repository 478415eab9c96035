"""A Xeri bot with simple card sense: take valuable piles, keep jacks for big ones, and never
leave the next opponent an easy capture or Xeri. It remembers every card it has seen this round
(from the public events), so it knows which ranks the other hands can still hold."""

from __future__ import annotations

from croupier.bot import Bot
from croupier.v1 import game_pb2, referee_pb2, xeri_pb2

RANKS = "23456789TJQKA"
SUITS = "CDHS"
DECK = frozenset(rank + suit for rank in RANKS for suit in SUITS)
#: A captured card is worth a little towards the 3 points for most cards.
CARD_WEIGHT = 0.12
XERI = 10.0
#: What holding a jack back for a bigger pile is worth, while the round has cards to come.
JACK_KEEP = 2.5


def card_value(card: str) -> float:
    """Points a card scores when captured (RULES 3.4), plus its share of the card majority."""
    points = (card[0] in "AKQJT") + (card == "2C") + (card == "TD")
    return points + CARD_WEIGHT


def none_held(unknown: int, special: int, hand: int) -> float:
    """Probability that a hand of `hand` cards drawn from `unknown` holds none of `special`."""
    chance = 1.0
    for drawn in range(min(hand, unknown)):
        chance *= max(unknown - special - drawn, 0) / (unknown - drawn)
    return chance


class XeriHeuristicBot(Bot):
    """Captures when it pays, saves jacks, sets up Xeris and avoids giving them away."""

    name = "xeri-heuristic"
    games = ("xeri",)
    version = "1"

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._jack_xeri = 20.0

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self._seen = set()
        self._jack_xeri = 25.0 if start.options.get("var_jack_xeri_25") == "true" else 20.0

    def on_event(self, event: game_pb2.Event) -> None:
        if event.WhichOneof("game") != "xeri":
            return
        payload = event.xeri
        kind = payload.WhichOneof("kind")
        if kind == "round_started":
            self._seen = set()
        elif kind == "played":
            self._seen.add(payload.played.card)
        elif kind == "dealt":
            self._seen.update(payload.dealt.hand)
        elif kind == "initial_pile":
            self._seen.update(payload.initial_pile.cards)
        elif kind == "bottom_card":
            self._seen.add(payload.bottom_card.card)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        obs = request.observation.xeri
        cards = [action.xeri.play for action in request.legal_actions]
        seen = self._seen | set(obs.hand) | set(obs.pile_cards)
        if obs.HasField("bottom_card"):
            seen.add(obs.bottom_card)
        for side in obs.sides:
            seen.update(side.xeris)
        unknown = sorted(DECK - seen)
        scores = [self._score(obs, card, unknown) for card in cards]
        return max(range(len(cards)), key=lambda i: (scores[i], -i))

    def _score(self, obs: xeri_pb2.XeriObservation, card: str, unknown: list[str]) -> float:
        pile = list(obs.pile_cards)
        rank = card[0]
        last_cards = obs.stock_size == 0 and len(obs.hand) <= 2
        if pile and (rank == pile[-1][0] or rank == "J"):
            gain = sum(card_value(c) for c in pile) + card_value(card)
            if len(pile) == 1 and pile[0][0] == rank:
                gain += self._jack_xeri if rank == "J" else XERI
            elif rank == "J" and not last_cards:
                gain -= JACK_KEEP  # a jack spent on a small pile is a jack lost for a big one
            return gain + 1.0  # capturing also leaves the opponent to lead onto an empty pile
        # No capture: the card joins the pile and the next seat (an opponent) may take it all.
        opponent = (obs.seat + 1) % obs.players
        held = obs.hand_sizes[opponent]
        same = sum(c[0] == rank for c in unknown)
        jacks = sum(c[0] == "J" for c in unknown)
        takers = same if rank == "J" else same + jacks
        at_risk = sum(card_value(c) for c in pile) + card_value(card)
        loss = (1.0 - none_held(len(unknown), takers, held)) * at_risk
        if not pile:
            # A lone card: the opponent makes a Xeri with any card of its rank.
            bonus = self._jack_xeri if rank == "J" else XERI
            loss += (1.0 - none_held(len(unknown), same, held)) * bonus
        if rank == "J":
            loss += JACK_KEEP  # never waste a jack as a plain discard
        return -loss - card_value(card)
