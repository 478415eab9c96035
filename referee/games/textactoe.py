"""Tex-Tac-Toe, 2 to 6 players (RULES.md section 4, rulings TTT-R1..TTT-R19; no betting, TTT-R18).

Nine cards lie in a 3x3 grid, face down but for the centre; each player holds a 3-card stash. On
a turn a player reveals a grid card, plays a stash card onto a face-up grid card of the same suit
or rank (then draws), discards a stash card to the bottom of the draw pile (then draws), or calls
with two stash cards face down. The others concede or challenge (a challenger takes one extra
turn) and set two stash cards face down too. Each hand is those two cards plus the best fully
face-up line; the unique best hand scores by the seed's table (TTT-R11). The winning line leaves
the grid, the committed cards return to their owners, the grid is refilled face down, and the game
ends when the draw pile cannot refill it (TTT-R15).

Beside this module: `textactoe_poker` (cards, 5-card hand values), `textactoe_grid` (lines, what
goes on what, the best line of a hand) and `textactoe_events` (the events of single moves).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Final, TypeVar

from croupier.v1 import textactoe_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle, rank_by_score
from referee.games.catalog import TEXTACTOE, GameInfo
from referee.games.frozen import evolver
from referee.games.options import Options, OptionSpec
from referee.games.textactoe_events import (
    answered_events,
    called_event,
    commit_detail_event,
    committed_event,
    discarded_events,
    drew_event,
    next_hand_events,
    played_event,
    revealed_events,
)

# The grid's geometry and a hand's value; `X as X` re-exports those defined here until they had
# their own module.
from referee.games.textactoe_grid import CENTRE as CENTRE
from referee.games.textactoe_grid import GRID_SIZE as GRID_SIZE
from referee.games.textactoe_grid import LAYOUTS, MATCHES, best_of_lines, eligible_lines
from referee.games.textactoe_grid import LINES as LINES
from referee.games.textactoe_grid import best_line as best_line
from referee.games.textactoe_grid import hand_points as hand_points
from referee.games.textactoe_grid import matches as matches
from referee.games.textactoe_poker import (
    JOKER_DECK,
    STANDARD_DECK,
    Category,
    HandValue,
    card_text,
    card_texts,
    cards_text,
    category_name,
    describe,
    parse_card,
)

STASH_SIZE: Final = 3
STANDARD_TEXTS: Final = tuple(card_text(card) for card in STANDARD_DECK)
JOKER_TEXTS: Final = tuple(card_text(card) for card in JOKER_DECK)


class Phase(Enum):
    DEAL = "deal"
    FIRST_PLAYER = "first player"
    TURN = "turn"
    RESPOND = "respond"
    EXTRA_TURN = "extra turn"
    COMMIT = "commit"
    OVER = "over"


_PHASE_PROTO: Final = {
    Phase.DEAL: pb.TEXTACTOE_PHASE_UNSPECIFIED,
    Phase.FIRST_PLAYER: pb.TEXTACTOE_PHASE_UNSPECIFIED,
    Phase.TURN: pb.TEXTACTOE_PHASE_TURN,
    Phase.RESPOND: pb.TEXTACTOE_PHASE_RESPOND,
    Phase.EXTRA_TURN: pb.TEXTACTOE_PHASE_EXTRA_TURN,
    Phase.COMMIT: pb.TEXTACTOE_PHASE_COMMIT,
    Phase.OVER: pb.TEXTACTOE_PHASE_OVER,
}


class Response(Enum):
    """A seat's part in the pending call."""

    NONE = 0
    CALLER = 1
    CONCEDED = 2
    CHALLENGED = 3


_RESPONSE_PROTO: Final = {
    Response.NONE: pb.TEXTACTOE_RESPONSE_UNSPECIFIED,
    Response.CALLER: pb.TEXTACTOE_RESPONSE_CALLER,
    Response.CONCEDED: pb.TEXTACTOE_RESPONSE_CONCEDED,
    Response.CHALLENGED: pb.TEXTACTOE_RESPONSE_CHALLENGED,
}


