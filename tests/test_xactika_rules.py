"""Worked Xactika examples, computed by hand from the rules (RULES.md section 1)."""

from __future__ import annotations

from collections import Counter
from dataclasses import fields

import pytest

from croupier.v1 import xactika_pb2
from referee.errors import IllegalActionError, InvalidActionError, InvalidChanceError
from referee.games import checked, get_game
from referee.games.base import parse_options
from referee.games.frozen import evolver
from referee.games.xactika import (
    CALL_BY_TEXT,
    CARD_BY_TEXT,
    DECK,
    Phase,
    Table,
    XactikaState,
    round_points,
    trick_winner,
)

GAME = get_game("xactika")

# The seed's distribution table: face value -> (cards, cards with 1 / 2 / 3 of a given shape).
SEED_TABLE = {
    4: (1, 1, 0, 0),
    5: (4, 3, 1, 0),
    6: (10, 6, 3, 1),
    7: (16, 7, 6, 3),
    8: (19, 6, 7, 6),
    9: (16, 3, 6, 7),
    10: (10, 1, 3, 6),
    11: (4, 0, 1, 3),
    12: (1, 0, 0, 1),
}


def options(players: int, rounds: int = 1) -> dict[str, str]:
    return {"players": str(players), "rounds": str(rounds)}


def start(players: int, dealer: int, deck: tuple[str, ...], rounds: int = 1) -> XactikaState:
    state = GAME.new_game(parse_options(GAME, options(players, rounds)))
    state = checked.apply_chance(state, dealer)
    state = checked.apply_chance(state, deck)
    assert isinstance(state, XactikaState)
    return state


def stack(hands: list[list[str]], dealer: int) -> tuple[str, ...]:
    """A deck that deals `hands[s]` to seat s (XAC-R2), the other cards after them."""
    n = len(hands)
    order = [(dealer + 1 + i) % n for i in range(n)]
    top = [hands[seat][k] for k in range(8) for seat in order]
    return (*top, *sorted(set(DECK) - set(top)))


def act(state: XactikaState, *texts: str) -> XactikaState:
    for text in texts:
        seat = state.to_move
        assert seat is not None
        new, _ = checked.apply_text(GAME, state, seat, text)
        assert isinstance(new, XactikaState)
        state = new
    return state


def legal(state: XactikaState) -> list[str]:
    return [action.text for action in state.legal_actions()]


def test_the_deck_matches_the_seed_table() -> None:
    assert len(DECK) == len(set(DECK)) == 81
    assert all(len(card) == 4 and set(card) <= set("123") for card in DECK)
    by_face = Counter(sum(map(int, card)) for card in DECK)
    assert by_face == {face: row[0] for face, row in SEED_TABLE.items()}
    for shape in range(4):  # the table holds for every one of the four shapes
        for face, (_, *per_count) in SEED_TABLE.items():
            cards = [c for c in DECK if sum(map(int, c)) == face]
            assert [sum(int(c[shape]) == n for c in cards) for n in (1, 2, 3)] == per_count


def test_options_and_seat_count() -> None:
    assert GAME.seat_count(parse_options(GAME, {})) == 4
    assert GAME.seat_count(parse_options(GAME, {"players": "10"})) == 10
    assert GAME.rules_version == "xactika-1"
    state = GAME.new_game(parse_options(GAME, {}))
    assert isinstance(state, XactikaState)
    assert state.rounds == 8  # XAC-R7
    node = state.chance()
    assert node is not None and node.label == "first dealer"


def test_the_deal_is_one_card_at_a_time_from_the_dealers_left() -> None:
    # XAC-R2 with 3 players and seat 1 dealing: seat 2 gets the 1st, 4th, ... card,
    # seat 0 the 2nd, 5th, ..., seat 1 (the dealer) the 3rd, 6th, ...
    deck = DECK[::-1]
    state = start(3, 1, deck)
    for seat, first in ((2, 0), (0, 1), (1, 2)):
        assert state.hands[seat] == tuple(sorted(CARD_BY_TEXT[c] for c in deck[first:24:3]))
    assert state.set_aside == tuple(CARD_BY_TEXT[c] for c in deck[24:])
    assert state.phase is Phase.BID and state.to_move == 2  # the dealer's left bids first
    private = [e for e in state.events if e.seats is not None]
    assert [sorted(e.seats or ()) for e in private] == [[0], [1], [2]]
    assert private[0].text == "seat 0 is dealt " + " ".join(sorted(deck[1:24:3]))
    assert state.events[0].text == "round 1: seat 1 deals"


