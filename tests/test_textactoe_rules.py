"""Worked Tex-Tac-Toe examples, computed by hand from the rules (RULES.md section 4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.errors import IllegalActionError, InvalidActionError, InvalidChanceError
from referee.games import checked, get_game
from referee.games.base import parse_options
from referee.games.textactoe import Phase, Response, TexTacToeState
from referee.games.textactoe_poker import parse_card

GAME = get_game("textactoe")
RANKS = "23456789TJQKA"
ALL_CARDS = [rank + suit for rank in RANKS for suit in "CDHS"]


def ints(text: str) -> tuple[int, ...]:
    found = tuple(parse_card(word) for word in text.split())
    assert None not in found
    return tuple(sorted(card for card in found if card is not None))


def in_order(text: str) -> tuple[int, ...]:
    """Card texts to ints, keeping their order."""
    found = tuple(parse_card(word) for word in text.split(" "))
    assert None not in found
    return tuple(card for card in found if card is not None)


def deck(
    grid: str, stashes: list[str], pile: str = "", first: int = 0, jokers: bool = False
) -> tuple[str, ...]:
    """A deck laid out by hand per TTT-R1: nine grid cards, then the stash cards dealt one at a
    time clockwise from `first`, then the pile's top cards, then the rest in canonical order."""
    cards = grid.split()
    hands = [stash.split() for stash in stashes]
    for round_ in range(3):
        for k in range(len(hands)):
            cards.append(hands[(first + k) % len(hands)][round_])
    cards += pile.split()
    cards += [
        card for card in [*ALL_CARDS, "X1", "X2"][: 54 if jokers else 52] if card not in cards
    ]
    assert len(cards) == len(set(cards)) == (54 if jokers else 52)
    return tuple(cards)


def start(
    grid: str, stashes: list[str], pile: str = "", first: int = 0, **options: str
) -> TexTacToeState:
    opts = parse_options(GAME, {"players": str(len(stashes)), **options})
    dealt = deck(grid, stashes, pile, first, jokers=options.get("jokers") == "true")
    state = checked.apply_chance(GAME.new_game(opts), dealt)
    state = checked.apply_chance(state, first)
    assert isinstance(state, TexTacToeState)
    return state


def act(state: TexTacToeState, *texts: str) -> TexTacToeState:
    for text in texts:
        seat = state.to_move
        assert seat is not None, text
        new, _ = checked.apply_text(GAME, state, seat, text)
        assert isinstance(new, TexTacToeState)
        state = new
    return state


def texts(state: TexTacToeState) -> list[str]:
    return [action.text for action in state.legal_actions()]


def event_texts(state: TexTacToeState) -> list[str]:
    return [event.text for event in state.events]


# Scenario A: row 1 (positions 3 4 5) becomes 7H 7D KS.
GRID_A = "2H 5S 6D 7H 7D KS 9C TC JH"
STASHES_A = ["7C KH 2D", "3C 4C 9D"]


def test_the_deal_follows_ttt_r1() -> None:
    grid = "2H 5S 6D 7H 7D KS 9C TC JH"
    stashes = "3C 7C 4C KH 9D 2D"  # first player 1: seat 1, seat 0, seat 1, ...
    explicit = (*grid.split(" "), *stashes.split(" "), "AC")
    rest = tuple(card for card in ALL_CARDS if card not in explicit)
    state = GAME.new_game(parse_options(GAME, {}))
    state = checked.apply_chance(state, (*explicit, *rest))
    assert state.to_move is None
    state = checked.apply_chance(state, 1)
    assert isinstance(state, TexTacToeState)
    assert state.stashes == (ints("7C KH 2D"), ints("3C 4C 9D"))
    assert tuple(stack[0] for stack in state.grid) == in_order("2H 5S 6D 7H 7D KS 9C TC JH")
    assert state.face_up == (False,) * 4 + (True,) + (False,) * 4  # the centre is turned up
    assert len(state.pile) == 52 - 9 - 6
    assert state.pile[0] == parse_card("AC")
    assert state.to_move == 1 and state.phase is Phase.TURN
    # Reveals of the 8 face-down positions, plays on the centre 7D (same suit or rank), discards.
    assert texts(state) == [
        *(f"reveal {p}" for p in (0, 1, 2, 3, 5, 6, 7, 8)),
        "play 9D 4",
        "discard 3C",
        "discard 4C",
        "discard 9D",
    ]
    private = [e for e in state.events if e.seats is not None]
    assert [(e.text, e.seats) for e in private] == [
        ("seat 0 is dealt 2D 7C KH", frozenset({0})),
        ("seat 1 is dealt 3C 4C 9D", frozenset({1})),
    ]
    assert "position 4 is turned up: 7D" in event_texts(state)


