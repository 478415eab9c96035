"""Property tests of the Xeri engine over hypothesis-driven random playouts.

An independent model of the rules (`Model`, on card texts, written from RULES.md section 3 and
not from the engine) follows every playout step; the engine's states, events and result must
agree with it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.bots import RandomBot
from croupier.v1 import xeri_pb2
from referee.games import get_game
from referee.games.base import ChanceOutcome, Pick, Shuffle, parse_options
from referee.games.options import Options
from referee.games.xeri import XeriState
from referee.match.clock import TimeControl
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests.playouts import Playout, encoded, play_out, replay_steps, seeded_playout

GAME = get_game("xeri")
RANKS = "23456789TJQKA"
SUITS = "CDHS"
DECK = [rank + suit for rank in RANKS for suit in SUITS]
VARIATIONS = (
    "var_cut_reveal",
    "var_lenient_pile",
    "var_no_last_xeri",
    "var_jack_xeri_25",
    "var_cumulative_151",
)


def sort_key(card: str) -> tuple[int, int]:
    return RANKS.index(card[0]), SUITS.index(card[1])


def card_points(card: str) -> int:
    """RULES 3.4: 1 per A K Q J T, 1 for 2C, 1 for TD (which is also a ten)."""
    return (card[0] in "AKQJT") + (card == "2C") + (card == "TD")


@dataclass
class Model:
    """The rules of RULES.md section 3, replayed step by step on card texts."""

    players: int
    rounds: int
    cut_reveal: bool
    lenient: bool
    no_last_xeri: bool
    jack_25: bool
    cumulative: bool
    expect: str = "dealer"
    dealer: int = -1
    round: int = 0
    deck: list[str] = field(default_factory=list)
    bottom: str = ""
    hands: list[list[str]] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)
    stock: list[str] = field(default_factory=list)
    to_shuffle: list[str] = field(default_factory=list)
    captured: list[list[str]] = field(default_factory=lambda: [[], []])
    xeris: list[list[str]] = field(default_factory=lambda: [[], []])
    last_capturer: int = -1
    turn: int = -1
    plays: int = 0
    points: list[int] = field(default_factory=lambda: [0, 0])
    wins: list[int] = field(default_factory=lambda: [0, 0])
    target: int = 151
    cut_count: int = 0
    winner: int | None = None
    over: bool = False
    #: Cards each seat has seen this round (hands, shown piles and bottom cards, plays).
    seen: list[set[str]] = field(default_factory=list)
    #: The last round's scores: (cards, most, card points, xeris, jack xeris, total) per side.
    last_scores: list[tuple[int, bool, int, int, int, int]] = field(default_factory=list)

    @classmethod
    def of(cls, options: Options) -> Model:
        return cls(
            players=options.integer("players"),
            rounds=options.integer("rounds"),
            cut_reveal=bool(options["var_cut_reveal"]),
            lenient=bool(options["var_lenient_pile"]),
            no_last_xeri=bool(options["var_no_last_xeri"]),
            jack_25=bool(options["var_jack_xeri_25"]),
            cumulative=bool(options["var_cumulative_151"]),
        )

    def show(self, *cards: str) -> None:
        for seen in self.seen:
            seen.update(cards)

    def step(self, kind: str, value: ChanceOutcome | str) -> None:
        if isinstance(value, str):
            assert kind == "action"
            self.play(self.turn, value.removeprefix("play "))
        else:
            self.chance(value)

    def chance(self, outcome: ChanceOutcome) -> None:
        if self.expect == "dealer":
            assert isinstance(outcome, int)
            self.dealer, self.round = outcome, 1
            self.expect = "shuffle"
        elif self.expect == "shuffle":
            assert isinstance(outcome, tuple)
            self.deck = list(outcome)
            self.seen = [set() for _ in range(self.players)]
            self.captured, self.xeris, self.last_capturer, self.plays = [[], []], [[], []], -1, 0
            self.bottom = ""
            self.reveal_or_deal()
        elif self.expect == "cut":
            assert isinstance(outcome, int)
            jack = self.deck.pop()
            lowest = max(i for i, card in enumerate(self.deck) if card[0] != "J")
            assert 0 <= outcome <= lowest  # XERI-R12: above the bottom non-jack card
            self.deck.insert(outcome, jack)
            self.reveal_or_deal()
        else:
            assert self.expect == "reshuffle" and isinstance(outcome, tuple)
            assert sorted(outcome) == sorted(self.to_shuffle)
            cards = list(outcome) + ([self.bottom] if self.cut_reveal else [])
            self.pile, self.stock = cards[:4], cards[4:]
            self.check_pile()

    def reveal_or_deal(self) -> None:
        if self.cut_reveal:
            self.show(self.deck[-1])
            if self.deck[-1][0] == "J":
                self.expect = "cut"
                self.cut_count = 1 + max(
                    i for i, card in enumerate(self.deck[:-1]) if card[0] != "J"
                )
                return
            self.bottom = self.deck[-1]
        self.stock = self.deck
        self.deal()
        self.pile, self.stock = self.stock[:4], self.stock[4:]
        self.check_pile()

    def deal(self) -> None:
        """Six cards each, one at a time, starting left of the dealer (XERI-R3)."""
        n = self.players
        self.hands = [[] for _ in range(n)]
        for i in range(6 * n):
            self.hands[(self.dealer + 1 + i) % n].append(self.stock[i])
        self.stock = self.stock[6 * n :]
        for seat, hand in enumerate(self.hands):
            self.seen[seat].update(hand)

    def check_pile(self) -> None:
        self.show(*self.pile)
        ranks = [card[0] for card in self.pile]
        bad = len(set(ranks)) < 4 or ranks[-1] == "J"
        if bad and not self.lenient:  # XERI-R4
            rest = self.stock[:-1] if self.cut_reveal else self.stock
            self.to_shuffle = rest + self.pile
            self.pile = []
            self.expect = "reshuffle"
            return
        self.expect = "play"
        self.turn = (self.dealer + 1) % self.players

    def play(self, seat: int, card: str) -> None:
        assert self.expect == "play" and seat == self.turn
        self.hands[seat].remove(card)
        self.show(card)
        self.plays += 1
        side = seat % 2
        if self.pile and (card[0] == self.pile[-1][0] or card[0] == "J"):
            lone = self.pile[0] if len(self.pile) == 1 else ""
            if lone and lone[0] == card[0] and not (self.no_last_xeri and self.plays == 48):
                self.xeris[side].append(lone)
            self.captured[side] += [*self.pile, card]
            self.pile = []
            self.last_capturer = seat
        else:
            self.pile.append(card)
        self.turn = (seat + 1) % self.players
        if any(self.hands):
            return
        if self.stock:
            self.deal()
        else:
            self.end_round()

    def end_round(self) -> None:
        if self.last_capturer >= 0:  # XERI-R8
            self.captured[self.last_capturer % 2] += self.pile
        self.pile = []
        counts = [len(c) for c in self.captured]
        jack_value = 25 if self.jack_25 else 20
        totals = []
        self.last_scores = []
        for side in (0, 1):
            most = counts[side] > counts[1 - side]
            points = sum(card_points(card) for card in self.captured[side])
            jacks = sum(card[0] == "J" for card in self.xeris[side])
            plain = len(self.xeris[side]) - jacks
            total = 3 * most + points + 10 * plain + jack_value * jacks
            totals.append(total)
            self.last_scores.append((counts[side], most, points, plain, jacks, total))
            self.points[side] += total
        if totals[0] != totals[1]:  # XERI-R10
            self.wins[0 if totals[0] > totals[1] else 1] += 1
        if self.cumulative:  # XERI-R14
            while min(self.points) >= self.target:
                self.target += 100
            above = [side for side in (0, 1) if self.points[side] >= self.target]
            if above:
                self.over, self.winner = True, above[0]
            elif self.round == 100:
                self.over = True
                self.winner = self.better(self.points)
        elif self.round == self.rounds:  # XERI-R11
            self.over = True
            self.winner = self.better(self.wins)
            if self.winner is None:
                self.winner = self.better(self.points)
        if not self.over:
            self.round += 1
            self.dealer = (self.dealer + 1) % self.players
            self.expect = "shuffle"
        else:
            self.expect = "over"

    @staticmethod
    def better(pair: list[int]) -> int | None:
        if pair[0] == pair[1]:
            return None
        return 0 if pair[0] > pair[1] else 1


SHORT = st.integers(1, 2)


def examples(count: int) -> settings:
    """`count` examples in the default profile (scaled with the profile), and no complaint that
    the smallest example is large: a whole round is the smallest game."""
    assert settings.default is not None
    return settings(
        max_examples=max(1, count * settings.default.max_examples // 40),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
    )


@st.composite
def xeri_options(draw: st.DrawFn, rounds: st.SearchStrategy[int] = SHORT) -> Options:
    text = {"players": str(draw(st.sampled_from([2, 4]))), "rounds": str(draw(rounds))}
    text |= {name: str(draw(st.booleans())).lower() for name in VARIATIONS}
    return parse_options(GAME, text)


def any_playout(data: st.DataObject, options: Options) -> Playout:
    """Short games are drawn choice by choice (they shrink well); long ones from a seed."""
    if options["var_cumulative_151"] or options.integer("rounds") > 2:
        return seeded_playout(GAME, options, data.draw(st.integers(0, 2**32 - 1), label="seed"))
    return play_out(GAME, options, data)


def _text(cards: tuple[int, ...]) -> list[str]:
    return [DECK[card] for card in cards]


def check_against_model(options: Options, playout: Playout) -> Model:
    """Step the model along the playout and compare every engine state with it."""
    model = Model.of(options)
    for (kind, value), state in zip(playout.steps, playout.states[1:], strict=True):
        assert isinstance(state, XeriState)
        if kind == "action":
            played = state.events[0].payload
            assert isinstance(played, xeri_pb2.XeriEvent)
            assert played.played.seat == model.turn
        model.step(kind, value)
        assert state.phase.value == model.expect
        node = state.chance()
        if model.expect == "cut":
            assert isinstance(node, Pick)
            assert node.count == model.cut_count
        elif model.expect == "reshuffle":
            assert isinstance(node, Shuffle)
            assert sorted(node.cards) == sorted(model.to_shuffle)
        assert state.dealer == model.dealer and state.round == model.round
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, xeri_pb2.XeriEvent)
            if payload.HasField("dealt"):
                # XERI-R15: a hand is seen by its holder only, even in a partnership.
                assert event.seats is not None and len(event.seats) == 1
            else:
                assert event.seats is None
            if payload.HasField("round_scored"):
                scored = payload.round_scored
                for side, (cards, most, points, plain, jacks, total) in enumerate(
                    model.last_scores
                ):
                    got = scored.sides[side]
                    assert (got.cards, got.most_cards, got.card_points) == (cards, most, points)
                    assert (got.xeris, got.jack_xeris, got.total) == (plain, jacks, total)
                    assert got.points == model.points[side]
                    assert got.round_wins == model.wins[side]
                assert sum(s.cards for s in scored.sides) <= 52
        if model.expect in {"play", "shuffle", "over"} and model.round:
            assert [_text(hand) for hand in state.hands] == [
                sorted(hand, key=sort_key) for hand in model.hands
            ]
            assert _text(state.pile) == model.pile
            assert _text(state.stock) == model.stock
            assert [_text(c) for c in state.captured] == model.captured
            assert [_text(x) for x in state.xeris] == model.xeris
            assert list(state.points) == model.points
            assert list(state.round_wins) == model.wins
            assert state.plays == model.plays
            assert state.bottom < 0 or DECK[state.bottom] == model.bottom
        if model.expect == "play":
            assert state.to_move == model.turn
            legal = [action.text for action in state.legal_actions()]
            assert legal == [f"play {c}" for c in sorted(model.hands[model.turn], key=sort_key)]
            assert legal, "no legal action before the end of the game"
        if state.hands and state.phase.value != "cut":
            everything = [
                *(c for hand in state.hands for c in hand),
                *state.pile,
                *state.stock,
                *state.captured[0],
                *state.captured[1],
                *state.unclaimed,
            ]
            assert Counter(everything) == Counter(range(52)), "the 52 cards are not conserved"
    return model


def check_result(options: Options, model: Model, final: XeriState) -> None:
    assert final.is_terminal() and model.over
    result = final.result()
    players = options.integer("players")
    assert result.scores == tuple(model.points[seat % 2] for seat in range(players))
    if model.winner is None:
        assert result.ranks == (1,) * players
        assert result.text.startswith("draw")
    else:
        assert result.ranks == tuple(
            1 if seat % 2 == model.winner else 2 for seat in range(players)
        )
    if players == 4:
        assert result.teams == (0, 1, 0, 1)
        assert "team 0 (seats 0+2)" in result.text and "team 1 (seats 1+3)" in result.text
    else:
        assert result.teams is None


@examples(60)
@given(st.data(), xeri_options())
def test_playouts_follow_the_rules(data: st.DataObject, options: Options) -> None:
    playout = any_playout(data, options)
    model = check_against_model(options, playout)
    final = playout.states[-1]
    assert isinstance(final, XeriState)
    check_result(options, model, final)


@examples(16)
@given(st.integers(0, 2**32 - 1), xeri_options(rounds=st.just(4)))
def test_full_length_games_follow_the_rules(seed: int, options: Options) -> None:
    playout = seeded_playout(GAME, options, seed)
    model = check_against_model(options, playout)
    final = playout.states[-1]
    assert isinstance(final, XeriState)
    check_result(options, model, final)
    if options["var_cumulative_151"]:
        # XERI-R14: exactly one side reached the target, which only rises in steps of 100.
        assert (final.target - 151) % 100 == 0
        assert sum(points >= final.target for points in final.points) == 1
    else:
        assert final.round == 4


@examples(20)
@given(st.data(), xeri_options())
def test_same_chance_and_actions_give_the_same_states(
    data: st.DataObject, options: Options
) -> None:
    playout = any_playout(data, options)
    assert replay_steps(GAME, options, playout.steps) == playout.states


@examples(80)
@given(st.data(), xeri_options(), st.randoms(use_true_random=True))
def test_no_information_leak(data: st.DataObject, options: Options, rng: random.Random) -> None:
    """Resampling what a seat cannot see (the other hands and the stock order, consistently)
    changes none of its observations or visible events, up to any point of the game."""
    playout = any_playout(data, options)
    players = options.integer("players")
    seat = data.draw(st.integers(0, players - 1), label="seat")
    cut = data.draw(st.integers(1, len(playout.steps)), label="cut")
    model = Model.of(options)
    round_start = 0
    for number, (kind, value) in enumerate(playout.steps[:cut]):
        if model.expect == "shuffle":
            round_start = number
        model.step(kind, value)
    unseen = sorted(set(DECK) - model.seen[seat]) if model.seen else []
    shuffled = unseen[:]
    rng.shuffle(shuffled)
    sigma = {card: card for card in DECK} | dict(zip(unseen, shuffled, strict=True))
    steps: list[tuple[str, ChanceOutcome | str]] = list(playout.steps[:round_start])
    for kind, value in playout.steps[round_start:cut]:
        if kind == "chance" and isinstance(value, tuple):
            steps.append((kind, tuple(sigma[card] for card in value)))
        elif kind == "action" and isinstance(value, str):
            steps.append((kind, f"play {sigma[value.removeprefix('play ')]}"))
        else:
            steps.append((kind, value))
    resampled = replay_steps(GAME, options, steps)
    for original, other in zip(playout.states[: cut + 1], resampled, strict=True):
        assert original.observation(seat) == other.observation(seat)
        assert encoded(GAME, options, original, seat) == encoded(GAME, options, other, seat)
        mine = [e for e in original.events if e.visible_to(seat)]
        theirs = [e for e in other.events if e.visible_to(seat)]
        assert mine == theirs
    if len(unseen) > 1 and shuffled != unseen:
        # The resample did change something the seat cannot see.
        assert any(a != b for a, b in zip(playout.states[: cut + 1], resampled, strict=True))


@examples(16)
@given(st.integers(0, 2**32 - 1), xeri_options(rounds=st.integers(1, 2)))
def test_records_round_trip_and_verify(
    tmp_path_factory: pytest.TempPathFactory, seed: int, options: Options
) -> None:
    path = tmp_path_factory.mktemp("records") / "match.jsonl"
    config = MatchConfig(
        GAME, options, seed=seed, match_id="prop", time_control=TimeControl(move_ms=0)
    )
    players = options.integer("players")
    seats = [InProcessSeat(RandomBot(seed + seat)) for seat in range(players)]
    outcome = trio.run(run_match, config, seats, path)
    report = verify(path)
    assert report.ok, report.problems
    assert outcome.result.termination == 1
    results = outcome.result.seats
    # Result.teams only in 4-player games (XERI-R1); SeatResult.team is 0 without teams.
    teams = [seat % 2 for seat in range(players)] if players == 4 else [0] * players
    assert [s.team for s in results] == teams
    # Scores and ranks are per side: partners share them.
    assert all(r.score == results[r.seat % 2].score for r in results)
    assert all(r.rank == results[r.seat % 2].rank for r in results)


@examples(30)
@given(st.data(), xeri_options())
def test_no_value_is_an_unset_field(data: st.DataObject, options: Options) -> None:
    """XeriObservation's optional fields are set exactly when the rules give them a value."""
    cumulative = bool(options["var_cumulative_151"])
    for state in any_playout(data, options).states:
        assert isinstance(state, XeriState)
        obs = state.observation(0)
        assert obs.HasField("top_card") == bool(obs.pile_cards)
        if obs.pile_cards:
            assert obs.top_card == obs.pile_cards[-1]
        assert obs.HasField("bottom_card") == (state.bottom >= 0)
        if obs.HasField("bottom_card"):
            assert options["var_cut_reveal"] and obs.bottom_card != ""
        assert obs.HasField("target") == cumulative  # XERI-R14
        assert obs.HasField("rounds") != cumulative
        if cumulative:
            assert obs.target >= 151
        else:
            assert obs.rounds == options.integer("rounds")
