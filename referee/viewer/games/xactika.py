"""Xactika's table: every seat's bid, tricks and hand (up to ten seats), the trick and its call."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from croupier.v1 import xactika_pb2 as pb
from referee.games.catalog import XACTIKA
from referee.games.xactika import HAND_SIZE, XactikaState
from referee.viewer.games.base import Context, Position, points
from referee.viewer.model import Card, Deck, Pile, SeatBox, Table, backs

_SHAPES = {
    pb.XACTIKA_SHAPE_BALL: "ball",
    pb.XACTIKA_SHAPE_CUBE: "cube",
    pb.XACTIKA_SHAPE_CONE: "cone",
    pb.XACTIKA_SHAPE_STAR: "star",
}


def _obs(message: Message) -> pb.XactikaObservation:
    assert isinstance(message, pb.XactikaObservation)
    return message


def call_text(call: pb.XactikaCall) -> str:
    """E.g. "3 cubes"."""
    shape = _SHAPES.get(call.shape, "?")
    return f"{call.count} {shape}{'s' if call.count > 1 else ''}"


def hand_size(obs: pb.XactikaObservation, seat: int) -> int:
    """Cards in `seat`'s hand, from public facts: eight at the deal, one fewer per card played."""
    if obs.phase == pb.XACTIKA_PHASE_UNSPECIFIED or obs.phase == pb.XACTIKA_PHASE_OVER:
        return 0
    played_this_trick = (seat - obs.leader) % obs.players < len(obs.trick)
    return HAND_SIZE - obs.tricks_played - played_this_trick


@dataclass(frozen=True, slots=True)
class XactikaView:
    deck: Deck = XACTIKA.deck
    major: str = "round"
    minor: str = "trick"

    def position(self, observation: Message) -> Position:
        obs = _obs(observation)
        rounds = f"round {max(obs.round, 1)}/{obs.rounds}"
        if obs.phase == pb.XACTIKA_PHASE_OVER:
            return Position(obs.round, HAND_SIZE + 1, "game over")
        if obs.phase == pb.XACTIKA_PHASE_BID:
            return Position(obs.round, 0, f"{rounds} · bidding")
        if obs.phase == pb.XACTIKA_PHASE_PLAY:
            trick = obs.tricks_played + 1
            return Position(obs.round, trick, f"{rounds} · trick {trick}/{HAND_SIZE}")
        if obs.round == 0:
            return Position(1, 0, "the deal")
        return Position(obs.round, HAND_SIZE + 1, f"{rounds} · scored")

    def table(self, context: Context) -> Table:
        obs = _obs(context.public)
        status = self.position(obs).label
        if obs.phase == pb.XACTIKA_PHASE_BID:
            status += f" · seat {obs.to_move} to bid"
        elif obs.phase == pb.XACTIKA_PHASE_PLAY:
            verb = "lead" if not obs.trick else "play"
            status += f" · seat {obs.to_move} to {verb}"
        if obs.phase in (pb.XACTIKA_PHASE_BID, pb.XACTIKA_PHASE_PLAY):
            bids = [entry.bid for entry in obs.bids if entry.HasField("bid")]
            status += f" · bids total {sum(bids)}/{HAND_SIZE}" if bids else ""
        seats = tuple(self._seat(context, obs, seat) for seat in range(obs.players))
        piles = [self._trick(context, obs)]
        state = context.state
        if isinstance(state, XactikaState) and state.table.set_aside:
            count = len(state.table.set_aside)
            cards = "card" if count == 1 else "cards"
            piles.append(Pile("set aside", note=f"{count} {cards} nobody sees"))
        return Table(self.deck, status, seats, tuple(piles))

    def _seat(self, context: Context, obs: pb.XactikaObservation, seat: int) -> SeatBox:
        if context.sees_hand(seat):
            hand = tuple(Card(text) for text in _obs(context.observations[seat]).hand)
        else:
            hand = backs(hand_size(obs, seat))
        facts = []
        dealt = obs.phase != pb.XACTIKA_PHASE_UNSPECIFIED or obs.round > 0
        if dealt and obs.dealer == seat:
            facts.append("dealer")
        if obs.bids:
            entry = obs.bids[seat]
            facts.append(f"bid {entry.bid}" if entry.HasField("bid") else "bid -")
        if obs.taken:
            facts.append(f"took {obs.taken[seat]}")
        playing = obs.phase in (pb.XACTIKA_PHASE_BID, pb.XACTIKA_PHASE_PLAY)
        return SeatBox(
            seat,
            context.names[seat],
            points(obs.scores[seat]) if obs.scores else "",
            hand,
            tuple(facts),
            to_move=playing and obs.to_move == seat,
            viewer=context.viewer == seat,
        )

    def _trick(self, context: Context, obs: pb.XactikaObservation) -> Pile:
        won = context.events_of("trick_won", pb.XactikaTrickWon)
        if won and not obs.trick:
            # The trick is over: show its cards once more (the last `players` played), the
            # winner's card marked, each with its seat worked out from the winner's.
            event = won[-1]
            texts = list(obs.played[-obs.players :])
            if len(texts) == obs.players and event.card in texts:
                first = (event.seat - texts.index(event.card)) % obs.players
                shown = tuple(
                    Card(card, note=f"seat {(first + i) % obs.players}", mark=card == event.card)
                    for i, card in enumerate(texts)
                )
                return Pile(f"trick won by seat {event.seat}", shown)
        cards = tuple(
            Card(card, note=f"seat {(obs.leader + i) % obs.players}")
            for i, card in enumerate(obs.trick)
        )
        label = "trick"
        if obs.trick and obs.HasField("call"):
            label += f" · call {call_text(obs.call)}"
        return Pile(label, cards)
