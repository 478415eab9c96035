"""Tex-Tac-Toe's table: the 3x3 grid and its stacks, each stash and face-down pair, the showdown."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from croupier.v1 import textactoe_pb2 as pb
from referee.games.catalog import TEXTACTOE
from referee.games.textactoe import GRID_SIZE, STASH_SIZE, TexTacToeState
from referee.games.textactoe_poker import card_text
from referee.viewer.games.base import Context, Position, points
from referee.viewer.model import BACK, Card, Deck, Layout, Pile, SeatBox, Table, backs

_DOING = {
    pb.TEXTACTOE_PHASE_TURN: "take a turn",
    pb.TEXTACTOE_PHASE_RESPOND: "concede or challenge",
    pb.TEXTACTOE_PHASE_EXTRA_TURN: "take an extra turn",
    pb.TEXTACTOE_PHASE_COMMIT: "set two cards face down",
}
_RESPONSES = {
    pb.TEXTACTOE_RESPONSE_CALLER: "called",
    pb.TEXTACTOE_RESPONSE_CONCEDED: "conceded",
    pb.TEXTACTOE_RESPONSE_CHALLENGED: "challenged",
}
_AFTER_TURNS = 10_000  # the responses to a call come after a hand's turns
_COMMITTED = 2


def _obs(message: Message) -> pb.TexTacToeObservation:
    assert isinstance(message, pb.TexTacToeObservation)
    return message


def category_text(category: int) -> str:
    name: str = pb.TexTacToeCategory.Name(category)
    return name.removeprefix("TEXTACTOE_CATEGORY_").lower().replace("_", " ")


@dataclass(frozen=True, slots=True)
class TexTacToeView:
    deck: Deck = TEXTACTOE.deck
    major: str = "hand"
    minor: str = "turn"

    def position(self, observation: Message) -> Position:
        obs = _obs(observation)
        if not obs.scores:
            return Position(1, 0, "the deal")
        hand = obs.hand + 1
        if obs.phase == pb.TEXTACTOE_PHASE_OVER:
            return Position(obs.hand, _AFTER_TURNS + 1, "game over")
        if obs.HasField("caller"):
            return Position(hand, _AFTER_TURNS, f"hand {hand} · call by seat {obs.caller}")
        return Position(hand, obs.turns + 1, f"hand {hand} · turn {obs.turns + 1}")

    def table(self, context: Context) -> Table:
        obs = _obs(context.public)
        status = self.position(obs).label
        if obs.phase in _DOING:
            status += f" · seat {obs.to_move} to {_DOING[obs.phase]}"
        if obs.scores:
            status += f" · draw pile {obs.draw_pile_size}"
        seats = tuple(self._seat(context, obs, seat) for seat in range(obs.players))
        return Table(self.deck, status, seats, self._piles(context, obs))

    def _seat(self, context: Context, obs: pb.TexTacToeObservation, seat: int) -> SeatBox:
        dealt = bool(obs.scores)
        committed = dealt and obs.has_committed[seat]
        if context.sees_hand(seat):
            own = _obs(context.observations[seat])
            stash = tuple(Card(text) for text in own.stash)
            pair = tuple(Card(text, down=True) for text in own.committed)
        else:
            stash = backs(STASH_SIZE - _COMMITTED * committed if dealt else 0)
            pair = backs(_COMMITTED if committed else 0)
        facts = []
        if dealt and obs.starter == seat and obs.phase != pb.TEXTACTOE_PHASE_OVER:
            facts.append("started the hand")
        if obs.responses and obs.responses[seat] in _RESPONSES:
            facts.append(_RESPONSES[obs.responses[seat]])
        return SeatBox(
            seat,
            context.names[seat],
            points(obs.scores[seat]) if dealt else "",
            stash,
            tuple(facts),
            (Pile("face down", pair),) if pair else (),
            to_move=obs.phase in _DOING and obs.to_move == seat,
            viewer=context.viewer == seat,
        )

    def _piles(self, context: Context, obs: pb.TexTacToeObservation) -> tuple[Pile, ...]:
        state = context.state if isinstance(context.state, TexTacToeState) else None
        stacks: list[tuple[Card, ...]] = []
        for p, position in enumerate(obs.grid or [pb.TexTacToePosition(empty=True)] * GRID_SIZE):
            if position.empty:
                stacks.append(())
            elif position.face_up:
                stacks.append(tuple(map(Card, position.stack)))
            elif state is not None:
                stacks.append(tuple(Card(card_text(c), down=True) for c in state.grid[p]))
            else:
                stacks.append((BACK,))
        piles = [Pile("grid", layout=Layout.GRID, stacks=tuple(stacks))]
        for showdown in context.events_of("showdown", pb.TexTacToeShowdown):
            for hand in showdown.hands:
                cards = tuple(Card(c, note="stash") for c in hand.committed) + tuple(
                    Card(c, note=f"pos {p}")
                    for c, p in zip(hand.line_cards, hand.positions, strict=True)
                )
                label = f"seat {hand.seat}: {category_text(hand.category)} (line {hand.line})"
                piles.append(Pile(label, cards))
        for cleared in context.events_of("line_cleared", pb.TexTacToeLineCleared):
            piles.append(Pile(f"line {cleared.line} cleared", tuple(map(Card, cleared.cards))))
        if obs.scores:
            if state is not None and state.pile:
                cards = tuple(Card(card_text(c), down=True) for c in state.pile)
                piles.append(Pile("draw pile, top first", cards, note=f"{len(cards)} cards"))
            else:
                piles.append(Pile("draw pile", note=f"{obs.draw_pile_size} cards"))
            piles.append(Pile("out of play", note=f"{len(obs.removed)} cards"))
        return tuple(piles)
