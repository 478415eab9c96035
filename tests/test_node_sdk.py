"""The Node SDK for real: Python-vs-Node matches over gRPC for every game, with records that
verify, and the SDK's own promises (hooks, async deadlines, bad answers, bad settings).

Skipped (with the reason) on a machine without `node`; see tests/node_support.py.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from croupier.bots import RandomBot
from croupier.v1 import common_pb2
from referee import transport
from referee.games import GAMES, get_game
from referee.games.base import parse_options
from referee.local.series import SeriesConfig, Standing, play_series
from referee.match.clock import TimeControl
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.replay import verify
from referee.match.runner import MatchConfig, MatchOutcome, run_match
from referee.match.seats import InProcessSeat, Seat
from tests.node_support import NODE_RANDOM, ROOT, node_or_skip
from tests.tls_helpers import make_ca_and_server_cert

PYTHON_RANDOM = shlex.join([sys.executable, str(ROOT / "examples" / "python" / "random_bot.py")])
NODE_MODES = ROOT / "tests" / "bots" / "node_modes.js"

# Every registered game, plus the multi-seat shapes that change who sits where.
SETUPS = [
    ("xix", {}),
    ("xactika", {"rounds": "2"}),  # 4 players: Python and Node alternate around the table
    ("xeri", {"rounds": "1"}),
    ("xeri", {"players": "4", "rounds": "1"}),  # two teams, each one Python and one Node bot
    ("textactoe", {}),
    ("textactoe", {"players": "3"}),
]


def test_every_game_is_covered() -> None:
    assert {game for game, _ in SETUPS} == set(GAMES)


def series(
    game: str,
    options: dict[str, str],
    commands: list[str],
    records: Path,
    matches: int = 2,
    control: TimeControl | None = None,
) -> tuple[list[Standing], list[MatchOutcome]]:
    chosen = get_game(game)
    config = SeriesConfig(
        game=chosen,
        options=parse_options(chosen, options),
        commands=tuple(commands),
        matches=matches,
        seed=11,
        records=records,
        time_control=control or TimeControl(move_ms=2000, bank_ms=10_000),
    )
    return transport.run(play_series, config)


@pytest.mark.parametrize(("game", "options"), SETUPS)
def test_python_and_node_bots_play_a_series(
    tmp_path: Path, game: str, options: dict[str, str]
) -> None:
    node = shlex.join([node_or_skip(), str(NODE_RANDOM)])
    standings, outcomes = series(game, options, [PYTHON_RANDOM, node], tmp_path)
    assert len(outcomes) == 2
    labels = {s.label.split("#")[0] for s in standings}
    assert labels == {"random", "random-node"}
    for outcome in outcomes:
        assert outcome.faults == (), outcome.faults
        assert outcome.result.termination == common_pb2.TERMINATION_NORMAL
        assert {seat.name for seat in outcome.result.seats} == {"random", "random-node"}
        assert outcome.record_path is not None
        report = verify(outcome.record_path)
        assert report.ok, report.problems


def test_the_node_xix_example_reads_the_typed_observation(tmp_path: Path) -> None:
    example = ROOT / "examples" / "node" / "xix_cheap_winner.js"
    node = shlex.join([node_or_skip(), str(example)])
    standings, outcomes = series("xix", {}, [node, PYTHON_RANDOM], tmp_path, matches=4)
    assert [s.label for s in standings] == ["xix-cheap-winner", "random"]
    for outcome in outcomes:
        assert outcome.faults == ()
        assert verify(outcome.record_path).ok  # type: ignore[arg-type]


def visible_events(record: Path, seat: int) -> int:
    """How many of the record's events the seat was allowed to see."""
    count = 0
    for line in record.read_text().splitlines():
        event = json.loads(line).get("event")
        if event is not None and (event.get("public") or seat in event.get("seats", [0])):
            count += 1
    return count


def bot_log(records: Path, role: int) -> str:
    (log,) = (records / "logs").glob(f"*-bot{role}.log")
    return log.read_text()


def test_hooks_get_every_event_the_seat_may_see(tmp_path: Path) -> None:
    node = shlex.join([node_or_skip(), str(NODE_MODES), "count"])
    _, outcomes = series("xeri", {"rounds": "1"}, [PYTHON_RANDOM, node], tmp_path)
    reports = [line.split() for line in bot_log(tmp_path, 1).splitlines()]
    assert len(reports) == 2
    for outcome, report in zip(outcomes, reports, strict=True):
        assert outcome.record_path is not None
        # "match <id> seat <n> events <n> faults none"
        assert report[1] == outcome.match_id
        seat, events = int(report[3]), int(report[5])
        assert events == visible_events(outcome.record_path, seat) > 0
        assert report[7] == "none"


def test_an_async_act_past_its_deadline_answers_in_time(tmp_path: Path) -> None:
    node = shlex.join([node_or_skip(), str(NODE_MODES), "late_async"])
    control = TimeControl(move_ms=400, bank_ms=0)
    _, (outcome,) = series("xix", {}, [PYTHON_RANDOM, node], tmp_path, 1, control)
    assert outcome.faults == ()
    assert "act() ran past the deadline; answering the first legal action" in bot_log(tmp_path, 1)


