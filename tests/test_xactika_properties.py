"""Property tests of the Xactika engine over random playouts, for every player count 2..10.

Short games (1 or 2 rounds) draw every deck and choice from hypothesis; full 8-round games draw
a seed and derive the rest (81-card permutations for 8 rounds would overflow hypothesis' data).
Every check recomputes the rules from card texts, independently of the engine's tables.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.bots import RandomBot
from croupier.v1 import xactika_pb2
from referee.games import get_game
from referee.games.base import ChanceOutcome, parse_options
from referee.games.options import Options
from referee.games.xactika import CARD_TEXT, XactikaState
from referee.match.clock import TimeControl
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests.playouts import Playout, encoded, play_out, replay_steps, seeded_playout

GAME = get_game("xactika")
PLAYER_COUNTS = range(2, 11)
DECK = [f"{a}{b}{c}{d}" for a in "123" for b in "123" for c in "123" for d in "123"]
SHAPES = ("ball", "cube", "cone", "star")
# Example counts per player count, scaled with the hypothesis profile (40 by default).
SCALE = max(1, settings().max_examples // 40)


def opts(players: int, rounds: int) -> Options:
    return parse_options(GAME, {"players": str(players), "rounds": str(rounds)})


def face(card: str) -> int:
    return sum(map(int, card))


def shows(card: str, count: int, shape: int) -> bool:
    return int(card[shape]) == count


def texts(cards: tuple[int, ...]) -> list[str]:
    return [CARD_TEXT[card] for card in cards]


def _states(playout: Playout) -> list[XactikaState]:
    states = [s for s in playout.states if isinstance(s, XactikaState)]
    assert len(states) == len(playout.states)
    return states


def _check_state(state: XactikaState) -> None:
    """Card conservation and hand sizes, from the state's own fields."""
    if not state.hands:
        return  # before the first deal
    n = state.players
    held = [CARD_TEXT[c] for hand in state.hands for c in hand]
    everything = held + texts(state.set_aside) + texts(state.played)
    assert Counter(everything) == Counter(DECK), "the 81 cards are not conserved"
    assert len(state.set_aside) == 81 - 8 * n
    # Each seat played one card per finished trick, plus one if it played to the current trick.
    finished = (len(state.played) - len(state.trick)) // n
    assert len(state.played) == finished * n + len(state.trick)
    for seat in range(n):
        in_trick = (seat - state.leader) % n < len(state.trick)
        assert len(state.hands[seat]) == 8 - finished - in_trick
        assert list(state.hands[seat]) == sorted(state.hands[seat])
    assert state.trick == state.played[len(state.played) - len(state.trick) :]


def _check_legal(state: XactikaState) -> None:
    """The legal actions are exactly what the rules allow (XAC-R4, XAC-R5, follow rule)."""
    seat = state.to_move
    assert seat is not None
    actual = [action.text for action in state.legal_actions()]
    n = state.players
    if state.phase.value == "bid":
        first = (state.dealer + 1) % n
        bid_order = [(first + i) % n for i in range(n)]
        assert seat == bid_order[sum(b >= 0 for b in state.bids)]
        assert all(state.bids[s] == -1 for s in bid_order[bid_order.index(seat) :])
        bids = list(range(9))
        if seat == state.dealer:  # XAC-R4
            others = sum(b for s, b in enumerate(state.bids) if s != seat)
            bids = [b for b in bids if others + b != 8]
            assert len(bids) >= 8
        assert actual == [f"bid {b}" for b in bids]
        return
    hand = texts(state.hands[seat])
    if not state.trick:
        # XAC-R5: any card with any of its own four (count, shape) calls.
        assert actual == [f"lead {c} {c[i]}{SHAPES[i]}" for c in hand for i in range(4)]
        return
    count, shape = state.call % 3 + 1, state.call // 3
    led = CARD_TEXT[state.trick[0]]
    assert shows(led, count, shape)
    following = [c for c in hand if shows(c, count, shape)]
    assert actual == [f"play {c}" for c in (following or hand)]


