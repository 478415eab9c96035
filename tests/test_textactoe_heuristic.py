"""The Tex-Tac-Toe heuristic bot: its own evaluator agrees with the engine's, it decides sensibly
in worked positions, plays only legal actions, and beats RandomBot (the full 200-game figures are
in bench/bot_strength.py)."""

from __future__ import annotations

import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.bots import RandomBot, TexTacToeHeuristicBot
from croupier.bots.textactoe_heuristic import hand_value
from croupier.v1 import referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.games.textactoe import TexTacToeState
from referee.games.textactoe_poker import JOKER_DECK, card_text, evaluate
from referee.match import protocol
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests.test_textactoe_rules import act, start

GAME = get_game("textactoe")
HANDS = st.lists(st.sampled_from(JOKER_DECK), min_size=5, max_size=5, unique=True)


@settings(max_examples=200)
@given(HANDS, HANDS)
def test_the_bots_evaluator_orders_hands_like_the_engine(
    first: list[int], second: list[int]
) -> None:
    def bot(hand: list[int]) -> tuple[int, tuple[int, ...]]:
        return hand_value(tuple(sorted(card_text(card) for card in hand)))

    assert bot(first)[0] == evaluate(first)[0]
    assert (bot(first) > bot(second)) == (evaluate(first) > evaluate(second))
    assert (bot(first) == bot(second)) == (evaluate(first) == evaluate(second))


def choose(state: TexTacToeState, bot: TexTacToeHeuristicBot | None = None) -> str:
    seat = state.to_move
    assert seat is not None
    legal = state.legal_actions()
    request = referee_pb2.ActionRequest(
        observation=protocol.observation(GAME.id, state, seat),
        legal_actions=protocol.legal_actions(GAME.id, legal),
    )
    return legal[(bot or TexTacToeHeuristicBot()).act(request)].text


def test_it_calls_a_full_house_and_commits_its_best_pair() -> None:
    state = start("2H 5S 6D 7H 7D KS 9C TC JH", ["7C KH 2D", "3C 4C 9D"])
    state = act(state, "reveal 3", "reveal 5")
    assert choose(state) == "call 7C KH"  # 7H 7D KS + 7C KH: a full house
    state = act(state, "call 7C KH", "concede")
    assert choose(state) in ("commit 3C 4C", "commit 3C 9D", "commit 4C 9D")
    state = start("2H 5S 6D 7H 7D KS 9C TC JH", ["7C 2D 3D", "KC KD 9D"])
    state = act(state, "reveal 3", "reveal 5", "call 2D 7C", "concede")
    assert choose(state) == "commit KC KD"  # two pair beats the 9D pairs


def test_it_challenges_with_a_strong_hand_and_concedes_a_weak_one() -> None:
    state = start("2H 5S 6D 7H 7D KS 9C TC JH", ["2D 3D 4C", "7C KH 8S"])
    state = act(state, "reveal 3", "reveal 5", "call 2D 3D")
    assert choose(state) == "challenge"  # it holds a full house
    state = start("2H 5S 6D 7H 7D KS 9C TC JH", ["2D 3D 4C", "2C 3C 4S"], first=0)
    state = act(state, "reveal 3", "reveal 5", "call 2D 3D")
    assert choose(state) == "concede"  # 7-7-K-4-3 is beaten by almost anything


def test_it_plays_a_card_that_improves_its_line() -> None:
    # Row 1 is 5H 9H 3S; seat 0 holds 2H 3H 7H: only a pair of 3s. 3H on 3S (same rank) turns
    # row 1 into 5H 9H 3H, which makes a flush with the 2H and 7H it keeps.
    state = start("2C 5S 6D 5H 9H 3S 9C TC JD", ["2H 7H 3H", "4C 8C QD"])
    state = act(state, "reveal 3", "reveal 5")
    assert choose(state) == "play 3H 5"
    state = act(state, "play 3H 5", "discard 4C")
    assert choose(state).startswith("call")  # a flush, the best hand it can see


def test_it_plays_legally_in_every_variant() -> None:
    for raw in ({"players": "3", "jokers": "true"}, {"players": "4"}):
        options = parse_options(GAME, raw)
        players = options.integer("players")
        config = MatchConfig(
            GAME, options, seed=3, match_id="legal", time_control=TimeControl(move_ms=0)
        )
        seats = [
            InProcessSeat(TexTacToeHeuristicBot(seed=k) if k % 2 == 0 else RandomBot(seed=k))
            for k in range(players)
        ]
        outcome = trio.run(run_match, config, seats, None)
        assert not outcome.faults
        assert outcome.result.termination == 1


def test_it_beats_random_play() -> None:
    """30 two-player games, alternating seats; it wins about 90% (bench: 200 games)."""
    options = parse_options(GAME, {})
    wins = 0
    for number in range(30):
        hero = number % 2
        bots = [
            TexTacToeHeuristicBot(seed=number) if seat == hero else RandomBot(seed=number)
            for seat in range(2)
        ]
        config = MatchConfig(
            GAME, options, seed=number, match_id="vs", time_control=TimeControl(move_ms=0)
        )
        outcome = trio.run(run_match, config, [InProcessSeat(bot) for bot in bots], None)
        assert not outcome.faults
        ranks = [seat.rank for seat in outcome.result.seats]
        wins += ranks[hero] == 1 and ranks[1 - hero] == 2
    assert wins >= 20