def test_a_call_and_a_concede_then_the_grid_is_refilled() -> None:
    state = start(GRID_A, STASHES_A, pile="AC AD AH QC")
    state = act(state, "reveal 3", "reveal 5")
    assert "call 7C KH" in texts(state)  # TTT-R6: row 1 is now eligible
    state = act(state, "call KH 7C")  # the text is normalised to canonical order
    assert state.phase is Phase.RESPOND and state.to_move == 1
    assert state.stashes[0] == ints("2D") and state.committed[0] == ints("7C KH")
    assert texts(state) == ["concede", "challenge"]
    state = act(state, "concede")
    assert state.phase is Phase.COMMIT and state.to_move == 1  # TTT-R8: no extra turn
    assert texts(state) == ["commit 3C 4C", "commit 3C 9D", "commit 4C 9D"]
    state = act(state, "commit 3C 4C")
    # Seat 0: 7C KH + 7H 7D KS = full house, 7s over kings: 70 points. Seat 1: a pair of 7s.
    assert state.scores == (70, 0)
    assert event_texts(state)[:5] == [
        "seat 1 sets two cards face down",
        "seat 1 sets 3C 4C face down",
        "showdown: seat 0 7C KH + line 1 (7H 7D KS): full house (7-K); "
        "seat 1 3C 4C + line 1 (7H 7D KS): pair (7-K-4-3)",
        "seat 0 wins the hand with full house for 70 points (scores 70-0)",
        "line 1 (positions 3 4 5) is cleared: 7H 7D KS",
    ]
    # TTT-R13..R15: the line leaves the grid, stashes get their committed cards back, and the
    # positions are refilled face down from the top of the pile; the centre stays face down.
    assert state.removed == in_order("7H 7D KS")
    assert state.stashes == (ints("7C KH 2D"), ints("3C 4C 9D"))
    assert [state.grid[p] for p in (3, 4, 5)] == [ints("AC"), ints("AD"), ints("AH")]
    assert state.face_up == (False,) * 9
    assert len(state.pile) == 37 - 3 and state.pile[0] == parse_card("QC")
    # The loser starts the next hand.
    assert state.phase is Phase.TURN and state.to_move == 1 and state.starter == 1
    assert state.hand == 1 and state.turns == 0 and state.caller == -1
    assert texts(state) == [f"reveal {p}" for p in range(9)] + [
        "discard 3C",
        "discard 4C",
        "discard 9D",
    ]
    assert event_texts(state)[-2:] == [
        "positions 3 4 5 are refilled face down (draw pile 34)",
        "hand 2 begins: seat 1 starts",
    ]


def test_a_lost_challenge_doubles_the_callers_points() -> None:
    state = start("2H 5S 6D 9H 9D 3S 4C TC JH", ["9C 3H 8S", "QD KD 2C"], pile="KH AC AD AH")
    state = act(state, "reveal 3", "reveal 5", "call 9C 3H")  # a full house so far
    state = act(state, "challenge")
    assert state.phase is Phase.EXTRA_TURN and state.to_move == 1
    assert not any(text.startswith("call") for text in texts(state))  # TTT-R9
    assert state.responses == (Response.CALLER, Response.CHALLENGED)
    state = act(state, "play QD 4")  # QD on 9D (same suit); the challenger draws KH
    assert state.grid[4] == (parse_card("9D"), parse_card("QD"))
    assert state.stashes[1] == ints("KD 2C KH")
    assert state.phase is Phase.COMMIT and state.to_move == 1
    state = act(state, "commit KD KH")
    # TTT-R10: the grid after the challenge turn counts: row 1 is 9H QD 3S now.
    # Caller: 9C 3H 9H QD 3S = two pair (9s and 3s, queen kicker): 2 points, doubled (TTT-R11).
    # Challenger: KD KH 9H QD 3S = a pair of kings.
    assert state.scores == (4, 0)
    assert "seat 0 wins the hand with two pair for 4 points (doubled) (scores 4-0)" in (
        event_texts(state)
    )
    # The whole stack at position 4 leaves the grid (TTT-R13).
    assert state.removed == in_order("9H 9D QD 3S")
    assert [state.grid[p] for p in (3, 4, 5)] == [ints("AC"), ints("AD"), ints("AH")]
    assert state.stashes == (ints("9C 3H 8S"), ints("KD 2C KH"))
    assert state.to_move == 1