def test_hook_rule_seed_example() -> None:
    # The seed: 3 players, the first bids 5 and the second 1: the dealer may bid anything but 2.
    state = act(start(3, 2, DECK), "bid 5", "bid 1")
    assert state.to_move == 2
    assert legal(state) == [f"bid {b}" for b in (0, 1, 3, 4, 5, 6, 7, 8)]
    with pytest.raises(IllegalActionError, match="not legal"):
        act(state, "bid 2")
    state = act(state, "bid 3")
    assert state.bids == (5, 1, 3)
    assert state.phase is Phase.PLAY and state.to_move == 0  # the dealer's left leads


def test_hook_rule_with_two_players_and_when_over_8() -> None:
    state = act(start(2, 0, DECK), "bid 3")  # XAC-R4: also with 2 players
    assert legal(state) == [f"bid {b}" for b in (0, 1, 2, 3, 4, 6, 7, 8)]
    state = act(start(2, 0, DECK), "bid 8")
    assert "bid 0" not in legal(state) and len(legal(state)) == 8
    state = act(start(3, 2, DECK), "bid 5", "bid 4")  # already 9: the dealer is free
    assert legal(state) == [f"bid {b}" for b in range(9)]
    state = act(start(3, 2, DECK), "bid 0")
    assert legal(state) == [f"bid {b}" for b in range(9)]  # only the dealer is hooked


@pytest.mark.parametrize(
    ("call", "cards", "position"),
    [
        # The lead 1321 (7) calls 3 cubes; 2311 (7) also shows 3 cubes: equal, so the later wins.
        ("3cube", ["1321", "2311"], 1),
        # 3233 (11) shows 2 cubes, not 3: a non-matching card never wins; 1311 (6) is lower.
        ("3cube", ["1321", "3233", "1311"], 0),
        # Four equal matching followers (7) after a lower lead (4): the last of them wins.
        ("1ball", ["1111", "1213", "1222", "1312", "1123"], 4),
        # 2222 (8) matches 2 stars and beats 1312 (7); 3232 (10) stars 2: the highest.
        ("2star", ["1312", "2222", "3232", "1112"], 2),
    ],
)
def test_trick_winner_by_hand(call: str, cards: list[str], position: int) -> None:
    assert trick_winner(CALL_BY_TEXT[call], [CARD_BY_TEXT[c] for c in cards]) == position


@pytest.mark.parametrize(
    ("bid", "taken", "points"),
    [(3, 3, 3), (0, 0, 0), (3, 5, -2), (2, 0, -2), (0, 4, -4), (8, 8, 8), (5, 4, -1)],
)
def test_round_points(bid: int, taken: int, points: int) -> None:
    assert round_points(bid, taken) == points


# A two-player round worked by hand. Seat 1 deals, so seat 0 bids first and leads first.
HANDS = [
    ["3333", "1111", "2222", "1112", "3332", "1211", "2221", "1113"],
    ["3331", "1121", "2223", "3111", "1122", "2111", "3323", "2311"],
]


