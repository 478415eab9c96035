"""Typed game options: parsing, defaults, and clear errors."""

from __future__ import annotations

import pytest

from referee.errors import InvalidOptionError, UnknownGameError
from referee.games import get_game
from referee.games.options import Options, OptionSpec

SPECS = (
    OptionSpec("players", 4, "number of players", minimum=2, maximum=10),
    OptionSpec("jokers", False, "add two jokers"),
    OptionSpec("teams", 2, "players in teams", choices=(2, 4)),
)


def test_defaults_fill_in_and_text_round_trips() -> None:
    options = Options.parse("demo", SPECS, {"jokers": "yes"})
    assert dict(options) == {"players": 4, "jokers": True, "teams": 2}
    assert options.as_text() == {"players": "4", "jokers": "true", "teams": "2"}
    assert Options.parse("demo", SPECS, options.as_text()) == options


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"player": "3"},
            "unknown option 'player' for game 'demo' (its options: jokers, players, teams)",
        ),
        ({"players": "11"}, "bad value 11 for option 'players' of game 'demo': expected 2 to 10"),
        ({"players": "four"}, "bad value 'four' for option 'players'"),
        ({"jokers": "maybe"}, "bad value 'maybe' for option 'jokers'"),
        ({"teams": "3"}, "bad value 3 for option 'teams' of game 'demo': expected 2 or 4"),
    ],
)
def test_bad_options_are_named(raw: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidOptionError) as error:
        Options.parse("demo", SPECS, raw)
    assert message in str(error.value)


def test_unknown_game_lists_the_known_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"unknown game 'chess' \(known games: .*xix"):
        get_game("chess")