class _Referee:
    """Tracks a game from its public events only and recomputes tricks and scores by hand."""

    def __init__(self, players: int) -> None:
        self.n = players
        self.scores = [0] * players
        self.bids: list[int] = []
        self.taken = [0] * players
        self.call: tuple[int, int] = (0, 0)
        self.trick: list[tuple[int, str]] = []
        self.expect_won: tuple[int, str] | None = None
        self.dealer = -1
        self.first_dealer = -1
        self.rounds = 0

    def event(self, payload: xactika_pb2.XactikaEvent) -> None:
        kind = payload.WhichOneof("kind")
        if kind == "dealer_chosen":
            self.first_dealer = payload.dealer_chosen.seat
        elif kind == "round_started":
            self.rounds += 1
            started = payload.round_started
            assert started.round == self.rounds
            # XAC-R1: the first dealer is drawn, then the deal passes left each round.
            assert started.dealer == (self.first_dealer + self.rounds - 1) % self.n
            self.dealer = started.dealer
            self.bids, self.taken = [], [0] * self.n
        elif kind == "bid":
            first = (self.dealer + 1) % self.n
            assert payload.bid.seat == (first + len(self.bids)) % self.n
            self.bids.append(payload.bid.bid)
            if payload.bid.seat == self.dealer:
                assert sum(self.bids) != 8  # XAC-R4, the hook
        elif kind == "led":
            assert not self.trick and self.expect_won is None
            led = payload.led
            shape = led.call.shape - xactika_pb2.XACTIKA_SHAPE_BALL
            self.call = (led.call.count, shape)
            assert shows(led.card, *self.call)  # XAC-R5
            self.trick = [(led.seat, led.card)]
        elif kind == "played":
            assert payload.played.seat == (self.trick[-1][0] + 1) % self.n
            self.trick.append((payload.played.seat, payload.played.card))
            if len(self.trick) == self.n:
                self.expect_won = self._winner()
                self.trick = []
        elif kind == "trick_won":
            won = payload.trick_won
            assert (won.seat, won.card) == self.expect_won
            self.taken[won.seat] += 1
            assert won.taken == self.taken[won.seat]
            self.expect_won = None
        elif kind == "round_scored":
            self._score(payload.round_scored)

    def _winner(self) -> tuple[int, str]:
        # XAC-R6: highest face among matching cards; the later one on a tie.
        best: tuple[int, str] | None = None
        for seat, card in self.trick:
            if shows(card, *self.call) and (best is None or face(card) >= face(best[1])):
                best = (seat, card)
        assert best is not None
        return best

    def _score(self, scored: xactika_pb2.XactikaRoundScored) -> None:
        assert sum(self.taken) == 8 and scored.round == self.rounds
        by_seat = [0] * self.n
        for i, bid in enumerate(self.bids):
            by_seat[(self.dealer + 1 + i) % self.n] = bid
        points = [
            bid if took == bid else -abs(took - bid)
            for bid, took in zip(by_seat, self.taken, strict=True)
        ]
        self.scores = [a + b for a, b in zip(self.scores, points, strict=True)]
        assert list(scored.bids) == by_seat
        assert list(scored.taken) == self.taken
        assert list(scored.points) == points
        assert list(scored.scores) == self.scores


