"""XeriHeuristicBot against RandomBot through the real match runner (bench/bot_strength.py
measures the same over 200 games per mode; this is a short run with a conservative bar)."""

from __future__ import annotations

import pytest
import trio

from croupier.bot import Bot
from croupier.bots import RandomBot, XeriHeuristicBot
from croupier.v1 import game_pb2, referee_pb2, xeri_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat

GAME = get_game("xeri")
GAMES = 16


@pytest.mark.parametrize(
    "options_text",
    [
        {"players": "2", "rounds": "2"},
        {"players": "4", "rounds": "2"},
        {"players": "2", "var_cumulative_151": "true", "var_cut_reveal": "true"},
        {"players": "4", "rounds": "1", "var_lenient_pile": "true", "var_no_last_xeri": "true"},
    ],
)
def test_the_heuristic_side_beats_random_play(options_text: dict[str, str]) -> None:
    options = parse_options(GAME, options_text)
    players = options.integer("players")
    wins = 0
    for number in range(GAMES):
        hero = number % 2  # a seat with 2 players, a team (both partners) with 4
        bots: list[Bot] = [
            XeriHeuristicBot() if seat % 2 == hero else RandomBot(seed=number * 4 + seat)
            for seat in range(players)
        ]
        config = MatchConfig(
            GAME, options, seed=number, match_id=f"t{number}", time_control=TimeControl(move_ms=0)
        )
        outcome = trio.run(run_match, config, [InProcessSeat(bot) for bot in bots])
        assert not outcome.faults
        seats = outcome.result.seats
        wins += seats[hero].rank == 1 and seats[1 - hero].rank == 2
    # Over 200 games it wins about 99% in every mode; 12 of 16 leaves a wide margin.
    assert wins >= 12


def request(hand: str, pile: str) -> referee_pb2.ActionRequest:
    """Seat 0 of a 2-player game with `hand`, the pile `pile` (bottom first)."""
    cards = hand.split()
    observation = xeri_pb2.XeriObservation(
        seat=0,
        players=2,
        hand=cards,
        hand_sizes=[len(cards), 6],
        pile_cards=pile.split(),
        top_card=pile.split()[-1] if pile else "",
        pile_size=len(pile.split()),
        stock_size=24,
        sides=[xeri_pb2.XeriSide(seats=[0]), xeri_pb2.XeriSide(seats=[1])],
        round=1,
    )
    actions = [
        game_pb2.Action(text=f"play {card}", xeri=xeri_pb2.XeriAction(play=card)) for card in cards
    ]
    return referee_pb2.ActionRequest(
        observation=game_pb2.Observation(xeri=observation), legal_actions=actions
    )


def choose(bot: XeriHeuristicBot, hand: str, pile: str) -> str:
    req = request(hand, pile)
    return req.legal_actions[bot.act(req)].xeri.play


def test_it_takes_a_xeri_and_keeps_its_jack_for_a_big_pile() -> None:
    bot = XeriHeuristicBot()
    assert choose(bot, "3C 7H JD KS", "7D") == "7H"  # a Xeri
    assert choose(bot, "3C 5H JD KS", "7D") == "3C"  # no jack on a lone 7
    assert choose(bot, "3C 5H JD KS", "7D AS KH QC TD") == "JD"  # but on a rich pile, yes
    assert choose(bot, "3C 5H JD KS", "JC") == "JD"  # a Jack Xeri


def test_it_does_not_leave_a_lone_card_the_opponent_can_match() -> None:
    bot = XeriHeuristicBot()
    # Three sevens are gone: a lone 7S cannot be made a Xeri, a lone 4C can.
    for card in ("7C", "7D", "7H"):
        bot.on_event(
            game_pb2.Event(xeri=xeri_pb2.XeriEvent(played=xeri_pb2.XeriPlayed(seat=1, card=card)))
        )
    assert choose(bot, "4C 7S", "") == "7S"
