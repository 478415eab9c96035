"""The training environments keep PettingZoo's and Gymnasium's contracts (issue 47.1) and refuse
bad input with an exception that names it, changing nothing (47, bad input)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import croupier
import croupier.env
from croupier.env.encoding import deck
from croupier.env.start import from_record
from croupier.env.table import Table, first_deck
from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.match.records import read_all

TABLES = [
    ("xix", {}),
    ("xeri", {"players": 2}),
    ("xeri", {"players": 4}),
    ("xactika", {"players": 2}),
    ("xactika", {"players": 4}),
    ("textactoe", {"players": 2}),
    ("textactoe", {"players": 3}),
]


class Last(croupier.Bot):
    """Deterministic, so that Gymnasium's check for deterministic steps holds."""

    name = "last"

    def act(self, request: referee_pb2.ActionRequest) -> int:
        return len(request.legal_actions) - 1


# Both checkers warn about choices every masked card-game environment makes (a Dict observation
# with an action mask, no render): PettingZoo's own classic games draw the same warnings.
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "options"), TABLES)
def test_pettingzoo_api_test_passes(game: str, options: dict[str, object]) -> None:
    api_test(croupier.env.aec(game, **options), num_cycles=1000)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game", "options"), TABLES)
def test_gymnasium_check_env_passes(game: str, options: dict[str, object]) -> None:
    seats = Table.of(game, options).seats
    env = croupier.env.gym(game, [Last() for _ in range(seats - 1)], strict=False, **options)
    check_env(env)


def test_an_action_off_the_mask_is_refused_and_changes_nothing() -> None:
    env = croupier.env.gym("xix", [Last()])
    observation, _ = env.reset(seed=3)
    before = env.request.SerializeToString()
    count = int(observation["action_mask"].sum())
    with pytest.raises(ValueError, match=rf"action index {count} is out of range 0\.\.{count - 1}"):
        env.step(count)
    assert env.request.SerializeToString() == before
    env.step(0)  # the match goes on


def test_a_step_after_the_end_is_refused(tmp_path: Path) -> None:
    env = croupier.env.gym("xeri", [Last()], players=2)
    env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, _ = env.step(0)
    with pytest.raises(ValueError, match="after the end of the match"):
        env.step(0)


def test_a_dead_agent_given_an_action_is_refused() -> None:
    env = croupier.env.aec("xix")
    env.reset(seed=2)
    for agent in env.agent_iter():
        _, _, terminated, _, _ = env.last()
        if terminated:
            with pytest.raises(ValueError, match=f"action 0 for {agent!r}, whose match is over"):
                env.step(0)
            break
        env.step(0)


def test_an_unknown_game_or_option_is_named() -> None:
    with pytest.raises(CroupierError, match="unknown game 'poker'"):
        croupier.env.aec("poker")
    with pytest.raises(CroupierError, match="'colour'"):
        croupier.env.aec("xix", colour="red")
    with pytest.raises(CroupierError, match="3"):
        croupier.env.aec("xeri", players=3)


def test_a_seeded_reset_deals_the_same_match_twice() -> None:
    env = croupier.env.aec("xactika", players=3)
    first = []
    for run in range(2):
        env.reset(seed=11)
        for _agent in env.agent_iter():
            observation, _, terminated, _, _ = env.last()
            if run == 0:
                first.append(observation["observation"].tobytes())
            else:
                assert observation["observation"].tobytes() == first.pop(0)
            env.step(None if terminated else int(observation["action_mask"].sum()) - 1)
    assert not first


