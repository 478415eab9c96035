"""A bot author stops a bot with SIGTERM: the SDKs finish the match in hand, then leave (exit 0);
a second SIGTERM ends the bot at once, and its seat is charged one fault for the loss, not one
for every decision it then misses. Real bot processes (Python and Node) against a real referee."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
import trio

from croupier.bots import RandomBot
from croupier.v1 import common_pb2, referee_pb2
from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import DecisionTimer
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.replay import verify
from referee.match.runner import MatchConfig, MatchOutcome, run_match
from referee.match.seats import InProcessSeat, Seat
from referee.match.wire import WireRequest
from tests.node_support import NODE_RANDOM, node_or_skip

ROOT = Path(__file__).resolve().parent.parent
PYTHON_RANDOM = ROOT / "examples" / "python" / "random_bot.py"
XIX = get_game("xix")
#: The bot's request at which it is sent SIGTERM: early in a match of dozens of decisions.
SIGNAL_AT = 3


class _SignallingSeat:
    """A remote seat that sends the bot's process `signals` SIGTERMs as request SIGNAL_AT goes
    out (the match is then in hand)."""

    def __init__(self, inner: RemoteSeat, pid: int, signals: int) -> None:
        self.inner, self.pid, self.signals = inner, pid, signals
        self.requests = 0
        self.name, self.version = inner.name, inner.version

    async def start(self, start: referee_pb2.MatchStart) -> None:
        await self.inner.start(start)

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        await self.inner.end(end)

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        self.requests += 1
        if self.requests == SIGNAL_AT:
            for _ in range(self.signals):
                os.kill(self.pid, signal.SIGTERM)
                await trio.sleep(0.2)  # the second one after the first is handled
        return await self.inner.act(request, timer)


def play_and_stop(
    tmp_path: Path, argv: list[str], signals: int
) -> tuple[MatchOutcome, int, str, bool]:
    """One match against the bot, which gets `signals` SIGTERMs mid-match; returns the outcome,
    the bot's exit code, its output, and whether it opened another session afterwards."""
    log = tmp_path / "bot.log"

    async def scenario() -> tuple[MatchOutcome, int, bool]:
        lobby = Lobby()
        lobby.admit("bot-token")
        async with (
            transport.serve(lobby, transport.ServerSettings()) as port,
            trio.open_nursery() as nursery,
        ):
            clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
            env = {**clean, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": "bot-token"}
            with log.open("wb") as out:
                process: trio.Process = await nursery.start(
                    lambda task_status: trio.run_process(
                        argv, env=env, stdout=out, stderr=out, check=False, task_status=task_status
                    )
                )
            with trio.fail_after(30):
                session = await lobby.take("bot-token")
                seats: list[Seat] = [
                    _SignallingSeat(RemoteSeat(session), process.pid, signals),
                    InProcessSeat(RandomBot(seed=5)),
                ]
                config = MatchConfig(XIX, parse_options(XIX, {}), seed=5, match_id="stopped")
                outcome = await run_match(config, seats, tmp_path / "stopped.jsonl")
                code = await process.wait()
            again = lobby.active("bot-token") > 0
            lobby.end_all("test over")
        return outcome, code, again

    outcome, code, again = transport.run(scenario)
    return outcome, code, log.read_text(errors="replace"), again


BOTS = {"python": [sys.executable, str(PYTHON_RANDOM)], "node": ["node", str(NODE_RANDOM)]}


@pytest.mark.parametrize("language", sorted(BOTS))
@pytest.mark.parametrize("signals", [1, 2], ids=["sigterm", "sigterm-twice"])
def test_sigterm_mid_match_finishes_the_match_and_twice_leaves_at_once_for_one_fault(
    tmp_path: Path, language: str, signals: int
) -> None:
    if language == "node":
        node_or_skip()
    outcome, code, output, again = play_and_stop(tmp_path, BOTS[language], signals)
    assert verify(tmp_path / "stopped.jsonl").ok
    if signals == 1:  # the match in hand is played to its end, then the bot leaves
        assert outcome.faults == (), outcome.faults
        assert outcome.result.termination == common_pb2.TERMINATION_NORMAL
        assert code == 0, output
        assert "SIGTERM: leaving after the match in hand" in output
        assert not again  # no new session
        return
    assert code == -signal.SIGTERM, output
    # One fault for the loss (it retires the seat), not one for each decision it then missed.
    assert [f.reason for f in outcome.faults] == [common_pb2.FAULT_REASON_DISCONNECTED]
    assert outcome.result.seats[0].retired
