"""The organiser's house bots (issue 45.1): a contest file's `[house]` lists reference bots by
folder; each is stored, built and qualified as an upload is, plays as `house.NAME`, which any
author may challenge (unranked only) and no ranked table seats, and whose name no token can
take. An author who uploaded the house folder's very files first does not block it."""

from __future__ import annotations

import os
from pathlib import Path

import grpc
import pytest
import trio

from croupier.v1 import challenges_pb2 as pb
from croupier.v1 import referee_pb2, referee_pb2_grpc
from referee.contest import file as contest_file
from referee.contest.file import ContestFileError
from referee.contest.settings import ServeSettings
from referee.contest.tokens import TokenError, TokenStore
from referee.errors import CroupierError
from referee.hosted.house import MARK, HouseError, account_of, stock
from referee.hosted.store import VersionStatus, VersionStore
from referee.hosted.submitting import Submitting
from referee.ladder.verify import standings_of
from referee.local.limits import Limits
from tests.challenge_helpers import bot_folder
from tests.test_challenges import QUICK, Contest, refused, run_contest

SEED = "the contest's master seed"


def test_no_token_takes_a_house_bot_s_name(tmp_path: Path) -> None:
    accounts = TokenStore(tmp_path / "contest.db")
    with pytest.raises(TokenError, match="house bots"):
        accounts.add("house.heuristic")
    with pytest.raises(TokenError, match="house bots"):  # all or none
        accounts.add_many(["alice", "house.x"])
    assert accounts.add("alice") and accounts.add("housekeeper")


def test_a_contest_file_lists_house_bots_by_folder(tmp_path: Path) -> None:
    path = tmp_path / "contest.toml"
    path.write_text('database = "contest.db"\n[house]\nheuristic = "bots/heuristic"\n')
    assert contest_file.load(path)["house"] == {"heuristic": tmp_path / "bots" / "heuristic"}
    for text, words in (
        ('[house]\n"two words" = "bots"\n', "house bot's name"),
        (f'[house]\n{"x" * 59} = "bots"\n', "house bot's name"),
        ("[house]\nheuristic = 3\n", "expected a string"),
        ('house = "bots"\n', "expected a table"),
    ):
        path.write_text(text)
        with pytest.raises(ContestFileError, match=words):
            contest_file.load(path)
    # House bots are hosted: a contest without accounts has none.
    with pytest.raises(CroupierError, match=r"\[house\] bots are hosted bots of a contest"):
        ServeSettings(house={"heuristic": tmp_path}).check()


def desk_of(root: Path) -> Submitting:
    return Submitting(VersionStore(root), Limits(), games=frozenset({"xix"}))


def test_a_house_folder_is_one_version_until_it_changes_and_no_upload_blocks_it(
    tmp_path: Path,
) -> None:
    folder = bot_folder(tmp_path / "heuristic", None, "house-heuristic")
    (folder / "__pycache__").mkdir()  # a tool's folder, left out as `croupier submit` does
    (folder / "__pycache__" / "x.pyc").write_bytes(os.urandom(16))
    desk = desk_of(tmp_path / "versions")
    # An author uploads the house folder's files first: theirs, and the house bot still stored.
    theirs = desk.submit("mallory", folder)
    [first] = stock(desk, {"heuristic": folder}, SEED)
    assert first.account == account_of("heuristic") and first.id != theirs.id
    (folder / "__pycache__" / "x.pyc").write_bytes(os.urandom(16))
    [again] = stock(desk, {"heuristic": folder}, SEED)  # the contest started again
    assert again.id == first.id and not again.new
    (folder / "xix_heuristic.py").write_text(
        (folder / "xix_heuristic.py").read_text() + "\n# changed\n"
    )
    [changed] = stock(desk, {"heuristic": folder}, SEED)
    assert changed.id != first.id and changed.new
    assert [v.id for v in desk.versions(account_of("heuristic"))] == [first.id, changed.id]
    # The mark says whose copy it is and nothing of the seed.
    mark = (desk.store.folder(changed.id) / "src" / MARK).read_text()
    assert mark.startswith("house.heuristic\n") and SEED not in mark


