"""trio as a guest of asyncio: grpc.aio lives on the asyncio loop, the referee on trio."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import trio
from outcome import Outcome

T = TypeVar("T")


def run(async_fn: Callable[..., Awaitable[T]], *args: object) -> T:
    """Run `async_fn(*args)` under trio, hosted by a new asyncio loop that grpc.aio can use.

    Ctrl-C (on the main thread) cancels the trio run, lets every `finally` close what it opened
    (servers, bot processes, records, databases), then raises KeyboardInterrupt here; a second
    Ctrl-C ends the process at once."""
    return asyncio.run(_host(async_fn, args))


async def _host(async_fn: Callable[..., Awaitable[T]], args: tuple[object, ...]) -> T:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Outcome[T]] = loop.create_future()
    main_thread = threading.current_thread() is threading.main_thread()
    state = _Interrupt()

    async def guest() -> T:
        state.token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            state.scope = scope
            if state.requested:
                scope.cancel()
            return await async_fn(*args)
        raise KeyboardInterrupt  # reached only when Ctrl-C cancelled the run

    if main_thread:
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
        if main_thread:
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
