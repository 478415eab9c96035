"""A Tex-Tac-Toe bot with poker sense: it calls with a strong made hand, challenges when its odds
are good, and otherwise plays cards that improve its best line, reveals cards that complete lines,
or discards its least useful card to draw.

Its odds come from a small Monte Carlo estimate: the other seats' stashes are sampled from the
cards this seat has not seen, and each seat's hand is its best two cards on its best line. The
bot carries its own poker evaluator so that the SDK does not depend on the referee.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from croupier.bot import Bot
from croupier.v1 import referee_pb2, textactoe_pb2

RANKS = "23456789TJQKA"
SUITS = "CDHS"
STANDARD = tuple(rank + suit for rank in RANKS for suit in SUITS)
JOKERS = ("X1", "X2")
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# Points per category (high card 0 .. royal flush 9), from the rules' table.
POINTS = (0, 1, 2, 5, 25, 50, 70, 150, 500, 1000)

Value = tuple[int, tuple[int, ...]]


def _value(ranks: tuple[int, ...], suited: bool) -> Value:
    """Five ranks 0..12 (ascending, never five alike), all one suit or not: (category, tiebreak)."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    order = tuple(rank for rank, _ in groups)
    high = -1
    if len(counts) == 5:
        if ranks[4] - ranks[0] == 4:
            high = ranks[4]
        elif ranks == (0, 1, 2, 3, 12):
            high = 3
    if high >= 0 and suited:
        return (9 if high == 12 else 8), (high,)
    if shape == (4, 1):
        return 7, order
    if shape == (3, 2):
        return 6, order
    if suited:
        return 5, tuple(reversed(ranks))
    if high >= 0:
        return 4, (high,)
    return {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(shape, 0), order


_KEYS: list[tuple[int, ...]] = [
    r for r in combinations_with_replacement(range(13), 5) if r[0] != r[4]
]
_PLAIN = {ranks: _value(ranks, False) for ranks in _KEYS}
_SUITED = {ranks: _value(ranks, True) for ranks in _KEYS}


@lru_cache(maxsize=200_000)
def hand_value(cards: tuple[str, ...]) -> Value:
    """The value of five card texts (sorted, for the cache); jokers are wild, never five alike."""
    real = [card for card in cards if card[0] != "X"]
    ranks = [RANKS.index(card[0]) for card in real]
    table = _SUITED if len({card[1] for card in real}) <= 1 else _PLAIN
    best: Value = (-1, ())
    for extra in combinations_with_replacement(range(13), 5 - len(real)):
        key = tuple(sorted((*ranks, *extra)))
        if key[0] != key[4]:
            best = max(best, table[key])
    return best


def best_hand(pair: Iterable[str], lines: Sequence[tuple[str, str, str]]) -> Value:
    """The best value of two cards with any of the given lines' top cards (below every hand if
    there is no line)."""
    two = tuple(pair)
    return max((hand_value(tuple(sorted((*two, *line)))) for line in lines), default=(-1, ()))


def best_of_stash(stash: Sequence[str], lines: Sequence[tuple[str, str, str]]) -> Value:
    """The best value of any two of the stash cards with any of the lines."""
    return max(best_hand(pair, lines) for pair in combinations(stash, 2))


def _matches(card: str, top: str) -> bool:
    return card[0] == "X" or top[0] == "X" or card[0] == top[0] or card[1] == top[1]


class TexTacToeHeuristicBot(Bot):
    """Rules of thumb plus a small Monte Carlo estimate of its chance to win a showdown."""

    name = "textactoe-heuristic"
    games = ("textactoe",)
    version = "1"

    def __init__(self, seed: int | None = 0, samples: int = 40) -> None:
        self._rng = random.Random(seed)
        self._samples = samples

    def act(self, request: referee_pb2.ActionRequest) -> int:
        obs = request.observation.textactoe
        texts = [action.text for action in request.legal_actions]
        phase = obs.phase
        if phase == textactoe_pb2.TEXTACTOE_PHASE_COMMIT:
            return self._commit(obs, texts)
        if phase == textactoe_pb2.TEXTACTOE_PHASE_RESPOND:
            lines = _eligible(obs)
            odds = self._odds(obs, best_of_stash(list(obs.stash), lines), lines, caller_only=True)
            return texts.index("challenge" if odds >= 0.55 else "concede")
        if phase == textactoe_pb2.TEXTACTOE_PHASE_TURN:
            call = self._call(obs, texts)
            if call is not None:
                return call
        return self._improve(obs, texts)

    # --- showdown decisions --------------------------------------------------------------------

    def _commit(self, obs: textactoe_pb2.TexTacToeObservation, texts: list[str]) -> int:
        lines = _eligible(obs)
        return max(range(len(texts)), key=lambda i: best_hand(texts[i].split()[1:], lines))

    def _call(self, obs: textactoe_pb2.TexTacToeObservation, texts: list[str]) -> int | None:
        calls = [i for i, text in enumerate(texts) if text.startswith("call")]
        if not calls:
            return None
        lines = _eligible(obs)
        best = max(calls, key=lambda i: best_hand(texts[i].split()[1:], lines))
        if len(calls) == len(texts):
            return best  # nothing else is legal
        mine = best_hand(texts[best].split()[1:], lines)
        if mine[0] == 0:
            return None  # a high card wins nothing unless someone challenges
        odds = self._odds(obs, mine, lines, caller_only=False)
        needed = 0.7 if mine[0] == 1 else 0.6 if mine[0] < 4 else 0.5
        if obs.turns + 2 * obs.players >= obs.max_turns_per_hand:
            needed -= 0.15  # the turn cap is near: take what the hand offers
        return best if odds >= needed else None

    def _odds(
        self,
        obs: textactoe_pb2.TexTacToeObservation,
        mine: Value,
        lines: list[tuple[str, str, str]],
        caller_only: bool,
    ) -> float:
        """Chance that `mine` beats the other hands (ties count half), with each other seat's
        stash sampled from the unseen cards and played at its best."""
        pool = _unseen(obs)
        others = [seat for seat in range(obs.players) if seat != obs.seat]
        if caller_only:
            others = [obs.caller]
        if len(pool) < 3 * len(others):
            return 0.5
        score = 0.0
        for _ in range(self._samples):
            drawn = self._rng.sample(pool, 3 * len(others))
            top = max(best_of_stash(drawn[3 * k : 3 * k + 3], lines) for k in range(len(others)))
            score += 1.0 if mine > top else 0.5 if mine == top else 0.0
        return score / self._samples

    # --- building a hand -----------------------------------------------------------------------

    def _improve(self, obs: textactoe_pb2.TexTacToeObservation, texts: list[str]) -> int:
        stash = list(obs.stash)
        tops = [position.stack[-1] if position.face_up else "" for position in obs.grid]
        lines = _eligible(obs)
        now = best_of_stash(stash, lines)
        # A play that makes a better hand with the two cards kept (the draw is a bonus).
        best_play: tuple[Value, int] | None = None
        for index, text in enumerate(texts):
            words = text.split()
            if words[0] != "play":
                continue
            new_tops = list(tops)
            new_tops[int(words[2])] = words[1]
            kept = [card for card in stash if card != words[1]]
            rating = best_hand(kept, _lines_of(new_tops))
            if rating > now and (best_play is None or rating > best_play[0]):
                best_play = (rating, index)
        if best_play is not None:
            return best_play[1]
        reveals = [i for i, text in enumerate(texts) if text.startswith("reveal")]
        discards = [i for i, text in enumerate(texts) if text.startswith("discard")]
        if reveals and (len(lines) < 2 or not discards):
            return max(reveals, key=lambda i: _reveal_worth(tops, int(texts[i].split()[1])))
        if discards:
            return max(discards, key=lambda i: _keep_worth(stash, texts[i].split()[1], lines))
        if reveals:
            return reveals[0]
        return 0


def _eligible(obs: textactoe_pb2.TexTacToeObservation) -> list[tuple[str, str, str]]:
    """The top cards of every line whose three positions are face up."""
    tops = [position.stack[-1] if position.face_up else "" for position in obs.grid]
    return _lines_of(tops)


def _lines_of(tops: Sequence[str]) -> list[tuple[str, str, str]]:
    return [(tops[a], tops[b], tops[c]) for a, b, c in LINES if tops[a] and tops[b] and tops[c]]


def _reveal_worth(tops: Sequence[str], position: int) -> tuple[int, int]:
    """Lines the reveal completes, then lines through it with one other card face up."""
    complete = partial = 0
    for line in LINES:
        if position not in line:
            continue
        up = sum(1 for p in line if p != position and tops[p])
        complete += up == 2
        partial += up == 1
    return complete, partial


def _keep_worth(stash: Sequence[str], discard: str, lines: Sequence[tuple[str, str, str]]) -> Value:
    """How good the two other cards are, for choosing the card to discard."""
    kept = [card for card in stash if card != discard]
    if lines:
        return best_hand(kept, lines)
    # No line yet: keep pairs, suited cards and high cards.
    a, b = kept
    if a[0] == "X" or b[0] == "X":
        return 3, ()
    rank_a, rank_b = RANKS.index(a[0]), RANKS.index(b[0])
    if rank_a == rank_b:
        return 2, (rank_a,)
    return (1 if a[1] == b[1] else 0), (max(rank_a, rank_b), min(rank_a, rank_b))


def _unseen(obs: textactoe_pb2.TexTacToeObservation) -> list[str]:
    """Cards this seat has not seen: face-down grid cards, the pile and the other stashes."""
    seen = set(obs.stash) | set(obs.committed) | set(obs.removed)
    for position in obs.grid:
        seen |= set(position.stack)
    deck = STANDARD + JOKERS if obs.jokers else STANDARD
    return [card for card in deck if card not in seen]
