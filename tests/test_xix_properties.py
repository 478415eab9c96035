"""Property tests of the XIX engine over hypothesis-driven random playouts."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from croupier.bots import RandomBot
from croupier.v1 import xix_pb2
from referee.games import get_game
from referee.games.base import ChanceOutcome, parse_options
from referee.games.xix import STAKES, XixState
from referee.match.clock import TimeControl
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests.playouts import encoded, play_out, replay_steps

GAME = get_game("xix")
OPTIONS = parse_options(GAME, {})
ALL_CARDS = Counter(range(1, 19))


def _table_cards(state: XixState) -> tuple[int, ...]:
    """Cards on the table: played this exchange (incl. the trick), or the draft pool."""
    return state.pool if state.pool else state.played


def _check_invariants(state: XixState) -> None:
    if not state.hands[0] and not state.hands[1]:
        return  # before the deal
    everything = (*state.hands[0], *state.hands[1], *state.row, state.discard, *_table_cards(state))
    assert Counter(everything) == ALL_CARDS, "the 18 cards are not conserved"
    assert len(state.row) == 5
    phase = state.phase.value
    if phase in {"play", "strike"}:
        # Each seat played its share of the exchange so far: hand sizes follow from the tricks.
        tricks = len(state.played) // 2
        sizes = sorted(len(hand) for hand in state.hands)
        assert sizes in ([6 - tricks, 6 - tricks], [5 - tricks, 6 - tricks])
        if not state.trick:
            assert sizes[0] == sizes[1]
    if phase == "trade":
        assert len(state.hands[state.loser]) == 6
        assert len(state.hands[1 - state.loser]) == 6
    assert not state.is_terminal() or max(state.scores) >= 19


@given(st.data())
def test_playouts_keep_the_rules(data: st.DataObject) -> None:
    playout = play_out(GAME, OPTIONS, data)
    scores = [0, 0]
    strikes = [0, 0]
    for state in playout.states:
        assert isinstance(state, XixState)
        _check_invariants(state)
        assert state.is_terminal() or state.chance() is not None or state.legal_actions()
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, xix_pb2.XixEvent)
            if payload.HasField("struck"):
                strikes[payload.struck.seat] += 1
                assert payload.struck.strikes == strikes[payload.struck.seat]
            if payload.HasField("exchange_won"):
                won = payload.exchange_won
                # XIX-R7: the loser's third strike ends it; stakes follow the total strikes.
                assert strikes[1 - won.seat] == 3
                assert strikes[won.seat] < 3
                assert won.stakes == STAKES[sum(strikes)]
                scores[won.seat] += won.stakes
                assert list(won.scores) == scores
                strikes = [0, 0]
    final = playout.states[-1]
    assert final.is_terminal()
    result = final.result()
    assert list(result.scores) == scores
    winner = result.ranks.index(1)
    assert scores[winner] >= 19 > scores[1 - winner]


@given(st.data())
def test_same_chance_and_actions_give_the_same_states(data: st.DataObject) -> None:
    playout = play_out(GAME, OPTIONS, data)
    assert replay_steps(GAME, OPTIONS, playout.steps) == playout.states


_CARD_ACTION = re.compile(r"(play|draft) (\d+)|trade (\d+) (\d+)|strike \d+")


def _seen_by(states: list[XixState], seat: int) -> set[int]:
    """Every card value `seat` saw in the game, computed from the rules, not from observations."""
    seen: set[int] = set()
    for state in states:
        if state.hands[seat]:
            seen |= set(state.hands[seat])
        seen |= set(state.played) | set(state.pool)
        seen |= {value for value in state.known[seat] if value}
    return seen


def _relabel(text: str, sigma: dict[int, int]) -> str:
    match = _CARD_ACTION.fullmatch(text)
    assert match is not None
    if match.group(1):
        return f"{match.group(1)} {sigma[int(match.group(2))]}"
    if match.group(3):
        return f"trade {match.group(3)} {sigma[int(match.group(4))]}"
    return text


@given(st.data(), st.integers(0, 1), st.randoms(use_true_random=False))
def test_no_information_leak(data: st.DataObject, seat: int, rng: random.Random) -> None:
    """Permuting the cards `seat` never saw changes nothing in what `seat` observes."""
    playout = play_out(GAME, OPTIONS, data)
    states = [s for s in playout.states if isinstance(s, XixState)]
    unseen = sorted(set(range(1, 19)) - _seen_by(states, seat))
    shuffled = unseen[:]
    rng.shuffle(shuffled)
    sigma = {card: card for card in range(1, 19)} | dict(zip(unseen, shuffled, strict=True))
    steps: list[tuple[str, ChanceOutcome | str]] = []
    for kind, value in playout.steps:
        if kind == "chance" and isinstance(value, tuple):
            steps.append((kind, tuple(str(sigma[int(card)]) for card in value)))
        elif kind == "action" and isinstance(value, str):
            steps.append((kind, _relabel(value, sigma)))
        else:
            steps.append((kind, value))
    other = replay_steps(GAME, OPTIONS, steps)
    for original, resampled in zip(playout.states, other, strict=True):
        assert original.observation(seat) == resampled.observation(seat)
        assert encoded(GAME, OPTIONS, original, seat) == encoded(GAME, OPTIONS, resampled, seat)
        mine = [e for e in original.events if e.visible_to(seat)]
        theirs = [e for e in resampled.events if e.visible_to(seat)]
        assert mine == theirs


@given(st.integers(0, 2**32 - 1))
def test_records_round_trip_and_verify(tmp_path_factory: pytest.TempPathFactory, seed: int) -> None:
    path = tmp_path_factory.mktemp("records") / "match.jsonl"
    config = MatchConfig(
        GAME, OPTIONS, seed=seed, match_id="prop", time_control=TimeControl(move_ms=0)
    )
    seats = [InProcessSeat(RandomBot(seed)), InProcessSeat(RandomBot(seed + 1))]
    outcome = trio.run(run_match, config, seats, path)
    report = verify(path)
    assert report.ok, report.problems
    assert outcome.result.termination == 1


@given(st.data())
def test_an_unknown_strike_card_has_no_known_value(data: st.DataObject) -> None:
    """XixStrikeSlot.known_value is set only where the seat knows a card: a card's value, 1..18,
    never a 0 sentinel; and no seat knows anything before the first strike."""
    struck = False
    for state in play_out(GAME, OPTIONS, data).states:
        assert isinstance(state, XixState)
        struck = struck or any(
            isinstance(e.payload, xix_pb2.XixEvent) and e.payload.HasField("struck")
            for e in state.events
        )
        for seat in (0, 1):
            for slot in state.observation(seat).strike_row:
                if slot.HasField("known_value"):
                    assert struck and 1 <= slot.known_value <= 18
