"""The site's rating chart of a bot that played once (a papercut of issue 42): a real contest of
one match, served with its site, looked at in chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_contest_pairing import one_leaves
from tests.test_provisional import serving_site


@pytest.fixture(scope="module")
def one_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stopped contest of one match (its trio run before the browser's loop starts)."""
    folder = tmp_path_factory.mktemp("one-match")
    one_leaves(folder, 1)
    return folder / "contest.db"


def test_a_rating_of_one_point_is_drawn_not_an_empty_box(one_match: Path, browser: Any) -> None:
    """After one match a bot's rating chart was an empty box (a line of one point draws
    nothing); it shows the point, and its interval."""
    with serving_site(one_match) as web:
        page = browser.new_page()
        page.goto(web + "/bots/alice")
        page.locator("svg.rating circle.dot").wait_for()
        assert page.locator("svg.rating line.band-bar").count() == 1
        page.close()
