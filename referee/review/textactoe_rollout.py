"""Tex-Tac-Toe's playouts (referee.review.rollout): a history sampled from a seat's view, and a
policy that sees every stash.

One shuffle deals the whole game (TTT-R1), and every action is public but for the cards an
opponent discards face down and commits (TTT-R19; committed cards are shown at the showdown). So
the history is the view's actions in order, and the deck is solved for: each deck position
(a slot) is followed through the game (grid, stashes, draws from the pile's top, discards to its
bottom, a cleared line, the refill) and given the card the seat saw there, if it saw one. An
opponent's card played or shown is the slot of its stash holding it (any slot it may hold: the
unseen ones are alike); its face-down discard is a choice among its stash's slots, tried in
random order and taken back (depth first) where a later sight contradicts it. The slots never
seen get the cards never seen, at random. A random deal that the generic walk repairs card by
card found none in most of its attempts, slowly (issue 48.1).

Random playouts call, concede and challenge at random, which a hand's points hang on: the
policy calls only with a hand that beats every other stash (a made hand, no high card),
challenges a call it beats, commits its best pair, and otherwise moves at random.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Final

from croupier.v1 import textactoe_pb2 as pb
from referee.games.base import Action, Shuffle, State
from referee.games.textactoe import Kind, Phase, TexTacToeState
from referee.games.textactoe_grid import GRID_SIZE, LINES, best_of_lines, eligible_lines
from referee.games.textactoe_poker import Category, HandValue
from referee.review.rollout import EXPLORE, Step
from referee.review.view import SeatView


def policy(state: State, rng: random.Random) -> Action:
    """Call with a hand that beats every other stash's best (it sees them all); challenge a call
    its own best hand beats, else concede; commit its best pair; else a random reveal, play or
    discard. A tenth of its moves random."""
    assert isinstance(state, TexTacToeState)
    legal = state.legal_actions()
    if rng.random() < EXPLORE:
        return rng.choice(legal)
    seat = state.to_move_seat
    lines = eligible_lines(
        [stack if up else () for stack, up in zip(state.grid, state.face_up, strict=True)]
    )
    phase = state.phase
    if phase is Phase.COMMIT:
        return max(legal, key=lambda a: best_of_lines(a.cards, lines)[1])
    if phase is Phase.RESPOND:
        caller = best_of_lines(state.committed[state.caller], lines)[1]
        beats = _best(state.stashes[seat], lines) > caller
        return next(a for a in legal if (a.kind is Kind.CHALLENGE) == beats)
    moves = [a for a in legal if a.kind is not Kind.CALL]
    if lines and len(moves) < len(legal):
        calls = [a for a in legal if a.kind is Kind.CALL]
        call = max(calls, key=lambda a: best_of_lines(a.cards, lines)[1])
        mine = best_of_lines(call.cards, lines)[1]
        others = [_best(stash, lines) for s, stash in enumerate(state.stashes) if s != seat]
        if mine[0] is not Category.HIGH_CARD and all(mine > other for other in others):
            return call
    return rng.choice(moves or legal)


def _best(stash: tuple[int, ...], lines: list[tuple[int, tuple[int, ...]]]) -> HandValue:
    """The best hand a stash makes with two of its cards on one of `lines`."""
    return max(best_of_lines(pair, lines)[1] for pair in combinations(stash, 2))


#: Stash cards a seat is dealt (TTT-R1).
STASH: Final = 3
#: Event steps a search may take (each choice taken back costs the steps after it again).
STEPS: Final = 20_000


class _Conflict(Exception):
    """The choices so far contradict what the seat saw."""


@dataclass(slots=True)
class _Table:
    """The slots (deck positions) where they lie now, and the cards known for them."""

    value: dict[int, str] = field(default_factory=dict)
    slot_of: dict[str, int] = field(default_factory=dict)
    grid: list[list[int]] = field(default_factory=list)
    stashes: list[list[int]] = field(default_factory=list)
    committed: list[list[int]] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)
    #: The actions so far: a text, or (kind, slots) for an opponent's hidden cards.
    actions: list[str | tuple[str, tuple[int, ...]]] = field(default_factory=list)
    first: int = -1
    drawn: int = -1
    pending: str = ""  # the seat's own discard, call or commit, awaiting its detail

    def copy(self) -> _Table:
        return replace(
            self,
            value=dict(self.value),
            slot_of=dict(self.slot_of),
            grid=[list(s) for s in self.grid],
            stashes=[list(s) for s in self.stashes],
            committed=[list(s) for s in self.committed],
            pile=list(self.pile),
            actions=list(self.actions),
        )

    def know(self, slot: int, card: str) -> None:
        if self.value.get(slot, card) != card or self.slot_of.get(card, slot) != slot:
            raise _Conflict
        self.value[slot] = card
        self.slot_of[card] = slot

    def holding(self, card: str, rng: random.Random, where: list[int]) -> int:
        """The slot of `where` (a seat's stash or committed pair) that holds `card`."""
        slot = self.slot_of.get(card)
        if slot is not None:
            if slot not in where:
                raise _Conflict
            return slot
        unseen = [s for s in where if s not in self.value]
        if not unseen:
            raise _Conflict
        slot = rng.choice(unseen)
        self.know(slot, card)
        return slot

    def draw(self, seat: int) -> None:
        self.drawn = self.pile.pop(0)
        self.stashes[seat].append(self.drawn)


def history(view: SeatView, rng: random.Random) -> list[Step] | None:
    """A history that shows the seat what its view shows, or None where none was found."""
    node = view.game.new_game(view.options).chance()
    assert isinstance(node, Shuffle)
    events = [e.textactoe for d in view.decisions for e in d.events]
    found = _search(view, events, _Table(), rng)
    if found is None:
        return None
    deck = _deck(found, node.cards, rng)
    steps: list[Step] = [("shuffle", deck), ("pick", found.first)]
    for action in found.actions:
        if isinstance(action, str):
            steps.append(("act", action))
        else:
            kind, slots = action
            cards = " ".join(deck[s] for s in slots)
            steps.append(("act", view.game.parse_action(f"{kind} {cards}").text))
    return steps


def _deck(table: _Table, cards: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    unseen = [c for c in cards if c not in table.slot_of]
    rng.shuffle(unseen)
    return tuple(table.value[s] if s in table.value else unseen.pop() for s in range(len(cards)))


def _search(
    view: SeatView, events: list[pb.TexTacToeEvent], table: _Table, rng: random.Random
) -> _Table | None:
    """The table after every event, trying an opponent's discards depth first (a stack of the
    branches still to try, not recursion: a long game has hundreds of discards)."""
    seat = view.seat
    budget = STEPS
    branches: list[tuple[int, _Table]] = [(0, table)]
    while branches:
        start, table = branches.pop()
        for i in range(start, len(events)):
            budget -= 1
            if budget < 0:
                return None
            event = events[i]
            if event.WhichOneof("kind") == "discarded" and event.discarded.seat != seat:
                branches.extend(reversed(_discards(table, event.discarded.seat, i, rng)))
                break
            try:
                _apply(view, events, i, table, rng)
            except _Conflict:
                break
        else:
            return table
    return None


def _discards(table: _Table, who: int, i: int, rng: random.Random) -> list[tuple[int, _Table]]:
    """The tables after each slot an opponent may have discarded face down, in random order;
    the slots nobody saw are alike, so one of them stands for all."""
    stash = table.stashes[who]
    choices = rng.sample(stash, len(stash))
    unseen = [s for s in choices if s not in table.value]
    tried = [s for s in choices if s in table.value or s == (unseen[0] if unseen else -1)]
    branches = []
    for slot in tried:
        branch = table.copy()
        branch.stashes[who].remove(slot)
        branch.pile.append(slot)
        branch.draw(who)
        branch.actions.append(("discard", (slot,)))
        branches.append((i + 1, branch))
    return branches


def _apply(
    view: SeatView,
    events: list[pb.TexTacToeEvent],
    i: int,
    table: _Table,
    rng: random.Random,
) -> None:
    """Every event but an opponent's discard: the slots moved and the cards seen."""
    seat = view.seat
    event = events[i]
    kind = event.WhichOneof("kind")
    if kind == "first_player":
        first = table.first = event.first_player.seat
        players = view.options.integer("players")
        table.grid = [[p] for p in range(GRID_SIZE)]
        table.stashes = [[] for _ in range(players)]
        table.committed = [[] for _ in range(players)]
        for k in range(STASH * players):
            table.stashes[(first + k) % players].append(GRID_SIZE + k)
        deck = view.game.new_game(view.options).chance()
        assert isinstance(deck, Shuffle)
        table.pile = list(range(GRID_SIZE + STASH * players, len(deck.cards)))
    elif kind == "dealt":
        mine = rng.sample(table.stashes[seat], STASH)
        for slot, card in zip(mine, event.dealt.stash, strict=True):
            table.know(slot, card)
    elif kind in ("turned_up", "revealed"):
        shown = getattr(event, kind)
        table.know(table.grid[shown.position][0], shown.card)
        if kind == "revealed":
            table.actions.append(f"reveal {shown.position}")
    elif kind == "played":
        played = event.played
        slot = table.holding(played.card, rng, table.stashes[played.seat])
        table.stashes[played.seat].remove(slot)
        table.grid[played.position].append(slot)
        table.draw(played.seat)
        table.actions.append(f"play {played.card} {played.position}")
    elif kind == "drew":
        table.know(table.drawn, event.drew.card)
    elif kind == "discarded":  # the seat's own: its detail follows
        table.pending = "discard"
    elif kind == "discard_detail":
        card = event.discard_detail.card
        slot = table.holding(card, rng, table.stashes[seat])
        table.stashes[seat].remove(slot)
        table.pile.append(slot)
        table.draw(seat)
        table.actions.append(f"discard {card}")
    elif kind in ("called", "committed"):
        who = getattr(event, kind).seat
        verb = "call" if kind == "called" else "commit"
        if who == seat:
            table.pending = verb
        else:
            pair = _pair(events, i, who, table, rng)
            for slot in pair:
                table.stashes[who].remove(slot)
            table.committed[who] = list(pair)
            table.actions.append((verb, pair))
    elif kind == "commit_detail":
        cards = list(event.commit_detail.cards)
        pair = tuple(table.holding(card, rng, table.stashes[seat]) for card in cards)
        for slot in pair:
            table.stashes[seat].remove(slot)
        table.committed[seat] = list(pair)
        table.actions.append(view.game.parse_action(f"{table.pending} {' '.join(cards)}").text)
    elif kind in ("conceded", "challenged"):
        table.actions.append("concede" if kind == "conceded" else "challenge")
    elif kind == "showdown":
        for hand in event.showdown.hands:
            for card in hand.committed:
                table.holding(card, rng, table.committed[hand.seat])
    elif kind == "line_cleared":
        for p in LINES[event.line_cleared.line]:
            table.grid[p] = []
        for who, back in enumerate(table.committed):
            table.stashes[who].extend(back)
            table.committed[who] = []
    elif kind == "refilled":
        for p in event.refilled.positions:
            table.grid[p] = [table.pile.pop(0)]


def _pair(
    events: list[pb.TexTacToeEvent], i: int, who: int, table: _Table, rng: random.Random
) -> tuple[int, ...]:
    """The two slots an opponent sets face down: those holding the cards its next showdown
    shows, if the view has it; else two of its stash at random."""
    stash = table.stashes[who]
    for later in events[i + 1 :]:
        if later.WhichOneof("kind") == "showdown":
            shown = next(h.committed for h in later.showdown.hands if h.seat == who)
            chosen: list[int] = []
            for card in shown:
                chosen.append(table.holding(card, rng, [s for s in stash if s not in chosen]))
            return tuple(chosen)
    return tuple(rng.sample(stash, 2))
