"""Tex-Tac-Toe, 2 to 6 players (RULES.md section 4, rulings TTT-R1..TTT-R19; no betting, TTT-R18).

Nine cards lie in a 3x3 grid, face down but for the centre; each player holds a 3-card stash. On
a turn a player reveals a grid card, plays a stash card onto a face-up grid card of the same suit
or rank (then draws), discards a stash card to the bottom of the draw pile (then draws), or calls
with two stash cards face down. The others concede or challenge (a challenger takes one extra
turn) and set two stash cards face down too. Each hand is those two cards plus the best fully
face-up line; the unique best hand scores by the seed's table (TTT-R11). The winning line leaves
the grid, the committed cards return to their owners, the grid is refilled face down, and the game
ends when the draw pile cannot refill it (TTT-R15).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from itertools import combinations
from typing import Any, Final, TypeVar

from croupier.v1 import textactoe_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle, rank_by_score
from referee.games.options import Options, OptionSpec
from referee.games.textactoe_poker import (
    JOKER_DECK,
    POINTS,
    STANDARD_DECK,
    Category,
    HandValue,
    card_text,
    cards_text,
    category_name,
    describe,
    evaluate,
    parse_card,
)

RULES_VERSION: Final = "textactoe-1"
GRID_SIZE: Final = 9
CENTRE: Final = 4
STASH_SIZE: Final = 3
#: Rows, columns, diagonals: the line numbers 0..7 used in the protocol (RULES.md 4.1).
LINES: Final = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
    (0, 4, 8),
    (2, 4, 6),
)
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
            return pb.TexTacToeAction(call=pb.TexTacToePair(cards=_texts(self.cards)))
        if kind is Kind.COMMIT:
            return pb.TexTacToeAction(commit=pb.TexTacToePair(cards=_texts(self.cards)))
        if kind is Kind.CONCEDE:
            return pb.TexTacToeAction(concede=True)
        return pb.TexTacToeAction(challenge=True)


_CARD: Final = r"([2-9TJQKA][CDHS]|X[12])"
_ACTION_RE: Final = re.compile(
    rf"reveal ([0-8])|play {_CARD} ([0-8])|discard {_CARD}|(call|commit) {_CARD} {_CARD}|"
    r"(concede|challenge)"
)


def _texts(cards: Sequence[int]) -> list[str]:
    return [card_text(card) for card in cards]


T = TypeVar("T")


def _set(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _remove(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    return tuple(c for c in cards if c != card)


def _add(cards: tuple[int, ...], *more: int) -> tuple[int, ...]:
    return tuple(sorted((*cards, *more)))


def matches(card: int, top: int) -> bool:
    """May `card` be played onto a face-up position whose top card is `top` (TTT-R2, TTT-R4)?"""
    if card >= 52 or top >= 52:
        return True  # TTT-R4: a joker goes on anything and anything goes on a joker
    return (card & 3) == (top & 3) or (card >> 2) == (top >> 2)


# Every action value built once: legal_actions runs at every decision.
_MATCHES: Final = tuple(tuple(matches(card, top) for top in JOKER_DECK) for card in JOKER_DECK)
_REVEAL: Final = tuple(TexTacToeAction(Kind.REVEAL, position=p) for p in range(GRID_SIZE))
_PLAY: Final = tuple(
    tuple(TexTacToeAction(Kind.PLAY, (card,), p) for p in range(GRID_SIZE)) for card in JOKER_DECK
)
_DISCARD: Final = tuple(TexTacToeAction(Kind.DISCARD, (card,)) for card in JOKER_DECK)
_CALL: Final = {pair: TexTacToeAction(Kind.CALL, pair) for pair in combinations(JOKER_DECK, 2)}
_COMMIT: Final = {pair: TexTacToeAction(Kind.COMMIT, pair) for pair in combinations(JOKER_DECK, 2)}
_CONCEDE: Final = TexTacToeAction(Kind.CONCEDE)
_CHALLENGE: Final = TexTacToeAction(Kind.CHALLENGE)


def best_line(committed: Sequence[int], grid: Sequence[tuple[int, ...]]) -> tuple[int, HandValue]:
    """The best eligible line for two committed cards and its hand value (TTT-R10).

    `grid` holds the stacks of face-up positions and () for the others (a line is eligible only
    when all three positions are face up, TTT-R7). Among lines of equal value the lowest-numbered
    line is chosen (a gap in the rules: it only decides which line a win clears).
    """
    best: tuple[int, HandValue] | None = None
    for number, line in enumerate(LINES):
        stacks = [grid[p] for p in line]
        if not all(stacks):
            continue
        value = evaluate((*committed, *(stack[-1] for stack in stacks)))
        if best is None or value > best[1]:
            best = (number, value)
    assert best is not None, "a showdown needs an eligible line"
    return best


def hand_points(category: Category, challenged: bool, caller_won: bool) -> int:
    """The winner's points (TTT-R11, TTT-R17): high card is 1 once anyone challenged, and the
    caller's win is doubled if anyone challenged."""
    points = POINTS[category]
    if challenged:
        points = max(points, 1)
        if caller_won:
            points *= 2
    return points


