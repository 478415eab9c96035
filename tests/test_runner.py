"""The match runner with in-process seats on trio's mock clock: time control and faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
import trio.testing

from croupier.bot import Bot
from croupier.bots import RandomBot
from croupier.v1 import common_pb2, referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import DecisionTimer, TimeControl
from referee.match.replay import verify
from referee.match.runner import ABORT_NOTICE_SECONDS, MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.match.wire import WireRequest

GAME = get_game("xix")
OPTIONS = parse_options(GAME, {})


class TimedSeat:
    """A seat that takes the given think times (seconds) for its first decisions, then 0."""

    def __init__(self, delays: list[float]) -> None:
        self.name = "timed"
        self.version = "1"
        self.delays = delays
        self.clocks: list[referee_pb2.ActionRequest] = []

    async def start(self, start: referee_pb2.MatchStart) -> None:
        pass

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        pass

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int:
        self.clocks.append(request.message)
        delay = self.delays[len(self.clocks) - 1] if len(self.clocks) <= len(self.delays) else 0
        await trio.sleep(delay)
        return request.legal_count - 1


class ShieldedSeat(TimedSeat):
    """A TimedSeat whose reply comes however late: the runner's deadline does not cut it."""

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int:
        with trio.CancelScope(shield=True):  # a scope that may swallow: mypy wants the return after
            index = await super().act(request, timer)
        return index  # noqa: RET504


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def test_bank_pays_for_overage_then_runs_out(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    timed = TimedSeat([0.05, 0.3, 0.35, 0.2, 0.15])
    config = MatchConfig(
        GAME,
        OPTIONS,
        seed=1,
        match_id="clock",
        time_control=TimeControl(move_ms=100, bank_ms=500),
        max_faults=5,
    )
    outcome = await run_match(config, [timed, InProcessSeat(RandomBot(1))], tmp_path / "m.jsonl")
    banks = [request.clock.bank_ms for request in timed.clocks[:6]]
    # 50 ms: within the move. 300: 200 from the bank. 350: 250 more. 200: 100 over a bank of 50,
    # a timeout that empties it. 150: over the bare 100 ms move, a timeout again.
    assert banks == [500, 500, 300, 50, 0, 0]
    assert [r.clock.deadline_ms for r in timed.clocks[:6]] == [600, 600, 400, 150, 100, 100]
    timeouts = [f for f in outcome.faults if f.reason == common_pb2.FAULT_REASON_TIMEOUT]
    assert [f.request_id for f in timeouts] == [
        timed.clocks[3].request_id,
        timed.clocks[4].request_id,
    ]
    assert verify(tmp_path / "m.jsonl").ok


async def test_a_timeout_names_the_budget_the_bot_had(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    """The budget in a timeout's detail is the one the bot was asked with (move plus bank),
    not what is left once the overrun emptied the bank. (The reply comes after the budget, as
    one on its way at a remote seat's deadline does: a shielded seat stands for it here.)"""
    timed = ShieldedSeat([0.5])
    control = TimeControl(move_ms=100, bank_ms=50)
    config = MatchConfig(GAME, OPTIONS, seed=1, match_id="budget", time_control=control)
    outcome = await run_match(config, [timed, InProcessSeat(RandomBot(1))], tmp_path / "m.jsonl")
    first = outcome.faults[0]
    assert first.request_id == timed.clocks[0].request_id
    assert first.reason == common_pb2.FAULT_REASON_TIMEOUT
    assert first.detail == "no reply within 150 ms (move 100 ms plus bank)"


async def test_faults_play_the_default_action_and_retire_the_seat(
    autojump_clock: trio.testing.MockClock, tmp_path: Path
) -> None:
    timed = TimedSeat([5.0] * 3)
    config = MatchConfig(
        GAME,
        OPTIONS,
        seed=2,
        match_id="retire",
        time_control=TimeControl(move_ms=100, bank_ms=0),
        max_faults=3,
    )
    path = tmp_path / "m.jsonl"
    outcome = await run_match(config, [InProcessSeat(RandomBot(2)), timed], path)
    assert len(outcome.faults) == 3
    assert len(timed.clocks) == 3  # retired: never asked again
    seat = outcome.result.seats[1]
    assert seat.retired
    assert seat.rank == 2
    assert outcome.result.termination == common_pb2.TERMINATION_RETIRED
    text = path.read_text()
    assert text.count('"defaulted":true') >= 3
    assert '"retired":true' in text
    assert verify(path).ok
    # Issue 17: the text follows the ranks (the retired seat 1 never "wins"); records made
    # before, with the game's own text and the retired seats, still verify; a wrong text fails.
    *lines, last = text.splitlines()
    result = json.loads(last)
    scores = [int(seat.get("score", 0)) for seat in result["result"]["result"]["seats"]]
    assert result["result"]["result"]["text"] == (
        f"seat 0 wins (retired: seat 1; scores {scores[0]}-{scores[1]})"
    )
    best = max(range(2), key=lambda seat: scores[seat])
    legacy = f"seat {best} wins {scores[best]}-{scores[1 - best]} (retired: seat 1)"
    for made, ok in ((legacy, True), ("seat 1 wins (retired: seat 1)", False)):
        result["result"]["result"]["text"] = made
        path.write_text("\n".join([*lines, json.dumps(result)]) + "\n")
        assert verify(path).ok is ok, made


class CrashingBot(Bot):
    def act(self, request: referee_pb2.ActionRequest) -> int:
        raise ZeroDivisionError("oops")


class OutOfRangeBot(Bot):
    def act(self, request: referee_pb2.ActionRequest) -> int:
        return 99


@pytest.mark.parametrize(
    ("bot", "reason"),
    [
        (CrashingBot(), common_pb2.FAULT_REASON_CRASHED),
        (OutOfRangeBot(), common_pb2.FAULT_REASON_ILLEGAL_ACTION),
    ],
)
async def test_in_process_faults(bot: Bot, reason: int, tmp_path: Path) -> None:
    config = MatchConfig(GAME, OPTIONS, seed=3, match_id="f", time_control=TimeControl(0, 0))
    outcome = await run_match(config, [InProcessSeat(bot), InProcessSeat(RandomBot(3))])
    assert {f.reason for f in outcome.faults} == {reason}
    assert outcome.result.seats[0].retired


async def test_the_given_deck_is_dealt_first(tmp_path: Path) -> None:
    deck = tuple(str(c) for c in range(18, 0, -1))
    config = MatchConfig(
        GAME, OPTIONS, seed=4, match_id="d", deck=deck, time_control=TimeControl(0, 0)
    )
    path = tmp_path / "d.jsonl"
    await run_match(config, [InProcessSeat(RandomBot(1)), InProcessSeat(RandomBot(2))], path)
    lines = path.read_text().splitlines()
    assert '"deck":["18","17"' in lines[0]
    assert lines[1].startswith('{"chance":{"deck":{"cards":["18","17","16"')
    assert verify(path).ok


class StuckEndSeat(TimedSeat):
    """A TimedSeat whose MatchEnd never goes out: its bot's stream is stuck."""

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        await trio.sleep_forever()


class BrokenEndSeat(TimedSeat):
    """A TimedSeat whose MatchEnd cannot go out: its bot's stream broke."""

    async def end(self, end: referee_pb2.MatchEnd) -> None:
        raise ConnectionResetError("the stream broke")


class EndsBot(RandomBot):
    """A RandomBot that keeps the MatchEnds it gets."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.ends: list[referee_pb2.MatchEnd] = []

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        self.ends.append(end)


@pytest.mark.parametrize("other", [StuckEndSeat, BrokenEndSeat], ids=["stuck", "broken"])
async def test_a_cancelled_match_tells_the_seats_it_can_within_its_bound(
    autojump_clock: trio.testing.MockClock, other: type[TimedSeat], tmp_path: Path
) -> None:
    """Cancelled mid-match (the referee shuts down), the match still sends each seat a MatchEnd
    that says aborted; a seat that cannot take it neither raises out of the abort nor holds it
    or the other seats past ABORT_NOTICE_SECONDS."""
    bot = EndsBot()
    config = MatchConfig(GAME, OPTIONS, seed=1, match_id="stopped")
    with trio.move_on_after(5) as shutdown:  # while seat 0 thinks for 100 s
        await run_match(config, [other([100.0]), InProcessSeat(bot)], tmp_path / "m.jsonl")
    assert shutdown.cancelled_caught
    assert trio.current_time() <= 5 + ABORT_NOTICE_SECONDS
    assert [(e.match_id, e.result.termination) for e in bot.ends] == [
        ("stopped", common_pb2.TERMINATION_ABORTED)
    ]
    last = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[-1])
    assert last["result"]["result"]["termination"] == "TERMINATION_ABORTED"
