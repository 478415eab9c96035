"""Xactika's and Tex-Tac-Toe's own samplers (issue 48.1): at a decision of a seeded random match,
any seat, any count of players (jokers or not), the game's history alone (the generic walk given
no attempt) yields a state from which the seat gets, byte for byte, the observation, legal
actions and events its view has, through legal chance outcomes and legal actions only; no card
the seat knows lies in another seat's hidden hand, and in Xactika no seat holds a card of a call
it was seen not to follow. A view no match could produce (an opponent seen to play a card the
seat holds) is refused, and a seat's own choice is never rewritten."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.bots import XactikaHeuristicBot
from croupier.env.table import Table
from croupier.v1 import game_pb2, referee_pb2
from croupier.v1 import xactika_pb2 as xpb
from referee.games.base import Pick, Shuffle, State
from referee.games.textactoe import TexTacToeState
from referee.games.textactoe_poker import card_text
from referee.games.xactika import CALL_BY_TEXT, CARD_TEXT, MATCHES, XactikaState
from referee.match import protocol
from referee.review.determinize import Unsampled, history
from referee.review.rollout import Step, historian_for
from referee.review.view import SeatView, view_of_record
from tests.test_env_sampling import random_record

SHAPES = {
    xpb.XACTIKA_SHAPE_BALL: "ball",
    xpb.XACTIKA_SHAPE_CUBE: "cube",
    xpb.XACTIKA_SHAPE_CONE: "cone",
    xpb.XACTIKA_SHAPE_STAR: "star",
}
OPTIONS = st.one_of(
    st.builds(
        lambda players, rounds: ("xactika", {"players": players, "rounds": rounds}),
        st.integers(2, 5),
        st.integers(1, 2),
    ),
    st.builds(
        lambda players, jokers: ("textactoe", {"players": players, "jokers": jokers}),
        st.integers(2, 4),
        st.booleans(),
    ),
)


@settings(max_examples=30, deadline=None)
@given(case=OPTIONS, seed=st.integers(0, 2**32), where=st.floats(0, 1), who=st.integers(0, 9))
def test_a_sampled_history_shows_the_seat_exactly_its_view(
    case: tuple[str, dict[str, object]], seed: int, where: float, who: int
) -> None:
    game_id, options = case
    with tempfile.TemporaryDirectory() as folder:
        path = random_record(Path(folder), game_id, options, seed % 1000)
        seat = who % int(str(options["players"]))
        whole = view_of_record(path, seat)
    view = whole.up_to(min(int(where * len(whole.decisions)), len(whole.decisions) - 1))
    assert historian_for(game_id) is not None
    state, steps = history(view, random.Random(seed), attempts=0)  # no generic walk
    assert _replayed(view, steps) == state
    _check_knowledge(view, state)


def _replayed(view: SeatView, steps: Sequence[Step]) -> State:
    """The history replayed through the engine with legal outcomes and actions only, checking
    what the seat is sent at each of its decisions against its view, serialized."""
    state: State = view.game.new_game(view.options)
    seen: list[game_pb2.Event] = []
    mine = 0
    for kind, value in steps:
        if state.to_move == view.seat and kind == "act":
            _check_decision(view, mine, state, seen)
            assert value == view.decisions[mine].chosen  # the seat's own choice, as made
            mine, seen = mine + 1, []
        node = state.chance()
        if kind == "shuffle":
            assert isinstance(node, Shuffle) and isinstance(value, tuple)
            assert sorted(value) == sorted(node.cards)
            state = state.apply_chance(value)
        elif kind == "pick":
            assert isinstance(node, Pick) and isinstance(value, int)
            assert 0 <= value < node.count
            state = state.apply_chance(value)
        else:
            assert node is None
            legal = {action.text: action for action in state.legal_actions()}
            assert value in legal
            state = state.apply(legal[str(value)])
        seen += [protocol.event(view.game.id, e) for e in state.events if e.visible_to(view.seat)]
    assert mine == len(view.decisions) - 1 and state.to_move == view.seat
    _check_decision(view, mine, state, seen)
    return state


def _check_decision(view: SeatView, k: int, state: State, seen: list[game_pb2.Event]) -> None:
    decision = view.decisions[k]
    sent = state.observation(view.seat).SerializeToString(deterministic=True)
    assert sent == decision.observation.SerializeToString(deterministic=True), k
    assert tuple(action.text for action in state.legal_actions()) == decision.legal, k
    assert [e.SerializeToString(deterministic=True) for e in seen] == [
        e.SerializeToString(deterministic=True) for e in decision.events
    ], k


def _check_knowledge(view: SeatView, state: State) -> None:
    seat = view.seat
    if isinstance(state, XactikaState):
        known = {CARD_TEXT[c] for c in (*state.hands[seat], *state.played)}
        voids = _xactika_voids(view, state)
        for other, hand in enumerate(state.hands):
            if other != seat:
                assert not known & {CARD_TEXT[c] for c in hand}
                assert not any(c in MATCHES[call] for c in hand for call in voids[other])
    else:
        assert isinstance(state, TexTacToeState)
        face_up = [
            c for stack, up in zip(state.grid, state.face_up, strict=True) if up for c in stack
        ]
        known = {card_text(c) for c in (*state.stashes[seat], *face_up, *state.removed)}
        for other, stash in enumerate(state.stashes):
            if other != seat:
                assert not known & {card_text(c) for c in (*stash, *state.committed[other])}


def _xactika_voids(view: SeatView, state: XactikaState) -> list[set[int]]:
    """The calls each seat was seen not to follow in the current round, from the view."""
    voids: list[set[int]] = [set() for _ in range(state.players)]
    call = -1
    for decision in view.decisions:
        for event in decision.events:
            e = event.xactika
            kind = e.WhichOneof("kind")
            if kind == "round_started":
                voids = [set() for _ in range(state.players)]
            elif kind == "led":
                call = CALL_BY_TEXT[f"{e.led.call.count}{SHAPES[e.led.call.shape]}"]
            elif kind == "played":
                card = CARD_TEXT.index(e.played.card)
                if card not in MATCHES[call]:
                    voids[e.played.seat].add(call)
    return voids


@pytest.mark.parametrize("game_id", ["xactika", "textactoe"])
def test_a_view_no_match_could_produce_is_refused(tmp_path: Path, game_id: str) -> None:
    """The last decision's events say an opponent played a card the seat holds: no deal fits."""
    options: dict[str, object] = {"players": 2}
    if game_id == "xactika":
        options["rounds"] = 1
    path = random_record(tmp_path, game_id, options, 3)
    whole = view_of_record(path, 0)
    for k in range(len(whole.decisions) - 1, 0, -1):
        view = whole.up_to(k)
        last = view.decisions[-1]
        played = [e for e in last.events if getattr(e, game_id).WhichOneof("kind") == "played"]
        opponent = [e for e in played if getattr(e, game_id).played.seat == 1]
        mine = list(getattr(last.observation, "hand" if game_id == "xactika" else "stash"))
        if opponent and mine:
            break
    else:
        pytest.fail("no decision after an opponent's play")
    assert history(view, random.Random(0), attempts=0)[0].to_move == 0
    forged = game_pb2.Event()
    forged.CopyFrom(opponent[0])
    getattr(forged, game_id).played.card = mine[0]
    events = tuple(forged if e is opponent[0] else e for e in last.events)
    bad = replace(view, decisions=(*view.decisions[:-1], replace(last, events=events)))
    with pytest.raises(Unsampled):
        history(bad, random.Random(0), attempts=0)


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 8), (4, 1), (5, 2)])
def test_xactika_deals_other_hands_that_make_their_bids_by_the_heuristics_count(
    tmp_path: Path, players: int, seed: int
) -> None:
    """Against heuristics, each sampled deal gives every other seat a hand on which the
    heuristic itself (the SDK's bot, asked at that seat's bid) makes the bid it was seen to
    make, XAC-R4's hook applied: the reference reads the other hands from the bids."""
    bots = [XactikaHeuristicBot() for _ in range(players)]
    path = tmp_path / "m.jsonl"
    match = Table.of("xactika", {"players": players, "rounds": 2}).match(
        seed, ["h"] * players, record=path
    )
    while match.request is not None:
        match.answer(bots[match.seat].act(match.request))
    view = view_of_record(path, 0)
    checked = 0
    for k in (3, len(view.decisions) - 1):  # in the first round's play; the match's last
        part = view.up_to(k)
        for draw in range(4):
            _, steps = history(part, random.Random(draw), attempts=0)
            checked += _bids_checked(part, steps)
    assert checked >= 8 * (players - 1)


def _bids_checked(view: SeatView, steps: Sequence[Step]) -> int:
    """How many other seats' bids of the history the heuristic makes from their dealt hands
    (each one asserted)."""
    state: State = view.game.new_game(view.options)
    checked = 0
    for kind, value in steps:
        if kind == "act":
            assert isinstance(state, XactikaState)
            legal = state.legal_actions()
            seat = state.to_move_seat
            chosen = [a.text for a in legal].index(str(value))
            if seat != view.seat and str(value).startswith("bid"):
                request = referee_pb2.ActionRequest()
                request.observation.xactika.CopyFrom(state.observation(seat))
                for action in legal:
                    request.legal_actions.add().xactika.CopyFrom(action.to_proto())
                assert XactikaHeuristicBot().act(request) == chosen, (seat, value)
                checked += 1
            state = state.apply(legal[chosen])
        else:
            assert not isinstance(value, str)
            state = state.apply_chance(value)
    return checked
