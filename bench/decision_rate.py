"""Decisions per second through the referee against a raw grpc.aio ping-pong, in the same run.

Referee: XIX matches over real gRPC between two Python SDK bot processes (examples/python/
random_bot.py), each process holding one session per concurrent match; records are written.
Raw: a bare grpc.aio bidi ping-pong of the same message sizes (an XIX ActionRequest down, an
ActionReply up) between this process and two client processes with the same number of streams.
Both at 1 and 100 concurrent matches (streams); prints rates, single-stream p50 and the ratios,
then where the CPU went: µs of CPU per decision (per round trip) in the referee (the raw server)
and in the bots (the raw clients). On a machine that both sides fill, a rate is bounded by
cores / (referee + bots) CPU, and by one core for the referee's own thread (`main`).

--repeat N alternates N runs of each (raw, referee) and prints the medians: the figures of one
run move by 10-20% on a shared machine, the medians of alternated runs much less.

With --sandbox, the referee runs again with the bots in the bubblewrap sandbox, reaching it over
its Unix socket (what `croupier match` and ladders do by default), and prints the cost.

Run: .venv/bin/python bench/decision_rate.py [--seconds 5] [--repeat 3] [--sandbox]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import trio

from croupier.v1 import referee_pb2
from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.local.launcher import BotProcess, supervise
from referee.local.sandbox import Sandbox, socket_folder
from referee.match.clock import DecisionTimer, TimeControl
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, run_match
from referee.match.wire import WireRequest

ROOT = Path(__file__).resolve().parent.parent
BOT = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
RAW_METHOD = "/bench.PingPong/Exchange"
GAME = get_game("xix")


@dataclass(frozen=True)
class Run:
    """One timed run: its rate, median latency, and CPU seconds spent in the window."""

    rate: float
    p50_us: float
    #: Decisions (round trips) counted in the window.
    count: int
    #: CPU seconds of the referee's (raw server's) process, of its main thread alone, and of
    #: the bots' (raw clients') processes, over the timed window.
    server_cpu: float
    main_cpu: float
    bots_cpu: float

    def per_decision_us(self, seconds: float) -> float:
        return seconds / max(1, self.count) * 1e6


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, every thread) that process `pid` used so far; 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TimedSeat(RemoteSeat):
    """A remote seat that notes how long each decision took, seen from the referee."""

    latencies: list[float]

    async def act(self, request: WireRequest, timer: DecisionTimer) -> int:
        started = time.perf_counter()
        index = await super().act(request, timer)
        self.latencies.append(time.perf_counter() - started)
        return index


async def referee_rate(concurrency: int, seconds: float, sandboxed: bool = False) -> Run:
    """Decisions per second, p50 decision latency and CPU for `concurrency` matches at once;
    `sandboxed`: the bots in the bubblewrap sandbox, over the referee's Unix socket."""
    with socket_folder() as folder:
        sandbox = Sandbox(enabled=sandboxed, socket_dir=folder)
        return await _referee_rate(concurrency, seconds, sandbox)


async def _referee_rate(concurrency: int, seconds: float, sandbox: Sandbox) -> Run:
    lobby = Lobby()
    bots = [
        BotProcess(BOT, f"bench-{i}", None, sessions=concurrency, sandbox=sandbox) for i in range(2)
    ]
    for bot in bots:
        lobby.admit(bot.token)
    latencies: list[float] = []
    done = trio.Event()
    records = Path(tempfile.mkdtemp(prefix="croupier-bench-"))
    async with (
        transport.serve(lobby, transport.ServerSettings()) as port,
        trio.open_nursery() as nursery,
    ):
        for bot in bots:
            nursery.start_soon(supervise, bot, f"127.0.0.1:{port}", lobby, done)
        while lobby.sessions_opened < 2 * concurrency:
            await trio.sleep(0.05)
        deadline = trio.current_time() + seconds
        counter = iter(range(10**9))

        async def slot() -> None:
            while trio.current_time() < deadline:
                index = next(counter)
                sessions = [await lobby.take(bot.token) for bot in bots]
                seats = [TimedSeat(s) for s in sessions]
                for seat in seats:
                    seat.latencies = latencies
                config = MatchConfig(
                    GAME,
                    parse_options(GAME, {}),
                    seed=index,
                    match_id=f"bench-{index}",
                    time_control=TimeControl(move_ms=10_000, bank_ms=0),
                )
                await run_match(config, seats, records / f"{index}.jsonl")
                for session in sessions:
                    lobby.give_back(session)

        cpu = _cpu_counts([bot.pid for bot in bots])
        started = trio.current_time()
        async with trio.open_nursery() as slots:
            for _ in range(concurrency):
                slots.start_soon(slot)
        elapsed = trio.current_time() - started
        server, main, bots_cpu = (
            after - before
            for after, before in zip(_cpu_counts([bot.pid for bot in bots]), cpu, strict=True)
        )
        done.set()
        lobby.end_all("bench over")
    return Run(
        len(latencies) / elapsed,
        statistics.median(latencies) * 1e6,
        len(latencies),
        server,
        main,
        bots_cpu,
    )


