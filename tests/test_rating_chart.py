"""The site's rating chart of a bot that played once (a papercut of issue 42): a real contest of
one match, served with its site, looked at in chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from tests.test_contest import BAD, Contest, accounts, run_contest
from tests.test_provisional import serving_site


@pytest.fixture(scope="module")
def one_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stopped contest of exactly two matches, alice against bob, who both leave after each
    (its trio runs before the browser's loop starts): the first with a rating to draw, as one
    deal gives none (issue 44.1). One stopped once a match was in could commit another in its
    drain on a busy machine (issue 50)."""
    folder = tmp_path_factory.mktemp("one-match")
    tokens = accounts(folder, "alice", "bob")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for name in ("alice", "bob"):
                nursery.start_soon(contest.bot, BAD, tokens[name], "once")

    for _ in range(2):  # the same contest, served again
        assert len(run_contest(folder, scenario).outcomes) == 1
    return folder / "contest.db"


def test_a_rating_of_one_point_is_drawn_not_an_empty_box(one_match: Path, browser: Any) -> None:
    """A bot's first rating point made its chart an empty box (a line of one point draws
    nothing); it shows the point, and its interval."""
    with serving_site(one_match) as web:
        page = browser.new_page()
        page.goto(web + "/bots/alice")
        page.locator("#plot circle.dot").wait_for()
        assert page.locator("#plot line.band-bar").count() == 1
        page.close()
