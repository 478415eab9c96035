"""A spectator's table (referee.match.public) never holds what only some seats may know."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import Message

from referee.games import get_game
from referee.games.base import Shuffle, State, parse_options
from referee.games.catalog import CATALOG
from referee.games.xix import XixState
from referee.match.public import public_observation
from referee.viewer import spectator_table
from referee.viewer.games import Context, view_for
from referee.viewer.model import Table

GAMES = {"xix": {}, "xactika": {"players": "5"}, "xeri": {"players": "4"}, "textactoe": {}}


def playout(game_id: str, seed: int) -> Iterator[tuple[State, int]]:
    game = get_game(game_id)
    options = parse_options(game, GAMES[game_id])
    state, rng = game.new_game(options), random.Random(seed)
    while not state.is_terminal():
        node = state.chance()
        if isinstance(node, Shuffle):
            cards = list(node.cards)
            rng.shuffle(cards)
            state = state.apply_chance(tuple(cards))
        elif node is not None:
            state = state.apply_chance(rng.randrange(node.count))
        else:
            state = state.apply(rng.choice(state.legal_actions()))
        yield state, game.seat_count(options)


def field_names(descriptor: Any) -> set[str]:
    names = set()
    for field in descriptor.fields:
        names.add(field.name)
        if field.message_type is not None:
            names |= field_names(field.message_type)
    return names


def leaves(message: Message, prefix: str = "") -> Iterator[tuple[str, str, object]]:
    """(path, field name, value) of every set scalar field, at any depth."""
    for field, value in message.ListFields():
        if field.message_type is None:
            yield prefix + field.name, field.name, value
        elif field.is_repeated:
            for number, item in enumerate(value):
                yield from leaves(item, f"{prefix}{field.name}[{number}].")
        else:
            yield from leaves(value, f"{prefix}{field.name}.")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_private_field_is_named_right_and_never_shown(game_id: str) -> None:
    states = list(playout(game_id, seed=7))
    assert CATALOG[game_id].private_fields <= field_names(states[0][0].observation(0).DESCRIPTOR)
    for state, seats in states[:: max(1, len(states) // 60)]:
        public = getattr(public_observation(game_id, state, seats), game_id)
        observations = [state.observation(seat) for seat in range(seats)]
        for path, name, value in leaves(public):
            assert name not in CATALOG[game_id].private_fields, path
            for seen in observations:  # what a spectator sees, every seat sees alike
                assert _at(seen, path) == value, path


def _at(message: Message, path: str) -> object:
    value: object = message
    for part in path.split("."):
        name, _, index = part.partition("[")
        value = getattr(value, name)
        if index:
            value = value[int(index.rstrip("]"))]  # type: ignore[index]
    return value


def test_two_seats_knowing_a_card_does_not_make_it_public() -> None:
    # Both XIX players may peek at the same strike-row position: still private (XIX peeks).
    for state, seats in playout("xix", seed=3):
        assert isinstance(state, XixState)
        known = [state.observation(seat).strike_row for seat in range(seats)]
        both = [
            p for p in range(len(known[0])) if known[0][p].known_value and known[1][p].known_value
        ]
        public = public_observation("xix", state, seats).xix
        assert all(slot.known_value == 0 for slot in public.strike_row)
        if both:
            return
    pytest.skip("no position was known to both seats in this playout")


def public_facts(table: Table) -> tuple[object, ...]:
    """What a spectator may see of a table: the status and, per seat, its name, score, facts,
    whether it moves, and how many cards it holds (never which)."""
    seats = tuple((s.seat, s.name, s.score, s.facts, s.to_move, len(s.hand)) for s in table.seats)
    return table.status, seats


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_live_table_shows_what_the_replay_shows_at_every_step(game_id: str, seed: int) -> None:
    """Issue 24.2: the live page draws each step from the public observation alone
    (spectator_table, as the site's live_message does); its public facts (above all, how many
    cards each seat holds, which came out as none during XIX's draft and tricks) must be the
    replay's, drawn from every seat's observation and the engine's state."""
    names = [f"bot{seat}" for seat in range(10)]
    view = view_for(game_id)
    for state, seats in playout(game_id, seed):
        public = getattr(public_observation(game_id, state, seats), game_id)
        live = spectator_table(game_id, names[:seats], public)
        every = {seat: state.observation(seat) for seat in range(seats)}
        replay = view.table(Context(tuple(names[:seats]), None, every, state, ()))
        assert public_facts(live) == public_facts(replay)
