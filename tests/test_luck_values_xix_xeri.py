"""XIX's and Xeri's luck values (referee/games/xix_value.py, xeri_value.py) on the real engines.

Random playouts through every chance node, under every option combination, check that the
features are finite and as long as the weights and that the LuckMeter's corrections are finite.
Over seeded deals, a seat's mean correction must be zero within sampling error: the meter's
expectation is over the same outcomes the referee draws, and a deliberately wrong one (deals
dealt in seat 0's favour) is caught by the same test.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import get_game, xeri_value, xix_value
from referee.games.base import Game, State, parse_options
from referee.games.options import Options
from referee.games.values import LinearValue, value_function
from referee.match.luck import LuckMeter
from referee.match.runner import draw_chance
from tests.playouts import seeded_playout

XIX = get_game("xix")
XERI = get_game("xeri")
XERI_VARIATIONS = (
    "var_cut_reveal",
    "var_lenient_pile",
    "var_no_last_xeri",
    "var_jack_xeri_25",
    "var_cumulative_151",
)


def xeri_options(players: int, rounds: int, variations: frozenset[str]) -> Options:
    raw = {"players": str(players), "rounds": str(rounds)}
    raw.update(dict.fromkeys(variations, "true"))
    return parse_options(XERI, raw)


def chance_steps(states: list[State]) -> Iterator[tuple[State, State]]:
    """Each chance node of a playout, as the state before it and the state after."""
    for before, after in itertools.pairwise(states):
        if before.chance() is not None:
            yield before, after


def check_playout(game: Game, options: Options, seed: int) -> int:
    """Play a seeded game through; check the features and the corrections at every chance node.
    Returns how many chance nodes there were."""
    value = value_function(game.id)
    assert value is not None
    module = value.module
    seats = game.seat_count(options)
    meter = LuckMeter(value, seed, seats)
    playout = seeded_playout(game, options, seed)
    nodes = 0
    for before, after in chance_steps(playout.states):
        for seat in range(seats):
            row = module.features(after, seat)
            assert len(row) == len(module.WEIGHTS)
            assert all(math.isfinite(x) for x in row)
        meter.chance(before, after)
        nodes += 1
    assert meter.nodes == nodes
    assert all(math.isfinite(c) for c in meter.corrections())
    # Every state of the game has features, not only those after chance.
    for state in playout.states[:: max(1, len(playout.states) // 20)]:
        for seat in range(seats):
            assert len(module.features(state, seat)) == len(module.WEIGHTS)
    return nodes


def test_value_modules_are_found() -> None:
    for game_id, module in (("xix", xix_value), ("xeri", xeri_value)):
        value = value_function(game_id)
        assert value is not None and value.module is module
        assert value.name == module.NAME and module.NAME.startswith(f"{game_id}-")
        assert all(math.isfinite(w) for w in module.WEIGHTS)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32))
def test_xix_playouts(seed: int) -> None:
    assert check_playout(XIX, parse_options(XIX, {}), seed) == 2  # XIX-R1 deal, XIX-R2 leader


#: Every combination of Xeri's variations (its other options only change how long a game is).
XERI_COMBINATIONS = [
    frozenset(combination)
    for size in range(len(XERI_VARIATIONS) + 1)
    for combination in itertools.combinations(XERI_VARIATIONS, size)
]


@pytest.mark.parametrize("variations", XERI_COMBINATIONS, ids=lambda v: "+".join(sorted(v)))
@pytest.mark.parametrize("players", [2, 4])
@settings(max_examples=2)
@given(seed=st.integers(0, 2**32))
def test_xeri_playouts(players: int, variations: frozenset[str], seed: int) -> None:
    # One round has every kind of chance node (dealer, shuffle, cut, reshuffle); V5 plays on.
    options = xeri_options(players, 1, variations)
    assert check_playout(XERI, options, seed) >= 2


# Unbiasedness: a seat's mean correction over many seeded deals is zero within 4 standard errors.

Deal = Callable[[State, random.Random], State]


def fair(state: State, rng: random.Random) -> State:
    """The referee's draw (referee.match.runner.draw_chance)."""
    node = state.chance()
    assert node is not None
    return state.apply_chance(draw_chance(node, rng))


def favour_seat_0(value: LinearValue) -> Deal:
    """A crooked dealer: of two deals, the one that seat 0's V likes better."""

    def deal(state: State, rng: random.Random) -> State:
        return max((fair(state, rng) for _ in range(2)), key=lambda after: value(after, 0))

    return deal


def seat_0_corrections(game: Game, options: Options, deals: int, deal: Deal = fair) -> list[float]:
    """Seat 0's correction over `deals` seeded games played through at random."""
    value = value_function(game.id)
    assert value is not None
    seats = game.seat_count(options)
    totals = []
    for seed in range(deals):
        rng = random.Random(seed)
        meter = LuckMeter(value, seed, seats)
        state = game.new_game(options)
        while not state.is_terminal():
            if state.chance() is None:
                state = state.apply(rng.choice(state.legal_actions()))
                continue
            after = deal(state, rng)
            meter.chance(state, after)
            state = after
        totals.append(meter.corrections()[0])
    return totals


def z_score(values: list[float]) -> float:
    error = statistics.stdev(values) / math.sqrt(len(values))
    assert error > 0, "the corrections do not vary: V ignores the deal"
    return statistics.fmean(values) / error


@pytest.mark.parametrize(
    ("game", "raw"),
    [
        (XIX, {}),
        (XERI, {"players": "2", "rounds": "2"}),
        (XERI, {"players": "4", "rounds": "1", "var_cut_reveal": "true"}),
    ],
    ids=["xix", "xeri-2", "xeri-4-cut"],
)
def test_corrections_are_unbiased(game: Game, raw: dict[str, str]) -> None:
    assert abs(z_score(seat_0_corrections(game, parse_options(game, raw), 200))) < 4


def test_a_wrong_expectation_is_caught() -> None:
    """Deals dealt in seat 0's favour, which the meter's expectation does not know about: its
    corrections are negative, far beyond the test's 4 standard errors."""
    value = value_function("xix")
    assert value is not None
    options = parse_options(XIX, {})
    assert z_score(seat_0_corrections(XIX, options, 200, favour_seat_0(value))) < -4
