"""Resampling at a recorded decision (issue 47.4): a resampled start sends its seat the very
request the true match sent it, is reached by legal actions only, and over many samples puts
each card the seat never saw in each place such a card could be."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest

import croupier.env
from croupier.bots.random_bot import RandomBot
from croupier.env.sampling import resample, seen_cards
from croupier.env.start import from_record
from croupier.env.table import Table
from tests.bots.stream_bot import invariant

TABLES = [
    ("xix", {}),
    ("xeri", {"players": 2}),
    ("xeri", {"players": 4}),
    ("xactika", {"players": 3, "rounds": 1}),
    ("textactoe", {"players": 2}),
]


def random_record(tmp_path: Path, game: str, options: dict[str, object], seed: int) -> Path:
    path = tmp_path / f"{game}-{seed}.jsonl"
    env = croupier.env.aec(game, **options)
    env.reset(seed=seed, options={"record_to": path})
    rng = random.Random(seed)
    for _agent in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        mask = observation["action_mask"]
        env.step(None if terminated else rng.randrange(int(mask.sum())))
    return path


def first_deal_decisions(path: Path) -> int:
    """How many decisions the record has before its second deal."""
    count = 0
    deals = 0
    for line in path.read_text().splitlines():
        if line.startswith('{"chance":{"deck"'):
            deals += 1
            if deals == 2:
                break
        elif line.startswith('{"action"'):
            count += 1
    return count


@pytest.mark.parametrize(("game", "options"), TABLES)
def test_a_resample_is_what_the_seat_saw_and_legal(
    tmp_path: Path, game: str, options: dict[str, object]
) -> None:
    table = Table.of(game, options)
    tested = 0
    for seed in range(4):
        path = random_record(tmp_path, game, options, seed)
        last = first_deal_decisions(path) - 1
        if last < 0:  # a redeal before the first decision (Xeri): not resampled
            with pytest.raises(ValueError, match="after the record's first deal"):
                resample(table, path, 0, None, random.Random(seed))
            continue
        tested += 1
        for decision in sorted({0, last // 2, last}):
            true, _ = from_record(table, path, decision)
            assert true.request is not None
            sample = resample(table, path, decision, None, random.Random(seed))
            assert sample.match.seat == true.seat
            assert sample.match.request is not None
            assert invariant(sample.match.request) == invariant(true.request)
            # Legal: played on through the referee's checked path to the end.
            match = sample.match
            while match.request is not None:
                match.answer(0)
            assert match.outcome is not None
    assert tested


def test_the_aec_environment_starts_at_a_resampled_decision(tmp_path: Path) -> None:
    path = random_record(tmp_path, "xix", {}, 4)
    env = croupier.env.aec("xix")
    env.reset(options={"record": path, "decision": 10})
    agent = env.agent_selection
    truth = env.observe(agent)["observation"].tobytes()
    env.reset(seed=1, options={"record": path, "decision": 10, "resample": True})
    assert env.agent_selection == agent
    assert env.observe(agent)["observation"].tobytes() == truth
    with pytest.raises(ValueError, match="resample=True needs a seed"):
        env.reset(options={"record": path, "decision": 10, "resample": True})


def test_xix_resamples_put_every_unseen_card_everywhere_it_could_be(tmp_path: Path) -> None:
    """XIX has no follow obligation (XIX-R3): at a decision, any card the seat never saw may be
    in any place that holds such a card; 600 samples find every pairing."""
    table = Table.of("xix", {})
    path = random_record(tmp_path, "xix", {}, 7)
    decision = 12
    true, replayed = from_record(table, path, decision)
    assert true.request is not None
    mine = [r for s, r in replayed if s == true.seat] + [true.request]
    deal = next(line for line in path.read_text().splitlines() if '{"chance":{"deck"' in line)
    true_deck = json.loads(deal)["chance"]["deck"]["cards"]
    seen = seen_cards("xix", mine)
    rng = random.Random(3)
    where: dict[str, set[int]] = defaultdict(set)
    places: set[int] = set()
    for _ in range(600):
        sample = resample(table, path, decision, None, rng)
        sample.match.close()
        for place, card in enumerate(sample.deck):
            if card not in seen:
                where[card].add(place)
                places.add(place)
            else:
                assert true_deck[place] == card  # a card the seat saw is where it saw it
    unseen = {card for card in (str(c) for c in range(1, 19)) if card not in seen}
    assert unseen and set(where) == unseen
    assert all(where[card] == places for card in unseen)


def test_the_gym_environment_starts_at_a_resampled_decision(tmp_path: Path) -> None:
    path = random_record(tmp_path, "xix", {}, 4)
    table = Table.of("xix", {})
    true, _ = from_record(table, path, 10)
    gym = croupier.env.gym("xix", [RandomBot(0)], seat=true.seat)
    truth, _ = gym.reset(options={"record": path, "decision": 10})
    observation, _ = gym.reset(seed=2, options={"record": path, "decision": 10, "resample": True})
    assert observation["observation"].tobytes() == truth["observation"].tobytes()
