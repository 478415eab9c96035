"""Determinization from a seat's view: a full history of the match (every deal and every seat's
action) that shows the seat exactly what it was shown, sampled at random.

Built forward through the engine: a deal is shuffled at random, another seat's action is drawn
among those that produce the events the seat saw, and where the sample shows the seat a card it
was not shown in a place (its hand, a card played, a peek), the cards are relabelled throughout
the history (`cards.relabelling`, the environment sampler's relabelling of action texts) and
the history replayed from the start, checking every decision of the seat again. So a sample is a
legal engine state that the seat cannot tell from the true one, and it is computed from the
view alone: the true deal is never read. It is not uniform over the seat's information set (the
repairs favour some histories), which a playout search tolerates; the record-based sampler
(croupier.env.sampling) is the uniform one, for a caller that holds the true deal.

A game whose view pins its hidden cards down but for the deal has its own sampler (its rollout
module's `history`, referee.review.rollout.historian_for: Xactika, Tex-Tac-Toe), tried first and
checked by the same replay: the walk's random deals and repairs rarely fitted those games'
views (issue 48.1).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from croupier.env.sampling import relabel
from croupier.v1 import game_pb2
from referee.games.base import Pick, Shuffle, State
from referee.match import protocol
from referee.review.cards import Pair, card_pairs, relabelling
from referee.review.rollout import Step, historian_for
from referee.review.view import SeatView

#: Fresh starts tried before a view is declared unsampled, and repairs allowed within one.
ATTEMPTS = 40
REPAIRS = 200

#: Histories a game's own sampler (referee.review.rollout.historian_for) is asked for, each
#: checked by a replay, before the generic walk's attempts.
DIRECT_ATTEMPTS = 8


class Unsampled(ValueError):
    """No history consistent with the view was found (a view no match could have produced)."""


@dataclass(slots=True)
class _Walk:
    """A history replayed against the view: the decision of the seat reached and the events of
    it already matched."""

    view: SeatView
    state: State
    steps: list[Step] = field(default_factory=list)
    decision: int = 0
    event: int = 0
    #: The steps that were another seat's choice among several that fit the view.
    hidden: list[int] = field(default_factory=list)
    #: After each step that fitted the view: the state, decision and event reached (a replay
    #: of a history that shares a prefix with this one starts after the prefix).
    trail: list[tuple[State, int, int]] = field(default_factory=list)

    def push(self, step: Step, after: State) -> None:
        self.state = after
        self.steps.append(step)
        self.trail.append((after, self.decision, self.event))


@dataclass(frozen=True, slots=True)
class _Repair:
    """Where the sample shows a card that the view does not: the relabelling that fixes it,
    and the (sampled, shown) pairs it comes from."""

    sigma: dict[str, str]
    pairs: list[Pair]


def sample(view: SeatView, rng: random.Random, *, attempts: int = ATTEMPTS) -> State:
    """An engine state at the view's last decision that shows the seat all the view shows."""
    return history(view, rng, attempts=attempts)[0]


def history(
    view: SeatView,
    rng: random.Random,
    start: list[Step] | None = None,
    *,
    attempts: int = ATTEMPTS,
) -> tuple[State, list[Step]]:
    """A sampled state and the history that leads to it. With `start`, a history that fitted
    an earlier view of the same match (a bot's previous sample), the first attempt continues
    it, which costs a replay instead of a new search; the rest start afresh. A game with its
    own sampler has its histories tried first (issue 48.1), each replayed to check it."""
    if not view.decisions or view.decisions[-1].chosen is not None:
        raise ValueError("a view to sample ends at a decision not yet made")
    historian = historian_for(view.game.id)
    for _ in range(DIRECT_ATTEMPTS if historian is not None else 0):
        assert historian is not None
        steps = historian(view, rng)
        walk = None if steps is None else _replay(view, steps)
        if walk is not None and _arrived(walk):
            return walk.state, walk.steps
    for n in range(attempts):
        begun = _replay(view, start) if start is not None and n == 0 else None
        found = _attempt(view, rng, begun)
        if found is not None:
            return found
    raise Unsampled(f"no history fits seat {view.seat}'s view in {attempts} attempts")