@dataclass(frozen=True, slots=True)
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
        if self.phase is Phase.DEAL:
            return Shuffle(JOKER_TEXTS if self.jokers else STANDARD_TEXTS)
        if self.phase is Phase.FIRST_PLAYER:
            return Pick(self.players, "first player")  # TTT-R1: the seed's cut
        return None

    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    # --- legal actions -------------------------------------------------------------------------

    def _may_play_or_discard(self) -> bool:
        """TTT-R3 and TTT-R5: play and discard need a non-empty pile and turns under the cap."""
        return bool(self.pile) and self.turns < self.max_turns

    def _turn_actions(self, seat: int, may_call: bool) -> list[TexTacToeAction]:
        grid, face_up = self.grid, self.face_up
        actions = [_REVEAL[p] for p in range(GRID_SIZE) if not face_up[p] and grid[p]]
        stash = self.stashes[seat]
        if self._may_play_or_discard():
            tops = [(p, stack[-1]) for p, stack in enumerate(grid) if face_up[p]]
            for card in stash:
                matching, plays = _MATCHES[card], _PLAY[card]
                # TTT-R2: onto any face-up position of the same suit or rank.
                actions += [plays[p] for p, top in tops if matching[top]]
            actions += [_DISCARD[card] for card in stash]
        if may_call and self._has_eligible_line():  # TTT-R6
            actions += [_CALL[pair] for pair in combinations(stash, 2)]
        return actions

    def _has_eligible_line(self) -> bool:
        up = self.face_up
        return any(up[a] and up[b] and up[c] for a, b, c in LINES)

    def _can_take_extra_turn(self) -> bool:
        return self._may_play_or_discard() or any(
            not up and stack for up, stack in zip(self.face_up, self.grid, strict=True)
        )

    def legal_actions(self) -> Sequence[TexTacToeAction]:
        seat = self.to_move_seat
        phase = self.phase
        if phase is Phase.TURN:
            return self._turn_actions(seat, may_call=True)
        if phase is Phase.EXTRA_TURN:
            return self._turn_actions(seat, may_call=False)  # TTT-R9: no call
        if phase is Phase.RESPOND:
            return [_CONCEDE, _CHALLENGE]
        if phase is Phase.COMMIT:
            return [_COMMIT[pair] for pair in combinations(self.stashes[seat], 2)]
        return []

    # --- chance --------------------------------------------------------------------------------

    def apply_chance(self, outcome: ChanceOutcome) -> TexTacToeState:
        if self.phase is Phase.DEAL:
            assert isinstance(outcome, tuple)
            deck = tuple(_card(text) for text in outcome)
            return replace(self, phase=Phase.FIRST_PLAYER, pile=deck, events=())
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
                    pb.TexTacToeEvent(dealt=pb.TexTacToeDealt(stash=_texts(stash))),
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
        return replace(
            self,
            phase=Phase.TURN,
            grid=tuple((card,) for card in deck[:GRID_SIZE]),
            face_up=tuple(p == CENTRE for p in range(GRID_SIZE)),
            stashes=stashes,
            pile=deck[GRID_SIZE + STASH_SIZE * n :],
            scores=(0,) * n,
            to_move_seat=first,
            starter=first,
            responses=(Response.NONE,) * n,
            committed=((),) * n,
            events=tuple(events),
        )

    # --- actions -------------------------------------------------------------------------------

    def apply(self, action: Action) -> TexTacToeState:
        assert isinstance(action, TexTacToeAction)
        kind = action.kind
        if kind is Kind.REVEAL:
            return self._reveal(action.position)
        if kind is Kind.PLAY:
            return self._play(action.cards[0], action.position)
        if kind is Kind.DISCARD:
            return self._discard(action.cards[0])
        if kind is Kind.CALL:
            return self._call(action.cards)
        if kind is Kind.COMMIT:
            return self._commit(action.cards)
        return self._respond(kind is Kind.CHALLENGE)

    def _reveal(self, position: int) -> TexTacToeState:
        seat = self.to_move_seat
        card = card_text(self.grid[position][0])
        event = Event(
            f"seat {seat} reveals position {position}: {card}",
            pb.TexTacToeEvent(
                revealed=pb.TexTacToeRevealed(seat=seat, position=position, card=card)
            ),
        )
        return self._turn_done(seat, (event,), face_up=_set(self.face_up, position, True))

    def _draw(
        self, seat: int, stash: tuple[int, ...], pile: tuple[int, ...]
    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], Event]:
        """The stash card is gone (played or discarded): draw the top of `pile` into `stash`.
        Returns the new stashes and pile, and the private draw event."""
        drawn = pile[0]
        event = Event(
            f"seat {seat} draws {card_text(drawn)}",
            pb.TexTacToeEvent(drew=pb.TexTacToeDrew(seat=seat, card=card_text(drawn))),
            frozenset({seat}),
        )
        return _set(self.stashes, seat, _add(stash, drawn)), pile[1:], event

    def _play(self, card: int, position: int) -> TexTacToeState:
        seat = self.to_move_seat
        played = Event(
            f"seat {seat} plays {card_text(card)} on position {position}",
            pb.TexTacToeEvent(
                played=pb.TexTacToePlayed(seat=seat, card=card_text(card), position=position)
            ),
        )
        stashes, pile, drew = self._draw(seat, _remove(self.stashes[seat], card), self.pile)
        grid = _set(self.grid, position, (*self.grid[position], card))
        return self._turn_done(seat, (played, drew), grid=grid, stashes=stashes, pile=pile)

    def _discard(self, card: int) -> TexTacToeState:
        seat = self.to_move_seat
        discarded = Event(
            f"seat {seat} discards a card to the bottom of the draw pile",
            pb.TexTacToeEvent(discarded=pb.TexTacToeDiscarded(seat=seat)),
        )
        # TTT-R19: the discard goes face down; only the discarder knows the card.
        detail = Event(
            f"seat {seat} discards {card_text(card)}",
            pb.TexTacToeEvent(discard_detail=pb.TexTacToeDiscardDetail(card=card_text(card))),
            frozenset({seat}),
        )
        # Bottom first, then draw the top (TTT-R3 guarantees a non-empty pile before).
        stash = _remove(self.stashes[seat], card)
        stashes, pile, drew = self._draw(seat, stash, (*self.pile, card))
        return self._turn_done(seat, (discarded, detail, drew), stashes=stashes, pile=pile)

    def _turn_done(self, seat: int, events: tuple[Event, ...], **changes: Any) -> TexTacToeState:
        """A reveal, play or discard is over (with these changes to the state): the next seat's
        turn, or the next challenger's."""
        if self.phase is Phase.TURN:
            return replace(
                self,
                turns=self.turns + 1,
                events=events,
                to_move_seat=(seat + 1) % self.players,
                **changes,
            )
        state = replace(self, turns=self.turns + 1, events=events, **changes)
        return state._next_extra_turn(after=seat)

    def _responders(self) -> list[int]:
        """Every other seat, clockwise from the caller's left (TTT-R17)."""
        return [(self.caller + k) % self.players for k in range(1, self.players)]

    def _call(self, pair: tuple[int, ...]) -> TexTacToeState:
        seat = self.to_move_seat
        events = (
            Event(f"seat {seat} calls", pb.TexTacToeEvent(called=pb.TexTacToeCalled(seat=seat))),
            _commit_detail(seat, pair),
        )
        return replace(
            self,
            phase=Phase.RESPOND,
            caller=seat,
            responses=_set(self.responses, seat, Response.CALLER),
            committed=_set(self.committed, seat, pair),
            stashes=_set(
                self.stashes, seat, _remove(_remove(self.stashes[seat], pair[0]), pair[1])
            ),
            to_move_seat=(seat + 1) % self.players,
            events=events,
        )

    def _respond(self, challenge: bool) -> TexTacToeState:
        seat = self.to_move_seat
        if challenge:
            event = Event(
                f"seat {seat} challenges",
                pb.TexTacToeEvent(challenged=pb.TexTacToeChallenged(seat=seat)),
            )
        else:
            event = Event(
                f"seat {seat} concedes",
                pb.TexTacToeEvent(conceded=pb.TexTacToeConceded(seat=seat)),
            )
        response = Response.CHALLENGED if challenge else Response.CONCEDED
        state = replace(self, responses=_set(self.responses, seat, response), events=(event,))
        after = (seat + 1) % self.players
        if after != self.caller:
            return replace(state, to_move_seat=after)
        # TTT-R17: every seat has answered; the challengers' extra turns come first, in order.
        return replace(state, phase=Phase.EXTRA_TURN)._next_extra_turn(after=self.caller)

    def _next_extra_turn(self, after: int) -> TexTacToeState:
        """The next challenger clockwise after seat `after` takes its extra turn; one with no legal
        action is skipped (TTT-R9). After the last one, the responders commit."""
        events = list(self.events)
        order = self._responders()
        start = 0 if after == self.caller else order.index(after) + 1
        for seat in order[start:]:
            if self.responses[seat] is not Response.CHALLENGED:
                continue
            if self._can_take_extra_turn():
                return replace(
                    self, phase=Phase.EXTRA_TURN, to_move_seat=seat, events=tuple(events)
                )
            events.append(
                Event(
                    f"seat {seat} has no legal extra turn: skipped",
                    pb.TexTacToeEvent(extra_turn_skipped=pb.TexTacToeExtraTurnSkipped(seat=seat)),
                )
            )
        return replace(self, phase=Phase.COMMIT, to_move_seat=order[0], events=tuple(events))

    def _commit(self, pair: tuple[int, ...]) -> TexTacToeState:
        seat = self.to_move_seat
        events = (
            Event(
                f"seat {seat} sets two cards face down",
                pb.TexTacToeEvent(committed=pb.TexTacToeCommitted(seat=seat)),
            ),
            _commit_detail(seat, pair),
        )
        state = replace(
            self,
            committed=_set(self.committed, seat, pair),
            stashes=_set(
                self.stashes, seat, _remove(_remove(self.stashes[seat], pair[0]), pair[1])
            ),
            events=events,
        )
        after = (seat + 1) % self.players
        if after != self.caller:
            return replace(state, to_move_seat=after)
        return state._showdown()

    # --- showdown ------------------------------------------------------------------------------

    def _showdown(self) -> TexTacToeState:
        n, caller = self.players, self.caller
        grid = tuple(stack if up else () for stack, up in zip(self.grid, self.face_up, strict=True))
        order = [(caller + k) % n for k in range(n)]
        best = {seat: best_line(self.committed[seat], grid) for seat in order}  # TTT-R10
        hands = [
            pb.TexTacToeShowdownHand(
                seat=seat,
                committed=_texts(self.committed[seat]),
                line=best[seat][0],
                positions=LINES[best[seat][0]],
                line_cards=[card_text(grid[p][-1]) for p in LINES[best[seat][0]]],
                category=category_proto(best[seat][1][0]),
                tiebreak=best[seat][1][1],
            )
            for seat in order
        ]
        text = "; ".join(
            f"seat {seat} {cards_text(self.committed[seat])} + line {best[seat][0]} "
            f"({cards_text(grid[p][-1] for p in LINES[best[seat][0]])}): {describe(best[seat][1])}"
            for seat in order
        )
        events = [
            *self.events,
            Event(
                f"showdown: {text}",
                pb.TexTacToeEvent(showdown=pb.TexTacToeShowdown(hands=hands)),
            ),
        ]
        top = max(value for _, value in best.values())
        winners = [seat for seat in order if best[seat][1] == top]
        challenged = Response.CHALLENGED in self.responses
        scores = self.scores
        if len(winners) == 1:
            winner = winners[0]
            points = hand_points(top[0], challenged, winner == caller)  # TTT-R11, TTT-R17
            scores = _set(scores, winner, scores[winner] + points)
            doubled = challenged and winner == caller
            events.append(
                Event(
                    f"seat {winner} wins the hand with {category_name(top[0])} for {points} "
                    f"points{' (doubled)' if doubled else ''} "
                    f"(scores {'-'.join(map(str, scores))})",
                    pb.TexTacToeEvent(
                        hand_scored=pb.TexTacToeHandScored(
                            seat=winner,
                            points=points,
                            category=category_proto(top[0]),
                            doubled=doubled,
                            scores=scores,
                        )
                    ),
                )
            )
            cleared_by = winner
        else:
            # TTT-R12, TTT-R17: a tie scores nothing and clears the caller's line.
            tied = " and ".join(f"seat {seat}" for seat in sorted(winners))
            events.append(
                Event(
                    f"{tied} tie with {category_name(top[0])}: nobody scores",
                    pb.TexTacToeEvent(
                        hand_scored=pb.TexTacToeHandScored(
                            tie=True, category=category_proto(top[0]), scores=scores
                        )
                    ),
                )
            )
            cleared_by = caller
        # TTT-R13: the winning line's stacks leave the grid, every card beneath the tops too.
        line = best[cleared_by][0]
        positions = LINES[line]
        cleared = tuple(card for p in positions for card in self.grid[p])
        events.append(
            Event(
                f"line {line} (positions {' '.join(map(str, positions))}) is cleared: "
                f"{cards_text(cleared)}",
                pb.TexTacToeEvent(
                    line_cleared=pb.TexTacToeLineCleared(
                        line=line, positions=positions, cards=_texts(cleared)
                    )
                ),
            )
        )
        # TTT-R14: the committed cards return to their owners' stashes.
        stashes = tuple(
            _add(stash, *pair) for stash, pair in zip(self.stashes, self.committed, strict=True)
        )
        grid_left = tuple(() if p in positions else self.grid[p] for p in range(GRID_SIZE))
        face_up = tuple(up and p not in positions for p, up in enumerate(self.face_up))
        ended = replace(
            self,
            grid=grid_left,
            face_up=face_up,
            stashes=stashes,
            removed=(*self.removed, *cleared),
            scores=scores,
            hand=self.hand + 1,
            turns=0,
            caller=-1,
            responses=(Response.NONE,) * n,
            committed=((),) * n,
        )
        if len(self.pile) < len(positions):
            # TTT-R15, TTT-R16: the pile cannot refill the grid; the game is over.
            events.append(
                Event(
                    f"the game ends: the draw pile has {len(self.pile)} cards "
                    f"(scores {'-'.join(map(str, scores))})",
                    pb.TexTacToeEvent(
                        game_ended=pb.TexTacToeGameEnded(
                            draw_pile_size=len(self.pile), scores=scores
                        )
                    ),
                )
            )
            return replace(ended, phase=Phase.OVER, to_move_seat=-1, events=tuple(events))
        # TTT-R15: refill in ascending position order from the top of the pile, face down.
        refill = dict(zip(positions, self.pile, strict=False))
        grid_new = tuple(
            (refill[p],) if p in refill else stack for p, stack in enumerate(grid_left)
        )
        pile = self.pile[len(positions) :]
        # TTT-R17: left of the winner (the loser, with two players), left of the caller on a tie.
        starter = (cleared_by + 1) % n
        events += [
            Event(
                f"positions {' '.join(map(str, positions))} are refilled face down "
                f"(draw pile {len(pile)})",
                pb.TexTacToeEvent(
                    refilled=pb.TexTacToeRefilled(positions=positions, draw_pile_size=len(pile))
                ),
            ),
            Event(
                f"hand {ended.hand + 1} begins: seat {starter} starts",
                pb.TexTacToeEvent(
                    hand_started=pb.TexTacToeHandStarted(hand=ended.hand, starter=starter)
                ),
            ),
        ]
        return replace(
            ended,
            phase=Phase.TURN,
            grid=grid_new,
            pile=pile,
            starter=starter,
            to_move_seat=starter,
            events=tuple(events),
        )

    # --- views ---------------------------------------------------------------------------------

    def observation(self, seat: int) -> pb.TexTacToeObservation:
        grid = [
            pb.TexTacToePosition(face_up=up, stack=_texts(stack) if up else (), empty=not stack)
            for stack, up in zip(self.grid, self.face_up, strict=True)
        ]
        dealt = bool(self.scores)
        return pb.TexTacToeObservation(
            seat=seat,
            players=self.players,
            phase=_PHASE_PROTO[self.phase],
            to_move=max(self.to_move_seat, 0),
            grid=grid,
            stash=_texts(self.stashes[seat]) if dealt else (),
            draw_pile_size=len(self.pile) if dealt else 0,
            call_made=self.caller >= 0,
            caller=self.caller if self.caller >= 0 else None,
            responses=[_RESPONSE_PROTO[r] for r in self.responses],
            committed=_texts(self.committed[seat]) if dealt else (),
            has_committed=[bool(pair) for pair in self.committed],
            scores=self.scores,
            hand=self.hand,
            starter=self.starter,
            turns=self.turns,
            max_turns_per_hand=self.max_turns,
            jokers=self.jokers,
            removed=_texts(self.removed),
        )

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


def _commit_detail(seat: int, pair: tuple[int, ...]) -> Event:
    return Event(
        f"seat {seat} sets {cards_text(pair)} face down",
        pb.TexTacToeEvent(commit_detail=pb.TexTacToeCommitDetail(cards=_texts(pair))),
        frozenset({seat}),
    )


@dataclass(frozen=True, slots=True)
class TexTacToe:
    """The Tex-Tac-Toe game: options players (2..6), jokers, max_turns_per_hand."""

    id: str = "textactoe"
    title: str = "Tex-Tac-Toe"
    rules_version: str = RULES_VERSION
    option_specs: tuple[OptionSpec, ...] = (
        OptionSpec("players", 2, "number of players (TTT-R17)", minimum=2, maximum=6),
        OptionSpec("jokers", False, "add the jokers X1 and X2 as wild cards (TTT-R4)"),
        OptionSpec(
            "max_turns_per_hand",
            100,
            "normal turns per hand after which play and discard are illegal (TTT-R5)",
            minimum=1,
            maximum=10_000,
        ),
    )

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
