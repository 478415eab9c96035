"""trio as a guest of asyncio: grpc.aio lives on the asyncio loop, the referee on trio."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import trio
from outcome import Outcome

T = TypeVar("T")


#: The referee's gen-0 collection threshold (Python's default is 700): collections of the
#: young generation pause every match on the loop, and a match makes garbage fast.
GC_GEN0_THRESHOLD = 50_000


def run(async_fn: Callable[..., Awaitable[T]], *args: object, tune_gc: bool = True) -> T:
    """Run `async_fn(*args)` under trio, hosted by a new asyncio loop that grpc.aio can use.

    With `tune_gc`, what exists at start-up (modules, engines, stubs) is frozen out of the
    garbage collector's scans and young collections run less often: both pauses stall every
    match on the loop at once, and their time would be the referee's lag (see bench/
    fair_clock.py for the measured effect)."""
    if tune_gc:
        gc.collect()
        gc.freeze()
        gen0, gen1, gen2 = gc.get_threshold()
        gc.set_threshold(max(GC_GEN0_THRESHOLD, gen0), gen1, gen2)
    return asyncio.run(_host(async_fn, args))


async def _host(async_fn: Callable[..., Awaitable[T]], args: tuple[object, ...]) -> T:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Outcome[T]] = loop.create_future()
    trio.lowlevel.start_guest_run(
        async_fn,
        *args,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done.set_result,
        host_uses_signal_set_wakeup_fd=threading.current_thread() is threading.main_thread(),
    )
    result = await done
    return result.unwrap()


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