def _check_playout(playout: Playout, players: int, rounds: int) -> None:
    states = _states(playout)
    referee = _Referee(players)
    choices = iter(playout.choices)
    for number, state in enumerate(states):
        _check_state(state)
        deck = playout.steps[number - 1][1] if number else None
        if isinstance(deck, tuple):  # XAC-R2: one card at a time from the dealer's left
            for seat in range(players):
                dealt = [c for p, c in enumerate(deck) if _owner(p, state.dealer, players) == seat]
                assert texts(state.hands[seat]) == sorted(dealt)
            assert texts(state.set_aside) == list(deck[8 * players :])
        assert state.is_terminal() or state.chance() is not None or state.legal_actions()
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, xactika_pb2.XactikaEvent)
            if payload.WhichOneof("kind") == "dealt":
                assert event.seats is not None and len(event.seats) == 1
                (seat,) = event.seats
                assert list(payload.dealt.hand) == texts(state.hands[seat])
            else:
                assert event.seats is None
                referee.event(payload)
        if state.to_move is not None:
            _check_legal(state)
            seat, index = next(choices)
            assert seat == state.to_move
            assert states[number + 1] == state.apply(state.legal_actions()[index])
    final = states[-1]
    assert final.is_terminal()
    assert referee.rounds == rounds
    result = final.result()
    assert list(result.scores) == referee.scores
    top = max(referee.scores)
    assert list(result.ranks) == [1 + sum(o > s for o in referee.scores) for s in referee.scores]
    assert [r == 1 for r in result.ranks] == [s == top for s in referee.scores]  # XAC-R8


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@settings(max_examples=10 * SCALE)
@given(data=st.data(), rounds=st.integers(1, 2))
def test_short_playouts_keep_the_rules(players: int, data: st.DataObject, rounds: int) -> None:
    _check_playout(play_out(GAME, opts(players, rounds), data), players, rounds)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@settings(max_examples=3 * SCALE)
@given(rng=st.randoms(use_true_random=False))
def test_full_games_keep_the_rules(players: int, rng: random.Random) -> None:
    _check_playout(seeded_playout(GAME, opts(players, 8), rng), players, 8)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@settings(max_examples=4 * SCALE)
@given(rng=st.randoms(use_true_random=False), rounds=st.sampled_from([1, 2, 8]))
def test_same_chance_and_actions_give_the_same_states(
    players: int, rng: random.Random, rounds: int
) -> None:
    playout = seeded_playout(GAME, opts(players, rounds), rng)
    assert replay_steps(GAME, opts(players, rounds), playout.steps) == playout.states


def _owner(position: int, dealer: int, players: int) -> int:
    """The seat dealt deck position `position` (XAC-R2), or -1 for a set-aside card."""
    return (dealer + 1 + position) % players if position < 8 * players else -1


def _allowed(card: str, owner: int, voids: dict[int, set[tuple[int, int]]]) -> bool:
    """May `card` be in `owner`'s hand (-1: set aside) given the calls it showed void in?"""
    return owner < 0 or not any(shows(card, *call) for call in voids[owner])


