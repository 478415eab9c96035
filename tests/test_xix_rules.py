"""Worked XIX examples, computed by hand from the rules (RULES.md section 2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.errors import IllegalActionError, InvalidActionError, InvalidChanceError
from referee.games import checked, get_game
from referee.games.base import parse_options
from referee.games.xix import Phase, XixState, trick_taker

GAME = get_game("xix")
GAME_OPTIONS = parse_options(GAME, {})
# XIX-R1: alternate deal, seat 0 first: seat 0 holds 13..18, seat 1 holds 1..6,
# the strike row is 7 8 9 10 11 and 12 is discarded.
DECK = tuple(str(c) for c in (18, 1, 17, 2, 16, 3, 15, 4, 14, 5, 13, 6, 7, 8, 9, 10, 11, 12))


def dealt(leader: int = 0) -> XixState:
    state = checked.apply_chance(GAME.new_game(GAME_OPTIONS), DECK)
    state = checked.apply_chance(state, leader)
    assert isinstance(state, XixState)
    return state


def act(state: XixState, *texts: str) -> XixState:
    for text in texts:
        seat = state.to_move
        assert seat is not None
        new, _ = checked.apply_text(GAME, state, seat, text)
        assert isinstance(new, XixState)
        state = new
    return state


def test_the_deal_follows_xix_r1() -> None:
    state = dealt()
    assert state.hands == ((13, 14, 15, 16, 17, 18), (1, 2, 3, 4, 5, 6))
    assert state.row == (7, 8, 9, 10, 11)
    assert state.discard == 12
    assert state.to_move == 0


@pytest.mark.parametrize(
    ("lead", "follow", "leader_takes"),
    [(18, 1, False), (1, 18, True), (10, 9, False), (9, 10, True), (13, 3, True), (3, 13, False)],
)
def test_trick_taker_sum_to_19_rule(lead: int, follow: int, leader_takes: bool) -> None:
    assert (trick_taker(0, lead, follow) == 0) is leader_takes


def test_a_five_trick_exchange_scores_8_then_draft_and_trade() -> None:
    state = act(dealt(), "play 18", "play 1")  # 18+1 = 19: the lower card takes
    assert state.phase is Phase.STRIKE and state.to_move == 0
    state = act(state, "strike 0")
    assert state.known[0] == (7, 0, 0, 0, 0)
    assert state.to_move == 1  # XIX-R4: the taker leads
    state = act(state, "play 2", "play 17", "strike 1")  # 2+17 = 19: seat 1 takes again
    state = act(state, "play 3", "play 13", "strike 2")  # 13 takes; seat 1's first strike
    assert state.known[1] == (0, 0, 9, 0, 0)
    with pytest.raises(IllegalActionError):
        act(state, "play 16", "play 4", "strike 2")  # XIX-R5: a slid position is taken
    state = act(state, "play 16", "play 4", "strike 3")
    assert state.strikes == (2, 2)
    state = act(state, "play 14", "play 5", "strike 4")  # 14+5 = 19: seat 0's third strike
    assert state.scores == (0, 8)  # five strikes in all: stakes 8
    assert state.phase is Phase.DRAFT and state.to_move == 0  # the loser drafts first
    assert state.pool == (1, 2, 3, 4, 5, 13, 14, 16, 17, 18)
    assert state.slid == (False,) * 5  # XIX-R6
    state = act(
        state,
        *(f"draft {c}" for c in (18, 17, 16, 14, 13, 5, 4, 3, 2, 1)),
    )
    assert state.hands == ((2, 4, 13, 15, 16, 18), (1, 3, 5, 6, 14, 17))
    assert state.phase is Phase.TRADE and state.to_move == 0
    state = act(state, "trade 4 2")  # XIX-R10: take 11 from position 4, give 2
    assert state.hands[0] == (4, 11, 13, 15, 16, 18)
    assert state.row == (7, 8, 9, 10, 2)
    assert state.known == ((7, 8, 0, 0, 2), (0, 0, 9, 10, 0))
    assert state.phase is Phase.PLAY and state.to_move == 1  # the exchange's winner leads


def test_three_straight_strikes_score_3() -> None:
    state = act(dealt(), "play 13", "play 1", "strike 0", "play 14", "play 2", "strike 1")
    state = act(state, "play 15", "play 3", "strike 2")
    assert state.scores == (3, 0)
    assert state.to_move == 1 and state.phase is Phase.DRAFT


def test_reaching_19_ends_the_game_without_draft() -> None:
    state = replace(dealt(), scores=(0, 11))
    state = act(state, "play 18", "play 1", "strike 0", "play 2", "play 17", "strike 1")
    state = act(state, "play 3", "play 13", "strike 2", "play 16", "play 4", "strike 3")
    state = act(state, "play 14", "play 5", "strike 4")
    assert state.is_terminal() and state.phase is Phase.OVER  # XIX-R8
    result = state.result()
    assert result.scores == (0, 19)
    assert result.ranks == (2, 1)
    assert result.text == "seat 1 wins 19-0"


def test_checked_path_rejects_bad_actions() -> None:
    state = dealt()
    with pytest.raises(InvalidActionError, match="malformed XIX action 'play'"):
        checked.apply_text(GAME, state, 0, "play")
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "play 1")  # seat 1 holds the 1
    with pytest.raises(IllegalActionError, match="not to move"):
        checked.apply_text(GAME, state, 1, "play 1")
    with pytest.raises(IllegalActionError, match="out of range"):
        checked.apply_index(state, 0, 6)


def test_checked_chance_rejects_bad_decks() -> None:
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(GAME.new_game(GAME_OPTIONS), DECK[:-1])
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(GAME.new_game(GAME_OPTIONS), (*DECK[:-1], "19"))
    state = checked.apply_chance(GAME.new_game(GAME_OPTIONS), DECK)
    with pytest.raises(InvalidChanceError, match="expected 0 to 1"):
        checked.apply_chance(state, 2)