GRID_C = "2H 5S 6D 2D 7D 9S 4C TC JH"  # row 1: 2D 7D 9S


def test_a_challenger_winning_with_high_card_scores_1() -> None:
    state = start(GRID_C, ["3C 4D JC", "5C TH KH"])
    state = act(state, "reveal 3", "reveal 5", "call 3C 4D", "challenge", "reveal 0")
    state = act(state, "commit TH KH")
    # Caller 9-7-4-3-2 high card; challenger K-T-9-7-2 high card wins: 1 point (TTT-R11).
    assert state.scores == (0, 1)
    assert state.to_move == 0  # the loser starts


def test_a_caller_winning_with_high_card_after_a_challenge_scores_2() -> None:
    state = start(GRID_C, ["3C KD JC", "5C 3H 4S"])
    state = act(state, "reveal 3", "reveal 5", "call JC KD", "challenge", "reveal 0")
    state = act(state, "commit 3H 4S")
    # Caller K-J-9-7-2 beats challenger 9-7-4-3-2: high card counts 1, doubled to 2.
    assert state.scores == (2, 0)
    assert state.to_move == 1


def test_a_caller_winning_with_high_card_without_a_challenge_scores_0() -> None:
    state = start(GRID_C, ["3C KD JC", "5C 3H 4S"])
    state = act(state, "reveal 3", "reveal 5", "call JC KD", "concede", "commit 3H 4S")
    assert state.scores == (0, 0)
    assert "seat 0 wins the hand with high card for 0 points (scores 0-0)" in event_texts(state)
    assert state.to_move == 1


def test_a_tie_scores_nothing_and_clears_the_callers_line() -> None:
    state = start(GRID_C, ["3C 4D JC", "3H 4S KH"], first=1)
    state = act(state, "reveal 3", "reveal 5", "reveal 0", "call 3C 4D", "concede")
    state = act(state, "commit 3H 4S")
    # Both hands are 9-7-4-3-2 high card (suits never break ties): TTT-R12.
    assert state.scores == (0, 0)
    assert "seat 0 and seat 1 tie with high card: nobody scores" in event_texts(state)
    assert state.removed == in_order("2D 7D 9S")
    assert state.to_move == 1  # the responder leads the next hand


def test_the_best_line_is_chosen_for_each_seat() -> None:
    # Row 1 is 2D 7D 9S; column 1 (positions 1 4 7) is 5S 7D TC after reveals.
    state = start(GRID_C, ["3C TD JC", "7H 7C QH"])
    state = act(state, "reveal 3", "reveal 5", "reveal 1", "reveal 7", "call TD JC", "concede")
    state = act(state, "commit 7C 7H")
    # Caller: row 1 gives J-T-9-7-2, column 1 gives a pair of tens: column 1 (line 4).
    # Responder: row 1 or column 1 both give three 7s; row 1 (9-2 kickers) < column 1 (T-5).
    showdown = state.events[2].payload.showdown  # type: ignore[attr-defined]
    assert [hand.line for hand in showdown.hands] == [4, 4]
    assert state.scores == (0, 5)
    assert state.removed == in_order("5S 7D TC")


