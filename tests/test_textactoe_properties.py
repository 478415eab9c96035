"""Property tests of the Tex-Tac-Toe engine over random playouts, with and without jokers and with
2 and 3 players. Whole games are long, so most tests draw a seed and derive the deck and the
choices from it (hypothesis' buffer would overflow otherwise); one test draws everything from
hypothesis, with a short turn cap, so that failures shrink."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.bots import RandomBot
from croupier.v1 import textactoe_pb2
from referee.games import checked, get_game
from referee.games.base import ChanceOutcome, Pick, parse_options
from referee.games.options import Options
from referee.games.textactoe import Phase, TexTacToeState
from referee.games.textactoe_poker import card_text
from referee.match.clock import TimeControl
from referee.match.replay import verify
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from tests import textactoe_reference as reference
from tests.playouts import Playout, encoded, play_out, replay_steps, seeded_playout

GAME = get_game("textactoe")
STANDARD = [rank + suit for rank in reference.RANKS for suit in reference.SUITS]
VARIANTS = [
    {"players": "2"},
    {"players": "2", "jokers": "true"},
    {"players": "3"},
    {"players": "3", "jokers": "true"},
]
variants = st.sampled_from(VARIANTS)
seeds = st.integers(0, 2**32 - 1)


def options_of(raw: dict[str, str]) -> Options:
    return parse_options(GAME, raw)


def deck_of(state: TexTacToeState) -> Counter[str]:
    return Counter(STANDARD + (["X1", "X2"] if state.jokers else []))


def everything(state: TexTacToeState) -> Counter[str]:
    cards = [card for stack in state.grid for card in stack]
    cards += [card for stash in state.stashes for card in stash]
    cards += [card for pair in state.committed for card in pair]
    cards += [*state.pile, *state.removed]
    return Counter(card_text(card) for card in cards)


def tops(state: TexTacToeState) -> list[str | None]:
    """The top card text of each face-up position, None for the others."""
    return [
        card_text(stack[-1]) if up and stack else None
        for stack, up in zip(state.grid, state.face_up, strict=True)
    ]


def check_state(state: TexTacToeState) -> None:
    if state.phase in (Phase.DEAL, Phase.FIRST_PLAYER):
        return
    assert everything(state) == deck_of(state), "the cards are not conserved"
    for seat in range(state.players):
        # Three stash cards at every turn's end; committed cards are still the seat's own.
        assert len(state.stashes[seat]) + len(state.committed[seat]) == 3
        assert len(state.committed[seat]) in (0, 2)
    if state.phase is Phase.TURN:
        assert all(len(stash) == 3 for stash in state.stashes)
        assert state.caller == -1
    if state.phase is not Phase.OVER:
        assert all(state.grid), "every position holds a card during a hand"
    assert state.is_terminal() or state.legal_actions()


def check_action(before: TexTacToeState, text: str) -> None:
    """The preconditions of RULES.md 4.3-4.4, checked from the text alone."""
    words = text.split()
    seat = before.to_move
    assert seat is not None
    stash = {card_text(card) for card in before.stashes[seat]}
    replace_ok = bool(before.pile) and before.turns < before.max_turns  # TTT-R3, TTT-R5
    if words[0] in ("reveal", "play", "discard"):
        assert before.phase in (Phase.TURN, Phase.EXTRA_TURN)
    if words[0] == "reveal":
        assert not before.face_up[int(words[1])]
    elif words[0] == "play":
        position = int(words[2])
        top = tops(before)[position]
        assert replace_ok and words[1] in stash and top is not None
        card = words[1]
        assert "X" in (card[0], top[0]) or card[0] == top[0] or card[1] == top[1]
    elif words[0] == "discard":
        assert replace_ok and words[1] in stash
    elif words[0] == "call":
        assert before.phase is Phase.TURN  # TTT-R6
        assert {words[1], words[2]} <= stash
        up = before.face_up
        assert any(all(up[p] for p in line) for line in reference.LINES)
    elif words[0] == "commit":
        assert before.phase is Phase.COMMIT and {words[1], words[2]} <= stash
    else:
        assert before.phase is Phase.RESPOND


def check_showdown(before: TexTacToeState, last_pair: list[str], after: TexTacToeState) -> None:
    """Recompute a showdown from the rules with the slow evaluator (TTT-R10..R17)."""
    n = before.players
    committed = [[card_text(card) for card in pair] for pair in before.committed]
    committed[before.to_move or 0] = last_pair
    best = {seat: reference.best_line(committed[seat], tops(before)) for seat in range(n)}
    top = max(value for _, value in best.values())
    winners = [seat for seat in range(n) if best[seat][1] == top]
    challenged = any(r.name == "CHALLENGED" for r in before.responses)
    expected = list(before.scores)
    if len(winners) == 1:
        winner = winners[0]
        points = reference.POINTS[top[0]]
        if challenged:
            points = max(points, 1)  # TTT-R11: high card counts 1
            if winner == before.caller:
                points *= 2  # TTT-R11: the caller's win is doubled
        expected[winner] += points
        cleared_by = winner
    else:
        cleared_by = before.caller  # TTT-R12
    assert list(after.scores) == expected
    line = reference.LINES[best[cleared_by][0]]
    cleared = [card_text(card) for p in line for card in before.grid[p]]
    assert [card_text(card) for card in after.removed[len(before.removed) :]] == cleared
    # TTT-R14: committed cards return.
    for seat in range(n):
        assert len(after.stashes[seat]) == 3
        assert set(committed[seat]) <= {card_text(card) for card in after.stashes[seat]}
    if len(before.pile) < 3:  # TTT-R15
        assert after.is_terminal()
        assert all(not after.grid[p] for p in line)
    else:
        assert not after.is_terminal()
        assert after.pile == before.pile[3:]
        assert [after.grid[p] for p in line] == [(card,) for card in before.pile[:3]]
        assert not any(after.face_up[p] for p in line)
        assert after.to_move == (cleared_by + 1) % n  # TTT-R17 (the loser with two players)


# The first event of each action, by the action's first word.
FIRST_EVENT = {
    "reveal": "revealed",
    "play": "played",
    "discard": "discarded",
    "call": "called",
    "concede": "conceded",
    "challenge": "challenged",
    "commit": "committed",
}


def check_playout(playout: Playout) -> None:
    states = [s for s in playout.states if isinstance(s, TexTacToeState)]
    assert len(states) == len(playout.states)
    for state in states:
        check_state(state)
    showdowns = 0
    for before, (kind, value), after in zip(states[:-1], playout.steps, states[1:], strict=True):
        if kind != "action":
            continue
        assert isinstance(value, str)
        check_action(before, value)
        first = after.events[0].payload
        assert isinstance(first, textactoe_pb2.TexTacToeEvent)
        assert first.WhichOneof("kind") == FIRST_EVENT[value.split()[0]]
        if after.hand > before.hand:
            showdowns += 1
            check_showdown(before, value.split()[1:], after)
        else:
            assert after.scores == before.scores
    final = states[-1]
    assert final.is_terminal() and final.hand == showdowns
    result = final.result()
    assert result.scores == final.scores
    best = max(final.scores)
    assert result.ranks == tuple(1 + sum(s > own for s in final.scores) for own in final.scores)
    assert ("draw" in result.text) == (final.scores.count(best) > 1)  # TTT-R16


@settings(max_examples=100)
@given(variants, seeds)
def test_playouts_keep_the_rules(raw: dict[str, str], seed: int) -> None:
    check_playout(seeded_playout(GAME, options_of(raw), seed))


@settings(max_examples=25)
@given(st.data(), variants)
def test_shrinkable_playouts_with_a_short_turn_cap(
    data: st.DataObject, raw: dict[str, str]
) -> None:
    check_playout(play_out(GAME, options_of({**raw, "max_turns_per_hand": "6"}), data))


@settings(max_examples=40)
@given(variants, seeds)
def test_same_chance_and_actions_give_the_same_states(raw: dict[str, str], seed: int) -> None:
    options = options_of(raw)
    playout = seeded_playout(GAME, options, seed)
    assert replay_steps(GAME, options, playout.steps) == playout.states


def seen_by(states: list[TexTacToeState], steps: list[str], seat: int) -> set[str]:
    """Every card `seat` saw, from the rules (not from observations): its own stash and
    committed cards, face-up stacks, cleared cards, and every call and commit (all revealed at
    the showdown that always follows)."""
    seen: set[str] = set()
    for state in states:
        if state.stashes:
            seen |= {card_text(c) for c in (*state.stashes[seat], *state.committed[seat])}
        for stack, up in zip(state.grid, state.face_up, strict=True):
            if up:
                seen |= {card_text(card) for card in stack}
        seen |= {card_text(card) for card in state.removed}
    for text in steps:
        if text.startswith(("call", "commit")):
            seen |= set(text.split()[1:])
    return seen


@settings(max_examples=80)
@given(variants, seeds, st.integers(0, 2), st.randoms(use_true_random=False))
def test_no_information_leak(
    raw: dict[str, str], seed: int, seat_choice: int, rng: random.Random
) -> None:
    """Permuting the cards `seat` never saw (face-down grid cards, other stashes, the pile and
    other seats' discards) changes nothing in what `seat` observes (TTT-R19)."""
    options = options_of(raw)
    playout = seeded_playout(GAME, options, seed)
    states = [s for s in playout.states if isinstance(s, TexTacToeState)]
    seat = seat_choice % options.integer("players")
    actions = [str(value) for kind, value in playout.steps if kind == "action"]
    all_cards = STANDARD + (["X1", "X2"] if options["jokers"] else [])
    unseen = sorted(set(all_cards) - seen_by(states, actions, seat))
    shuffled = unseen[:]
    rng.shuffle(shuffled)
    sigma = {card: card for card in all_cards} | dict(zip(unseen, shuffled, strict=True))
    steps: list[tuple[str, ChanceOutcome | str]] = []
    for kind, value in playout.steps:
        if kind == "chance" and isinstance(value, tuple):
            steps.append((kind, tuple(sigma[card] for card in value)))
        elif kind == "action" and isinstance(value, str):
            steps.append((kind, " ".join(sigma.get(word, word) for word in value.split())))
        else:
            steps.append((kind, value))
    other = replay_steps(GAME, options, steps)
    changed = False
    for original, resampled in zip(playout.states, other, strict=True):
        changed = changed or original != resampled
        assert original.observation(seat) == resampled.observation(seat)
        assert encoded(GAME, options, original, seat) == encoded(GAME, options, resampled, seat)
        mine = [e for e in original.events if e.visible_to(seat)]
        theirs = [e for e in resampled.events if e.visible_to(seat)]
        assert mine == theirs
    assert changed or unseen == shuffled


@settings(max_examples=20)
@given(variants, seeds)
def test_records_round_trip_and_verify(
    tmp_path_factory: pytest.TempPathFactory, raw: dict[str, str], seed: int
) -> None:
    options = options_of(raw)
    path = tmp_path_factory.mktemp("records") / "match.jsonl"
    config = MatchConfig(
        GAME, options, seed=seed, match_id="prop", time_control=TimeControl(move_ms=0)
    )
    seats = [InProcessSeat(RandomBot(seed + k)) for k in range(options.integer("players"))]
    outcome = trio.run(run_match, config, seats, path)
    report = verify(path)
    assert report.ok, report.problems
    assert outcome.result.termination == 1


def test_private_events_go_to_their_seat_only() -> None:
    playout = seeded_playout(GAME, options_of({"players": "3", "jokers": "true"}), 5)
    kinds: dict[str, set[frozenset[int] | None]] = {}
    for state in playout.states:
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, textactoe_pb2.TexTacToeEvent)
            kind = payload.WhichOneof("kind")
            assert kind is not None
            kinds.setdefault(kind, set()).add(event.seats)
    private = {"dealt", "discard_detail", "drew", "commit_detail"}
    for kind, audiences in kinds.items():
        if kind in private:
            assert None not in audiences and all(len(a or ()) == 1 for a in audiences), kind
        else:
            assert audiences == {None}, kind


def test_first_player_is_a_pick_over_the_seats() -> None:
    state = checked.apply_chance(GAME.new_game(options_of({"players": "3"})), tuple(STANDARD))
    assert state.chance() == Pick(3, "first player")  # TTT-R1


@settings(max_examples=20)
@given(variants, seeds)
def test_no_caller_and_no_winner_are_unset(raw: dict[str, str], seed: int) -> None:
    """`caller` is set exactly while a call is pending; a hand's `seat` exactly when it was won."""
    for state in seeded_playout(GAME, options_of(raw), seed).states:
        assert isinstance(state, TexTacToeState)
        obs = state.observation(0)
        assert obs.HasField("caller") == obs.call_made == (state.caller >= 0)
        if obs.HasField("caller"):
            assert obs.caller == state.caller
        for event in state.events:
            payload = event.payload
            assert isinstance(payload, textactoe_pb2.TexTacToeEvent)
            if payload.HasField("hand_scored"):
                scored = payload.hand_scored
                assert scored.HasField("seat") != scored.tie