def _resample(
    playout: Playout, cut: int, seat: int, players: int, rng: random.Random
) -> list[tuple[str, ChanceOutcome | str]]:
    """The first `cut` steps with every card `seat` has not seen by then moved elsewhere,
    consistently with what it saw: a seat that showed void in a call gets no card of it."""
    states = _states(playout)
    steps = list(playout.steps[:cut])
    deals = [i for i, (_, value) in enumerate(steps) if isinstance(value, tuple)]
    for number, deal in enumerate(deals):
        outcome = steps[deal][1]
        assert isinstance(outcome, tuple)
        deck = list(outcome)
        dealer = states[deal + 1].dealer
        end = deals[number + 1] if number + 1 < len(deals) else cut
        # What `seat` sees of this round up to `end`: its hand and the cards played.
        mine = set(texts(states[deal + 1].hands[seat]))
        played = set(texts(states[end].played)) if end > deal else set()
        voids: dict[int, set[tuple[int, int]]] = {s: set() for s in range(players)}
        for state, (kind, text) in zip(states[deal + 1 : end], steps[deal + 1 : end], strict=True):
            if kind == "action" and state.trick and isinstance(text, str):
                card = text.split()[1]
                call = (state.call % 3 + 1, state.call // 3)
                if not shows(card, *call):
                    voids[state.to_move_seat].add(call)
        unseen = [p for p, card in enumerate(deck) if card not in mine and card not in played]
        for _ in range(400):  # random swaps that keep every void true: still a valid deal
            a, b = rng.choice(unseen), rng.choice(unseen)
            owner_a, owner_b = _owner(a, dealer, players), _owner(b, dealer, players)
            if _allowed(deck[b], owner_a, voids) and _allowed(deck[a], owner_b, voids):
                deck[a], deck[b] = deck[b], deck[a]
        steps[deal] = ("chance", tuple(deck))
    return steps


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@settings(max_examples=10 * SCALE)
@given(
    rng=st.randoms(use_true_random=False),
    rounds=st.sampled_from([1, 2, 8]),
    seat_pick=st.integers(0, 9),
    cut_pick=st.floats(0, 1),
)
def test_no_information_leak(
    players: int, rng: random.Random, rounds: int, seat_pick: int, cut_pick: float
) -> None:
    """Moving the cards `seat` has not seen (other hands, set-aside cards) in any way consistent
    with what it saw changes nothing in its observations, legal actions and events."""
    seat = seat_pick % players
    options = opts(players, rounds)
    playout = seeded_playout(GAME, options, rng)
    cut = round(cut_pick * len(playout.steps))
    steps = _resample(playout, cut, seat, players, rng)
    other = replay_steps(GAME, options, steps)
    for original, resampled in zip(playout.states[: cut + 1], other, strict=True):
        assert original.observation(seat) == resampled.observation(seat)
        assert encoded(GAME, options, original, seat) == encoded(GAME, options, resampled, seat)
        if original.to_move == seat:
            mine = [a.text for a in original.legal_actions()]
            assert mine == [a.text for a in resampled.legal_actions()]
        assert [e for e in original.events if e.visible_to(seat)] == [
            e for e in resampled.events if e.visible_to(seat)
        ]


def test_resampling_moves_unseen_cards() -> None:
    """The leak test is not vacuous: mid-round, the other hands really change."""
    rng = random.Random(5)
    playout = seeded_playout(GAME, opts(4, 1), rng)
    states = _states(playout)
    cut = next(i for i, s in enumerate(states) if len(s.played) == 10)
    steps = _resample(playout, cut, 0, 4, rng)
    other = replay_steps(GAME, opts(4, 1), steps)[-1]
    assert isinstance(other, XactikaState)
    assert other.hands[0] == states[cut].hands[0]
    assert other.hands[1:] != states[cut].hands[1:]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@settings(max_examples=2 * SCALE)
@given(seed=st.integers(0, 2**32 - 1), rounds=st.sampled_from([1, 8]))
def test_records_round_trip_and_verify(
    tmp_path_factory: pytest.TempPathFactory, players: int, seed: int, rounds: int
) -> None:
    path = tmp_path_factory.mktemp("records") / "match.jsonl"
    config = MatchConfig(
        GAME,
        opts(players, rounds),
        seed=seed,
        match_id="prop",
        time_control=TimeControl(move_ms=0),
    )
    seats = [InProcessSeat(RandomBot(seed + seat)) for seat in range(players)]
    outcome = trio.run(run_match, config, seats, path)
    report = verify(path)
    assert report.ok, report.problems
    assert outcome.result.termination == 1
    assert len(outcome.result.seats) == players


@pytest.mark.parametrize("players", [2, 4, 10])
@settings(max_examples=4 * SCALE)
@given(rng=st.randoms(use_true_random=False), rounds=st.sampled_from([1, 2]))
def test_a_seat_that_has_not_bid_has_no_bid(players: int, rng: random.Random, rounds: int) -> None:
    """XactikaObservation.bids: one entry per seat, its `bid` set exactly once the seat has bid
    this round (told by the events alone), never a sentinel."""
    bids: dict[int, int] = {}
    for state in _states(seeded_playout(GAME, opts(players, rounds), rng)):
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, xactika_pb2.XactikaEvent)
            if payload.HasField("round_started"):
                bids = {}
            elif payload.HasField("bid"):
                bids[payload.bid.seat] = payload.bid.bid
        if state.phase.name in ("BID", "PLAY"):
            for seat in range(players):
                entries = state.observation(seat).bids
                assert len(entries) == players
                present = {s: e.bid for s, e in enumerate(entries) if e.HasField("bid")}
                assert present == bids