def test_a_two_player_round_worked_by_hand() -> None:
    state = start(2, 1, stack(HANDS, dealer=1), rounds=2)
    assert [sorted(CARD_BY_TEXT[c] for c in hand) for hand in HANDS] == [
        list(hand) for hand in state.hands
    ]
    state = act(state, "bid 3")
    assert "bid 5" not in legal(state)  # XAC-R4: 3 + 5 = 8
    state = act(state, "bid 4")
    # Trick 1: 3333 calls 3 balls; seat 1 must follow with one of its three 3-ball cards.
    with pytest.raises(IllegalActionError):
        act(state, "lead 3333 1ball")  # XAC-R5: 3333 shows no single ball
    state = act(state, "lead 3333 3ball")
    assert legal(state) == ["play 3111", "play 3323", "play 3331"]
    with pytest.raises(IllegalActionError):
        act(state, "play 1121")
    state = act(state, "play 3111")  # 12 beats 6
    assert state.taken == (1, 0) and state.to_move == 0
    # Trick 2: 1111 (4) calls 1 ball; 1121 (5) takes it.
    state = act(state, "lead 1111 1ball", "play 1121")
    assert state.taken == (1, 1) and state.to_move == 1
    # Trick 3: 2223 (9) calls 2 balls; 2222 (8) cannot beat it.
    state = act(state, "lead 2223 2ball", "play 2222")
    # Trick 4: 2111 (5) calls 1 cube; seat 0 holds 1112 and 1113, and 1113 (6) wins.
    state = act(state, "lead 2111 1cube")
    assert legal(state) == ["play 1112", "play 1113"]
    state = act(state, "play 1113")
    assert state.taken == (2, 2) and state.to_move == 0
    # Trick 5: 3332 (11) calls 2 stars; seat 1 must play 1122.
    state = act(state, "lead 3332 2star")
    assert legal(state) == ["play 1122"]
    state = act(state, "play 1122")
    # Trick 6: 1211 (5) calls 2 cubes; seat 1 has none and plays 3331 (10), which cannot win.
    state = act(state, "lead 1211 2cube")
    assert legal(state) == ["play 2311", "play 3323", "play 3331"]
    state = act(state, "play 3331")
    assert state.taken == (4, 2)
    # Trick 7: 2221 (7) calls 1 star; 2311 (7) ties and, played last, wins (XAC-R6).
    state = act(state, "lead 2221 1star", "play 2311")
    assert state.taken == (4, 3) and state.to_move == 1
    assert state.events[-1].text == "seat 1 wins the trick with 2311 (3 taken)"
    # Trick 8: 3323 calls 3 balls; 1112 does not match.
    state = act(state, "lead 3323 3ball", "play 1112")
    # Seat 0 bid 3 and took 4: -1. Seat 1 bid 4 and took 4: +4.
    assert state.taken == (4, 4)
    assert state.scores == (-1, 4)
    scored = state.events[-1]
    assert scored.text == "round 1 scored: -1 +4 (scores -1 4)"
    assert scored.payload == xactika_pb2.XactikaEvent(
        round_scored=xactika_pb2.XactikaRoundScored(
            round=1, bids=[3, 4], taken=[4, 4], points=[-1, 4], scores=[-1, 4]
        )
    )
    # XAC-R1: the deal passes left, to seat 0, for round 2.
    assert state.phase is Phase.DEAL and state.dealer == 0
    second = checked.apply_chance(state, DECK)
    assert isinstance(second, XactikaState)
    assert second.round == 2 and second.to_move == 1 and second.scores == (-1, 4)


def test_the_last_round_ends_the_game_and_ties_share_the_win() -> None:
    state = start(3, 2, DECK)
    state = act(state, "bid 0", "bid 0", "bid 0")  # XAC-R4: 0 is fine, the total is 0
    while not state.is_terminal():
        state = act(state, legal(state)[0])
    result = state.result()
    # Everyone bid 0: a seat that took no trick scores 0, the others -1 per trick taken.
    assert sum(state.taken) == 8
    assert result.scores == tuple(-taken for taken in state.taken)
    best = max(result.scores)
    winners = [s for s in range(3) if result.scores[s] == best]
    assert result.ranks == tuple(
        1 + sum(other > mine for other in result.scores) for mine in result.scores
    )
    if len(winners) == 2:  # XAC-R8: a shared win
        assert result.text.startswith(f"seats {winners[0]} and {winners[1]} share the win with")
    else:
        assert result.text.startswith(f"seat {winners[0]} wins with {best} points")


def test_a_shared_win_is_a_shared_first_rank() -> None:
    table = Table(players=3, rounds=1, round=1, bids=(0, 0, 0), scores=(5, 2, 5))
    state = XactikaState(table=table, phase=Phase.OVER)
    result = state.result()
    assert result.ranks == (1, 3, 1)  # XAC-R8: no tie-break
    assert result.text == "seats 0 and 2 share the win with 5 points (scores 5 2 5)"
    table = Table(players=4, rounds=1, round=1, bids=(0,) * 4, scores=(-3, -3, -3, -4))
    state = XactikaState(table=table, phase=Phase.OVER)
    assert state.result().text == (
        "seats 0, 1 and 2 share the win with -3 points (scores -3 -3 -3 -4)"
    )
    assert state.result().ranks == (1, 1, 1, 4)


