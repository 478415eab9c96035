"""How the Python SDK ends (issue 42.9), a real bot process against a real referee: a bot that
was still thinking when the referee said Goodbye and ended the stream exits quietly with code 0
(its reply, written into a stream already over, used to end it with `croupier: INTERNAL:
Internal error from Core`, which became a hosted version's qualification reason); a bot whose
session is lost mid-match opens a new one by itself and takes its seat back, as the Node SDK
does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import trio

from croupier.bots import RandomBot
from croupier.v1 import referee_pb2
from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import DecisionTimer, TimeControl
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat, Seat
from referee.match.wire import WireRequest

ROOT = Path(__file__).resolve().parent.parent
SLOW = ROOT / "tests" / "bots" / "slow_sdk_bot.py"
XIX = get_game("xix")


class _GoodbyeWhileThinking:
    """A remote seat whose first request is followed, while the bot thinks, by Goodbye on every
    session (the referee moves on: a doctor done with the bot, a contest shutting down)."""

    def __init__(self, inner: RemoteSeat, lobby: Lobby, nursery: trio.Nursery) -> None:
        self.inner, self.lobby, self.nursery = inner, lobby, nursery
        self.name, self.version = inner.name, inner.version
        self.requests = 0

    async def start(self, start: referee_pb2.MatchStart) -> None:
        await self.inner.start(start)

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        await self.inner.end(end)

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int | None:
        self.requests += 1
        if self.requests == 1:  # (in the scenario's nursery: a seat's fault is no group)
            self.nursery.start_soon(self._goodbye_soon)
        return await self.inner.act(request, timer)

    async def _goodbye_soon(self) -> None:
        await trio.sleep(0.05)  # within the decision's 200 ms
        self.lobby.end_all("the referee moved on")


def _env(port: int) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    return {**clean, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": "bot-token"}


def test_a_bot_still_thinking_at_goodbye_exits_quietly(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"

    async def scenario() -> int:
        lobby = Lobby()
        lobby.admit("bot-token")
        async with (
            transport.serve(lobby, transport.ServerSettings()) as port,
            trio.open_nursery() as nursery,
        ):
            with log.open("wb") as out:
                process: trio.Process = await nursery.start(
                    lambda task_status: trio.run_process(
                        [sys.executable, str(SLOW), "2"],
                        env=_env(port),
                        stdout=out,
                        stderr=out,
                        check=False,
                        task_status=task_status,
                    )
                )
            with trio.fail_after(30):
                session = await lobby.take("bot-token")
                seats: list[Seat] = [
                    _GoodbyeWhileThinking(RemoteSeat(session), lobby, nursery),
                    InProcessSeat(RandomBot(seed=5)),
                ]
                config = MatchConfig(
                    XIX,
                    parse_options(XIX, {}),
                    seed=5,
                    match_id="moved-on",
                    time_control=TimeControl(move_ms=200, bank_ms=0),
                )
                await run_match(config, seats, tmp_path / "moved-on.jsonl")
                return await process.wait()

    code = transport.run(scenario)
    output = log.read_text(errors="replace")
    assert code == 0, output
    assert "INTERNAL" not in output, output
