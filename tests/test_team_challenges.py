"""Challenges beyond two players (issue 45.1), end to end as tests/test_challenges.py plays
them (a real contest referee, hosted versions in the sandbox, real SQLite): in 4-player Xeri the
challenger's version holds both seats of one team and its opponent's the other (XERI-R1: seats
0+2 against 1+3), each deal is played in every rotation of the seat plan (Layout), the odd ones
swapping the teams, and the SPRT counts each deal once; a free-for-all (Xactika at 3 players) has
no other side to give an opponent, so it is refused when asked (the RPC's status, and
`croupier challenge`'s exit 2), naming why."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from pathlib import Path

import grpc
import pytest
import trio

from croupier.v1 import challenges_pb2 as pb
from referee.challenges.book import ChallengeBook, challenge_entrant, opponent_entrant
from referee.challenges.terms import ChallengeTerms
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.schedule import Layout
from referee.match.records import ChallengeMark, read_all
from tests.test_challenge_cli import CROUPIER
from tests.test_challenges import Contest, refused, run_contest, verified

pytestmark = pytest.mark.usefixtures("bubblewrap")

#: Two-team Xeri, one round a match: 52 plays, a couple of seconds with the example bots.
XERI4 = {"players": "4", "rounds": "1"}
#: A deal budget small enough for a quiet 2-core machine: at most 8 deals x 4 rotations (about
#: 5 s: the heuristic against the random bot often decides before).
TEAMS = ChallengeTerms(share=0.9, elo0=0, elo1=200, max_deals=8, default_deals=8, per_pair=2)


def test_a_xeri_team_challenge_seats_each_version_as_a_team_in_every_rotation(
    tmp_path: Path,
) -> None:
    seen: dict[str, pb.Challenge] = {}

    async def scenario(contest: Contest) -> None:
        asked = await contest.call(
            "alice", "CreateChallenge", pb.CreateChallengeRequest(opponent="bob")
        )
        assert isinstance(asked, pb.CreateChallengeResponse)
        seen["ended"] = await contest.until_ended("alice", asked.challenge.id, seconds=240)

    versions: dict[str, float | str | None] = {
        "alice": "xeri_heuristic.py",
        "bob": "random_bot.py",
    }
    contest = run_contest(tmp_path, scenario, versions, TEAMS, game="xeri", options=XERI4)
    ended = seen["ended"]
    database = contest.folder / "contest.db"
    book = ChallengeBook(database)
    try:
        challenge = book.get(ended.id)
        matches = book.matches(challenge)
    finally:
        book.close()
    xeri = get_game("xeri")
    layout = Layout.of(xeri, parse_options(xeri, XERI4))
    assert layout.sides == ((0, 2), (1, 3)) and layout.rotations == 4
    names = (challenge_entrant(challenge), opponent_entrant(challenge))
    assert names[0].startswith("alice@") and names[1].startswith("bob@")
    # Ended by the test or by its budget, never for a fault: its summary names both versions.
    assert ended.outcome != pb.CHALLENGE_OUTCOME_UNSPECIFIED, ended
    assert "the test decided" in ended.reason or "budget of 8 deals" in ended.reason, ended
    assert ended.summary.startswith(f"{names[0]} vs {names[1]}"), ended.summary
    assert f"after {ended.deals_played} deals" in ended.summary, ended.summary
    rotations: dict[int, set[int]] = defaultdict(set)
    seeds: dict[int, set[int]] = defaultdict(set)
    for played in matches:
        match, rows = played.match, played.rows
        assert rows is not None and played.record is not None, played.match_id  # committed
        rotations[match.deal].add(match.rotation)
        seeds[match.deal].add(match.seed)
        # The challenger's team is seats 0+2 in the even rotations, 1+3 in the odd ones.
        mine = 0 if match.rotation % 2 == 0 else 1
        assert match.bots == (names[mine], names[1 - mine]) * 2, played.match_id
        assert match.sides == (mine, 1 - mine) * 2, played.match_id
        seats = sorted(rows.seats)
        assert [(s.seat, s.bot, s.side) for s in seats] == [
            (seat, match.bots[seat], names.index(match.bots[seat])) for seat in range(4)
        ], played.match_id
        # Partners share their team's score (XERI-R1): each version's two seats scored as one.
        assert seats[0].score == seats[2].score and seats[1].score == seats[3].score, seats
        (header, *_), _ = read_all(played.record, strict=True)
        assert [seat.name for seat in header.header.seats] == list(match.bots), played.match_id
        assert header.header.options["players"] == "4"
        assert ChallengeMark.of(header.header) == ChallengeMark(challenge.id, False)
    # Each deal in all four rotations, all from one seed (a duplicate deal), deals each their
    # own; the SPRT counted each deal once.
    assert rotations and all(found == {0, 1, 2, 3} for found in rotations.values()), rotations
    assert all(len(found) == 1 for found in seeds.values()), seeds
    assert len({seed for found in seeds.values() for seed in found}) == len(seeds)
    assert ended.deals_played == len(rotations) <= TEAMS.default_deals, ended
    assert sorted(ended.match_ids) == sorted(m.match_id for m in matches)
    assert len(ended.match_ids) == 4 * ended.deals_played
    output = verified(database)
    assert f"{len(contest.ranked_matches()) + len(matches)} matches" in output, output


#: What a free-for-all's refusal says (referee.challenges.desk.sides_problem).
FREE_FOR_ALL = (
    "challenges need a game of two sides, and this contest's xactika has 3 with its options (a "
    "free-for-all): challenge in a contest of two players or two teams"
)


def test_a_free_for_all_challenge_is_refused_when_asked(tmp_path: Path) -> None:
    """Xactika at 3 players: every seat its own side, so no side for the opponent; the
    refusal is FAILED_PRECONDITION naming why, `croupier challenge` exits 2 saying so, and
    nothing is stored."""
    seen: dict[str, object] = {}

    async def scenario(contest: Contest) -> None:
        ask = pb.CreateChallengeRequest(opponent="bob", deals=2)
        seen["error"] = await refused(contest, "alice", ask)
        address, token = f"127.0.0.1:{contest.port}", contest.tokens["alice"]
        seen["cli"] = await trio.run_process(
            [CROUPIER, "challenge", "bob", "--to", address, "--token", token, "--wait"],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
        listed = await contest.call("alice", "ListChallenges", pb.ListChallengesRequest())
        assert isinstance(listed, pb.ListChallengesResponse)
        seen["listed"] = list(listed.challenges)

    versions: dict[str, float | str | None] = {"alice": "random_bot.py", "bob": "random_bot.py"}
    run_contest(tmp_path, scenario, versions, TEAMS, game="xactika", options={"players": "3"})
    error = seen["error"]
    assert isinstance(error, grpc.RpcError)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
    assert error.details() == FREE_FOR_ALL, error
    cli = seen["cli"]
    assert isinstance(cli, subprocess.CompletedProcess)
    stderr = cli.stderr.decode()
    assert cli.returncode == 2, cli.stdout.decode() + stderr
    assert f"FAILED_PRECONDITION: {FREE_FOR_ALL}" in " ".join(stderr.split()), stderr
    assert "Traceback" not in stderr, stderr
    assert seen["listed"] == []
