"""trio as a guest of asyncio: grpc.aio lives on the asyncio loop, the referee on trio."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import selectors
import signal
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import trio
from outcome import Outcome

T = TypeVar("T")

#: The referee's nice value when it may raise its priority (lower is more CPU); its launched
#: bots start back at nice 0 (referee.local.priority).
REFEREE_NICE = -10


def run(
    async_fn: Callable[..., Awaitable[T]],
    *args: object,
    tune_gc: bool = True,
    prioritise: bool = True,
    interruptible: bool = True,
) -> T:
    """Run `async_fn(*args)` under trio, hosted by a new asyncio loop that grpc.aio can use.

    With `tune_gc`, what exists at start-up (modules, engines, stubs) is frozen out of the
    garbage collector's scans, whose pauses stall every match on the loop at once. (A higher
    gen-0 threshold cut the loop's worst lag a little more, but let a flooding bot's garbage
    pile up: +53 MB of RSS in tests/test_hostile.py's flood, against 5-9 MB without it.)
    With `prioritise`, the referee raises its CPU priority where it may (`raise_priority`).

    Ctrl-C (on the main thread) cancels the trio run, lets every `finally` close what it opened
    (servers, bot processes, records, databases), then raises KeyboardInterrupt here; a second
    Ctrl-C ends the process at once. Not `interruptible`: `async_fn` handles SIGINT itself
    (trio.open_signal_receiver), as `serve` does to drain its matches and exit 0; the asyncio
    handler would otherwise see the same signal too and cancel the run under it."""
    if tune_gc:
        gc.collect()
        gc.freeze()
    if prioritise:
        raise_priority()
    with asyncio.Runner(loop_factory=_stamping_loop) as runner:
        return runner.run(_host(async_fn, args, interruptible))


def raise_priority() -> None:
    """Set every thread of this process to REFEREE_NICE, so that the referee is not starved by
    the bots it referees (referee.local.priority says why). Linux's nice is per thread, and
    only threads started later inherit it; best effort."""
    if not hasattr(os, "setpriority"):
        return
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        with contextlib.suppress(OSError):
            if os.getpriority(os.PRIO_PROCESS, tid) > REFEREE_NICE:
                os.setpriority(os.PRIO_PROCESS, tid, REFEREE_NICE)


_polls = threading.local()


class _StampingSelector(selectors.DefaultSelector):
    """The loop's selector, noting when each poll returned (see `arrival_bound`)."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        # Whether the loop waited is asked of the kernel, not guessed from how long the poll
        # took: a poll that finds something at once can take a millisecond, after a long stall,
        # and would pass for an idle one (whose messages came as it returned). So look first
        # without waiting; only if nothing is there, wait.
        ready: list[tuple[selectors.SelectorKey, int]] = super().select(0)
        waited = not ready and (timeout is None or timeout > 0)
        if waited:
            ready = super().select(timeout)
        _polls.seen.append((waited, time.perf_counter()))
        _polls.count += 1
        return ready


def _stamping_loop() -> asyncio.AbstractEventLoop:
    _polls.seen = deque([(True, time.perf_counter())] * 3, maxlen=3)
    _polls.count = 0
    return asyncio.SelectorEventLoop(_StampingSelector())


def polls() -> int | None:
    """How many times this thread's loop has polled for I/O (None: it does not count)."""
    count: int | None = getattr(_polls, "count", None)
    return count


def arrival_bound() -> float:
    """The earliest time a message that a coroutine is resumed with now can have arrived.

    gRPC's poller thread reports a received message through a socket the loop polls; the loop
    runs the completion in the iteration whose poll saw it, and resumes the coroutine waiting
    for the message one iteration later. If that poll waited, the loop was idle and the message
    came as it returned; if not, it was already there, having come at any time since the poll
    before returned, while the loop was busy (the referee's lag, not the bot's). perf_counter
    time; now, on a loop that does not note its polls."""
    seen: deque[tuple[bool, float]] | None = getattr(_polls, "seen", None)
    now = time.perf_counter()
    if seen is None or len(seen) < 3:
        return now
    (_, before), (waited, noticed), _ = seen
    return min(noticed if waited else before, now)


async def _host(
    async_fn: Callable[..., Awaitable[T]], args: tuple[object, ...], interruptible: bool
) -> T:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Outcome[T]] = loop.create_future()
    main_thread = threading.current_thread() is threading.main_thread()
    handles_sigint = main_thread and interruptible
    state = _Interrupt()

    async def guest() -> T:
        state.token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            state.scope = scope
            if state.requested:
                scope.cancel()
            return await async_fn(*args)
        raise KeyboardInterrupt  # reached only when Ctrl-C cancelled the run

    if handles_sigint:
        loop.add_signal_handler(signal.SIGINT, state.request)
    try:
        trio.lowlevel.start_guest_run(
            guest,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=done.set_result,
            host_uses_signal_set_wakeup_fd=main_thread,
        )
        result = await done
    finally:
        if handles_sigint:
            loop.remove_signal_handler(signal.SIGINT)
    return result.unwrap()


class _Interrupt:
    """Ctrl-C, as asyncio's signal handler sees it: cancel the trio run from its own thread."""

    def __init__(self) -> None:
        self.requested = False
        self.token: trio.lowlevel.TrioToken | None = None
        self.scope: trio.CancelScope | None = None

    def request(self) -> None:
        if self.requested:
            return
        self.requested = True
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C stops at once
        if self.token is not None and self.scope is not None:
            self.token.run_sync_soon(self.scope.cancel)


async def call_asyncio(coro: Coroutine[Any, Any, T]) -> T:
    """Await an asyncio coroutine from trio (both on the host's thread)."""
    task = asyncio.get_running_loop().create_task(coro)
    token = trio.lowlevel.current_trio_token()
    finished = trio.Event()
    task.add_done_callback(lambda _: token.run_sync_soon(finished.set))
    try:
        await finished.wait()
    finally:
        if not task.done():
            task.cancel()
    return task.result()
