"""Protocol tests: a real gRPC server on a loopback port and real bot processes, misbehaving
ones too. Every match ends with the right fault reason in its result and a record that verifies,
and the referee keeps serving a good match alongside."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from croupier.v1 import common_pb2
from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.local.launcher import BotProcess, supervise
from referee.match.clock import TimeControl
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.replay import verify
from referee.match.runner import MatchConfig, MatchOutcome, run_match

ROOT = Path(__file__).resolve().parent.parent
BAD = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'misbehaving.py'}"
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
GAME = get_game("xix")
FAST = TimeControl(move_ms=300, bank_ms=200)
DEFAULTS = transport.ServerSettings()


async def play_pairs(
    pairs: list[tuple[str, str]],
    records: Path,
    control: TimeControl = FAST,
    settings: transport.ServerSettings = DEFAULTS,
    cut_off: tuple[int, ...] = (),
) -> list[MatchOutcome]:
    """Serve one referee, launch a process per seat, play one match per pair concurrently.
    The bots at `cut_off` (indices in pair order) must be ended by the referee before the test
    ends every session: on a busy machine the matches can end before the referee has read
    enough of a flood to cut it off, and the test's own goodbye would then hide the limit."""
    lobby = Lobby()
    bots = [
        BotProcess(command=command, token=f"token-{i}-{j}", log_path=records / f"bot-{i}-{j}.log")
        for i, pair in enumerate(pairs)
        for j, command in enumerate(pair)
    ]
    for bot in bots:
        lobby.admit(bot.token)
    outcomes: list[MatchOutcome] = []
    done = trio.Event()
    async with (
        transport.serve(lobby, settings) as port,
        trio.open_nursery() as nursery,
    ):
        for bot in bots:
            nursery.start_soon(supervise, bot, f"127.0.0.1:{port}", lobby, done)

        async def one(index: int) -> None:
            sessions = [await lobby.take(bots[2 * index + j].token) for j in range(2)]
            config = MatchConfig(
                GAME,
                parse_options(GAME, {}),
                seed=index,
                match_id=f"pair-{index}",
                time_control=control,
            )
            path = records / f"pair-{index}.jsonl"
            outcomes.append(await run_match(config, [RemoteSeat(s) for s in sessions], path))

        with trio.fail_after(60):
            async with trio.open_nursery() as matches:
                for index in range(len(pairs)):
                    matches.start_soon(one, index)
        with trio.move_on_after(30):
            while not all(bots[index].exits for index in cut_off):
                await trio.sleep(0.05)
        done.set()
        lobby.end_all("test over")
    return sorted(outcomes, key=lambda o: o.match_id)


def fault_reasons(outcome: MatchOutcome, seat: int) -> set[int]:
    return {fault.reason for fault in outcome.faults if fault.seat == seat}


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("slow", common_pb2.FAULT_REASON_TIMEOUT),
        ("out_of_range", common_pb2.FAULT_REASON_ILLEGAL_ACTION),
        ("garbage", common_pb2.FAULT_REASON_MALFORMED_MESSAGE),
        ("no_index", common_pb2.FAULT_REASON_MALFORMED_MESSAGE),
        ("stale", common_pb2.FAULT_REASON_WRONG_REQUEST),
        ("out_of_turn", common_pb2.FAULT_REASON_OUT_OF_TURN),
        ("exit", common_pb2.FAULT_REASON_CRASHED),
    ],
)
def test_a_misbehaving_bot_faults_and_the_referee_goes_on(
    tmp_path: Path, mode: str, reason: int
) -> None:
    good, bad = transport.run(
        play_pairs, [(RANDOM, f"{BAD} good"), (f"{BAD} {mode}", RANDOM)], tmp_path
    )
    assert good.faults == ()
    assert good.result.termination == common_pb2.TERMINATION_NORMAL
    assert reason in fault_reasons(bad, 0)
    assert fault_reasons(bad, 1) == set()
    for outcome in (good, bad):
        assert outcome.record_path is not None
        report = verify(outcome.record_path)
        assert report.ok, report.problems
    if mode == "exit":
        # A dead bot cannot answer again: it is retired and ranked last.
        assert bad.result.termination == common_pb2.TERMINATION_RETIRED
        assert bad.result.seats[0].retired
        assert bad.result.seats[0].rank == 2
    else:
        assert bad.result.seats[0].faults == 1


def test_replies_the_referee_asked_for_never_count_against_the_rate_limit(tmp_path: Path) -> None:
    """With a limit of 2 unasked messages a second, honest bots still play whole matches: only a
    flood (replies nobody asked for) is cut off."""
    slow_limit = transport.ServerSettings(max_messages_per_second=2.0, message_burst=2)
    good, flooded = transport.run(
        play_pairs,
        [(RANDOM, f"{BAD} good"), (f"{BAD} flood", RANDOM)],
        tmp_path,
        FAST,
        slow_limit,
        (2,),  # the flooder
    )
    assert good.faults == ()
    assert good.result.termination == common_pb2.TERMINATION_NORMAL
    assert fault_reasons(flooded, 1) == set()
    assert fault_reasons(flooded, 0)  # the flooder was cut off and faulted
    assert "rate limit" in (tmp_path / "bot-1-0.log").read_text()


@pytest.mark.parametrize("metadata", [(("authorization", "Bearer wrong"),), ()])
def test_wrong_or_missing_token_is_refused(
    tmp_path: Path, metadata: tuple[tuple[str, str], ...]
) -> None:
    import grpc

    from croupier.v1 import referee_pb2, referee_pb2_grpc

    async def scenario() -> None:
        lobby = Lobby()
        lobby.admit("right")
        async with transport.serve(lobby, transport.ServerSettings()) as port:

            async def client() -> grpc.StatusCode:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                    call = referee_pb2_grpc.RefereeStub(channel).Play(metadata=metadata)
                    try:
                        await call.write(referee_pb2.BotMessage(hello=referee_pb2.Hello(name="x")))
                        await call.read()
                    except grpc.aio.AioRpcError as error:
                        return error.code()
                    return grpc.StatusCode.OK

            code = await transport.host.call_asyncio(client())
            assert code == grpc.StatusCode.UNAUTHENTICATED

    transport.run(scenario)
