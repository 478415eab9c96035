"""The luck values of Xactika and Tex-Tac-Toe (referee/games/xactika_value.py, textactoe_value.py)
on the real engines: random playouts through every chance node with their options, and the
corrections' unbiasedness over seeded deals (issue 28.4)."""

from __future__ import annotations

import math
import random
import statistics
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import get_game, textactoe_value, xactika_value
from referee.games.base import State, parse_options
from referee.games.values import LinearValue, value_function
from referee.match.luck import LuckMeter
from referee.match.runner import draw_chance

MODULES: dict[str, ModuleType] = {"xactika": xactika_value, "textactoe": textactoe_value}


def _check_features(game_id: str, state: State, seats: int) -> None:
    module = MODULES[game_id]
    for seat in range(seats):
        values = module.features(state, seat)
        assert len(values) == len(module.WEIGHTS)
        assert all(math.isfinite(v) for v in values), values


def _random_match(game_id: str, raw: dict[str, str], seed: int) -> tuple[tuple[float, ...], int]:
    """A whole game with random chance and random legal actions; the features are checked after
    every chance outcome and the luck meter credits every chance node. Returns the corrections
    and the number of chance nodes."""
    game = get_game(game_id)
    options = parse_options(game, raw)
    seats = game.seat_count(options)
    value = value_function(game_id)
    assert value is not None
    meter = LuckMeter(value, seed, seats)
    rng = random.Random(seed)
    state = game.new_game(options)
    while not state.is_terminal():
        node = state.chance()
        if node is None:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
            continue
        after = state.apply_chance(draw_chance(node, rng))
        _check_features(game_id, after, seats)
        meter.chance(state, after)
        state = after
    return meter.corrections(), meter.nodes


@settings(max_examples=12)
@given(players=st.integers(2, 10), rounds=st.integers(1, 2), seed=st.integers(0, 2**32))
def test_xactika_features_and_corrections_are_finite(players: int, rounds: int, seed: int) -> None:
    raw = {"players": str(players), "rounds": str(rounds)}
    corrections, nodes = _random_match("xactika", raw, seed)
    assert nodes == 1 + rounds  # XAC-R1's first dealer, then one deal per round
    assert len(corrections) == players
    assert all(math.isfinite(c) for c in corrections)


@settings(max_examples=12)
@given(players=st.integers(2, 4), jokers=st.booleans(), seed=st.integers(0, 2**32))
def test_textactoe_features_and_corrections_are_finite(
    players: int, jokers: bool, seed: int
) -> None:
    raw = {"players": str(players), "jokers": str(jokers).lower(), "max_turns_per_hand": "12"}
    corrections, nodes = _random_match("textactoe", raw, seed)
    assert nodes == 2  # TTT-R1: the shuffle, then the first player
    assert len(corrections) == players
    assert all(math.isfinite(c) for c in corrections)


def _deal_corrections(game_id: str, raw: dict[str, str], deals: int) -> list[float]:
    """Seat 0's correction over the chance nodes up to the first decision, for `deals` seeds,
    each outcome drawn as the referee draws it."""
    game = get_game(game_id)
    options = parse_options(game, raw)
    seats = game.seat_count(options)
    value = value_function(game_id)
    assert isinstance(value, LinearValue)
    corrections = []
    for seed in range(deals):
        meter = LuckMeter(value, seed, seats)
        rng = random.Random(seed)
        state = game.new_game(options)
        while (node := state.chance()) is not None:
            after = state.apply_chance(draw_chance(node, rng))
            meter.chance(state, after)
            state = after
        corrections.append(meter.corrections()[0])
    return corrections


def _assert_unbiased(corrections: list[float]) -> None:
    mean = statistics.fmean(corrections)
    error = statistics.stdev(corrections) / math.sqrt(len(corrections))
    assert error > 0, "the correction never varies: the value function sees no luck"
    assert abs(mean) < 4 * error, (mean, error)


def test_xactika_corrections_are_unbiased() -> None:
    _assert_unbiased(_deal_corrections("xactika", {"players": "4"}, 200))


def test_textactoe_corrections_are_unbiased() -> None:
    _assert_unbiased(_deal_corrections("textactoe", {"jokers": "true"}, 300))


def test_textactoe_value_before_the_pick_is_the_mean_after_it() -> None:
    """Before the first player is picked every seat's stash is equally likely to be any of the
    dealt ones, so V there is the mean over the pick: the shuffle's correction is zero."""
    game = get_game("textactoe")
    options = parse_options(game, {"players": "3", "jokers": "true"})
    value = value_function("textactoe")
    assert value is not None
    rng = random.Random(7)
    for _ in range(20):
        state = game.new_game(options)
        node = state.chance()
        assert node is not None
        shuffled = state.apply_chance(draw_chance(node, rng))
        for seat in range(3):
            mean = statistics.fmean(value(shuffled.apply_chance(f), seat) for f in range(3))
            assert math.isclose(value(shuffled, seat), mean, abs_tol=1e-9)
