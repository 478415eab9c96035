"""Schedules: formats, fair seating, duplicate deals (every rotation of every deal), seeds that
derive from the master seed, Swiss pairings."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from pathlib import Path

import pytest

from referee.ladder.config import LadderConfig, parse, schedule_tables
from referee.ladder.schedule import (
    Layout,
    commitment,
    derive_seed,
    entrants,
    first_schedule,
    max_seats_per_bot,
    swiss_round,
    tables,
)
from referee.results.matches import MatchResult, ScheduledMatch


def ladder(game: str, bots: list[str], extra: str = "", options: str = "") -> str:
    lines = [f'game = "{game}"', *extra.splitlines()]
    if options:
        lines += ["[options]", *options.splitlines()]
    for bot in bots:
        lines += ["[[bot]]", f'name = "{bot}"', 'command = "{python} bot.py"']
    return "\n".join(lines) + "\n"


def config_of(
    tmp_path: Path, game: str, bots: str, extra: str = "", options: str = ""
) -> LadderConfig:
    return parse(ladder(game, bots.split(), extra, options), tmp_path / "l.toml")


def test_seeds_derive_from_the_master_seed_as_documented() -> None:
    digest = hmac.new(b"abc", b"7", hashlib.sha256).digest()
    assert derive_seed("abc", 7) == int.from_bytes(digest[:8], "big") >> 1
    unkeyed = hashlib.sha256(b"croupier-ladder/abc/7").digest()  # the old, guessable formula
    assert derive_seed("abc", 7) != int.from_bytes(unkeyed[:8], "big") >> 1
    assert commitment("abc") == hashlib.sha256(b"abc").hexdigest()
    assert len({derive_seed("abc", d) for d in range(1000)}) == 1000


def test_duplicate_round_robin_plays_every_rotation_of_every_deal(tmp_path: Path) -> None:
    config = config_of(tmp_path, "xix", "a b c", "matches_per_pairing = 6")
    matches = first_schedule(config, "m")
    assert len(matches) == 3 * 6  # three pairings
    deals: dict[int, list[ScheduledMatch]] = {}
    for match in matches:
        deals.setdefault(match.deal, []).append(match)
        assert match.seed == derive_seed("m", match.deal)
    assert len(deals) == 9
    for group in deals.values():
        assert sorted(m.rotation for m in group) == [0, 1]
        assert {m.bots for m in group} == {group[0].bots, tuple(reversed(group[0].bots))}
    # Interleaved: the first deal of every pairing comes before any second deal.
    assert {frozenset(m.bots) for m in matches[:6]} == {
        frozenset(p) for p in (("a", "b"), ("a", "c"), ("b", "c"))
    }


def test_plain_deals_rotate_seats_and_never_repeat(tmp_path: Path) -> None:
    config = config_of(tmp_path, "xix", "a b", "matches_per_pairing = 5\nduplicate = false")
    matches = first_schedule(config, "m")
    assert len({m.deal for m in matches}) == 5
    assert [m.bots[0] for m in matches] == ["a", "b", "a", "b", "a"]


def test_tables_of_four_from_two_bots_cover_every_mix_and_rotation(tmp_path: Path) -> None:
    config = config_of(
        tmp_path, "xactika", "h r", "matches_per_pairing = 4", "players = 4\nrounds = 1"
    )
    matches = first_schedule(config, "m")
    mixes = Counter(tuple(sorted(m.bots)) for m in matches)
    assert mixes == {
        ("h", "h", "h", "r"): 4,
        ("h", "h", "r", "r"): 4,
        ("h", "r", "r", "r"): 4,
    }
    # Within each deal, every bot holds every seat equally often over the rotations.
    for deal in {m.deal for m in matches}:
        group = [m for m in matches if m.deal == deal]
        for seat in range(4):
            assert Counter(m.bots[seat] for m in group) == Counter(group[0].bots)
    assert max_seats_per_bot(config) == {"h": 3, "r": 3}


def test_combinations_when_there_are_enough_bots(tmp_path: Path) -> None:
    config = config_of(tmp_path, "textactoe", "a b c d", "matches_per_pairing = 3", "players = 3")
    found = tables(config, entrants(config))
    assert len(found) == 4  # C(4, 3)
    assert max_seats_per_bot(config) == {"a": 1, "b": 1, "c": 1, "d": 1}


def test_xeri_teams_sit_opposite_and_rotate(tmp_path: Path) -> None:
    config = config_of(
        tmp_path,
        "xeri",
        "h r",
        'matches_per_pairing = 4\nteams = [["h", "h"], ["r", "r"], ["h", "r"]]',
        "players = 4",
    )
    matches = first_schedule(config, "m")
    # h+r shares a bot with both other teams: only h+h against r+r is a pairing.
    assert {m.entrants for m in matches} == {("h+h", "r+r")}
    assert [m.bots for m in matches] == [
        ("h", "r", "h", "r"),
        ("r", "h", "r", "h"),
        ("h", "r", "h", "r"),
        ("r", "h", "r", "h"),
    ]
    for match in matches:  # partners hold seats of one parity: the game's team
        assert match.sides[0] == match.sides[2] and match.sides[1] == match.sides[3]
    assert max_seats_per_bot(config) == {"h": 2, "r": 2}
    layout = Layout.of(config.game, config.options)
    mixed = entrants(config)[2]
    bots, sides = layout.seating([mixed, entrants(config)[0]], 2)
    assert bots == ("r", "h", "h", "h")  # rotation 2 swaps the partners' seats
    assert sides == (0, 1, 0, 1)


def test_gauntlet_meets_only_the_challengers(tmp_path: Path) -> None:
    config = config_of(
        tmp_path,
        "xix",
        "new old1 old2",
        'format = "gauntlet"\nchallengers = ["new"]\nmatches_per_pairing = 2',
    )
    matches = first_schedule(config, "m")
    assert {frozenset(m.bots) for m in matches} == {
        frozenset({"new", "old1"}),
        frozenset({"new", "old2"}),
    }


@pytest.mark.parametrize(
    ("game", "bots", "extra", "options"),
    [
        ("xix", "a b c d e", "", ""),
        ("xactika", "h r", "", "players = 4"),
        ("textactoe", "a b c d e f", "", "players = 3"),
        ("textactoe", "a b", "", "players = 5"),
        ("xix", "new old1 old2 old3", 'format = "gauntlet"\nchallengers = ["new"]', ""),
        ("xactika", "x y a b c", 'format = "gauntlet"\nchallengers = ["x", "y"]', "players = 3"),
    ],
)
def test_the_tables_counted_at_load_are_the_tables_listed(
    tmp_path: Path, game: str, bots: str, extra: str, options: str
) -> None:
    """The bound on a schedule's size (issue 32.3) counts tables without listing them."""
    config = config_of(tmp_path, game, bots, extra, options)
    champions = len(config.challengers)
    listed = tables(config, entrants(config))
    assert schedule_tables(len(config.bots), config.seats, champions) == len(listed)
    per_table = config.matches_per_pairing
    assert len(first_schedule(config, "m")) == len(listed) * per_table


