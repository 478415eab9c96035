"""The playouts' default policies (issue 48.1): at every decision of seeded matches, 2 players
and 4 and under the variations, a game's policy picks one of the legal actions, and a
playout it drives ends; the same seed makes the same moves; Xeri's greedy policy takes a Xeri
that lies on the pile, rather than any other card, where it does not explore; and Xeri's
redeal moves only cards the seat to move never saw: its observation, legal actions and every
card's count stay as they were, a bottom card shown (V1) stays put; Xactika's policy takes a
trick its bid needs and ducks one it does not."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import get_game
from referee.games.base import Pick, State, parse_options
from referee.games.xactika import MATCH_FACE, XactikaState
from referee.games.xeri import CARD_OF, XeriState
from referee.review import xactika_rollout, xeri_rollout
from referee.review.rollout import heuristic_prior, policy_for, redeal_for, uniform

XERI_OPTIONS = st.fixed_dictionaries(
    {
        "players": st.sampled_from(["2", "4"]),
        "rounds": st.sampled_from(["1", "2"]),
        "var_cut_reveal": st.sampled_from(["false", "true"]),
        "var_lenient_pile": st.sampled_from(["false", "true"]),
        "var_no_last_xeri": st.sampled_from(["false", "true"]),
        "var_jack_xeri_25": st.sampled_from(["false", "true"]),
    }
)


def _played(
    game_id: str, options: dict[str, str], seed: int, redealt: list[int] | None = None
) -> list[str]:
    """A whole match with the game's policy in every seat, each move checked to be legal (and
    with `redealt`, the state redealt for the seat to move and checked, and counted, there)."""
    game = get_game(game_id)
    state: State = game.new_game(parse_options(game, options))
    rng = random.Random(seed)
    policy = policy_for(game_id)
    moves: list[str] = []
    while not state.is_terminal():
        node = state.chance()
        if node is None:
            legal = {a.text for a in state.legal_actions()}
            if redealt is not None:
                _check_redeal(state, rng)
                redealt.append(1)
            action = policy(state, rng)
            assert action.text in legal, (seed, action.text, sorted(legal))
            moves.append(action.text)
            state = state.apply(action)
        elif isinstance(node, Pick):
            state = state.apply_chance(rng.randrange(node.count))
        else:
            state = state.apply_chance(tuple(rng.sample(node.cards, len(node.cards))))
        assert len(moves) < 20_000
    return moves


@settings(max_examples=25, deadline=None)
@given(options=XERI_OPTIONS, seed=st.integers(0, 2**32))
def test_the_xeri_policy_only_plays_legal_cards(options: dict[str, str], seed: int) -> None:
    assert policy_for("xeri") is xeri_rollout.policy
    redealt: list[int] = []
    moves = _played("xeri", options, seed, redealt)
    assert moves and len(redealt) == len(moves)
    assert moves == _played("xeri", options, seed, [])  # seeded: the same moves again


def _check_redeal(state: State, rng: random.Random) -> None:
    assert isinstance(state, XeriState)
    seat = state.to_move_seat
    again = xeri_rollout.redeal(state, seat, rng)
    assert isinstance(again, XeriState)
    assert again.observation(seat) == state.observation(seat)
    assert [a.text for a in again.legal_actions()] == [a.text for a in state.legal_actions()]
    assert _hidden_and_mine(again) == _hidden_and_mine(state)
    assert [len(hand) for hand in again.hands] == [len(hand) for hand in state.hands]
    if state.bottom in state.stock:
        assert again.stock[-1] == state.stock[-1] == state.bottom
    if state.bottom >= 0:
        for before, after in zip(state.hands, again.hands, strict=True):
            assert (state.bottom in before) == (state.bottom in after)


def _hidden_and_mine(state: XeriState) -> list[int]:
    return sorted([*state.stock, *(card for hand in state.hands for card in hand)])


@settings(max_examples=10, deadline=None)
@given(game_id=st.sampled_from(["xix", "xactika", "textactoe"]), seed=st.integers(0, 2**32))
def test_every_game_has_a_policy_that_plays_legally(game_id: str, seed: int) -> None:
    assert _played(game_id, {}, seed)


def test_games_without_their_own_policy_play_uniformly() -> None:
    assert policy_for("xix") is uniform and policy_for("no-such-game") is uniform
    assert redeal_for("xix") is None and redeal_for("xeri") is xeri_rollout.redeal
    assert heuristic_prior("xeri") and not heuristic_prior("xix")


def test_the_greedy_xeri_policy_takes_a_xeri() -> None:
    """A lone 7 on the pile and a 7 in hand: a Xeri (XERI-R6), over a jack or a discard."""
    state = _xeri_at_play()
    hand = tuple(sorted(CARD_OF[c] for c in ("7H", "JS", "3C", "KD")))
    others = state.hands[1]
    state = replace(state, hands=(hand, others), pile=(CARD_OF["7C"],), to_move_seat=0)
    explored = 0
    for seed in range(200):
        rng = random.Random(seed)
        action = xeri_rollout.policy(state, rng)
        explored += action.text != "play 7H"
    assert explored < 50  # only its exploring moves (a tenth) play another card


def _xeri_at_play() -> XeriState:
    game = get_game("xeri")
    state: State = game.new_game(parse_options(game, {"var_lenient_pile": "true"}))
    rng = random.Random(1)
    while state.chance() is not None:
        node = state.chance()
        if isinstance(node, Pick):
            state = state.apply_chance(rng.randrange(node.count))
        else:
            assert node is not None
            state = state.apply_chance(tuple(rng.sample(node.cards, len(node.cards))))
    assert isinstance(state, XeriState)
    return state


def test_the_xactika_policy_takes_a_trick_its_bid_needs_and_ducks_one_it_does_not() -> None:
    """Last to a trick with a card that takes it and one that does not (both following the
    call): while its bid needs a trick it takes this one, once the bid is made it ducks, but
    for its exploring moves (a tenth)."""
    state = _xactika_to_follow()
    seat = state.to_move_seat
    call = state.call
    best = max(MATCH_FACE[call][c] for c in state.trick)
    winning = {a.text for a in state.legal_actions() if MATCH_FACE[call][a.value] >= best}
    for bid, want in ((8, True), (0, False)):
        bids = tuple(bid if s == seat else b for s, b in enumerate(state.bids))
        at = replace(state, table=replace(state.table, bids=bids))
        took = sum(xactika_rollout.policy(at, random.Random(n)).text in winning for n in range(200))
        assert (took > 170) if want else (took < 30), (bid, took)


def _xactika_to_follow() -> XactikaState:
    """A 2-player deal at a trick whose follower holds a matching card that takes it and one that
    does not."""
    game = get_game("xactika")
    for seed in range(500):
        rng = random.Random(seed)
        state: State = game.new_game(parse_options(game, {"players": "2", "rounds": "1"}))
        while not state.is_terminal():
            node = state.chance()
            if isinstance(node, Pick):
                state = state.apply_chance(rng.randrange(node.count))
            elif node is not None:
                state = state.apply_chance(tuple(rng.sample(node.cards, len(node.cards))))
            else:
                assert isinstance(state, XactikaState)
                if state.trick and state.bids[state.to_move_seat] >= 0:
                    best = max(MATCH_FACE[state.call][c] for c in state.trick)
                    faces = [MATCH_FACE[state.call][a.value] for a in state.legal_actions()]
                    if min(faces) > 0 and min(faces) < best <= max(faces):
                        return state
                state = state.apply(rng.choice(state.legal_actions()))
    raise AssertionError("no such trick in 500 deals")
