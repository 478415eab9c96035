"""The trio-grpc.aio bridge designs the referee could use, against raw grpc.aio, in one run.

Each design serves the same bidi ping-pong as bench/decision_rate.py's raw server (an XIX
ActionRequest's size down, an ActionReply's up, the same client processes), but hands every
message to a trio task of its stream, which answers through the stream's asyncio queue, as the
referee's seats do:

- guest: trio as a guest of the asyncio loop (`trio.lowlevel.start_guest_run`), messages handed
  over with the trio token (batched per trio tick), the referee's design until issue 29;
- stepped: trio hosts, and the asyncio loop is stepped from a trio task on the same thread
  (referee.transport.host, the design since issue 29);
- threads: grpc.aio's loop in a thread of its own, trio in the main thread.

Prints round trips per second at 1 and 100 streams, the single-stream p50, and each design's
ratio to raw grpc.aio.

Run: .venv/bin/python bench/bridge_designs.py [--seconds 5] [--designs guest,stepped,threads]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import grpc
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decision_rate import _sizes, raw_rate

from referee.transport import host

DESIGNS = ("guest", "stepped", "threads")
#: Hands a function and its arguments to the trio side; what each design provides.
Handoff = Callable[..., None]


def _server(handoff: Handoff, down: bytes) -> grpc.aio.Server:
    """A ping-pong server whose every message goes through a trio task of its stream."""

    async def exchange(requests: AsyncIterator[bytes], context: object) -> AsyncIterator[bytes]:
        outbound: asyncio.Queue[bytes | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        replies, inbox = trio.open_memory_channel[bytes](1)
        handoff(_start_echo, inbox, outbound, loop, down)

        async def read() -> None:
            async for message in requests:
                handoff(replies.send_nowait, message)
            outbound.put_nowait(None)

        reader = asyncio.ensure_future(read())
        while (message := await outbound.get()) is not None:
            yield message
        reader.cancel()

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.PingPong", {"Exchange": grpc.stream_stream_rpc_method_handler(exchange)}
    )
    server.add_generic_rpc_handlers((handler,))
    return server


_nursery: trio.Nursery | None = None
#: Whether the design runs asyncio and trio on one thread.
_one_thread = True


def _start_echo(
    inbox: trio.MemoryReceiveChannel[bytes],
    outbound: asyncio.Queue[bytes | None],
    loop: asyncio.AbstractEventLoop,
    down: bytes,
) -> None:
    """On the trio side: a task that answers each message of the stream (as a seat would)."""

    async def echo() -> None:
        async for _ in inbox:
            if _one_thread:
                outbound.put_nowait(down)  # the loop is on this thread
            else:
                loop.call_soon_threadsafe(outbound.put_nowait, down)

    assert _nursery is not None
    _nursery.start_soon(echo)


async def _serve_and_measure(
    start: Callable[[grpc.aio.Server], Awaitable[int]],
    stop: Callable[[grpc.aio.Server], Awaitable[None]],
    server: grpc.aio.Server,
    streams: int,
    seconds: float,
) -> tuple[float, float]:
    port = await start(server)
    try:
        return await trio.to_thread.run_sync(_clients, port, streams, seconds)
    finally:
        await stop(server)


def _clients(port: int, streams: int, seconds: float) -> tuple[float, float]:
    """Run decision_rate's raw clients against `port` (in their own processes)."""
    _, up = _sizes()
    processes = 1 if streams == 1 else 2
    clients = [
        subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve().parent / "decision_rate.py"),
                "--raw-client",
                f"127.0.0.1:{port}",
                str(max(1, streams // processes)),
                str(seconds),
                str(up),
            ],
            stdout=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    counts, medians = [], []
    for client in clients:
        out, _ = client.communicate()
        count, median, _ = out.decode().split()
        counts.append(int(count))
        medians.append(float(median))
    return sum(counts) / seconds, statistics.median(medians)


def stepped(streams: int, seconds: float) -> tuple[float, float]:
    down, _ = _sizes()

    async def main() -> tuple[float, float]:
        global _nursery
        async with trio.open_nursery() as nursery:
            _nursery = nursery
            server = await host.call_asyncio(_make(lambda f, *a: f(*a), down))
            result = await _serve_and_measure(
                lambda s: host.call_asyncio(_listen(s)),
                lambda s: host.call_asyncio(s.stop(0)),
                server,
                streams,
                seconds,
            )
            nursery.cancel_scope.cancel()
        return result

    return host.run(main, prioritise=False)


def guest(streams: int, seconds: float) -> tuple[float, float]:
    down, _ = _sizes()

    async def main() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        pending: list[tuple[Callable[..., object], tuple[object, ...]]] = []
        token: list[trio.lowlevel.TrioToken] = []

        def run_pending() -> None:
            batch = list(pending)
            pending.clear()
            for function, args in batch:
                function(*args)

        def handoff(function: Callable[..., object], *args: object) -> None:
            pending.append((function, args))
            if len(pending) == 1:
                token[0].run_sync_soon(run_pending)

        async def trio_side() -> tuple[float, float]:
            global _nursery
            token.append(trio.lowlevel.current_trio_token())
            async with trio.open_nursery() as nursery:
                _nursery = nursery
                server = _server(handoff, b"\x01" * down)
                result = await _serve_and_measure(
                    lambda s: _aio(_listen(s)), lambda s: _aio(s.stop(0)), server, streams, seconds
                )
                nursery.cancel_scope.cancel()
            return result

        trio.lowlevel.start_guest_run(
            trio_side,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done.set_result,
        )
        outcome = await done
        result: tuple[float, float] = outcome.unwrap()
        return result

    return asyncio.run(main())


async def _aio(coro: Awaitable[Any]) -> Any:
    """Await an asyncio coroutine from a trio guest (same thread)."""
    task = asyncio.ensure_future(coro)
    token = trio.lowlevel.current_trio_token()
    finished = trio.Event()
    task.add_done_callback(lambda _: token.run_sync_soon(finished.set))
    await finished.wait()
    return task.result()


def threads(streams: int, seconds: float) -> tuple[float, float]:
    global _one_thread
    _one_thread = False
    down, _ = _sizes()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def main() -> tuple[float, float]:
        global _nursery
        token = trio.lowlevel.current_trio_token()

        def handoff(function: Callable[..., object], *args: object) -> None:
            token.run_sync_soon(function, *args)

        async def in_loop(coro: Awaitable[Any]) -> Any:
            future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, loop)  # type: ignore[arg-type]
            return await trio.to_thread.run_sync(future.result)

        async with trio.open_nursery() as nursery:
            _nursery = nursery
            server = await in_loop(_make(handoff, down))
            result = await _serve_and_measure(
                lambda s: in_loop(_listen(s)),
                lambda s: in_loop(s.stop(0)),
                server,
                streams,
                seconds,
            )
            nursery.cancel_scope.cancel()
        return result

    try:
        return trio.run(main)
    finally:
        _one_thread = True
        loop.call_soon_threadsafe(loop.stop)
        thread.join()


async def _make(handoff: Handoff, size: int) -> grpc.aio.Server:
    return _server(handoff, b"\x01" * size)


async def _listen(server: grpc.aio.Server) -> int:
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    args = parser.parse_args()
    chosen = [name for name in args.designs.split(",") if name]
    header = f"{'streams':>8} {'design':>8} {'rt/s':>8} {'p50 µs':>8}"
    print(f"{header} {'x raw rt/s':>10} {'x raw p50':>9}")
    for streams in (1, 100):
        baseline = asyncio.run(raw_rate(streams, args.seconds))
        raw, raw_p50 = baseline.rate, baseline.p50_us
        print(f"{streams:>8} {'raw':>8} {raw:>8.0f} {raw_p50:>8.0f} {1:>10.2f} {1:>9.2f}")
        for name in chosen:
            rate, p50 = {"guest": guest, "stepped": stepped, "threads": threads}[name](
                streams, args.seconds
            )
            print(
                f"{streams:>8} {name:>8} {rate:>8.0f} {p50:>8.0f} {rate / raw:>10.2f} "
                f"{p50 / raw_p50:>9.2f}"
            )


if __name__ == "__main__":
    main()
