"""The standings show each account's active version, and an account's page its versions'
ratings (issue 27.2).

Which rows are current is decided in one pure function (referee.hosted.current), tested on its
own; then for real: a `croupier serve --db --web` contest, alice's versions submitted through
`croupier submit --wait` and launched in the sandbox, bob connecting from outside, and alice's
version replaced while it runs; the site's JSON, `croupier ladder standings` and the pages in a
browser, after the replacement."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.current import Entrant, entrants, split, to_dict
from referee.hosted.store import SHORT_ID, Listing, Version, VersionId, VersionStatus
from referee.ratings.standings import Plan, Row, Standings
from tests.hosted_helpers import network_bot
from tests.pipes import drain
from tests.test_hosted_play import CROUPIER, EXAMPLE, wait_for
from tests.test_hosted_play import Contest as Served

T = TypeVar("T")

# --- the pure function ---------------------------------------------------------------------------


def _version(account: str, digit: str, status: VersionStatus) -> Version:
    return Version(VersionId(digit * 64), account, status, "", "2026-11-26", "2026-11-26")


OLD = _version("alice", "a", VersionStatus.QUALIFIED)
NEW = _version("alice", "b", VersionStatus.QUALIFIED)
GONE = _version("carol", "c", VersionStatus.WITHDRAWN)
#: alice replaced OLD by NEW; carol withdrew her only version.
LISTING = Listing((OLD, NEW, GONE), frozenset({NEW.id}))
OLD_NAME, NEW_NAME, GONE_NAME = "alice@" + "a" * 12, "alice@" + "b" * 12, "carol@" + "c" * 12


def _standings(*bots: str) -> Standings:
    """Standings whose rows are `bots` in this order (ranked 1, 2, ...)."""
    plan = Plan("contest", "xix", {}, tuple(sorted(bots)), "elo", False, 2, "contest")
    rows = tuple(
        Row(
            rank,
            bot,
            100.0 - rank,
            90.0 - rank,
            110.0 - rank,
            None,
            None,
            5,
            0.5,
            1.0,
            {},
            0,
            False,
        )
        for rank, bot in enumerate(bots, start=1)
    )
    return Standings(plan, rows, 10, 10, "00" * 32, None, False)


def test_a_hosted_version_is_current_while_its_account_plays_it() -> None:
    named = entrants([OLD_NAME, NEW_NAME, GONE_NAME, "bob", "dave@" + "d" * 12], LISTING)
    assert named == {
        # Each with the versions its account tried, withdrawn ones too (issue 45).
        OLD_NAME: Entrant("alice", OLD.id, current=False, tried=2),
        NEW_NAME: Entrant("alice", NEW.id, current=True, tried=2),
        GONE_NAME: Entrant("carol", GONE.id, current=False, tried=1),
        # Bots that connect by themselves, whatever their names look like.
        "bob": Entrant("bob", None, current=True),
        "dave@" + "d" * 12: Entrant("dave@" + "d" * 12, None, current=True),
    }


def test_retired_rows_leave_the_standings_and_no_gap_in_their_ranks() -> None:
    standings = _standings(OLD_NAME, "bob", GONE_NAME, NEW_NAME)
    parts = split(standings, LISTING)
    assert [(row.rank, row.bot) for row in parts.current.rows] == [(1, "bob"), (2, NEW_NAME)]
    assert [(row.rank, row.bot) for row in parts.retired] == [(1, OLD_NAME), (3, GONE_NAME)]
    # Nothing else changes: ratings, the plan, the counts.
    assert parts.current.rows[1].rating == standings.rows[3].rating
    assert parts.current.plan == standings.plan and parts.current.matches_done == 10


def test_without_hosted_versions_the_standings_are_as_they_were() -> None:
    standings = _standings("bob", "alice", "carol")
    assert split(standings, Listing((), frozenset())).current == standings
    assert split(standings, Listing((), frozenset())).retired == ()


def test_the_json_names_each_row_s_account_and_version() -> None:
    standings = _standings(OLD_NAME, "bob", NEW_NAME)
    shown = to_dict(standings, LISTING, everything=False)
    assert shown["all"] is False
    assert [
        (r["rank"], r["bot"], r["account"], r["version"], r["current"]) for r in shown["standings"]
    ] == [
        (1, "bob", "bob", None, True),
        (2, NEW_NAME, "alice", NEW.id, True),
    ]
    everything = to_dict(standings, LISTING, everything=True)
    assert everything["all"] is True
    assert [(r["rank"], r["current"]) for r in everything["standings"]] == [
        (1, False),
        (2, True),
        (3, True),
    ]


# --- a real contest --------------------------------------------------------------------------


@dataclass(frozen=True)
class Contest:
    served: Served
    web: str
    #: alice's first and second versions' entrant names.
    old: str
    new: str

    def json(self, path: str) -> Any:
        with urllib.request.urlopen(self.web + path, timeout=10) as response:
            return json.loads(response.read())

    def standings(self, *extra: str) -> str:
        database = str(self.served.folder / "contest.db")
        shown = subprocess.run(
            [CROUPIER, "ladder", "standings", database, *extra],
            capture_output=True,
            text=True,
            timeout=60,
            env=os.environ | {"COLUMNS": "200"},  # whole names, whatever the terminal's width
        )
        assert shown.returncode == 0, shown.stdout + shown.stderr
        return shown.stdout


def until(read: Callable[[], T], good: Callable[[T], bool], timeout: float = 60) -> T:
    """`read()` once it is `good` (the site reads its database every 2 s at most)."""
    deadline = time.monotonic() + timeout
    while not good(value := read()):
        assert time.monotonic() < deadline, value
        time.sleep(0.2)
    return value


@pytest.fixture(scope="module")
def contest(bubblewrap: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    """alice's first version played bob, then her second replaced it and played him too; the
    contest still runs."""
    folder = tmp_path_factory.mktemp("contest")
    db = folder / "contest.db"
    tokens = {name: TokenStore(db).add(name) for name in ("alice", "bob")}
    command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--web", "127.0.0.1:0"]
    serve = subprocess.Popen(
        [*command, "--game", "xix", "--move-ms", "2000"], stdout=subprocess.PIPE, cwd=folder
    )
    assert serve.stdout is not None
    bob: subprocess.Popen[bytes] | None = None
    drained = False
    try:  # whatever fails, the referee is stopped (a later test would find it running)
        address = web = ""
        while not (address and web):
            line = serve.stdout.readline().decode()
            assert line, "the referee stopped before it listened"
            if "croupier referee" in line:
                address = "127.0.0.1:" + line.split(":")[-1].split()[0]
            if "web site on " in line:
                web = line.split("web site on ")[1].strip()
        drain(serve.stdout)
        drained = True
        served = Served(folder, address, tokens, serve)
        bob = network_bot(address, tokens["bob"])
        old = "alice@" + served.submit("alice", EXAMPLE)[:SHORT_ID]
        wait_for(served, old, 3)
        second = folder / "second"
        shutil.copytree(EXAMPLE, second, ignore=shutil.ignore_patterns("__pycache__"))
        with (second / "bot.toml").open("a") as manifest:
            manifest.write("# the second version\n")
        new = "alice@" + served.submit("alice", second)[:SHORT_ID]
        assert new != old
        wait_for(served, new, 3)
        yield Contest(served, web, old, new)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=60)
        if not drained:
            serve.stdout.close()
        if bob is not None:
            bob.kill()
            bob.wait()


def _bots(rows: list[dict[str, Any]]) -> list[str]:
    return [row["bot"] for row in rows]


def test_the_standings_show_alice_s_active_version_and_all_shows_both(contest: Contest) -> None:
    old, new = contest.old, contest.new

    def played_by_new(standings: dict[str, Any]) -> bool:
        return any(r["bot"] == new and r["matches"] >= 3 for r in standings["standings"])

    default = until(lambda: contest.json("/api/v1/standings"), played_by_new)
    assert default["all"] is False
    assert sorted(_bots(default["standings"])) == sorted(["bob", new])
    assert [row["rank"] for row in default["standings"]] == [1, 2]
    shown = {row["bot"]: row for row in default["standings"]}
    assert (shown[new]["account"], shown[new]["current"]) == ("alice", True)
    assert shown[new]["version"].startswith(new.removeprefix("alice@"))
    assert (shown["bob"]["account"], shown["bob"]["version"]) == ("bob", None)
    everything = contest.json("/api/v1/standings?all=1")
    assert sorted(_bots(everything["standings"])) == sorted(["bob", new, old])
    assert {r["bot"]: r["current"] for r in everything["standings"]}[old] is False
    assert all(r["matches"] >= 3 for r in everything["standings"])
    # The page's own snapshot: the retired version apart.
    snapshot = until(lambda: contest.json("/api/contest"), lambda d: bool(d.get("retired")))
    assert old not in _bots(snapshot["standings"]) and new in _bots(snapshot["standings"])
    assert _bots(snapshot["retired"]) == [old]
    with pytest.raises(urllib.error.HTTPError) as refused:
        contest.json("/api/v1/standings?all=yes")
    assert refused.value.code == 400
    refused.value.close()
    # The CLI reads the same from the database and the store beside it.
    table = contest.standings()
    assert new in table and old not in table, table
    assert "1 retired hosted version not shown: --all shows them" in table
    assert f"{old} (retired)" in contest.standings("--all")
    printed = json.loads(contest.standings("--format", "json"))
    assert sorted(_bots(printed["standings"])) == sorted(["bob", new])


def test_alice_s_page_shows_each_version_s_rating_and_links_to_it(
    contest: Contest, page: Any
) -> None:
    old, new = contest.old, contest.new
    data = contest.json("/api/bots/alice")
    versions = {v["entrant"]: v for v in data["versions"]}
    assert list(versions) == [old, new]
    for version in versions.values():
        assert version["page"] and version["row"]["matches"] >= 3 and version["history"]
        assert version["row"]["text"]["rating"] != "-"
    assert versions[new]["active"] and not versions[old]["active"]
    mine = contest.json(f"/api/bots/{urllib.parse.quote(new, safe='')}")
    assert (mine["account"], mine["versions"]) == ("alice", [])

    page.goto(f"{contest.web}/bots/alice")
    rows = page.locator("#versions:not([hidden]) tbody tr")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    for i, name in enumerate([old, new]):
        cells = rows.nth(i).locator("td")
        assert (
            cells.nth(0).locator("a").get_attribute("href") == f"/bots/{name.replace('@', '%40')}"
        )
        # As the CLI prints them (the contest plays on: the numbers move).
        assert re.fullmatch(r"[+-]\d+\??", cells.nth(2).text_content() or "")
        assert re.fullmatch(r"[+-]\d+\.\.[+-]\d+", cells.nth(3).text_content() or "")
        assert int(cells.nth(4).text_content() or "0") >= 3
    assert "active" in (rows.nth(1).locator("td").nth(1).text_content() or "")
    lines = page.locator("#plot .series")
    assert sorted(lines.evaluate_all("lines => lines.map((l) => l.dataset.bot)")) == sorted(
        [old, new]
    )
    # A version's page names its account and links back.
    rows.nth(0).locator("td").nth(0).locator("a").click()
    page.wait_for_url(f"**/bots/{old.replace('@', '%40')}")
    back = page.locator("#account:not([hidden]) a")
    back.wait_for()
    assert back.get_attribute("href") == "/bots/alice" and back.text_content() == "alice"
    assert page.locator("#plot .series .line").count() == 1


def test_the_standings_page_shows_the_active_version_and_keeps_the_retired_one_folded(
    contest: Contest, page: Any
) -> None:
    old, new = contest.old, contest.new
    page.goto(contest.web)
    current = page.locator(f'#standings tbody tr[data-bot="{new}"]')
    current.wait_for()
    assert page.locator(f'#standings tbody tr[data-bot="{old}"]').count() == 0
    assert page.locator('#standings tbody tr[data-bot="bob"]').count() == 1
    # alice's row: her account's page, then her version's.
    links = current.locator("td").nth(1).locator("a")
    assert links.nth(0).get_attribute("href") == "/bots/alice"
    assert links.nth(1).get_attribute("href") == f"/bots/{new.replace('@', '%40')}"
    assert current.locator("td").nth(1).text_content() == new
    retired = page.locator(f'#retired-table tbody tr[data-bot="{old}"]')
    assert not retired.is_visible()
    page.locator("#retired summary").click()
    retired.wait_for()
    assert page.locator("#retired summary").text_content() == "1 retired hosted version"
