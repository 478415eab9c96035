"""Hypothesis-driven playouts shared by the game property tests: chance and choices are drawn
from hypothesis, so a failing game shrinks to a short one."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

from croupier.env.table import Table
from croupier.v1 import referee_pb2
from referee.games import checked
from referee.games.base import ChanceOutcome, Game, Pick, Shuffle, State
from referee.games.options import Options
from referee.match import protocol
from referee.match.runner import draw_chance


@dataclass
class Playout:
    """A finished game: the states visited and, between them, what happened."""

    states: list[State] = field(default_factory=list)
    #: One entry per transition: ("chance", outcome) or ("action", text).
    steps: list[tuple[str, ChanceOutcome | str]] = field(default_factory=list)
    #: Seat and index of each action, in order.
    choices: list[tuple[int, int]] = field(default_factory=list)


def _play(
    game: Game,
    options: Options,
    chance: Callable[[Shuffle | Pick], ChanceOutcome],
    choose: Callable[[int], int],
    max_steps: int,
) -> Playout:
    """The one playout loop: `chance` resolves each chance node, `choose(n)` picks an index."""
    state = game.new_game(options)
    playout = Playout(states=[state])
    for _ in range(max_steps):
        if state.is_terminal():
            return playout
        node = state.chance()
        if node is not None:
            outcome = chance(node)
            state = checked.apply_chance(state, outcome)
            playout.steps.append(("chance", outcome))
        else:
            seat = state.to_move
            assert seat is not None
            legal = state.legal_actions()
            assert legal, "no legal action before the end of the game"
            index = choose(len(legal))
            state, action = checked.apply_index(state, seat, index, legal)
            playout.steps.append(("action", action.text))
            playout.choices.append((seat, index))
        playout.states.append(state)
    raise AssertionError(f"game did not end within {max_steps} steps")


def play_out(game: Game, options: Options, data: st.DataObject, max_steps: int = 20_000) -> Playout:
    """Play a whole game, drawing every deck, pick and action index from `data`."""

    def chance(node: Shuffle | Pick) -> ChanceOutcome:
        if isinstance(node, Shuffle):
            return tuple(data.draw(st.permutations(node.cards), label=node.label))
        return data.draw(st.integers(0, node.count - 1), label=node.label)

    return _play(game, options, chance, lambda n: data.draw(st.integers(0, n - 1)), max_steps)


def replay_steps(
    game: Game, options: Options, steps: list[tuple[str, ChanceOutcome | str]]
) -> list[State]:
    """Re-run recorded steps through the checked path (actions by text)."""
    state = game.new_game(options)
    states = [state]
    for kind, value in steps:
        if kind == "chance":
            assert not isinstance(value, str)
            state = checked.apply_chance(state, value)
        else:
            assert isinstance(value, str)
            seat = state.to_move
            assert seat is not None
            state, _ = checked.apply_text(game, state, seat, value)
        states.append(state)
    return states


def seeded_playout(
    game: Game, options: Options, seed: int | random.Random, max_steps: int = 20_000
) -> Playout:
    """A whole game with chance and choices from one seeded RNG, through the checked path: for
    games too long for hypothesis' data buffer (hypothesis then draws only the seed)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return _play(game, options, lambda node: draw_chance(node, rng), rng.randrange, max_steps)


def encoded(game: Game, options: Options, state: State, seat: int) -> bytes:
    """The training environments' numeric encoding of what `seat` observes in `state` (issue
    47.2), for the no-leak tests: it is built from the observation alone, so it must not change
    where the observation does not."""
    table = _table(game.id, tuple(sorted(options.as_text().items())))
    request = referee_pb2.ActionRequest(observation=protocol.observation(game.id, state, seat))
    return table.encoder.encode(request).tobytes()


@functools.cache
def _table(game_id: str, options: tuple[tuple[str, str], ...]) -> Table:
    return Table.of(game_id, dict(options))