def _attempt(
    view: SeatView, rng: random.Random, begun: _Walk | None
) -> tuple[State, list[Step]] | None:
    walk = begun or _replay(view, [])
    assert walk is not None
    for _ in range(REPAIRS):
        outcome = _extend(walk, rng)
        if not isinstance(outcome, _Repair):
            if outcome is None and walk.hidden:
                walk = _backtrack(view, walk, rng)
                continue
            return None if outcome is None else (outcome, walk.steps)
        for steps in _repairs(view, walk.steps, outcome, rng):
            repaired = _replay(view, steps, walk)
            if repaired is not None:
                repaired.hidden = walk.hidden
                walk = repaired
                break
        else:
            if not walk.hidden:
                return None
            walk = _backtrack(view, walk, rng)
    return None


def _backtrack(view: SeatView, walk: _Walk, rng: random.Random) -> _Walk:
    """The walk cut back to before one of its hidden choices (another seat's action that the
    seat saw nothing of, or not all of), drawn at random, to be chosen again."""
    cut = rng.choice(walk.hidden)
    again = _replay(view, walk.steps[:cut], walk)
    assert again is not None  # a prefix of a history that fitted
    again.hidden = [i for i in walk.hidden if i < cut]
    return again


def _repairs(
    view: SeatView, steps: list[Step], repair: _Repair, rng: random.Random
) -> list[list[Step]]:
    """The histories to try, in order: the cards relabelled from a shuffle on (a card the seat
    had never seen, `_relabelled`); the last action naming each sampled card made to name the
    shown one; and that with the last earlier action naming the shown card made to name the
    sampled one (a hidden choice of another seat, such as the card a XIX seat trades into the
    strike row)."""
    game = view.game.id
    rewritten, swapped = list(steps), list(steps)
    for sampled, shown in repair.pairs:
        last = _last_naming(game, rewritten, sampled)
        if last is not None:
            rewritten[last] = _relabelled_step(game, rewritten[last], {sampled: shown})
        last = _last_naming(game, swapped, sampled)
        earlier = _last_naming(game, swapped[: last or 0], shown)
        if last is not None and earlier is not None:
            swap = {sampled: shown, shown: sampled}
            swapped[last] = _relabelled_step(game, swapped[last], swap)
            swapped[earlier] = _relabelled_step(game, swapped[earlier], swap)
    return [*_relabelled(view, steps, repair, rng), rewritten, swapped]


def _last_naming(game: str, steps: list[Step], card: str) -> int | None:
    for i in range(len(steps) - 1, -1, -1):
        if steps[i][0] == "act" and _relabelled_step(game, steps[i], {card: ""}) != steps[i]:
            return i
    return None


def _relabelled(
    view: SeatView, steps: list[Step], repair: _Repair, rng: random.Random
) -> list[list[Step]]:
    """The history with the cards relabelled, as candidates. A deal shuffles every card; a
    reshuffle (Xeri's stock after a rejected pile, XERI-R4) shuffles part of them, and a card
    it placed can be relabelled only within it, since the pile it rejected was shown. So: the
    repair from the latest reshuffle holding every card it moves; else the repair split, a
    card placed by the deal relabelled from the deal, one placed by the reshuffle from the
    reshuffle (a shown card that the sample holds outside the reshuffle first swapped into it
    from the deal, for a card of it the seat never saw); and the repair from the deal. An
    earlier deal's cards are other cards: the seat's view of them is left as it was."""
    game = view.game.id
    shuffles = [i for i, (kind, _) in enumerate(steps) if kind == "shuffle"]
    decks = {i: steps[i][1] for i in shuffles}
    whole = max((len(deck) for deck in decks.values()), default=0)  # type: ignore[arg-type]
    deal = max((i for i in shuffles if len(decks[i]) == whole), default=0)  # type: ignore[arg-type]
    reshuffles = [i for i in shuffles if i > deal]
    sigma = repair.sigma
    candidates: list[list[Step]] = []
    if reshuffles:
        latest = reshuffles[-1]
        part = set(decks[latest])  # type: ignore[arg-type]
        if set(sigma) | set(sigma.values()) <= part:
            return [
                _relabelled_from(game, steps, latest, sigma),
                _relabelled_from(game, steps, deal, sigma),
            ]
        split = _split(view, part, repair.pairs, rng)
        if split is not None:
            early, late = split
            candidates.append(
                _relabelled_from(game, _relabelled_from(game, steps, deal, early), latest, late)
            )
    return [*candidates, _relabelled_from(game, steps, deal, sigma)]