def test_checked_path_rejects_bad_actions() -> None:
    state = start(2, 1, stack(HANDS, dealer=1))
    for text in ("bid", "bid -1", "lead 1321", "lead 1321 4cube", "lead 4321 1ball", "play 12"):
        with pytest.raises(InvalidActionError, match="malformed Xactika action"):
            GAME.parse_action(text)
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "bid 9")
    with pytest.raises(IllegalActionError, match="not to move"):
        checked.apply_text(GAME, state, 1, "bid 1")
    state = act(state, "bid 1", "bid 1")
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "lead 3331 3ball")  # seat 1 holds 3331
    with pytest.raises(IllegalActionError, match="not legal"):
        checked.apply_text(GAME, state, 0, "play 3333")  # a lead, not a play
    with pytest.raises(IllegalActionError, match="out of range"):
        checked.apply_index(state, 0, 32)  # 8 cards x 4 calls


def test_action_text_round_trips() -> None:
    state = start(4, 0, DECK)
    seen: list[str] = []
    while not state.is_terminal() and len(seen) < 40:
        for action in state.legal_actions():
            assert GAME.parse_action(action.text) == action
            assert action.to_proto().WhichOneof("kind") == action.text.split()[0]
        seen.append(legal(state)[-1])
        state = act(state, legal(state)[-1])
    lead = GAME.parse_action("lead 1321 3cube").to_proto()
    assert lead == xactika_pb2.XactikaAction(
        lead=xactika_pb2.XactikaLead(
            card="1321",
            call=xactika_pb2.XactikaCall(count=3, shape=xactika_pb2.XACTIKA_SHAPE_CUBE),
        )
    )


def test_checked_chance_rejects_bad_decks() -> None:
    state = checked.apply_chance(GAME.new_game(parse_options(GAME, options(2))), 0)
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(state, DECK[:-1])
    with pytest.raises(InvalidChanceError, match="bad deck"):
        checked.apply_chance(state, (*DECK[:-1], "4444"))
    with pytest.raises(InvalidChanceError, match="bad outcome"):
        checked.apply_chance(GAME.new_game(parse_options(GAME, options(2))), 2)


def test_observation_during_a_trick() -> None:
    state = start(2, 1, stack(HANDS, dealer=1))
    state = act(state, "bid 3", "bid 4", "lead 3333 3ball")
    obs = state.observation(1)
    assert list(obs.hand) == sorted(HANDS[1])
    assert [entry.bid for entry in obs.bids] == [3, 4] and list(obs.trick) == ["3333"]
    assert all(entry.HasField("bid") for entry in obs.bids)
    assert obs.call == xactika_pb2.XactikaCall(count=3, shape=xactika_pb2.XACTIKA_SHAPE_BALL)
    assert obs.phase == xactika_pb2.XACTIKA_PHASE_PLAY
    assert (obs.seat, obs.players, obs.round, obs.rounds, obs.dealer) == (1, 2, 1, 1, 1)
    assert (obs.to_move, obs.leader, obs.tricks_played) == (1, 0, 0)
    state = act(state, "play 3111")
    obs = state.observation(0)
    assert not obs.HasField("call") and list(obs.trick) == []
    assert list(obs.played) == ["3333", "3111"] and list(obs.taken) == [1, 0]
    assert obs.tricks_played == 1


def test_fast_evolve_builds_the_same_state() -> None:
    dealt = start(2, 1, stack(HANDS, dealer=1))
    dealt.legal_actions()  # cached in the state: the evolved one must not keep it
    state = act(dealt, "bid 3", "bid 4", "lead 3333 3ball")
    values = {f.name: getattr(state, f.name) for f in fields(XactikaState) if f.name != "_legal"}
    rebuilt = evolver(XactikaState)(dealt, **values)
    assert rebuilt == XactikaState(**values) == state
    assert [a.text for a in rebuilt.legal_actions()] == legal(state)