def result(match: ScheduledMatch, winner: str) -> MatchResult:
    ranks = tuple(1 if bot == winner else 2 for bot in match.bots)
    return MatchResult(match, scores=tuple(3 - r for r in ranks), ranks=ranks)


@pytest.mark.parametrize("bots", ["a b c d", "a b c d e"])
def test_swiss_pairs_leaders_without_rematches(tmp_path: Path, bots: str) -> None:
    config = config_of(
        tmp_path, "xix", bots, 'format = "swiss"\nrounds = 3\nmatches_per_pairing = 2'
    )
    strength = {name: -index for index, name in enumerate(bots.split())}
    scheduled = first_schedule(config, "m")
    played: list[MatchResult] = []
    for round_ in range(2, 4):
        played += [
            result(m, max(m.bots, key=strength.__getitem__))
            for m in scheduled
            if m.round == round_ - 1
        ]
        new = swiss_round(config, "m", scheduled, played)
        assert {m.round for m in new} == {round_}
        assert new[0].number == scheduled[-1].number + 1
        assert new[0].deal == scheduled[-1].deal + 1
        scheduled += new
    pairings = Counter(frozenset(m.entrants) for m in scheduled)
    assert all(count == 2 for count in pairings.values())  # no rematch in 3 rounds
    byes = Counter(
        name
        for r in (1, 2, 3)
        for name in bots.split()
        if name not in {e for m in scheduled if m.round == r for e in m.entrants}
    )
    assert sum(byes.values()) == (3 if len(bots.split()) % 2 else 0)
    assert all(count <= 1 for count in byes.values())
    # Round 2 pairs the round-1 winners together.
    round_two = {frozenset(m.entrants) for m in scheduled if m.round == 2}
    assert frozenset({"a", "c"}) in round_two or frozenset({"a", "b"}) in round_two


def test_the_public_api_is_pinned() -> None:
    import referee.ladder

    assert sorted(referee.ladder.__all__) == [
        "LadderCheck",
        "LadderConfig",
        "LadderConfigError",
        "LadderError",
        "LadderObserver",
        "Presence",
        "RefereeView",
        "Sprt",
        "Standings",
        "StartInfo",
        "Summary",
        "Venue",
        "ladder_view",
        "load",
        "run_ladder",
        "standings_of",
        "verify_ladder",
    ]
    for name in referee.ladder.__all__:
        assert getattr(referee.ladder, name) is not None
