"""A XIX bot with simple card sense: win tricks cheaply, lead safe winners, draft high cards."""

from __future__ import annotations

from croupier.bot import Bot
from croupier.v1 import referee_pb2, xix_pb2

TARGET = 19


def _takes(lead: int, follow: int) -> bool:
    """True if the follower's card takes the trick."""
    if lead + follow == TARGET:
        return follow < lead
    return follow > lead


class XixHeuristicBot(Bot):
    """Plays by a few rules of thumb that comfortably beat random play."""

    name = "xix-heuristic"
    games = ("xix",)
    version = "1"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        obs = request.observation.xix
        actions = [action.xix for action in request.legal_actions]
        kind = actions[0].WhichOneof("kind")
        if kind == "play":
            card = self._play(obs)
            return next(i for i, a in enumerate(actions) if a.play == card)
        if kind == "strike":
            unknown = [
                i
                for i, a in enumerate(actions)
                if not obs.strike_row[a.strike].HasField("known_value")
            ]
            return unknown[0] if unknown else 0
        if kind == "draft":
            # Strong cards: high ones, and low ones that beat their high complement.
            return max(range(len(actions)), key=lambda i: abs(actions[i].draft - 9.5))
        return self._trade(obs, actions)

    def _play(self, obs: xix_pb2.XixObservation) -> int:
        hand = list(obs.hand)
        if obs.trick:
            lead = obs.trick[0]
            winners = [card for card in hand if _takes(lead, card)]
            return min(winners) if winners else min(hand)
        # Lead a card whose only answer (its complement to 19) is not in the opponent's hand.
        seen = set(hand) | set(obs.played) | _known(obs)
        safe = [card for card in hand if card > 9 and (TARGET - card) in seen]
        return max(safe) if safe else min(hand)

    def _trade(self, obs: xix_pb2.XixObservation, actions: list[xix_pb2.XixAction]) -> int:
        lowest = min(obs.hand)
        best = max(range(5), key=lambda p: obs.strike_row[p].known_value)
        if obs.strike_row[best].known_value <= lowest:
            unknown = [p for p in range(5) if not obs.strike_row[p].HasField("known_value")]
            best = unknown[0] if unknown else best
        return next(
            i for i, a in enumerate(actions) if a.trade.position == best and a.trade.card == lowest
        )


def _known(obs: xix_pb2.XixObservation) -> set[int]:
    """The strike-row values this seat knows (an unknown slot has no known_value)."""
    return {slot.known_value for slot in obs.strike_row if slot.HasField("known_value")}