def _cpu_counts(pids: Sequence[int | None]) -> tuple[float, float, float]:
    """This process's CPU seconds, its thread's, and the processes `pids` together."""
    others = sum(process_cpu(pid) for pid in pids if pid is not None)
    return time.process_time(), time.thread_time(), others


def _sizes() -> tuple[int, int]:
    """Serialized sizes of a typical XIX ActionRequest and ActionReply message."""
    game = get_game("xix")
    state = game.new_game(parse_options(game, {}))
    from referee.games import checked
    from referee.match import protocol

    state = checked.apply_chance(state, tuple(str(c) for c in range(1, 19)))
    state = checked.apply_chance(state, 0)
    request = referee_pb2.RefereeMessage(
        action_request=referee_pb2.ActionRequest(
            match_id="xix-abcdef-0001",
            request_id=12345,
            observation=protocol.observation("xix", state, 0),
            legal_actions=protocol.legal_actions("xix", state.legal_actions()),
        )
    )
    reply = referee_pb2.BotMessage(
        action_reply=referee_pb2.ActionReply(match_id="xix-abcdef-0001", request_id=12345)
    )
    return len(request.SerializeToString()), len(reply.SerializeToString())


async def raw_server(down: bytes) -> tuple[grpc.aio.Server, int]:
    async def exchange(requests: AsyncIterator[bytes], context: object) -> AsyncIterator[bytes]:
        async for _ in requests:
            yield down

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.PingPong",
        {"Exchange": grpc.stream_stream_rpc_method_handler(exchange)},
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def raw_rate(streams: int, seconds: float) -> Run:
    """Round trips per second, p50 and CPU of the raw ping-pong with `streams` streams in all.
    The server's CPU counts from before its clients start (they are idle while they do)."""
    down_size, up_size = _sizes()
    server, port = await raw_server(b"\x01" * down_size)
    cpu = _cpu_counts(())
    processes = 1 if streams == 1 else 2
    per_process = max(1, streams // processes)
    clients = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--raw-client",
            f"127.0.0.1:{port}",
            str(per_process),
            str(seconds),
            str(up_size),
            stdout=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    outputs = [await client.communicate() for client in clients]
    server_cpu, main_cpu, _ = (
        after - before for after, before in zip(_cpu_counts(()), cpu, strict=True)
    )
    await server.stop(0)
    counts, medians, clients_cpu = [], [], 0.0
    for stdout, _ in outputs:
        count, median, client_cpu = stdout.decode().split()
        counts.append(int(count))
        medians.append(float(median))
        clients_cpu += float(client_cpu)
    return Run(
        sum(counts) / seconds,
        statistics.median(medians),
        sum(counts),
        server_cpu,
        main_cpu,
        clients_cpu,
    )


async def raw_client(address: str, streams: int, seconds: float, up_size: int) -> None:
    payload = b"\x02" * up_size
    latencies: list[float] = []
    count = 0
    async with grpc.aio.insecure_channel(address) as channel:
        exchange = channel.stream_stream(RAW_METHOD)
        await asyncio.sleep(0.2)  # let the other client process start too
        deadline = time.perf_counter() + seconds
        cpu = time.process_time()

        async def one() -> None:
            nonlocal count
            call = exchange()
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                await call.write(payload)
                await call.read()
                latencies.append(time.perf_counter() - started)
                count += 1
            await call.done_writing()

        await asyncio.gather(*(one() for _ in range(streams)))
        cpu = time.process_time() - cpu
    print(count, statistics.median(latencies) * 1e6, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="also run the referee with the bots sandboxed (bwrap, Unix socket) and compare",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each, alternated (medians printed)"
    )
    parser.add_argument("--raw-client", nargs=4, metavar=("ADDRESS", "STREAMS", "SECONDS", "SIZE"))
    args = parser.parse_args()
    if args.raw_client:
        address, streams, seconds, size = args.raw_client
        asyncio.run(raw_client(address, int(streams), float(seconds), int(size)))
        return
    down, up = _sizes()
    print(
        f"messages: ActionRequest {down} B down, ActionReply {up} B up; {args.seconds:.0f} s each"
        + (f", {args.repeat} alternated runs each (medians)" if args.repeat > 1 else "")
    )
    print(
        f"{'matches':>8} {'raw rt/s':>10} {'referee dec/s':>14} {'ratio':>6} {'raw p50 µs':>11} "
        f"{'ref p50 µs':>11} {'p50 ratio':>9}"
    )
    measured: dict[int, tuple[list[Run], list[Run]]] = {}
    for concurrency in (1, 100):
        raws: list[Run] = []
        referees: list[Run] = []
        for _ in range(args.repeat):  # alternated, so a busy spell weighs on both alike
            raws.append(asyncio.run(raw_rate(concurrency, args.seconds)))
            referees.append(transport.run(referee_rate, concurrency, args.seconds))
        measured[concurrency] = (raws, referees)
        raw, rate = _median(raws, "rate"), _median(referees, "rate")
        raw_p50, p50 = _median(raws, "p50_us"), _median(referees, "p50_us")
        print(
            f"{concurrency:>8} {raw:>10.0f} {rate:>14.0f} {rate / raw:>6.2f} {raw_p50:>11.0f} "
            f"{p50:>11.0f} {p50 / raw_p50:>9.2f}"
        )
        if args.repeat > 1:
            print(
                f"{'':>8} runs: raw {_rates([r.rate for r in raws])} rt/s, referee "
                f"{_rates([r.rate for r in referees])} dec/s; p50 ratios "
                + "/".join(
                    f"{r.p50_us / w.p50_us:.2f}" for w, r in zip(raws, referees, strict=True)
                )
            )
        if args.sandbox:
            # Alternate plain and sandboxed runs, so a busy machine weighs on both alike.
            plain, boxed = [rate], list[float]()
            for turn in range(2 * args.repeat - 1):
                sandboxed = turn % 2 == 0
                got = transport.run(referee_rate, concurrency, args.seconds, sandboxed).rate
                (boxed if sandboxed else plain).append(got)
            ratio = statistics.median(boxed) / statistics.median(plain)
            print(
                f"{'':>8} sandboxed (bwrap, Unix socket) {_rates(boxed)} dec/s against plain "
                f"{_rates(plain)}: median ratio {ratio:.2f} ({1 - ratio:+.1%} cost)"
            )
    _print_cpu(measured)


def _median(runs: Sequence[Run], figure: str) -> float:
    return float(statistics.median(getattr(run, figure) for run in runs))


def _print_cpu(measured: dict[int, tuple[list[Run], list[Run]]]) -> None:
    """µs of CPU per decision (round trip), medians over the runs: the server side (its whole
    process, and its main thread), the bots' side, and the two together."""
    print("\nCPU µs per decision (raw: per round trip), medians")
    print(
        f"{'matches':>8} {'side':>8} {'server':>8} {'main':>8} {'bots':>8} {'total':>8} "
        f"{'bound dec/s':>12}"
    )
    cores = len(os.sched_getaffinity(0))
    for concurrency, (raws, referees) in measured.items():
        for side, runs in (("raw", raws), ("referee", referees)):
            server = statistics.median(r.per_decision_us(r.server_cpu) for r in runs)
            main = statistics.median(r.per_decision_us(r.main_cpu) for r in runs)
            bots = statistics.median(r.per_decision_us(r.bots_cpu) for r in runs)
            # Both sides busy on every core, and the server's own thread on one at most.
            bound = min(cores / (server + bots), 1 / main) * 1e6
            print(
                f"{concurrency:>8} {side:>8} {server:>8.0f} {main:>8.0f} {bots:>8.0f} "
                f"{server + bots:>8.0f} {bound:>12.0f}"
            )


def _rates(rates: list[float]) -> str:
    return "/".join(f"{rate:.0f}" for rate in rates)


if __name__ == "__main__":
    main()
