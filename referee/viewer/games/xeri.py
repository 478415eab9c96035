"""Xeri's table: the hands, the pile, each side's captures and Xeris, the stock."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from croupier.v1 import xeri_pb2 as pb
from referee.games.catalog import XERI
from referee.games.xeri import CARD_TEXT, HAND_SIZE, PLAYS_PER_ROUND, XeriState
from referee.viewer.games.base import Context, Position, points
from referee.viewer.model import Card, Deck, Pile, SeatBox, Table, backs


def _obs(message: Message) -> pb.XeriObservation:
    assert isinstance(message, pb.XeriObservation)
    return message


def _down(cards: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(Card(CARD_TEXT[card], down=True) for card in cards)


@dataclass(frozen=True, slots=True)
class XeriView:
    deck: Deck = XERI.deck
    major: str = "round"
    minor: str = "deal"

    def position(self, observation: Message) -> Position:
        obs = _obs(observation)
        if obs.round == 0:
            return Position(1, 0, "the deal")
        rounds = f"round {obs.round}" + (f"/{obs.rounds}" if obs.HasField("rounds") else "")
        deals = PLAYS_PER_ROUND // (HAND_SIZE * obs.players)
        return Position(obs.round, obs.deal, f"{rounds} · deal {obs.deal}/{deals}")

    def table(self, context: Context) -> Table:
        obs = _obs(context.public)
        status = self.position(obs).label
        playing = any(obs.hand_sizes)
        if playing:
            status += f" · seat {obs.to_move} to play · stock {obs.stock_size}"
        if obs.HasField("target"):
            status += f" · target {obs.target}"
        seats = tuple(self._seat(context, obs, seat, playing) for seat in range(obs.players))
        return Table(Deck.STANDARD, status, seats, self._piles(context, obs))

    def _seat(self, context: Context, obs: pb.XeriObservation, seat: int, playing: bool) -> SeatBox:
        if context.sees_hand(seat):
            hand = tuple(Card(text) for text in _obs(context.observations[seat]).hand)
        else:
            hand = backs(obs.hand_sizes[seat])
        side = obs.sides[seat % 2] if obs.sides else None
        facts = []
        if obs.players == 4:
            facts.append(f"team {seat % 2}")
        if obs.round and obs.dealer == seat:
            facts.append("dealer")
        if obs.HasField("last_capturer") and obs.last_capturer == seat:
            facts.append("last capture")
        return SeatBox(
            seat,
            context.names[seat],
            points(side.points) if side is not None else "",
            hand,
            tuple(facts),
            to_move=playing and obs.to_move == seat,
            viewer=context.viewer == seat,
        )

    def _piles(self, context: Context, obs: pb.XeriObservation) -> tuple[Pile, ...]:
        piles = []
        captured = context.events_of("captured", pb.XeriCaptured)
        if captured and not obs.pile_cards:
            event = captured[-1]
            xeri = " · XERI" if context.events_of("xeri", pb.XeriXeri) else ""
            cards = tuple(
                Card(card, mark=i == len(event.cards) - 1) for i, card in enumerate(event.cards)
            )
            piles.append(Pile(f"captured by seat {event.seat}{xeri}", cards))
        else:
            cards = tuple(
                Card(card, mark=i == len(obs.pile_cards) - 1)
                for i, card in enumerate(obs.pile_cards)
            )
            piles.append(
                Pile("pile", cards, note=f"{len(obs.pile_cards)} cards" if obs.pile_cards else "")
            )
        state = context.state if isinstance(context.state, XeriState) else None
        stock = Pile("stock", note=f"{obs.stock_size} cards")
        if state is not None and obs.stock_size:
            stock = Pile("stock, top first", _down(state.stock), note=f"{obs.stock_size} cards")
        piles.append(stock)
        if obs.HasField("bottom_card"):
            piles.append(Pile("bottom card", (Card(obs.bottom_card),)))
        for index, side in enumerate(obs.sides):
            who = (
                f"seat {index}"
                if obs.players == 2
                else f"team {index} (seats {'+'.join(map(str, side.seats))})"
            )
            wins = "round win" if side.round_wins == 1 else "round wins"
            note = f"{side.captured} captured · {side.round_wins} {wins} · {points(side.points)}"
            cards = tuple(Card(card, note="xeri") for card in side.xeris)
            if state is not None:  # the face-down captures (the Xeris' cards are shown already)
                cards += _down(
                    tuple(c for c in state.captured[index] if CARD_TEXT[c] not in side.xeris)
                )
            piles.append(Pile(f"{who}: captures", cards, note=note))
        return tuple(piles)
