"""The match runner's own CPU per decision, with no transport: what is left of the referee's
work when gRPC and the bots cost nothing.

Real matches (`run_match`, records written) between real RemoteSeats and Sessions; the bot's
side is the session's `send` answering each request at once, in the same thread, with the
first legal action (an ActionReply, as bytes, as the transport hands them on). What this counts
is the runner, the seat, the session, the decision clock, the engine, the record lines and the
luck meter: bench/decision_rate.py adds gRPC, the host and the bots to it.

Run: .venv/bin/python bench/runner_cost.py [--matches 1000] [--concurrency 100] [--game xix]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import trio

from croupier.v1 import referee_pb2
from referee.games import GAMES, get_game
from referee.games.base import Game, parse_options
from referee.match.clock import TimeControl
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, run_match
from referee.match.session import Session
from referee.match.wire import WireRequest


def answering_session(name: str, counter: list[int]) -> Session:
    """A session whose bot answers every request at once with action 0."""

    def send(message: referee_pb2.RefereeMessage | WireRequest) -> None:
        if not isinstance(message, WireRequest):
            return
        counter[0] += 1
        request = message
        reply = referee_pb2.BotMessage(
            action_reply=referee_pb2.ActionReply(
                match_id=request.match_id, request_id=request.request_id, action_index=0
            )
        ).SerializeToString()
        session.leaving(message)
        session.deliver(reply, session.arriving())

    session = Session(
        identity=name,
        hello=referee_pb2.Hello(name=name, protocol_version=2),
        send=send,
        finish=lambda _: None,
    )
    return session


async def play(game: Game, matches: int, concurrency: int, records: Path) -> int:
    """Play `matches` matches, `concurrency` at once; the number of decisions."""
    counter = [0]
    numbers = itertools.count()
    count = game.seat_count(parse_options(game, {}))

    async def slot() -> None:
        while (index := next(numbers)) < matches:
            sessions = [answering_session(f"bot-{i}", counter) for i in range(count)]
            config = MatchConfig(
                game,
                parse_options(game, {}),
                seed=index,
                match_id=f"cost-{index}",
                time_control=TimeControl(move_ms=10_000, bank_ms=0),
            )
            seats = [RemoteSeat(s) for s in sessions]
            outcome = await run_match(config, seats, records / f"{index}.jsonl")
            if outcome.faults:  # a figure of faulted matches would not be the runner's cost
                raise SystemExit(f"match {index} faulted: {outcome.faults[0]}")

    async with trio.open_nursery() as nursery:
        for _ in range(concurrency):
            nursery.start_soon(slot)
    return counter[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--game", choices=sorted(GAMES), action="append")
    args = parser.parse_args()
    print(f"{'game':>10} {'matches':>8} {'at once':>8} {'decisions':>10} {'CPU µs/decision':>16}")
    for game_id in args.game or ["xix"]:
        game = get_game(game_id)
        with tempfile.TemporaryDirectory(prefix="croupier-cost-") as folder:
            started = time.process_time()
            decisions = trio.run(play, game, args.matches, args.concurrency, Path(folder))
            cpu = time.process_time() - started
        print(
            f"{game_id:>10} {args.matches:>8} {args.concurrency:>8} {decisions:>10} "
            f"{cpu / decisions * 1e6:>16.1f}"
        )


if __name__ == "__main__":
    main()