def test_an_answer_that_is_no_index_crashes_the_bot_with_a_clear_error(tmp_path: Path) -> None:
    node = shlex.join([node_or_skip(), str(NODE_MODES), "undefined"])
    _, (outcome,) = series("xix", {}, [PYTHON_RANDOM, node], tmp_path, 1)
    reasons = {fault.reason for fault in outcome.faults if fault.seat == 1}
    assert reasons == {common_pb2.FAULT_REASON_CRASHED}
    log = bot_log(tmp_path, 1)
    assert "TypeError: act() returned undefined, not an index into request.legal_actions" in log
    assert verify(outcome.record_path).ok  # type: ignore[arg-type]


def run_node_bot(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    return subprocess.run(
        [node_or_skip(), str(NODE_RANDOM)],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_bot_without_settings_says_what_is_missing() -> None:
    result = run_node_bot({})
    assert result.returncode == 1
    assert result.stderr == "croupier: no address given: pass it or set CROUPIER_ADDRESS\n"
    result = run_node_bot({"CROUPIER_ADDRESS": "127.0.0.1:1"})
    assert result.returncode == 1
    assert result.stderr == "croupier: no token given: pass it or set CROUPIER_TOKEN\n"


def test_a_refused_token_ends_the_bot_with_one_line() -> None:
    node_or_skip()

    async def scenario() -> subprocess.CompletedProcess[bytes]:
        lobby = Lobby()
        lobby.admit("the-right-token")
        async with transport.serve(lobby, transport.ServerSettings()) as port:
            clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
            env = {**clean, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": "wrong"}
            with trio.fail_after(30):
                return await trio.run_process(
                    [node_or_skip(), str(NODE_RANDOM)],
                    env=env,
                    capture_stdout=True,
                    capture_stderr=True,
                    check=False,
                )

    result = transport.run(scenario)
    assert result.returncode == 1
    stderr = result.stderr.decode()
    assert stderr.startswith("croupier: UNAUTHENTICATED: missing or unknown token"), stderr
    assert stderr.count("\n") == 1


def test_the_node_bot_plays_over_tls_with_a_ca_file(tmp_path: Path) -> None:
    node = node_or_skip()
    ca, cert, key = make_ca_and_server_cert(tmp_path)
    game = get_game("xix")

    async def scenario() -> MatchOutcome:
        lobby = Lobby()
        lobby.admit("tls-token")
        settings = transport.ServerSettings(tls_cert=cert, tls_key=key)
        async with transport.serve(lobby, settings) as port, trio.open_nursery() as nursery:
            clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
            env = {
                **clean,
                "CROUPIER_ADDRESS": f"127.0.0.1:{port}",
                "CROUPIER_TOKEN": "tls-token",
                "CROUPIER_CA_FILE": str(ca),
            }

            async def bot() -> None:
                await trio.run_process([node, str(NODE_RANDOM)], env=env, check=False)

            nursery.start_soon(bot)
            with trio.fail_after(30):
                session = await lobby.take("tls-token")
                config = MatchConfig(game, parse_options(game, {}), seed=3, match_id="tls")
                seats: list[Seat] = [RemoteSeat(session), InProcessSeat(RandomBot(seed=3))]
                outcome = await run_match(config, seats, tmp_path / "tls.jsonl")
                lobby.end_all("test over")
        return outcome

    outcome = transport.run(scenario)
    assert outcome.faults == ()
    assert outcome.result.seats[0].name == "random-node"
    assert verify(tmp_path / "tls.jsonl").ok


@pytest.mark.parametrize(
    ("status", "code", "stderr"),
    [
        ("OK", 0, ""),
        ("RESOURCE_EXHAUSTED", 1, "croupier: RESOURCE_EXHAUSTED: match limit reached\n"),
    ],
)
def test_goodbye_ends_the_bot_and_a_limit_says_so(status: str, code: int, stderr: str) -> None:
    node = node_or_skip()

    async def scenario() -> subprocess.CompletedProcess[bytes]:
        lobby = Lobby()
        lobby.admit("token")
        async with transport.serve(lobby, transport.ServerSettings()) as port:
            clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
            env = {**clean, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": "token"}
            async with trio.open_nursery() as nursery:
                done: list[subprocess.CompletedProcess[bytes]] = []

                async def bot() -> None:
                    done.append(
                        await trio.run_process(
                            [node, str(NODE_RANDOM)],
                            env=env,
                            capture_stdout=True,
                            capture_stderr=True,
                            check=False,
                        )
                    )

                nursery.start_soon(bot)
                with trio.fail_after(30):
                    session = await lobby.take("token")
                    session.end("match limit reached", status)
        return done[0]

    result = transport.run(scenario)
    assert (result.returncode, result.stderr.decode()) == (code, stderr)