def _split(
    view: SeatView, part: set[str], pairs: list[Pair], rng: random.Random
) -> tuple[dict[str, str], dict[str, str]] | None:
    """The repair as a relabelling from the deal and one within the reshuffle of `part`."""
    unseen = sorted(part - _seen(view) - {card for pair in pairs for card in pair})
    early_pairs = [(a, b) for a, b in pairs if a not in part]
    for a, b in pairs:
        if a in part and b not in part:  # b must come into the reshuffle in an unseen card's place
            if not unseen:
                return None
            early_pairs.append((unseen.pop(rng.randrange(len(unseen))), b))
    early = relabelling(early_pairs, rng)
    if early is None:
        return None
    moved = {early.get(card, card) for card in part}
    late_pairs = [(early.get(a, a), b) for a, b in pairs if a in part]
    if any(a not in moved or b not in moved for a, b in late_pairs):
        return None
    late = relabelling(late_pairs, rng)
    return None if late is None else (early, late)


def _seen(view: SeatView) -> frozenset[str]:
    """Every string the seat was shown (its cards among them), kept for the view last asked."""
    cached = _SEEN.get(id(view))
    if cached is not None and cached[0] is view:
        return cached[1]
    game = view.game.id
    seen: set[str] = set()
    for decision in view.decisions:
        for message in (*(getattr(e, game) for e in decision.events), decision.observation):
            seen.update(a for a, _ in card_pairs(game, message, message) or [])
    _SEEN.clear()
    _SEEN[id(view)] = (view, frozenset(seen))
    return _SEEN[id(view)][1]


_SEEN: dict[int, tuple[SeatView, frozenset[str]]] = {}


def _relabelled_from(game: str, steps: list[Step], start: int, sigma: dict[str, str]) -> list[Step]:
    return steps[:start] + [_relabelled_step(game, step, sigma) for step in steps[start:]]


def _relabelled_step(game: str, step: Step, sigma: dict[str, str]) -> Step:
    kind, value = step
    if kind == "shuffle":
        assert isinstance(value, tuple)
        return kind, tuple(sigma.get(card, card) for card in value)
    if kind == "act":
        assert isinstance(value, str)
        return kind, relabel(game, value, sigma)
    return step


def _replay(view: SeatView, steps: list[Step], base: _Walk | None = None) -> _Walk | None:
    """The walk after `steps`, or None where they no longer fit the view; from the end of the
    prefix they share with `base`'s fitted steps, if given."""
    walk = _Walk(view, view.game.new_game(view.options))
    if base is not None:
        n = 0
        for old, new in zip(base.steps[: len(base.trail)], steps, strict=False):
            if old is not new and old != new:
                break
            n += 1
        if n:
            walk.steps, walk.trail = list(steps[:n]), base.trail[:n]
            walk.state, walk.decision, walk.event = walk.trail[-1]
        steps = steps[n:]
    for kind, value in steps:
        state = walk.state
        if kind == "act":
            assert isinstance(value, str)
            if state.to_move == view.seat and (
                not _at_decision(walk) or view.decisions[walk.decision - 1].chosen != value
            ):
                return None
            actions = {action.text: action for action in state.legal_actions()}
            if value not in actions:
                return None
            after = state.apply(actions[value])
        else:
            assert isinstance(value, tuple | int)
            after = state.apply_chance(value)
        if _match_events(walk, after) is not True:
            return None
        walk.push((kind, value), after)
    return walk


def _arrived(walk: _Walk) -> bool:
    """The replayed walk stands at the view's last decision, showing the seat all it shows."""
    view = walk.view
    last = len(view.decisions) - 1
    return (
        walk.decision == last
        and walk.state.to_move == view.seat
        and not walk.state.is_terminal()
        and _at_decision(walk)
    )


def _at_decision(walk: _Walk) -> bool:
    """The seat is to move: the view's decision there must be what the state shows; then the
    walk moves past it (the seat's own choice comes next)."""
    decision = walk.view.decisions[walk.decision]
    state = walk.state
    if walk.event != len(decision.events):
        return False
    if state.observation(walk.view.seat) != decision.observation:
        return False
    if tuple(action.text for action in state.legal_actions()) != decision.legal:
        return False
    walk.decision += 1
    walk.event = 0
    return True


def _visible(walk: _Walk, state: State) -> list[game_pb2.Event]:
    game = walk.view.game.id
    return [protocol.event(game, e) for e in state.events if e.visible_to(walk.view.seat)]