_CATEGORY_PROTO: Final = {
    Category.HIGH_CARD: pb.TEXTACTOE_CATEGORY_HIGH_CARD,
    Category.PAIR: pb.TEXTACTOE_CATEGORY_PAIR,
    Category.TWO_PAIR: pb.TEXTACTOE_CATEGORY_TWO_PAIR,
    Category.THREE_OF_A_KIND: pb.TEXTACTOE_CATEGORY_THREE_OF_A_KIND,
    Category.STRAIGHT: pb.TEXTACTOE_CATEGORY_STRAIGHT,
    Category.FLUSH: pb.TEXTACTOE_CATEGORY_FLUSH,
    Category.FULL_HOUSE: pb.TEXTACTOE_CATEGORY_FULL_HOUSE,
    Category.FOUR_OF_A_KIND: pb.TEXTACTOE_CATEGORY_FOUR_OF_A_KIND,
    Category.STRAIGHT_FLUSH: pb.TEXTACTOE_CATEGORY_STRAIGHT_FLUSH,
    Category.ROYAL_FLUSH: pb.TEXTACTOE_CATEGORY_ROYAL_FLUSH,
}


def category_proto(category: Category) -> pb.TexTacToeCategory:
    return _CATEGORY_PROTO[category]


class Kind(Enum):
    REVEAL = "reveal"
    PLAY = "play"
    DISCARD = "discard"
    CALL = "call"
    CONCEDE = "concede"
    CHALLENGE = "challenge"
    COMMIT = "commit"


@dataclass(frozen=True, slots=True)
class TexTacToeAction:
    """reveal P, play CARD P, discard CARD, call C1 C2, concede, challenge, or commit C1 C2.

    `cards` holds one card (play, discard) or two in canonical (ascending) order (call, commit).
    """

    kind: Kind
    cards: tuple[int, ...] = ()
    position: int = -1

    @property
    def text(self) -> str:
        kind = self.kind
        if kind is Kind.REVEAL:
            return f"reveal {self.position}"
        if kind is Kind.PLAY:
            return f"play {card_text(self.cards[0])} {self.position}"
        if kind is Kind.DISCARD:
            return f"discard {card_text(self.cards[0])}"
        if kind is Kind.CALL or kind is Kind.COMMIT:
            return f"{kind.value} {cards_text(self.cards)}"
        return str(kind.value)

    def to_proto(self) -> pb.TexTacToeAction:
        kind = self.kind
        if kind is Kind.REVEAL:
            return pb.TexTacToeAction(reveal=self.position)
        if kind is Kind.PLAY:
            return pb.TexTacToeAction(
                play=pb.TexTacToePlay(card=card_text(self.cards[0]), position=self.position)
            )
        if kind is Kind.DISCARD:
            return pb.TexTacToeAction(discard=card_text(self.cards[0]))
        if kind is Kind.CALL:
            return pb.TexTacToeAction(call=pb.TexTacToePair(cards=card_texts(self.cards)))
        if kind is Kind.COMMIT:
            return pb.TexTacToeAction(commit=pb.TexTacToePair(cards=card_texts(self.cards)))
        if kind is Kind.CONCEDE:
            return pb.TexTacToeAction(concede=True)
        return pb.TexTacToeAction(challenge=True)


_CARD: Final = r"([2-9TJQKA][CDHS]|X[12])"
_ACTION_RE: Final = re.compile(
    rf"reveal ([0-8])|play {_CARD} ([0-8])|discard {_CARD}|(call|commit) {_CARD} {_CARD}|"
    r"(concede|challenge)"
)


