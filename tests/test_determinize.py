"""Determinization from a seat's view (issue 48): at every decision of seeded Xeri matches, 2
players and 4, among them matches whose initial pile is rejected and the stock reshuffled
(XERI-R4), a sampled state shows the seat the very observation and legal actions the true
match showed it. The sampler gives up on a view after its attempts now and then (about one
view in twenty for the seat that plays second, with or without a reshuffle, as before the
reshuffle's repair): the reference bot then takes the heuristic's choice, so a decision here
may take up to `CALLS` calls."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from referee.games.base import State
from referee.review.determinize import Unsampled, sample
from referee.review.view import SeatView, view_of_record
from tests.test_env_sampling import random_record

SEEDS = range(6)
CALLS = 3


@pytest.mark.parametrize("players", [2, 4])
def test_every_xeri_decision_samples_to_what_the_seat_saw(tmp_path: Path, players: int) -> None:
    reshuffled = 0
    for seed in SEEDS:
        path = random_record(tmp_path, "xeri", {"players": players, "rounds": 1}, seed)
        reshuffled += '"pileRejected"' in path.read_text()
        for seat in (0, players - 1):
            view = view_of_record(path, seat)
            for k, decision in enumerate(view.decisions):
                state = _sampled(view.up_to(k), f"{seed}:{seat}:{k}")
                assert state.to_move == seat
                assert state.observation(seat) == decision.observation, (seed, seat, k)
                assert tuple(a.text for a in state.legal_actions()) == decision.legal
    assert reshuffled  # the case this test is for: a rejected pile reshuffles the stock


def _sampled(view: SeatView, seed: str) -> State:
    for call in range(CALLS - 1):
        try:
            return sample(view, random.Random(f"{seed}:{call}"))
        except Unsampled:
            continue
    return sample(view, random.Random(f"{seed}:{CALLS - 1}"))
