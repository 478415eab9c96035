"""trio as a guest of asyncio: grpc.aio lives on the asyncio loop, the referee on trio."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import trio
from outcome import Outcome

T = TypeVar("T")


def run(async_fn: Callable[..., Awaitable[T]], *args: object) -> T:
    """Run `async_fn(*args)` under trio, hosted by a new asyncio loop that grpc.aio can use."""
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
