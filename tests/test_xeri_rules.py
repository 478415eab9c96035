"""Worked Xeri examples, computed by hand from the rules (RULES.md section 3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from croupier.v1 import xeri_pb2
from referee.errors import IllegalActionError, InvalidActionError, InvalidChanceError
from referee.games import checked, get_game
from referee.games.base import Pick, Shuffle, parse_options
from referee.games.xeri import CARD_OF, DECK, Phase, XeriState

GAME = get_game("xeri")


def cards(text: str) -> tuple[int, ...]:
    return tuple(CARD_OF[card] for card in text.split())


def texts(values: tuple[int, ...]) -> str:
    return " ".join(DECK[card] for card in values)


def new_game(**options: str) -> XeriState:
    state = GAME.new_game(parse_options(GAME, options))
    assert isinstance(state, XeriState)
    return state


def chance(state: XeriState, *outcomes: tuple[str, ...] | int) -> XeriState:
    for outcome in outcomes:
        new = checked.apply_chance(state, outcome)
        assert isinstance(new, XeriState)
        state = new
    return state


def act(state: XeriState, *plays: str) -> XeriState:
    for card in plays:
        seat = state.to_move
        assert seat is not None
        new, _ = checked.apply_text(GAME, state, seat, f"play {card}")
        assert isinstance(new, XeriState)
        state = new
    return state


def payloads(state: XeriState, kind: str) -> list[xeri_pb2.XeriEvent]:
    found = []
    for event in state.events:
        assert isinstance(event.payload, xeri_pb2.XeriEvent)
        if event.payload.HasField(kind):
            found.append(event.payload)
    return found


def deck_of(first: str) -> tuple[str, ...]:
    """`first` on top, then every other card in the order 2C 2D 2H 2S 3C ... AS."""
    top = first.split()
    return (*top, *(card for card in DECK if card not in top))


# 2 players, dealer 1 (so seat 0 starts, XERI-R3): seat 0 gets cards 1, 3, ..., 11 and seat 1
# gets cards 2, 4, ..., 12; cards 13-16 are the pile, the 16th on top.
TWO_PLAYER_DECK = deck_of("JD 5D 7C JH JS 6D 2H 3H 2S 3S 4H 4S 8C 9D TH QS")


def test_the_two_player_deal_follows_xeri_r3() -> None:
    state = chance(new_game(), 1, TWO_PLAYER_DECK)
    assert state.phase is Phase.PLAY
    assert state.dealer == 1 and state.round == 1
    assert texts(state.hands[0]) == "2H 2S 4H 7C JD JS"
    assert texts(state.hands[1]) == "3H 3S 4S 5D 6D JH"
    assert texts(state.pile) == "8C 9D TH QS"
    assert len(state.stock) == 36
    assert texts(state.stock[:3]) == "2C 2D 3C"
    assert state.to_move == 0  # the non-dealer starts
    observation = state.observation(0)
    assert observation.top_card == "QS" and observation.pile_size == 4
    assert observation.stock_size == 36 and list(observation.hand_sizes) == [6, 6]
    assert list(observation.hand) == ["2H", "2S", "4H", "7C", "JD", "JS"]
    dealt = [e for e in state.events if e.payload.HasField("dealt")]
    assert [e.seats for e in dealt] == [frozenset({0}), frozenset({1})]


def test_the_four_player_deal_starts_left_of_the_dealer() -> None:
    deck = deck_of("AS AH AD AC KS KH KD KC QS QH QD QC")
    state = chance(new_game(players="4"), 2, deck)
    # Dealer 2: one card at a time to seats 3, 0, 1, 2, then again; cards 13-24 of the deck are
    # 2C 2D 2H 2S 3C 3D 3H 3S 4C 4D 4H 4S.
    assert texts(state.hands[3]) == "2C 3C 4C QS KS AS"
    assert texts(state.hands[0]) == "2D 3D 4D QH KH AH"
    assert texts(state.hands[1]) == "2H 3H 4H QD KD AD"
    assert texts(state.hands[2]) == "2S 3S 4S QC KC AC"
    (shown,) = payloads(state, "initial_pile")
    assert list(shown.initial_pile.cards) == ["5C", "5D", "5H", "5S"]
    (rejected,) = payloads(state, "pile_rejected")  # a pair: XERI-R4
    assert rejected.pile_rejected.reason == "pair" and state.pile == ()
    assert state.phase is Phase.RESHUFFLE
    node = state.chance()
    assert isinstance(node, Shuffle) and node.label == "reshuffle"
    assert len(node.cards) == 28  # the 24 cards of the stock and the 4 of the pile
    state = chance(state, reshuffle_order(node.cards))
    assert texts(state.pile) == "6C 7D 8H 9S"
    assert state.to_move == 3  # left of the dealer
    assert len(state.stock) == 24


# Twelve cards for the hands: seat 0 gets 2C 2D 2H 4C 4D 4H, seat 1 the 3s and 5s.
HANDS = "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 5H"


def reshuffle_order(node_cards: tuple[str, ...]) -> tuple[str, ...]:
    """A stock order with 6C 7D 8H 9S on top, the rest as the node lists them."""
    top = ("6C", "7D", "8H", "9S")
    return (*top, *(card for card in node_cards if card not in top))


@pytest.mark.parametrize(
    ("pile", "reason"),
    [("8C 8D TH QS", "pair"), ("8C 9D TH JS", "jack"), ("8C 9D 8H JS", "pair and jack")],
)
def test_a_bad_initial_pile_is_redealt_xeri_r4(pile: str, reason: str) -> None:
    deck = deck_of(f"{HANDS} {pile}")
    state = chance(new_game(), 1, deck)
    rejected = payloads(state, "pile_rejected")
    assert [(list(p.pile_rejected.cards), p.pile_rejected.reason) for p in rejected] == [
        (pile.split(), reason)
    ]
    node = state.chance()
    assert isinstance(node, Shuffle)
    assert sorted(node.cards) == sorted(deck[12:])  # the stock and the rejected pile
    assert texts(state.hands[0]) == "2C 2D 2H 4C 4D 4H"  # the hands are kept
    # A second bad pile is rejected again; a good one stands.
    again = ("9C", "9H", "KD", "AD")
    state = chance(state, (*again, *(c for c in node.cards if c not in again)))
    assert state.phase is Phase.RESHUFFLE
    node = state.chance()
    assert isinstance(node, Shuffle)
    state = chance(state, reshuffle_order(node.cards))
    assert state.phase is Phase.PLAY and texts(state.pile) == "6C 7D 8H 9S"
    assert len(state.stock) == 36


def test_the_lenient_pile_variation_keeps_any_pile_xeri_r13() -> None:
    deck = deck_of(f"{HANDS} 8C 8D JH JS")
    state = chance(new_game(var_lenient_pile="true"), 1, deck)
    assert state.phase is Phase.PLAY and texts(state.pile) == "8C 8D JH JS"


def test_captures_and_xeris_xeri_r5_r6() -> None:
    state = chance(new_game(), 1, TWO_PLAYER_DECK)
    state = act(state, "JD")  # a jack on a non-empty pile takes it: an ordinary capture
    assert texts(state.captured[0]) == "8C 9D TH QS JD" and state.pile == ()
    assert not payloads(state, "xeri")
    state = act(state, "JH")  # starts a new pile
    assert texts(state.pile) == "JH"
    state = act(state, "JS")  # a jack on a lone jack: a Jack Xeri (XERI-R6)
    (xeri,) = payloads(state, "xeri")
    assert (xeri.xeri.card, xeri.xeri.jack, xeri.xeri.points, xeri.xeri.team) == ("JH", True, 20, 0)
    assert texts(state.xeris[0]) == "JH"
    state = act(state, "5D", "7C")  # no match: 7C stays on top
    assert texts(state.pile) == "5D 7C"
    state = act(state, "6D", "2H", "3H")  # still no capture
    state = act(state, "2S")  # the top card is 3H: 2S does not match
    assert texts(state.pile) == "5D 7C 6D 2H 3H 2S"
    state = act(state, "3S")  # seat 1's 3S does not match 2S
    state = act(state, "4H")
    assert state.to_move == 1
    state = act(state, "4S")  # 4S matches 4H: seat 1 captures the 9-card pile, no Xeri
    assert len(state.captured[1]) == 9 and not payloads(state, "xeri")
    # Both hands are empty: the second deal comes from the stock in the same order.
    assert state.deal == 2 and len(state.stock) == 24
    assert texts(state.hands[0]) == "2C 3C 4C 5C 5S 6H"
    assert texts(state.hands[1]) == "2D 3D 4D 5H 6C 6S"
    assert state.to_move == 0


def test_jack_xeri_is_worth_25_under_variation_4() -> None:
    state = chance(new_game(var_jack_xeri_25="true"), 1, TWO_PLAYER_DECK)
    state = act(state, "JD", "JH", "JS")
    (xeri,) = payloads(state, "xeri")
    assert xeri.xeri.jack and xeri.xeri.points == 25


def test_xeris_on_lone_cards() -> None:
    # Seat 0: 9C 5C JD 8H 2C 3D; seat 1: 5S 9H 4D 6C KH 7H; pile 8C 9D TH QS.
    deck = deck_of("9C 5S 5C 9H JD 4D 8H 6C 2C KH 3D 7H 8C 9D TH QS")
    state = chance(new_game(), 1, deck)
    state = act(state, "JD", "5S", "5C")  # 5C takes the lone 5S: a Xeri
    (xeri,) = payloads(state, "xeri")
    assert (xeri.xeri.card, xeri.xeri.jack, xeri.xeri.points) == ("5S", False, 10)
    state = act(state, "9H", "9C")  # and again
    state = act(state, "4D", "8H", "6C", "2C", "KH", "3D", "7H")  # nothing matches
    assert texts(state.xeris[0]) == "5S 9H" and state.xeris[1] == ()
    assert texts(state.captured[0]) == "8C 9D TH QS JD 5S 5C 9H 9C"
    assert texts(state.pile) == "4D 8H 6C 2C KH 3D 7H"
    observation = state.observation(1)
    assert [list(side.xeris) for side in observation.sides] == [["5S", "9H"], []]
    assert [side.captured for side in observation.sides] == [9, 0]
    assert observation.last_capturer == 0


def test_a_jack_on_a_lone_card_is_no_xeri_xeri_r6() -> None:
    state = chance(new_game(), 1, TWO_PLAYER_DECK)
    state = act(state, "7C", "5D", "2H", "6D", "JD")  # JD takes the 8-card pile
    state = act(state, "3H", "JS")  # a jack on a lone 3H: an ordinary capture
    assert len(payloads(state, "captured")) == 1 and not payloads(state, "xeri")


def last_play(
    *,
    options: dict[str, str] | None = None,
    mine: str,
    theirs: str,
    pile: str,
    card: str,
    last_capturer: int = 0,
    xeris: tuple[str, str] = ("", ""),
    points: tuple[int, int] = (0, 0),
    round_wins: tuple[int, int] = (0, 0),
    round: int = 1,
    target: int = 0,
) -> XeriState:
    """Seat 1, the dealer of a 2-player game, holds the round's 48th and last card `card`.
    Side 0 has captured `mine`, side 1 `theirs`."""
    base = chance(new_game(**(options or {})), 1, TWO_PLAYER_DECK)
    state = replace(
        base,
        round=round,
        deal=4,
        hands=((), cards(card)),
        pile=cards(pile),
        stock=(),
        captured=(cards(mine), cards(theirs)),
        xeris=(cards(xeris[0]), cards(xeris[1])),
        last_capturer=last_capturer,
        to_move_seat=1,
        plays=47,
        points=points,
        round_wins=round_wins,
        target=target or base.target,
    )
    everything = [*state.captured[0], *state.captured[1], *state.pile, *state.hands[1]]
    assert sorted(everything) == list(range(52)), "the example must hold the 52 cards"
    return act(state, card)


CLUBS_AND_DIAMONDS = " ".join(rank + suit for suit in "CD" for rank in "23456789TJQKA")
HEARTS_AND_SPADES_BUT_JH_JS = " ".join(rank + suit for suit in "HS" for rank in "23456789TQKA")


def side_scores(state: XeriState) -> list[tuple[int, bool, int, int, int, int]]:
    (scored,) = payloads(state, "round_scored")
    return [
        (s.cards, s.most_cards, s.card_points, s.xeri_points, s.total, s.points)
        for s in scored.round_scored.sides
    ]


def jack_xeri_finish(
    *,
    options: dict[str, str] | None = None,
    points: tuple[int, int] = (0, 0),
    round_wins: tuple[int, int] = (0, 0),
    round: int = 1,
    target: int = 0,
) -> XeriState:
    # Side 0 holds the 26 clubs and diamonds: 5 honours + 2C in clubs, 5 honours + TD in
    # diamonds = 12 card points. Side 1 takes the other 26 with a Jack Xeri on the last card:
    # 10 honours in hearts and spades. 26-26 cards: nobody scores the 3 (RULES 3.4).
    return last_play(
        mine=CLUBS_AND_DIAMONDS,
        theirs=HEARTS_AND_SPADES_BUT_JH_JS,
        pile="JH",
        card="JS",
        options=options,
        points=points,
        round_wins=round_wins,
        round=round,
        target=target,
    )


def test_a_jack_xeri_is_worth_20_and_a_card_tie_scores_nobody_3() -> None:
    state = jack_xeri_finish()
    (xeri,) = payloads(state, "xeri")
    assert xeri.xeri.jack and xeri.xeri.points == 20
    assert side_scores(state) == [(26, False, 12, 0, 12, 12), (26, False, 10, 20, 30, 30)]
    assert state.round_wins == (0, 1)
    (scored,) = payloads(state, "round_scored")
    assert scored.round_scored.winner == 1


def test_a_jack_xeri_is_worth_25_under_variation_4() -> None:
    state = jack_xeri_finish(options={"var_jack_xeri_25": "true"})
    assert side_scores(state) == [(26, False, 12, 0, 12, 12), (26, False, 10, 25, 35, 35)]


def test_the_ten_of_diamonds_counts_2_and_the_last_cards_go_to_the_last_capturer() -> None:
    # Side 0 captured TD 3C; 4H 5H lie on the pile; the dealer's 6H captures nothing, so the
    # three go to side 0, which made the last capture (XERI-R8): TD 3C 4H 5H 6H = 2 points.
    rest = " ".join(c for c in DECK if c not in {"TD", "3C", "4H", "5H", "6H"})
    state = last_play(mine="TD 3C", theirs=rest, pile="4H 5H", card="6H", last_capturer=0)
    (last,) = payloads(state, "last_cards")
    assert last.last_cards.team == 0 and list(last.last_cards.cards) == ["4H", "5H", "6H"]
    # Side 1: 47 cards (+3) and the other 20 card points.
    assert side_scores(state) == [(5, False, 2, 0, 2, 2), (47, True, 20, 0, 23, 23)]


def test_nobody_takes_the_last_cards_when_nobody_captured() -> None:
    rest = " ".join(c for c in DECK if c != "6H")
    state = last_play(mine="", theirs="", pile=rest, card="6H", last_capturer=-1)
    (last,) = payloads(state, "last_cards")
    assert not last.last_cards.HasField("team") and len(last.last_cards.cards) == 52
    assert side_scores(state) == [(0, False, 0, 0, 0, 0), (0, False, 0, 0, 0, 0)]
    assert state.round_wins == (0, 0)  # XERI-R10: a drawn round
    assert len(state.unclaimed) == 52


def dealers_last_xeri(options: dict[str, str]) -> XeriState:
    rest = " ".join(c for c in DECK if c not in {"7H", "7S"})
    return last_play(options=options, mine=rest, theirs="", pile="7H", card="7S")


def test_the_dealers_last_card_makes_a_xeri_by_default_xeri_r7() -> None:
    state = dealers_last_xeri({})
    (xeri,) = payloads(state, "xeri")
    assert xeri.xeri.points == 10 and xeri.xeri.seat == 1
    # 2 cards and 10 for the Xeri against 50 cards (+3) and all 22 card points.
    assert side_scores(state) == [(50, True, 22, 0, 25, 25), (2, False, 0, 10, 10, 10)]


def test_the_dealers_last_card_makes_no_xeri_under_variation_3() -> None:
    state = dealers_last_xeri({"var_no_last_xeri": "true"})
    assert payloads(state, "captured") and not payloads(state, "xeri")
    assert side_scores(state) == [(50, True, 22, 0, 25, 25), (2, False, 0, 0, 0, 0)]


def test_variation_3_keeps_earlier_xeris() -> None:
    state = chance(new_game(var_no_last_xeri="true"), 1, TWO_PLAYER_DECK)
    state = act(state, "JD", "JH", "JS")
    assert payloads(state, "xeri")


def test_the_game_ends_after_the_rounds_by_round_wins_xeri_r11() -> None:
    state = jack_xeri_finish(options={"rounds": "3"}, round=3, round_wins=(2, 0))
    assert state.is_terminal()  # side 1 won the round: 2-1 in round wins
    result = state.result()
    assert result.ranks == (1, 2) and result.scores == (12, 30)
    assert result.text == "seat 0 beats seat 1 (round wins 2-1, points 12-30)"
    assert result.teams is None


def test_equal_round_wins_fall_back_on_points_then_a_draw() -> None:
    state = jack_xeri_finish(round=4, round_wins=(2, 1), points=(60, 50))
    assert state.round_wins == (2, 2) and state.points == (72, 80)
    assert state.result().ranks == (2, 1)
    state = jack_xeri_finish(round=4, round_wins=(2, 1), points=(68, 50))
    result = state.result()
    assert state.points == (80, 80) and result.ranks == (1, 1)
    assert result.text == "draw between seat 0 and seat 1 (round wins 2-2, points 80-80)"
    (over,) = payloads(state, "game_over")
    assert not over.game_over.HasField("winner")


def test_a_round_before_the_last_passes_the_deal_xeri_r2() -> None:
    state = jack_xeri_finish(round=1)
    assert not state.is_terminal()
    assert state.phase is Phase.SHUFFLE and state.round == 2 and state.dealer == 0
    state = chance(state, TWO_PLAYER_DECK)
    assert state.to_move == 1  # left of the new dealer, seat 0
    assert state.captured == ((), ()) and state.points == (12, 30)


CUMULATIVE = {"var_cumulative_151": "true"}


def test_the_race_to_151_xeri_r14() -> None:
    state = jack_xeri_finish(options=CUMULATIVE, points=(140, 100), round=9)
    assert state.is_terminal() and state.points == (152, 130) and state.target == 151
    assert state.result().text == "seat 0 beats seat 1 (points 152-130, target 151)"
    assert state.result().ranks == (1, 2)


def test_both_sides_passing_151_extend_the_target_to_251() -> None:
    state = jack_xeri_finish(options=CUMULATIVE, points=(140, 125), round=9)
    assert state.points == (152, 155)
    assert [p.target_raised.target for p in payloads(state, "target_raised")] == [251]
    assert not state.is_terminal() and state.phase is Phase.SHUFFLE and state.target == 251
    assert state.observation(0).target == 251
    # Next round, side 1 alone passes 251.
    state = jack_xeri_finish(options=CUMULATIVE, points=(200, 230), target=251, round=10)
    assert state.is_terminal() and state.points == (212, 260)
    assert state.result().text == "seat 1 beats seat 0 (points 212-260, target 251)"


def test_the_rounds_option_does_not_end_a_race() -> None:
    state = jack_xeri_finish(options={**CUMULATIVE, "rounds": "1"}, round=1)
    assert not state.is_terminal()


def test_a_four_player_result_names_the_teams() -> None:
    base = chance(new_game(players="4", rounds="1"), 3)
    # Dealer 3 plays the 48th card; side 0 = seats 0+2, side 1 = seats 1+3.
    state = replace(
        base,
        phase=Phase.PLAY,
        deal=2,
        hands=((), (), (), cards("JS")),
        pile=cards("JH"),
        stock=(),
        captured=(cards(CLUBS_AND_DIAMONDS), cards(HEARTS_AND_SPADES_BUT_JH_JS)),
        last_capturer=0,
        to_move_seat=3,
        plays=47,
    )
    state = act(state, "JS")
    result = state.result()
    assert result.teams == (0, 1, 0, 1)
    assert result.scores == (12, 30, 12, 30) and result.ranks == (2, 1, 2, 1)
    assert result.text == (
        "team 1 (seats 1+3) beats team 0 (seats 0+2) (round wins 0-1, points 12-30)"
    )


def test_cut_reveal_moves_bottom_jacks_up_xeri_r12() -> None:
    # Bottom of the deck: ... 9C JH JS. JS is shown and goes above 9C (any of the 50 places
    # above it), then JH is shown and goes to the top; 9C is shown and stays.
    top = ["2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D", "2H", "3H", "4H", "8C", "9D", "TH", "QS"]
    middle = [c for c in DECK if c not in {*top, "9C", "JH", "JS"}]
    deck = (*top, *middle, "9C", "JH", "JS")
    state = chance(new_game(var_cut_reveal="true"), 1, deck)
    assert [(p.bottom_card.card, p.bottom_card.moved) for p in payloads(state, "bottom_card")] == [
        ("JS", True)
    ]
    node = state.chance()
    assert isinstance(node, Pick) and node.label == "cut" and node.count == 50
    state = chance(state, 49)  # right above 9C
    node = state.chance()
    assert isinstance(node, Pick) and node.count == 51  # above 9C, now at index 50
    state = chance(state, 0)  # the top
    shown = [(p.bottom_card.card, p.bottom_card.moved) for p in payloads(state, "bottom_card")]
    assert shown == [("9C", False)]
    assert state.phase is Phase.PLAY
    # The deck is now JH 2C 3C ... QS ... JS 9C: seat 0 gets JH first.
    assert texts(state.hands[0]) == "3C 3D 3H 5C 5D JH"
    assert texts(state.hands[1]) == "2C 2D 2H 4C 4D 4H"
    assert texts(state.pile) == "8C 9D TH QS"
    assert texts(state.stock[-2:]) == "JS 9C"
    assert state.observation(1).bottom_card == "9C"


def test_cut_reveal_keeps_the_bottom_card_through_a_pile_redeal() -> None:
    deck = deck_of(f"{HANDS} 8C 8D TH QS")
    state = chance(new_game(var_cut_reveal="true"), 1, deck)
    assert DECK[state.bottom] == "AS"
    node = state.chance()
    assert isinstance(node, Shuffle) and "AS" not in node.cards and len(node.cards) == 39
    state = chance(state, reshuffle_order(node.cards))
    assert DECK[state.stock[-1]] == "AS"


def test_checked_path_rejects_bad_actions_and_chance() -> None:
    state = chance(new_game(), 1, TWO_PLAYER_DECK)
    for text in ("play", "play 10D", "play td", "take JD", "play JD JS"):
        with pytest.raises(InvalidActionError, match="malformed Xeri action"):
            checked.apply_text(GAME, state, 0, text)
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "play JH")  # seat 1 holds it
    with pytest.raises(IllegalActionError, match="not to move"):
        checked.apply_text(GAME, state, 1, "play JH")
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(chance(new_game(), 0), TWO_PLAYER_DECK[:-1])
    with pytest.raises(InvalidChanceError, match="expected 0 to 1"):
        checked.apply_chance(new_game(), 2)
    assert GAME.parse_action(" play TD ").text == "play TD"


def test_the_target_rises_by_100_as_often_as_needed() -> None:
    # Ten Xeris a side on top of the Jack Xeri finish: side 0 12 + 100, side 1 30 + 100.
    state = last_play(
        options=CUMULATIVE,
        mine=CLUBS_AND_DIAMONDS,
        theirs=HEARTS_AND_SPADES_BUT_JH_JS,
        pile="JH",
        card="JS",
        xeris=("2C 3C 4C 5C 6C 7C 8C 9C TC QC", "2H 3H 4H 5H 6H 7H 8H 9H TH QH"),
        points=(140, 130),
    )
    assert state.points == (252, 260)
    assert [p.target_raised.target for p in payloads(state, "target_raised")] == [251, 351]
    assert not state.is_terminal() and state.target == 351