T = TypeVar("T")


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _remove(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _add(cards: tuple[int, ...], *more: int) -> tuple[int, ...]:
    return tuple(sorted((*cards, *more)))


# Every action value built once: legal_actions runs at every decision.
_REVEAL: Final = tuple(TexTacToeAction(Kind.REVEAL, position=p) for p in range(GRID_SIZE))
_PLAY: Final = tuple(
    tuple(TexTacToeAction(Kind.PLAY, (card,), p) for p in range(GRID_SIZE)) for card in JOKER_DECK
)
_DISCARD: Final = tuple(TexTacToeAction(Kind.DISCARD, (card,)) for card in JOKER_DECK)
_CALL: Final = {pair: TexTacToeAction(Kind.CALL, pair) for pair in combinations(JOKER_DECK, 2)}
_COMMIT: Final = {pair: TexTacToeAction(Kind.COMMIT, pair) for pair in combinations(JOKER_DECK, 2)}
_CONCEDE: Final = TexTacToeAction(Kind.CONCEDE)
_CHALLENGE: Final = TexTacToeAction(Kind.CHALLENGE)


# Python 3.11 looks a member up on an Enum class (`Phase.OVER`) about ten times slower than a
# module global, and the states' methods run at every decision: they use these aliases.
_KIND_CALL: Final = Kind.CALL
_KIND_CHALLENGE: Final = Kind.CHALLENGE
_KIND_COMMIT: Final = Kind.COMMIT
_KIND_DISCARD: Final = Kind.DISCARD
_KIND_PLAY: Final = Kind.PLAY
_KIND_REVEAL: Final = Kind.REVEAL
_PHASE_COMMIT: Final = Phase.COMMIT
_PHASE_DEAL: Final = Phase.DEAL
_PHASE_EXTRA_TURN: Final = Phase.EXTRA_TURN
_PHASE_FIRST_PLAYER: Final = Phase.FIRST_PLAYER
_PHASE_OVER: Final = Phase.OVER
_PHASE_RESPOND: Final = Phase.RESPOND
_PHASE_TURN: Final = Phase.TURN
_RESPONSE_CALLER: Final = Response.CALLER
_RESPONSE_CHALLENGED: Final = Response.CHALLENGED
_RESPONSE_CONCEDED: Final = Response.CONCEDED
_RESPONSE_NONE: Final = Response.NONE


@dataclass(frozen=True, slots=True, kw_only=True)
class TexTacToeState:
    """A Tex-Tac-Toe position.

    `grid[p]` is position p's stack, base card first (empty only once the game has ended with the
    position cleared); `face_up[p]` says whether its base card is revealed. `pile` is the draw
    pile, top first (before the first player is picked it holds the whole shuffled deck).
    Stashes and committed cards are ascending tuples per seat.
    """

    players: int = 2
    jokers: bool = False
    max_turns: int = 100
    phase: Phase = Phase.DEAL
    grid: tuple[tuple[int, ...], ...] = ((),) * GRID_SIZE
    face_up: tuple[bool, ...] = (False,) * GRID_SIZE
    stashes: tuple[tuple[int, ...], ...] = ()
    pile: tuple[int, ...] = ()
    removed: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    to_move_seat: int = -1
    starter: int = 0
    hand: int = 0
    turns: int = 0
    caller: int = -1
    responses: tuple[Response, ...] = ()
    committed: tuple[tuple[int, ...], ...] = ()
    events: tuple[Event, ...] = ()

    @property
    def to_move(self) -> int | None:
        return self.to_move_seat if self.to_move_seat >= 0 else None

    def chance(self) -> Shuffle | Pick | None:
        if self.phase is _PHASE_DEAL:
            return Shuffle(JOKER_TEXTS if self.jokers else STANDARD_TEXTS)
        if self.phase is _PHASE_FIRST_PLAYER:
            return Pick(self.players, "first player")  # TTT-R1: the seed's cut
        return None

    def is_terminal(self) -> bool:
        return self.phase is _PHASE_OVER

    # --- legal actions -------------------------------------------------------------------------

    def _may_play_or_discard(self) -> bool:
        """TTT-R3 and TTT-R5: play and discard need a non-empty pile and turns under the cap."""
        return bool(self.pile) and self.turns < self.max_turns

    def _turn_actions(self, seat: int, may_call: bool) -> list[TexTacToeAction]:
        grid = self.grid
        layout = LAYOUTS[self.face_up]
        reveals = _REVEAL
        actions = [reveals[p] for p in layout.down if grid[p]]
        stash = self.stashes[seat]
        if self.pile and self.turns < self.max_turns:  # self._may_play_or_discard(), inlined
            tops = [(p, grid[p][-1]) for p in layout.up]
            for card in stash:
                matching, plays = MATCHES[card], _PLAY[card]
                # TTT-R2: onto any face-up position of the same suit or rank.
                actions += [plays[p] for p, top in tops if matching[top]]
            actions += [_DISCARD[card] for card in stash]
        if may_call and layout.eligible:  # TTT-R6
            calls = _CALL
            actions += [calls[pair] for pair in combinations(stash, 2)]
        return actions

    def _can_take_extra_turn(self) -> bool:
        return self._may_play_or_discard() or any(
            not up and stack for up, stack in zip(self.face_up, self.grid, strict=True)
        )

    def legal_actions(self) -> Sequence[TexTacToeAction]:
        seat = self.to_move_seat
        phase = self.phase
        if phase is _PHASE_TURN:
            return self._turn_actions(seat, may_call=True)
        if phase is _PHASE_EXTRA_TURN:
            return self._turn_actions(seat, may_call=False)  # TTT-R9: no call
        if phase is _PHASE_RESPOND:
            return [_CONCEDE, _CHALLENGE]
        if phase is _PHASE_COMMIT:
            return [_COMMIT[pair] for pair in combinations(self.stashes[seat], 2)]
        return []

    # --- chance --------------------------------------------------------------------------------

    def apply_chance(self, outcome: ChanceOutcome) -> TexTacToeState:
        if self.phase is _PHASE_DEAL:
            assert isinstance(outcome, tuple)
            deck = tuple(_card(text) for text in outcome)
            return _evolve(self, phase=_PHASE_FIRST_PLAYER, pile=deck, events=())
        assert isinstance(outcome, int)
        return self._deal(outcome)

    def _deal(self, first: int) -> TexTacToeState:
        # TTT-R1: cards 1-9 to positions 0..8 face down, then 3 stash cards each, one at a time,
        # from the first player clockwise; the rest is the draw pile; the centre is turned up.
        deck, n = self.pile, self.players
        stash_cards = deck[GRID_SIZE : GRID_SIZE + STASH_SIZE * n]
        stashes = tuple(tuple(sorted(stash_cards[(seat - first) % n :: n])) for seat in range(n))
        centre = deck[CENTRE]
        events = [
            Event(
                f"seat {first} goes first",
                pb.TexTacToeEvent(first_player=pb.TexTacToeFirstPlayer(seat=first)),
            ),
            *(
                Event(
                    f"seat {seat} is dealt {cards_text(stash)}",
                    pb.TexTacToeEvent(dealt=pb.TexTacToeDealt(stash=card_texts(stash))),
                    frozenset({seat}),
                )
                for seat, stash in enumerate(stashes)
            ),
            Event(
                f"position {CENTRE} is turned up: {card_text(centre)}",
                pb.TexTacToeEvent(
                    turned_up=pb.TexTacToeTurnedUp(position=CENTRE, card=card_text(centre))
                ),
            ),
        ]
        return _evolve(
            self,
            phase=_PHASE_TURN,
            grid=tuple((card,) for card in deck[:GRID_SIZE]),
            face_up=tuple(p == CENTRE for p in range(GRID_SIZE)),
            stashes=stashes,
            pile=deck[GRID_SIZE + STASH_SIZE * n :],
            scores=(0,) * n,
            to_move_seat=first,
            starter=first,
            responses=(_RESPONSE_NONE,) * n,
            committed=((),) * n,
            events=tuple(events),
        )

    # --- actions -------------------------------------------------------------------------------

    def apply(self, action: Action) -> TexTacToeState:
        assert isinstance(action, TexTacToeAction)
        kind = action.kind
        if kind is _KIND_REVEAL:
            return self._reveal(action.position)
        if kind is _KIND_PLAY:
            return self._play(action.cards[0], action.position)
        if kind is _KIND_DISCARD:
            return self._discard(action.cards[0])
        if kind is _KIND_CALL:
            return self._call(action.cards)
        if kind is _KIND_COMMIT:
            return self._commit(action.cards)
        return self._respond(kind is _KIND_CHALLENGE)

    def _reveal(self, position: int) -> TexTacToeState:
        seat = self.to_move_seat
        events = revealed_events(seat, position, self.grid[position][0])
        face_up = _set(self.face_up, position, True)
        return self._turn_done(
            seat, events, grid=self.grid, face_up=face_up, stashes=self.stashes, pile=self.pile
        )

    def _draw(
        self, seat: int, stash: tuple[int, ...], pile: tuple[int, ...]
    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], Event]:
        """The stash card is gone (played or discarded): draw the top of `pile` into `stash`.
        Returns the new stashes and pile, and the private draw event."""
        drawn = pile[0]
        return _set(self.stashes, seat, _add(stash, drawn)), pile[1:], drew_event(seat, drawn)

    def _play(self, card: int, position: int) -> TexTacToeState:
        seat = self.to_move_seat
        played = played_event(seat, card, position)
        stashes, pile, drew = self._draw(seat, _remove(self.stashes[seat], card), self.pile)
        grid = _set(self.grid, position, (*self.grid[position], card))
        return self._turn_done(
            seat, (played, drew), grid=grid, face_up=self.face_up, stashes=stashes, pile=pile
        )

    def _discard(self, card: int) -> TexTacToeState:
        seat = self.to_move_seat
        discarded, detail = discarded_events(seat, card)
        # Bottom first, then draw the top (TTT-R3 guarantees a non-empty pile before).
        stash = _remove(self.stashes[seat], card)
        stashes, pile, drew = self._draw(seat, stash, (*self.pile, card))
        events = (discarded, detail, drew)
        return self._turn_done(
            seat, events, grid=self.grid, face_up=self.face_up, stashes=stashes, pile=pile
        )

    def _turn_done(
        self,
        seat: int,
        events: tuple[Event, ...],
        *,
        grid: tuple[tuple[int, ...], ...],
        face_up: tuple[bool, ...],
        stashes: tuple[tuple[int, ...], ...],
        pile: tuple[int, ...],
    ) -> TexTacToeState:
        """A reveal, play or discard is over, leaving this grid, these stashes and this pile: the
        next seat's turn, or the next challenger's."""
        turn = self.phase is _PHASE_TURN
        state = _evolve(
            self,
            grid=grid,
            face_up=face_up,
            stashes=stashes,
            pile=pile,
            to_move_seat=(seat + 1) % self.players if turn else seat,
            turns=self.turns + 1,
            events=events,
        )
        return state if turn else state._next_extra_turn(after=seat)

    def _responders(self) -> list[int]:
        """Every other seat, clockwise from the caller's left (TTT-R17)."""
        return [(self.caller + k) % self.players for k in range(1, self.players)]

    def _call(self, pair: tuple[int, ...]) -> TexTacToeState:
        seat = self.to_move_seat
        events = (called_event(seat), commit_detail_event(seat, pair))
        return _evolve(
            self,
            phase=_PHASE_RESPOND,
            caller=seat,
            responses=_set(self.responses, seat, _RESPONSE_CALLER),
            committed=_set(self.committed, seat, pair),
            stashes=_set(
                self.stashes, seat, _remove(_remove(self.stashes[seat], pair[0]), pair[1])
            ),
            to_move_seat=(seat + 1) % self.players,
            events=events,
        )

    def _respond(self, challenge: bool) -> TexTacToeState:
        seat = self.to_move_seat
        response = _RESPONSE_CHALLENGED if challenge else _RESPONSE_CONCEDED
        responses = _set(self.responses, seat, response)
        events = answered_events(seat, challenge)
        after = (seat + 1) % self.players
        if after != self.caller:
            return _evolve(self, responses=responses, events=events, to_move_seat=after)
        # TTT-R17: every seat has answered; the challengers' extra turns come first, in order.
        state = _evolve(self, phase=_PHASE_EXTRA_TURN, responses=responses, events=events)
        return state._next_extra_turn(after=self.caller)

    def _next_extra_turn(self, after: int) -> TexTacToeState:
        """The next challenger clockwise after seat `after` takes its extra turn; one with no legal
        action is skipped (TTT-R9). After the last one, the responders commit."""
        events = list(self.events)
        order = self._responders()
        start = 0 if after == self.caller else order.index(after) + 1
        for seat in order[start:]:
            if self.responses[seat] is not _RESPONSE_CHALLENGED:
                continue
            if self._can_take_extra_turn():
                return _evolve(
                    self, phase=_PHASE_EXTRA_TURN, to_move_seat=seat, events=tuple(events)
                )
            events.append(
                Event(
                    f"seat {seat} has no legal extra turn: skipped",
                    pb.TexTacToeEvent(extra_turn_skipped=pb.TexTacToeExtraTurnSkipped(seat=seat)),
                )
            )
        return _evolve(self, phase=_PHASE_COMMIT, to_move_seat=order[0], events=tuple(events))

    def _commit(self, pair: tuple[int, ...]) -> TexTacToeState:
        seat = self.to_move_seat
        after = (seat + 1) % self.players
        state = _evolve(
            self,
            committed=_set(self.committed, seat, pair),
            stashes=_set(
                self.stashes, seat, _remove(_remove(self.stashes[seat], pair[0]), pair[1])
            ),
            to_move_seat=after if after != self.caller else seat,
            events=(committed_event(seat), commit_detail_event(seat, pair)),
        )
        return state if after != self.caller else state._showdown()

    # --- showdown ------------------------------------------------------------------------------

    def _showdown(self) -> TexTacToeState:
        """Every seat has committed: the hands are shown and scored, the winner's line (the
        caller's on a tie) leaves the grid, and the next hand begins or the game ends."""
        # TTT-R7: only a line of three face-up positions counts.
        shown = tuple(
            stack if up else () for stack, up in zip(self.grid, self.face_up, strict=True)
        )
        lines = eligible_lines(shown)
        best = self._best_hands(lines)
        scores, cleared_by, scored = self._score_hand(best)
        events = [*self.events, self._showdown_event(best, dict(lines)), scored]
        return self._clear_line(best[cleared_by][0], cleared_by, scores, events)

    def _clear_line(
        self, line: int, cleared_by: int, scores: tuple[int, ...], events: list[Event]
    ) -> TexTacToeState:
        """After the showdown's `events`, `line` leaves the grid and the committed cards go home;
        the grid is refilled for the next hand, which the seat left of `cleared_by` starts, unless
        the pile is too short and the game is over."""
        # TTT-R13: the winning line's stacks leave the grid, every card beneath the tops too.
        positions = LINES[line]
        cleared = tuple(card for p in positions for card in self.grid[p])
        events.append(_cleared_event(line, cleared))
        # TTT-R14: the committed cards return to their owners' stashes.
        stashes = tuple(
            _add(stash, *pair) for stash, pair in zip(self.stashes, self.committed, strict=True)
        )
        face_up = tuple(up and p not in positions for p, up in enumerate(self.face_up))
        pile = self.pile
        over = len(pile) < len(positions)
        if over:
            # TTT-R15, TTT-R16: the pile cannot refill the grid; the game is over.
            events.append(_game_ended_event(len(pile), scores))
            grid = tuple(() if p in positions else stack for p, stack in enumerate(self.grid))
            starter = self.starter
        else:
            # TTT-R15: refill in ascending position order from the top of the pile, face down.
            refill = dict(zip(positions, pile, strict=False))
            grid = tuple(
                (refill[p],) if p in refill else stack for p, stack in enumerate(self.grid)
            )
            pile = pile[len(positions) :]
            # TTT-R17: left of the winner (the loser, with two players), left of the caller on a
            # tie.
            starter = (cleared_by + 1) % self.players
            events += next_hand_events(line, len(pile), self.hand + 1, starter)
        n = self.players
        return _evolve(
            self,
            phase=_PHASE_OVER if over else _PHASE_TURN,
            grid=grid,
            face_up=face_up,
            stashes=stashes,
            pile=pile,
            removed=(*self.removed, *cleared),
            scores=scores,
            to_move_seat=-1 if over else starter,
            starter=starter,
            hand=self.hand + 1,
            turns=0,
            caller=-1,
            responses=(_RESPONSE_NONE,) * n,
            committed=((),) * n,
            events=tuple(events),
        )

    def _best_hands(
        self, lines: list[tuple[int, tuple[int, ...]]]
    ) -> dict[int, tuple[int, HandValue]]:
        """Each seat's best of `lines` and its hand value (TTT-R10), the caller's first, then
        clockwise."""
        n, caller = self.players, self.caller
        return {
            seat: best_of_lines(self.committed[seat], lines)
            for seat in ((caller + k) % n for k in range(n))
        }

    def _score_hand(
        self, best: dict[int, tuple[int, HandValue]]
    ) -> tuple[tuple[int, ...], int, Event]:
        """The scores after the hand, the seat whose line is cleared, and the event that says so.

        The unique best hand scores (TTT-R11), double for the caller if anyone challenged
        (TTT-R17); a tie scores nothing and clears the caller's line (TTT-R12, TTT-R17).
        """
        top = max(value for _, value in best.values())
        winners = [seat for seat, (_, value) in best.items() if value == top]
        scores = self.scores
        if len(winners) > 1:
            return scores, self.caller, _tie_event(winners, top[0], scores)
        winner = winners[0]
        challenged = _RESPONSE_CHALLENGED in self.responses
        points = hand_points(top[0], challenged, winner == self.caller)
        scores = _set(scores, winner, scores[winner] + points)
        doubled = challenged and winner == self.caller
        return (
            scores,
            winner,
            _won_event(winner, points=points, category=top[0], doubled=doubled, scores=scores),
        )

    def _showdown_event(
        self, best: dict[int, tuple[int, HandValue]], line_tops: dict[int, tuple[int, ...]]
    ) -> Event:
        """Every seat's committed cards, its best line with the line's top cards, and the hand."""
        hands = []
        texts = []
        for seat, (number, value) in best.items():
            committed, tops = self.committed[seat], line_tops[number]
            hands.append(
                pb.TexTacToeShowdownHand(
                    seat=seat,
                    committed=card_texts(committed),
                    line=number,
                    positions=LINES[number],
                    line_cards=card_texts(tops),
                    category=category_proto(value[0]),
                    tiebreak=value[1],
                )
            )
            texts.append(
                f"seat {seat} {cards_text(committed)} + line {number} "
                f"({cards_text(tops)}): {describe(value)}"
            )
        return Event(
            f"showdown: {'; '.join(texts)}",
            pb.TexTacToeEvent(showdown=pb.TexTacToeShowdown(hands=hands)),
        )

    # --- views ---------------------------------------------------------------------------------

    def observation(self, seat: int) -> pb.TexTacToeObservation:
        dealt = bool(self.scores)
        observation = pb.TexTacToeObservation(
            seat=seat,
            players=self.players,
            phase=_PHASE_PROTO[self.phase],
            to_move=max(self.to_move_seat, 0),
            stash=card_texts(self.stashes[seat]) if dealt else (),
            draw_pile_size=len(self.pile) if dealt else 0,
            call_made=self.caller >= 0,
            caller=self.caller if self.caller >= 0 else None,
            responses=[_RESPONSE_PROTO[r] for r in self.responses],
            committed=card_texts(self.committed[seat]) if dealt else (),
            has_committed=[bool(pair) for pair in self.committed],
            scores=self.scores,
            hand=self.hand,
            starter=self.starter,
            turns=self.turns,
            max_turns_per_hand=self.max_turns,
            jokers=self.jokers,
        )
        # The grid and the removed cards from their cached encodings (see _grid_entry).
        down = _FACE_DOWN
        entries = [
            _grid_entry(stack) if up else down[not stack]
            for stack, up in zip(self.grid, self.face_up, strict=True)
        ]
        entries.append(_removed_entry(self.removed))
        observation.MergeFromString(b"".join(entries))
        return observation

    def result(self) -> Result:
        scores = self.scores
        ranks = rank_by_score(scores)
        board = "-".join(map(str, scores))
        leaders = [seat for seat, rank in enumerate(ranks) if rank == 1]
        if len(leaders) == 1:
            text = f"seat {leaders[0]} wins {board}"
        else:  # TTT-R16: equal points draw
            text = f"{' and '.join(f'seat {seat}' for seat in leaders)} draw {board}"
        return Result(scores=scores, ranks=ranks, text=text)