def test_the_game_ends_when_the_pile_cannot_refill_the_grid() -> None:
    state = start(GRID_A, STASHES_A)
    state = act(state, "reveal 3", "reveal 5")
    short = replace(state, pile=state.pile[:2])
    ended = act(short, "call 7C KH", "concede", "commit 3C 4C")
    assert ended.is_terminal() and ended.phase is Phase.OVER and ended.to_move is None
    assert ended.legal_actions() == []
    assert "the game ends: the draw pile has 2 cards (scores 70-0)" in event_texts(ended)
    assert [ended.grid[p] for p in (3, 4, 5)] == [(), (), ()]  # TTT-R15: no refill
    result = ended.result()
    assert result.scores == (70, 0) and result.ranks == (1, 2)
    assert result.text == "seat 0 wins 70-0"
    obs = ended.observation(1)
    assert [position.empty for position in obs.grid] == [p in (3, 4, 5) for p in range(9)]
    # TTT-R16: equal points are a draw.
    drawn = act(replace(short, scores=(0, 70)), "call 7C KH", "concede", "commit 3C 4C")
    assert drawn.result().ranks == (1, 1)
    assert drawn.result().text == "seat 0 and seat 1 draw 70-70"


def test_exactly_three_cards_refill_and_the_game_goes_on() -> None:
    state = start(GRID_A, STASHES_A, pile="AC AD AH")
    state = act(state, "reveal 3", "reveal 5")
    state = act(replace(state, pile=state.pile[:3]), "call 7C KH", "concede", "commit 3C 4C")
    assert not state.is_terminal() and state.pile == ()
    # TTT-R3: with an empty pile only reveal (and call) remain.
    assert texts(state) == [f"reveal {p}" for p in range(9)]


def test_empty_pile_and_turn_cap_forbid_play_and_discard() -> None:
    state = act(start(GRID_A, STASHES_A), "reveal 3")
    assert "play 9D 4" in texts(state) and "discard 9D" in texts(state)
    for blocked in (replace(state, pile=()), replace(state, turns=100)):  # TTT-R3, TTT-R5
        assert texts(blocked) == [f"reveal {p}" for p in (0, 1, 2, 5, 6, 7, 8)]
    capped = start(GRID_A, STASHES_A, max_turns_per_hand="2")
    capped = act(capped, "discard 7C", "discard 3C")
    assert capped.turns == 2
    assert all(text.startswith("reveal") for text in texts(capped))


def test_play_matches_suit_or_rank_and_jokers_are_wild() -> None:
    state = start(GRID_A, ["7C KH X1", "3C 4C 9D"], pile="AC AD", jokers="true")
    state = act(state, "reveal 5")  # 7D at 4, KS at 5
    # Seat 1: 9D on 7D (suit); nothing on KS. Jokers never reach seat 1 here.
    assert [t for t in texts(state) if t.startswith("play")] == ["play 9D 4"]
    state = act(state, "discard 3C")
    # Seat 0: 7C on 7D (rank), KH on KS (rank), X1 on both (TTT-R4).
    assert [t for t in texts(state) if t.startswith("play")] == [
        "play 7C 4",
        "play KH 5",
        "play X1 4",
        "play X1 5",
    ]
    state = act(state, "play X1 5", "reveal 3")
    # Any card goes on a face-up joker: seat 0's 7C and KH, and the AD it drew.
    assert {t for t in texts(state) if t.startswith("play") and t.endswith(" 5")} == {
        f"play {card} 5" for card in ("7C", "KH", "AD")
    }


def test_a_challenger_without_a_legal_extra_turn_is_skipped() -> None:
    state = start(GRID_A, STASHES_A)
    state = replace(state, face_up=(True,) * 9, pile=())
    state = act(state, "call 7C KH", "challenge")
    assert event_texts(state)[-1] == "seat 1 has no legal extra turn: skipped"  # TTT-R9
    assert state.phase is Phase.COMMIT and state.to_move == 1


