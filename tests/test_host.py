"""The host (referee.transport.host): trio runs, and asyncio's loop is stepped beside it on one
thread. What grpc.aio relies on must work with trio idle or busy: timers, callbacks from other
threads, tasks, and errors coming out as they are."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import trio

from referee.transport import host


class Refused(Exception):
    pass


async def fail() -> None:
    await trio.sleep(0)
    raise Refused("no")


def test_what_the_run_raises_comes_out_as_it_is() -> None:
    with pytest.raises(Refused):
        host.run(fail, tune_gc=False, prioritise=False)


async def asyncio_timer_while_trio_idles() -> float:
    async def sleep_then_answer() -> float:
        started = time.perf_counter()
        await asyncio.sleep(0.05)
        return time.perf_counter() - started

    with trio.fail_after(5):
        return await host.call_asyncio(sleep_then_answer())


def test_an_asyncio_timer_fires_while_trio_has_nothing_to_do() -> None:
    slept = host.run(asyncio_timer_while_trio_idles, tune_gc=False, prioritise=False)
    assert 0.05 <= slept < 1.0


async def woken_from_a_thread() -> str:
    loop = host.asyncio_loop()
    answer: asyncio.Future[str] = loop.create_future()

    def other_thread() -> None:
        time.sleep(0.05)
        loop.call_soon_threadsafe(answer.set_result, "from the thread")

    threading.Thread(target=other_thread).start()

    async def wait() -> str:
        return await answer

    with trio.fail_after(5):
        return await host.call_asyncio(wait())


def test_a_thread_wakes_the_idle_loop() -> None:
    assert host.run(woken_from_a_thread, tune_gc=False, prioritise=False) == "from the thread"


async def leave_a_task_behind() -> asyncio.Task[None]:
    async def forever() -> None:
        await asyncio.sleep(3600)

    task = host.asyncio_loop().create_task(forever())
    await trio.sleep(0.01)
    return task


def test_asyncio_tasks_left_running_are_cancelled_at_the_end() -> None:
    task = host.run(leave_a_task_behind, tune_gc=False, prioritise=False)
    assert task.cancelled()


async def ping_pong(rounds: int) -> int:
    """trio and asyncio take turns, each waking the other: no turn is lost."""
    loop = host.asyncio_loop()
    to_trio, from_asyncio = trio.open_memory_channel[int](1)

    def answer(value: int) -> None:
        to_trio.send_nowait(value + 1)

    total = 0
    with trio.fail_after(10):
        for value in range(rounds):
            loop.call_soon(answer, value)
            total += await from_asyncio.receive()
    return total


def test_trio_and_asyncio_wake_each_other_on_one_thread() -> None:
    rounds = 2000
    assert host.run(ping_pong, rounds, tune_gc=False, prioritise=False) == sum(range(1, rounds + 1))