# An observation's grid costs more to build than the rest of it: nine small messages, each with
# the texts of its stack. Each position is encoded once per stack instead (as a one-position
# TexTacToeObservation), and an observation merges the nine encodings with one parse (protobuf
# parses concatenated encodings as the merge of the messages; the values are the same).


@lru_cache(maxsize=4096)
def _grid_entry(stack: tuple[int, ...]) -> bytes:
    """The encoding of a face-up position holding `stack`, base card first."""
    position = pb.TexTacToePosition(face_up=True, stack=card_texts(stack), empty=not stack)
    return pb.TexTacToeObservation(grid=[position]).SerializeToString()


#: The encodings of a face-down position, by whether its stack is empty (the game's end only).
_FACE_DOWN: Final = tuple(
    pb.TexTacToeObservation(grid=[pb.TexTacToePosition(empty=empty)]).SerializeToString()
    for empty in (False, True)
)


@lru_cache(maxsize=256)
def _removed_entry(removed: tuple[int, ...]) -> bytes:
    """The encoding of the removed cards (they change once per hand)."""
    return pb.TexTacToeObservation(removed=card_texts(removed)).SerializeToString()


# A showdown's events depend on the whole table: built each time (the others are cached, see
# textactoe_events).


def _won_event(
    winner: int, *, points: int, category: Category, doubled: bool, scores: tuple[int, ...]
) -> Event:
    return Event(
        f"seat {winner} wins the hand with {category_name(category)} for {points} "
        f"points{' (doubled)' if doubled else ''} "
        f"(scores {'-'.join(map(str, scores))})",
        pb.TexTacToeEvent(
            hand_scored=pb.TexTacToeHandScored(
                seat=winner,
                points=points,
                category=category_proto(category),
                doubled=doubled,
                scores=scores,
            )
        ),
    )