def _match_events(walk: _Walk, after: State, near: bool = True) -> bool | list[Pair] | None:
    """True if the transition's visible events are the view's next ones (then consumed); else
    (if `near`) the card pairs to relabel where they differ in cards before they differ
    otherwise (other cards can change what follows: a capture, a rejected pile), None where no
    card differs."""
    seen = _visible(walk, after)
    if not seen:
        return True
    if walk.decision >= len(walk.view.decisions):
        return None
    expected = walk.view.decisions[walk.decision].events[walk.event : walk.event + len(seen)]
    if list(expected) == seen:
        walk.event += len(seen)
        return True
    if not near:
        return None
    pairs: list[Pair] = []
    game = walk.view.game.id
    for got, want in zip(seen, expected, strict=False):
        found = card_pairs(game, getattr(got, game), getattr(want, game))
        if found is None:  # a consequence of the cards before (who took the trick)
            break
        pairs.extend(found)
    return pairs if any(a != b for a, b in pairs) else None


def _extend(walk: _Walk, rng: random.Random) -> State | _Repair | None:
    """Play the walk on to the view's last decision, or stop at a repair."""
    view = walk.view
    last = len(view.decisions) - 1
    while True:
        state = walk.state
        if state.is_terminal():
            return None
        node = state.chance()
        if node is not None:
            outcomes: list[tuple[str, ...] | int]
            if isinstance(node, Shuffle):
                outcomes = [tuple(rng.sample(node.cards, len(node.cards)))]
            else:
                assert isinstance(node, Pick)
                outcomes = rng.sample(range(node.count), node.count)
            step = _choose(
                walk, [("shuffle" if isinstance(o, tuple) else "pick", o) for o in outcomes], rng
            )
        elif state.to_move == view.seat:
            if walk.decision == last:
                decision = view.decisions[last]
                if walk.event != len(decision.events):
                    return None
                shown = decision.observation
                if state.observation(view.seat) == shown:
                    legal = tuple(action.text for action in state.legal_actions())
                    return state if legal == decision.legal else None
                return _repair(
                    walk, card_pairs(view.game.id, state.observation(view.seat), shown), rng
                )
            decision = view.decisions[walk.decision]
            if state.observation(view.seat) != decision.observation:
                if walk.event != len(decision.events):
                    return None
                pairs = card_pairs(view.game.id, state.observation(view.seat), decision.observation)
                return _repair(walk, pairs, rng)
            if not _at_decision(walk):
                return None
            chosen = decision.chosen
            assert chosen is not None
            step = _choose(walk, [("act", chosen)], rng)
        else:
            texts = [action.text for action in state.legal_actions()]
            rng.shuffle(texts)
            step = _choose(walk, [("act", text) for text in texts], rng)
        if not isinstance(step, tuple):
            return step


def _apply(state: State, step: Step) -> State | None:
    kind, value = step
    if kind == "act":
        actions = {action.text: action for action in state.legal_actions()}
        return state.apply(actions[value]) if value in actions else None
    assert isinstance(value, tuple | int)
    return state.apply_chance(value)


def _choose(walk: _Walk, steps: list[Step], rng: random.Random) -> Step | _Repair | None:
    """Take the first step whose visible events fit the view; failing that, repair the cards of
    one that fits but for its cards, drawn at random."""
    tried: list[tuple[Step, State]] = []
    for n, step in enumerate(steps):
        after = _apply(walk.state, step)
        if after is None:
            continue
        if _match_events(walk, after, near=False) is True:
            if n + 1 < len(steps):
                walk.hidden.append(len(walk.steps))
            walk.push(step, after)
            return step
        tried.append((step, after))
    near: list[tuple[Step, State, list[Pair]]] = []
    for step, after in tried:  # none fits: those that fit but for their cards
        fit = _match_events(walk, after)
        if isinstance(fit, list):
            near.append((step, after, fit))
    if not near:
        return None
    step, after, pairs = rng.choice(near)
    walk.steps.append(step)
    walk.state = after
    return _repair(walk, pairs, rng)


def _repair(walk: _Walk, pairs: list[Pair] | None, rng: random.Random) -> _Repair | None:
    if pairs is None:
        return None
    cards = {card for kind, value in walk.steps if kind == "shuffle" for card in value}  # type: ignore[union-attr]
    # A string that is not a card (a rank's name, why a pile was rejected) follows from the
    # cards: the relabelled history's replay checks it.
    pairs = [(a, b) for a, b in pairs if a in cards and b in cards]
    sigma = relabelling(pairs, rng)
    return None if not sigma else _Repair(sigma, [(a, b) for a, b in pairs if a != b])
