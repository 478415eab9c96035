"""XIX's table: two hands, the trick, the five-card strike row, the exchange's played cards."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import Message

from croupier.v1 import xix_pb2 as pb
from referee.games.catalog import XIX
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
class _Public:
    """What every seat's box shows of the public observation, read from it once per table
    (a protobuf field read costs more than the rest of a box)."""

    hand_sizes: tuple[int, int]
    scores: tuple[str, str]
    facts: tuple[tuple[str, ...], tuple[str, ...]]
    to_move: int  # -1: nobody

    @staticmethod
    def of(public: pb.XixObservation) -> _Public:
        # hand_sizes: every seat's, public (the spectator's table has no opponent); a public
        # observation from before the field has only the opponent's.
        sizes = tuple(public.hand_sizes)
        if len(sizes) < 2:
            sizes = (public.opponent_hand_size,) * 2
        strikes = tuple(public.strikes)
        scores = tuple(public.scores)
        playing = public.phase in (pb.XIX_PHASE_PLAY, pb.XIX_PHASE_STRIKE)
        leader = public.leader

        def facts(seat: int) -> tuple[str, ...]:
            told = [f"strikes {strikes[seat]}"] if strikes else []
            if playing and leader == seat:
                told.append("leads")
            return tuple(told)

        return _Public(
            (sizes[0], sizes[1]),
            (
                (f"{scores[0]}/{TARGET} points", f"{scores[1]}/{TARGET} points")
                if scores
                else ("", "")
            ),
            (facts(0), facts(1)),
            public.to_move if public.phase in _DOING else -1,
        )


@dataclass(frozen=True, slots=True)
class XixView:
    deck: Deck = XIX.deck
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
        facts = _Public.of(obs)
        seats = tuple(self._seat(context, facts, seat) for seat in range(2))
        return Table(self.deck, status, seats, self._piles(context, obs))

    def _seat(self, context: Context, public: _Public, seat: int) -> SeatBox:
        if context.sees_hand(seat):
            hand = _cards(_obs(context.observations[seat]).hand)
        else:
            hand = backs(public.hand_sizes[seat])
        return SeatBox(
            seat,
            context.names[seat],
            public.scores[seat],
            hand,
            public.facts[seat],
            to_move=public.to_move == seat,
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
        if isinstance(state, XixState):  # the referee's view: every card, and who knows it
            return _known_row(state.row, state.slid, state.known)
        cards = []
        for slot in obs.strike_row:
            note = "slid" if slot.slid else ""
            if slot.HasField("known_value"):
                cards.append(Card(str(slot.known_value), down=True, note=note or "known"))
            else:
                cards.append(Card(note=note) if note else BACK)
        return Pile("strike row", tuple(cards))


@functools.lru_cache(maxsize=4096)
def _known_row(
    row: tuple[int, ...], slid: tuple[bool, ...], known: tuple[tuple[int, ...], ...]
) -> Pile:
    """The strike row face down, each card with who knows it (XixState.known: what each seat
    knows of each position, 0 for nothing); made once per row and knowledge, as it changes
    only at a strike or a slide."""
    cards = []
    for position, card in enumerate(row):
        knowers = [str(seat) for seat in range(2) if known[seat][position]]
        notes = (
            "slid" if slid[position] else "",
            f"known to {' '.join(knowers)}" if knowers else "",
        )
        cards.append(Card(str(card), down=True, note=" · ".join(n for n in notes if n)))
    return Pile("strike row", tuple(cards))