def _tie_event(winners: list[int], category: Category, scores: tuple[int, ...]) -> Event:
    tied = " and ".join(f"seat {seat}" for seat in sorted(winners))
    return Event(
        f"{tied} tie with {category_name(category)}: nobody scores",
        pb.TexTacToeEvent(
            hand_scored=pb.TexTacToeHandScored(
                tie=True, category=category_proto(category), scores=scores
            )
        ),
    )


def _cleared_event(line: int, cleared: tuple[int, ...]) -> Event:
    positions = LINES[line]
    return Event(
        f"line {line} (positions {' '.join(map(str, positions))}) is cleared: "
        f"{cards_text(cleared)}",
        pb.TexTacToeEvent(
            line_cleared=pb.TexTacToeLineCleared(
                line=line, positions=positions, cards=card_texts(cleared)
            )
        ),
    )


def _game_ended_event(pile_size: int, scores: tuple[int, ...]) -> Event:
    return Event(
        f"the game ends: the draw pile has {pile_size} cards (scores {'-'.join(map(str, scores))})",
        pb.TexTacToeEvent(
            game_ended=pb.TexTacToeGameEnded(draw_pile_size=pile_size, scores=scores)
        ),
    )


# Transitions copy a state with their changes, fast (see referee/games/frozen.py).
if TYPE_CHECKING:
    from dataclasses import replace as _evolve
