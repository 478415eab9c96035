"""XIX's table: two hands, the trick, the five-card strike row, the exchange's played cards."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import Message

from croupier.v1 import xix_pb2 as pb
from referee.games.xix import TARGET, XixState
from referee.viewer.games.base import Context, Position
from referee.viewer.model import BACK, Card, Deck, Pile, SeatBox, Table, backs

_DOING = {
    pb.XIX_PHASE_PLAY: "play",
    pb.XIX_PHASE_STRIKE: "take a strike",
    pb.XIX_PHASE_DRAFT: "draft",
    pb.XIX_PHASE_TRADE: "trade",
}
_AFTER_TRICKS = 100  # the draft and trade come after an exchange's tricks


def _obs(message: Message) -> pb.XixObservation:
    assert isinstance(message, pb.XixObservation)
    return message


@functools.cache
def _card(value: int) -> Card:
    """A face-up card, made once per value (a report draws hundreds of thousands)."""
    return Card(str(value))


def _cards(values: Iterable[int]) -> tuple[Card, ...]:
    return tuple(map(_card, values))


@dataclass(frozen=True, slots=True)
class XixView:
    deck: Deck = Deck.XIX
    major: str = "exchange"
    minor: str = "trick"

    def position(self, observation: Message) -> Position:
        obs = _obs(observation)
        tricks = len(obs.played) // 2
        if obs.phase == pb.XIX_PHASE_UNSPECIFIED:
            return Position(1, 0, "the deal")
        if obs.phase == pb.XIX_PHASE_OVER:
            return Position(obs.exchange, tricks, "game over")
        if obs.phase in (pb.XIX_PHASE_DRAFT, pb.XIX_PHASE_TRADE):
            # The exchange just ended (exchange counts it already); its draft and trade follow.
            return Position(obs.exchange, _AFTER_TRICKS, f"exchange {obs.exchange} · draft, trade")
        trick = tricks if obs.phase == pb.XIX_PHASE_STRIKE else tricks + 1
        return Position(obs.exchange + 1, trick, f"exchange {obs.exchange + 1} · trick {trick}")

    def table(self, context: Context) -> Table:
        obs = _obs(context.public)
        status = self.position(obs).label
        if obs.phase in _DOING:
            status += f" · seat {obs.to_move} to {_DOING[obs.phase]}"
        seats = tuple(self._seat(context, seat) for seat in range(2))
        return Table(self.deck, status, seats, self._piles(context, obs))

    def _seat(self, context: Context, seat: int) -> SeatBox:
        public = _obs(context.public)
        if context.sees_hand(seat):
            hand = _cards(_obs(context.observations[seat]).hand)
        else:
            # hand_sizes: every seat's, public (the spectator's table has no opponent); a
            # public observation from before the field has only the opponent's.
            sizes = public.hand_sizes
            hand = backs(sizes[seat] if len(sizes) > seat else public.opponent_hand_size)
        facts = [f"strikes {public.strikes[seat]}"] if public.strikes else []
        playing = public.phase in (pb.XIX_PHASE_PLAY, pb.XIX_PHASE_STRIKE)
        if playing and public.leader == seat:
            facts.append("leads")
        score = f"{public.scores[seat]}/{TARGET} points" if public.scores else ""
        return SeatBox(
            seat,
            context.names[seat],
            score,
            hand,
            tuple(facts),
            to_move=public.phase in _DOING and public.to_move == seat,
            viewer=context.viewer == seat,
        )

    def _piles(self, context: Context, obs: pb.XixObservation) -> tuple[Pile, ...]:
        piles = [self._trick(context, obs), self._row(context, obs)]
        if obs.phase == pb.XIX_PHASE_DRAFT:
            piles.append(Pile("draft pool", _cards(obs.draft_pool)))
        elif obs.played:
            piles.append(Pile("played this exchange", _cards(obs.played)))
        state = context.state
        if isinstance(state, XixState) and state.discard:
            piles.append(Pile("out of play", (Card(str(state.discard), down=True),)))
        return tuple(piles)

    def _trick(self, context: Context, obs: pb.XixObservation) -> Pile:
        taken = context.events_of("trick_taken", pb.XixTrickTaken)
        if taken:
            # The trick is over; show it once more, the taker's card marked.
            event = taken[-1]
            lead, follow = event.cards
            winning = min(lead, follow) if lead + follow == TARGET else max(lead, follow)
            cards = tuple(Card(str(card), mark=card == winning) for card in event.cards)
            return Pile(f"trick taken by seat {event.seat}", cards)
        leader = obs.leader
        cards = tuple(
            Card(str(card), note=f"seat {(leader + i) % 2}") for i, card in enumerate(obs.trick)
        )
        return Pile("trick", cards)

    def _row(self, context: Context, obs: pb.XixObservation) -> Pile:
        if not obs.strike_row or obs.phase == pb.XIX_PHASE_UNSPECIFIED:
            return Pile("strike row")
        state = context.state
        cards = []
        if isinstance(state, XixState):  # which positions each seat knows, looked up once
            known_to = [
                [
                    slot.HasField("known_value")
                    for slot in _obs(context.observations[seat]).strike_row
                ]
                for seat in range(2)
            ]
        for position, slot in enumerate(obs.strike_row):
            note = "slid" if slot.slid else ""
            if isinstance(state, XixState):
                knowers = [str(seat) for seat in range(2) if known_to[seat][position]]
                known = f"known to {' '.join(knowers)}" if knowers else ""
                note = " · ".join(n for n in (note, known) if n)
                cards.append(Card(str(state.row[position]), down=True, note=note))
            elif slot.HasField("known_value"):
                cards.append(Card(str(slot.known_value), down=True, note=note or "known"))
            else:
                cards.append(Card(note=note) if note else BACK)
        return Pile("strike row", tuple(cards))