def test_the_referee_and_the_sdk_never_import_the_training_libraries() -> None:
    """`croupier[env]` is optional: a bot, the SDK, a policy bot and the referee run without it."""
    code = (
        "import sys, croupier, croupier.env, referee.cli, referee.match.runner\n"
        "assert not {'pettingzoo', 'gymnasium'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    bot_only = "import sys, croupier.env\nassert 'referee' not in sys.modules"  # a hosted bot's
    subprocess.run([sys.executable, "-c", bot_only], check=True)


@pytest.mark.parametrize(("game", "options"), [*TABLES, ("textactoe", {"jokers": True})])
def test_the_sdks_decks_are_the_engines(game: str, options: dict[str, object]) -> None:
    """A policy bot encodes with the SDK's copy of the decks: it must be the engines' own."""
    table = Table.of(game, options)
    engine = first_deck(table.game, table.options)
    if game == "xix":  # its cards are numbers, encoded as such
        assert deck(game, {}) == ()
        assert sorted(int(card) for card in engine) == list(range(1, 19))
    else:
        assert sorted(deck(game, table.options.as_text())) == sorted(engine)


@pytest.mark.parametrize(("game", "options"), [("xix", {}), ("xeri", {"players": 4})])
def test_the_gym_reward_is_the_margin_over_the_best_other_side(
    game: str, options: dict[str, object]
) -> None:
    """Positive for a win, negative for a loss: a team game's partner is no opponent."""
    seats = Table.of(game, options).seats
    signs = set()
    rng = random.Random(5)
    for seed in range(20):
        env = croupier.env.gym(game, [Last() for _ in range(seats - 1)], **options)
        observation, _ = env.reset(seed=seed)
        done, reward, info = False, 0.0, dict[str, Any]()
        while not done:
            choice = rng.randrange(int(observation["action_mask"].sum()))
            observation, reward, done, _, info = env.step(choice)
        result = info["result"]
        mine = result.seats[0]
        rivals = [
            s
            for s in result.seats
            if s.seat != 0 and not (s.HasField("team") and s.team == mine.team)
        ]
        assert reward == mine.score - max(s.score for s in rivals)
        assert (reward > 0) == (info["rank"] == 1 and mine.score > max(s.score for s in rivals))
        signs.add(reward > 0)
    assert signs == {True, False}


def played_record(tmp_path: Path, game: str = "xix", **options: object) -> Path:
    """A whole match through the environment, its record written."""
    path = tmp_path / f"{game}.jsonl"
    env = croupier.env.aec(game, **options)
    env.reset(seed=5, options={"record_to": path})
    for _agent in env.agent_iter():
        _, _, terminated, _, _ = env.last()
        env.step(None if terminated else 0)
    return path


def test_a_reset_at_a_recorded_decision_observes_what_the_seat_saw(tmp_path: Path) -> None:
    path = played_record(tmp_path)
    seen = []
    env = croupier.env.aec("xix")
    env.reset(seed=5)
    for agent in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        if not terminated:
            seen.append((agent, observation["observation"].tobytes()))
        env.step(None if terminated else 0)
    for decision in (0, 7, len(seen) - 1):
        env.reset(options={"record": path, "decision": decision})
        agent, observation = seen[decision]
        assert env.agent_selection == agent
        assert env.observe(agent)["observation"].tobytes() == observation
    gym = croupier.env.gym("xix", [Last()], seat=int(seen[7][0][-1]))
    observation_7, _ = gym.reset(options={"record": path, "decision": 7})
    assert observation_7["observation"].tobytes() == seen[7][1]


def test_a_bad_start_is_refused_by_name(tmp_path: Path) -> None:
    path = played_record(tmp_path)
    table = Table.of("xix", {})
    with pytest.raises(ValueError, match="decision 9999 is past the record's"):
        from_record(table, path, 9999)
    lines, _ = read_all(path, strict=True)
    first = lines[1 + [line.HasField("action") for line in lines[1:]].index(True)].action
    with pytest.raises(ValueError, match=f"seat {1 - first.seat} moves at another one"):
        from_record(table, path, 0, 1 - first.seat)
    with pytest.raises(ValueError, match="seat 7 never moved in it"):
        from_record(table, path, 0, 7)
    other = played_record(tmp_path, "xeri", players=2)
    with pytest.raises(ValueError, match="has options"):
        from_record(Table.of("xeri", {"players": 4}), other, 0)
    with pytest.raises(ValueError, match="is of 'xeri'"):
        from_record(table, other, 0)
    text = path.read_text()
    version = table.game.rules_version
    old = tmp_path / "old.jsonl"
    old.write_text(text.replace(f'"{version}"', '"xix-0"', 1))
    with pytest.raises(ValueError, match=f"rules 'xix-0', not 'xix' rules {version!r}"):
        from_record(table, old, 0)
    altered = tmp_path / "altered.jsonl"
    altered.write_text(text.replace('"action":{"text"', '"action":{"index":1,"text"', 1))
    assert altered.read_text() != text
    with pytest.raises(ValueError, match="does not verify"):
        from_record(table, altered, 0)