else:
    _evolve = evolver(TexTacToeState)


@dataclass(frozen=True, slots=True)
class TexTacToe:
    """The Tex-Tac-Toe game: options players (2..6), jokers, max_turns_per_hand."""

    id: str = TEXTACTOE.id
    info: GameInfo = TEXTACTOE
    title: str = TEXTACTOE.title
    rules_version: str = TEXTACTOE.rules_version
    option_specs: tuple[OptionSpec, ...] = TEXTACTOE.option_specs

    def seat_count(self, options: Options) -> int:
        return options.integer("players")

    def new_game(self, options: Options) -> TexTacToeState:
        return TexTacToeState(
            players=options.integer("players"),
            jokers=bool(options["jokers"]),
            max_turns=options.integer("max_turns_per_hand"),
        )

    def parse_action(self, text: str) -> TexTacToeAction:
        match = _ACTION_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidActionError(
                f"malformed Tex-Tac-Toe action {text!r}: expected 'reveal POSITION', "
                "'play CARD POSITION', 'discard CARD', 'call CARD CARD', 'concede', "
                "'challenge' or 'commit CARD CARD'"
            )
        groups = match.groups()
        if groups[0] is not None:
            return TexTacToeAction(Kind.REVEAL, position=int(groups[0]))
        if groups[1] is not None:
            return TexTacToeAction(Kind.PLAY, (_card(groups[1]),), int(groups[2]))
        if groups[3] is not None:
            return TexTacToeAction(Kind.DISCARD, (_card(groups[3]),))
        if groups[4] is not None:
            first, second = _card(groups[5]), _card(groups[6])
            if first == second:
                raise InvalidActionError(
                    f"malformed Tex-Tac-Toe action {text!r}: the two cards must differ"
                )
            return TexTacToeAction(Kind(groups[4]), (min(first, second), max(first, second)))
        return TexTacToeAction(Kind(groups[7]))


def _card(text: str) -> int:
    card = parse_card(text)
    assert card is not None  # the pattern only admits card texts
    return card