def test_three_players_respond_and_take_extra_turns_clockwise() -> None:
    # Row 1: 8H 8D 2S. Seat 1 is the first player, then seat 2, then seat 0 (TTT-R17).
    state = start(
        "2H 5S 6D 8H 8D 2S 4C TC JH",
        ["3C 4D JC", "QH KH KC", "8C 2C 9D"],
        pile="AC AD AH QC QD QS",
        first=1,
    )
    assert state.stashes == (ints("3C 4D JC"), ints("QH KH KC"), ints("8C 2C 9D"))
    state = act(state, "reveal 3", "reveal 5", "discard 3C", "reveal 0")  # seat 0 draws AC
    assert state.to_move == 2
    state = act(state, "call 8C 2C")  # 8C 2C + 8H 8D 2S: full house, 8s over 2s
    # Responses clockwise from the caller's left: seat 0, then seat 1.
    assert state.to_move == 0
    state = act(state, "challenge")
    assert state.to_move == 1 and state.phase is Phase.RESPOND
    state = act(state, "challenge")
    # The challengers' extra turns come next, in the same order.
    assert state.phase is Phase.EXTRA_TURN and state.to_move == 0
    state = act(state, "play 4D 4")  # 4D on 8D (suit); seat 0 draws AD
    assert state.phase is Phase.EXTRA_TURN and state.to_move == 1
    state = act(state, "play KH 3")  # KH on 8H (suit); seat 1 draws AH
    assert state.phase is Phase.COMMIT and state.to_move == 0
    obs = state.observation(2)
    assert obs.call_made and obs.caller == 2 and list(obs.has_committed) == [False, False, True]
    assert list(obs.responses) == [3, 3, 1]  # challenged, challenged, caller
    assert list(obs.committed) == ["2C", "8C"]
    assert list(state.observation(0).committed) == []
    state = act(state, "commit AC AD")
    assert state.to_move == 1
    state = act(state, "commit KC AH")
    # Only row 1 is eligible: KH 4D 2S. Caller 8C 2C: a pair of 2s (K-8-4). Seat 0 AC AD: a
    # pair of aces (K-4-2). Seat 1 KC AH: a pair of kings. Seat 0 wins 1 point, not doubled.
    assert state.scores == (1, 0, 0)
    assert state.to_move == 1  # left of the winner
    assert state.removed == in_order("8H KH 8D 4D 2S")
    assert [state.grid[p] for p in (3, 4, 5)] == [ints("QC"), ints("QD"), ints("QS")]
    assert state.stashes == (ints("JC AC AD"), ints("QH KC AH"), ints("8C 2C 9D"))


def test_parse_action_forms_and_checked_errors() -> None:
    for text in ("reveal 3", "play 7H 4", "discard TD", "call 2C 7H", "concede", "challenge"):
        assert GAME.parse_action(text).text == text
    assert GAME.parse_action("commit X2 X1").text == "commit X1 X2"
    for bad in ("reveal 9", "play 7H", "discard 1C", "call 7H 7H", "jump", "call 7H"):
        with pytest.raises(InvalidActionError, match="Tex-Tac-Toe action"):
            GAME.parse_action(bad)
    state = start(GRID_A, STASHES_A)
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "reveal 4")  # the centre is already face up
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "call 7C KH")  # TTT-R6: no eligible line yet
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "play 7C 5")  # position 5 is face down
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "play KH 4")  # KH matches 7D in neither suit nor rank
    with pytest.raises(IllegalActionError, match="not to move"):
        checked.apply_text(GAME, state, 1, "reveal 0")


def test_checked_chance_rejects_bad_decks() -> None:
    new = GAME.new_game(parse_options(GAME, {}))
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(new, deck(GRID_A, STASHES_A)[:-1])
    jokers = GAME.new_game(parse_options(GAME, {"jokers": "true"}))
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(jokers, deck(GRID_A, STASHES_A))  # the jokers are missing
    dealt = checked.apply_chance(new, deck(GRID_A, STASHES_A))
    with pytest.raises(InvalidChanceError, match="expected 0 to 1"):
        checked.apply_chance(dealt, 2)


def test_observation_shows_only_what_the_seat_may_know() -> None:
    state = act(start(GRID_A, STASHES_A), "reveal 3", "discard 9D")  # seat 1 draws 2C
    obs = state.observation(0)
    assert list(obs.stash) == ["2D", "7C", "KH"]
    assert [list(p.stack) for p in obs.grid] == [
        ["7H"] if p == 3 else ["7D"] if p == 4 else [] for p in range(9)
    ]
    assert [p.face_up for p in obs.grid] == [p in (3, 4) for p in range(9)]
    assert obs.draw_pile_size == 37 and obs.turns == 2 and obs.to_move == 0
    assert not obs.call_made and list(obs.scores) == [0, 0] and obs.players == 2
    other = state.observation(1)
    assert list(other.stash) == ["2C", "3C", "4C"]
    assert obs.grid == other.grid
    private = [(e.text, e.seats) for e in state.events if e.seats is not None]
    assert private == [("seat 1 discards 9D", frozenset({1})), ("seat 1 draws 2C", frozenset({1}))]