def test_a_house_folder_with_a_link_or_none_stops_the_contest_naming_it(tmp_path: Path) -> None:
    desk = desk_of(tmp_path / "versions")
    with pytest.raises(HouseError, match=r"\[house\] missing: no bot folder"):
        stock(desk, {"missing": tmp_path / "nowhere"}, SEED)
    folder = bot_folder(tmp_path / "linked", None, "linked")
    (folder / "seed").symlink_to(tmp_path / "contest.db")
    with pytest.raises(HouseError, match=r"\[house\] linked .*symbolic link"):
        stock(desk, {"linked": folder}, SEED)
    other = bot_folder(tmp_path / "xeri", "random_bot.py", "xeri-only", game="xeri")
    with pytest.raises(HouseError, match=r"\[house\] xeri .*this contest runs \['xix'\]"):
        stock(desk, {"xeri": other}, SEED)
    assert desk.versions(account_of("linked")) == []


@pytest.mark.usefixtures("bubblewrap")
def test_anyone_challenges_a_house_bot_unranked_and_no_ranked_table_seats_it(
    tmp_path: Path,
) -> None:
    house = {"noisy": bot_folder(tmp_path / "house-noisy", 0.6, "house-noisy")}
    seen: dict[str, object] = {}
    listed: set[str] = set()

    async def scenario(contest: Contest) -> None:
        store = VersionStore(contest.folder / "versions")
        try:
            with trio.fail_after(240):  # built and qualified by the contest's pipeline
                while (active := store.active("house.noisy")) is None:
                    [v] = store.versions("house.noisy")
                    assert v.status not in (VersionStatus.FAILED,), v.reason
                    await trio.sleep(0.5)
        finally:
            store.close()
        ask = pb.CreateChallengeRequest
        error = await refused(contest, "alice", ask(opponent="heuristic"))
        assert error.code() == grpc.StatusCode.NOT_FOUND, error
        assert "(its house bots: house.noisy)" in (error.details() or ""), error
        error = await refused(contest, "alice", ask(opponent="house.noisy", ranked=True))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
        assert "house bot, outside the standings" in (error.details() or ""), error
        asked = await contest.call("alice", "CreateChallenge", ask(opponent="house.noisy"))
        assert isinstance(asked, pb.CreateChallengeResponse)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch_listed, contest, listed)
            seen["decided"] = await contest.until_ended("alice", asked.challenge.id)
            nursery.cancel_scope.cancel()
        seen["active"] = active.id
        with trio.fail_after(120):  # alice and bob meet in ranked matches meanwhile
            while not contest.ranked_matches():
                await trio.sleep(0.5)

    contest = run_contest(tmp_path, scenario, {"alice": None, "bob": None}, QUICK, house=house)
    decided = seen["decided"]
    assert isinstance(decided, pb.Challenge)
    assert decided.outcome == pb.CHALLENGE_OUTCOME_BETTER, decided.reason
    assert decided.opponent == f"house.noisy@{str(seen['active'])[:12]}"
    # Unranked challenges are an author's own testing: their matches are in no public list,
    # while the contest's ranked ones, played meanwhile, are.
    assert listed and not any("challenge" in m for m in listed), listed
    standings = standings_of(contest.folder / "contest.db")
    rows = {row.bot.split("@")[0]: row.matches for row in standings.rows}
    assert set(rows) == {"alice", "bob"} and all(rows.values()), rows


async def watch_listed(contest: Contest, listed: set[str]) -> None:
    """Add every match the public list shows (a spectator's ListMatches) to `listed`."""
    channel = grpc.insecure_channel(f"127.0.0.1:{contest.port}")
    stub = referee_pb2_grpc.RefereeStub(channel)
    try:
        while True:
            answer = await trio.to_thread.run_sync(
                lambda: stub.ListMatches(referee_pb2.ListMatchesRequest(), timeout=10)
            )
            listed.update(m.match_id for m in answer.matches)
            await trio.sleep(0.05)
    finally:
        channel.close()
