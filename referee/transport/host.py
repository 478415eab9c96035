"""trio hosts the referee; grpc.aio's asyncio loop is stepped from a trio task on the same thread.

grpcio has no trio support, so the asyncio loop grpc.aio needs runs inside the trio run: a trio
task (`_SteppedLoop.drive`) runs one iteration of it at a time (what `run_forever` runs after
`stop`: a poll that does not wait), and parks while it has nothing to do; trio's own I/O wait
watches the loop's selector, so a message for grpc wakes it. Both sides then call each other
with plain function calls on one thread: no wake-up system call, no thread hop. Trio as
asyncio's guest, the design before this one, crossed over through trio's I/O thread on every
idle wake-up, which cost ~150 µs of CPU each (bench/bridge_designs.py has the figures).

The fair clock needs, for a message the transport hands on, the earliest time it can have
arrived (`arrival_bound`). The loop's polls are stamped here: the iteration's own poll, and
trio's I/O waits while the loop is parked, which watch its selector (`_Stamps`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import math
import os
import select
import selectors
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextvars import Context
from typing import Any, TypeVar

import outcome
import trio

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
    """Run `async_fn(*args)` under trio, with an asyncio loop stepped beside it that grpc.aio
    can use (`asyncio_loop`, `call_asyncio`).

    With `tune_gc`, what exists at start-up (modules, engines, stubs) is frozen out of the
    garbage collector's scans, whose pauses stall every match on the loop at once. (A higher
    gen-0 threshold cut the loop's worst lag a little more, but let a flooding bot's garbage
    pile up: +53 MB of RSS in tests/test_hostile.py's flood, against 5-9 MB without it.)
    With `prioritise`, the referee raises its CPU priority where it may (`raise_priority`).

    Ctrl-C (on the main thread) cancels the trio run, lets every `finally` close what it opened
    (servers, bot processes, records, databases), then raises KeyboardInterrupt here; a second
    Ctrl-C ends the process at once. Not `interruptible`: `async_fn` handles SIGINT itself
    (trio.open_signal_receiver), as `serve` does to drain its matches and exit 0."""
    if tune_gc:
        gc.collect()
        gc.freeze()
    if prioritise:
        raise_priority()
    loop = _SteppedLoop()
    previous = _hosting()
    _current.loop = loop
    asyncio.set_event_loop(loop)  # asyncio.get_event_loop() from trio code finds it
    interrupt = _Interrupt()
    handles_sigint = interruptible and threading.current_thread() is threading.main_thread()
    old_handler = signal.signal(signal.SIGINT, interrupt.request) if handles_sigint else None
    try:
        with loop.running():
            return trio.run(_host, loop, interrupt, async_fn, args, instruments=[loop.stamps])
    finally:
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        _current.loop = previous
        loop.finish()
        asyncio.set_event_loop(None)


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


_current = threading.local()

#: The most iterations the asyncio loop runs in a row before trio's tasks get a turn.
BURST = 64


def _hosting() -> _SteppedLoop | None:
    """This thread's host loop, if `run` runs here."""
    loop: _SteppedLoop | None = getattr(_current, "loop", None)
    return loop


def asyncio_loop() -> asyncio.AbstractEventLoop:
    """The asyncio loop stepped beside this thread's trio run (see `run`)."""
    loop = _hosting()
    if loop is None:
        raise RuntimeError("no croupier host runs on this thread (see referee.transport.run)")
    return loop


def sender(put: Callable[[Any], None]) -> Callable[[Any], None]:
    """`put`, and the message sent at once if the host's loop was idle (`_SteppedLoop.sender`);
    `put` itself off a host."""
    loop = _hosting()
    return put if loop is None else loop.sender(put)


def polls() -> int | None:
    """How many times this thread's asyncio loop has looked for I/O (None: no host runs here):
    an iteration of its own, or an I/O wait of trio's that found nothing for it."""
    loop = _hosting()
    return None if loop is None else loop.stamps.polls


def arrival_bound() -> float:
    """The earliest time a message that a coroutine is resumed with now can have arrived.

    gRPC's poller thread reports a received message through a socket the loop's selector
    watches; the loop runs the completion in the iteration whose poll saw it, and resumes the
    coroutine waiting for the message one iteration later. The message came after the look
    before that poll, or, if trio sat idle in an I/O wait that this selector woke, as that wait
    returned (`_Stamps`). Anything later is the referee's lag, not the bot's. perf_counter time;
    now, off a host."""
    loop = _hosting()
    now = time.perf_counter()
    if loop is None:
        return now
    return min(loop.stamps.bounds[0], now)


class _Selector(selectors.EpollSelector):
    """The stepped loop's selector: each poll notes, for what it finds, the earliest it can
    have arrived (see `_Stamps`). A step polls with timeout 0 (it runs as if after `stop`)."""

    stamps: _Stamps | None = None
    #: Whether the latest poll found anything.
    found = False

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        started = time.perf_counter()
        ready: list[tuple[selectors.SelectorKey, int]] = super().select(timeout)
        self.found = bool(ready)
        if self.stamps is not None:
            self.stamps.polled(started)
        return ready


class _Stamps(trio.abc.Instrument):
    """When the loop's selector was last looked at, for the fair clock (`arrival_bound`).

    A message a poll finds came after the look before it: the previous poll, or an I/O wait of
    trio's that watched the selector (while the loop is parked) and found nothing there. If
    trio sat blocked in a wait that the selector woke, the message came as the wait returned.
    """

    def __init__(self, selector_fd: int) -> None:
        #: The bound of the poll before the latest one, and of the latest (see arrival_bound).
        self.bounds: deque[float] = deque([time.perf_counter()] * 2, maxlen=2)
        self.polls = 0
        #: Set while trio's I/O waits watch the selector (the watcher waits on it).
        self.watched = False
        self._last_look = time.perf_counter()
        self._woken_at: float | None = None
        self._blocked_clear = False
        self._probe = select.epoll()
        self._probe.register(selector_fd, select.EPOLLIN)

    def _ready(self) -> bool:
        return bool(self._probe.poll(0))

    def polled(self, started: float) -> None:
        """A step's poll, begun at `started`: what it finds came after the last look (or as
        trio woke for it); what it does not find comes after `started`."""
        woken, self._woken_at = self._woken_at, None
        self.bounds.append(woken if woken is not None else self._last_look)
        self._last_look = started
        self.polls += 1

    def before_io_wait(self, timeout: float) -> None:
        if self.watched and timeout > 0:
            looked = time.perf_counter()
            self._blocked_clear = not self._ready()
            if self._blocked_clear:
                self._last_look = looked

    def after_io_wait(self, timeout: float) -> None:
        blocked_clear, self._blocked_clear = self._blocked_clear, False
        if not self.watched:
            return
        looked = time.perf_counter()
        if not self._ready():
            self._last_look = looked
            self.polls += 1
        elif blocked_clear:
            self._woken_at = looked

    def close(self) -> None:
        self._probe.close()


class _SteppedLoop(asyncio.SelectorEventLoop):
    """An asyncio loop that a trio task runs one iteration at a time (`drive`).

    The driver parks when the loop has nothing ready; a callback scheduled from trio code
    (`call_soon`, `call_at`) reschedules it at once, and a watcher task, blocked on the
    selector's descriptor in trio's I/O wait, does when I/O comes (gRPC's completions, a
    thread's `call_soon_threadsafe`). It reads asyncio's own `_ready` and `_scheduled`, which
    every BaseEventLoop has: whether another iteration is due, and when the next timer is.
    """

    def __init__(self) -> None:
        self._stepped_selector = selector = _Selector()
        super().__init__(selector)
        self.stamps = selector.stamps = _Stamps(selector.fileno())
        self._driver: trio.lowlevel.Task | None = None
        self._watcher: trio.lowlevel.Task | None = None
        self._driver_parked = False
        self._watcher_parked = False
        self._stepping = False
        # BaseEventLoop's own, which typeshed does not list: one iteration, and the hooks that
        # `run_forever` puts in force for asyncio's async generators.
        self._iterate: Callable[[], None] = getattr(self, "_run_once")  # noqa: B009
        self._asyncgen_hooks = (
            getattr(self, "_asyncgen_firstiter_hook"),  # noqa: B009
            getattr(self, "_asyncgen_finalizer_hook"),  # noqa: B009
        )

    def call_soon(  # type: ignore[override]
        self, callback: Callable[..., object], *args: Any, context: Context | None = None
    ) -> asyncio.Handle:
        handle = super().call_soon(callback, *args, context=context)
        self._wake_driver()
        return handle

    def call_at(  # type: ignore[override]
        self,
        when: float,
        callback: Callable[..., object],
        *args: Any,
        context: Context | None = None,
    ) -> asyncio.TimerHandle:
        handle = super().call_at(when, callback, *args, context=context)
        self._wake_driver()
        return handle

    def _more_ready(self) -> bool:
        """Whether callbacks wait for another iteration (asyncio's `_ready`)."""
        return bool(vars(self)["_ready"])

    def _next_timer(self) -> float | None:
        """When the loop's next timer is due, loop time (asyncio's `_scheduled` heap)."""
        scheduled: list[asyncio.TimerHandle] = vars(self)["_scheduled"]
        return scheduled[0].when() if scheduled else None

    def sender(self, put: Callable[[Any], None]) -> Callable[[Any], None]:
        """`put` (onto a stream's outbound queue), then, if the loop was idle, one run of it at
        once: the message leaves now rather than after trio's next scheduling round (at one
        match, the median decision was that round, ~40-100 µs, longer). A busy loop is left to
        its driver, which sends many messages in one iteration."""

        def send(item: Any) -> None:
            idle = self._driver_parked
            put(item)
            if idle and not self._stepping:
                self._run_until_quiet()

        return send

    def _run_until_quiet(self) -> None:
        for _ in range(BURST):
            if not self._step() and not self._more_ready():
                return

    def _wake_driver(self) -> None:
        if self._driver_parked:
            self._driver_parked = False
            assert self._driver is not None
            trio.lowlevel.reschedule(self._driver)

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """The loop counts as running on this thread for the whole trio run, as `run_forever`
        would mark it for one iteration: marking it at every step cost two system calls there
        (Python 3.11's running-loop check calls getpid). With the Play stream's own outbound
        queue (referee.transport.play), 3% of the referee's CPU a decision at 100 matches."""
        self._thread_id = threading.get_ident()
        asyncio.events._set_running_loop(self)
        try:
            yield
        finally:
            asyncio.events._set_running_loop(None)
            self._thread_id = None  # type: ignore[assignment]  # typeshed: int; asyncio: None

    def _step(self) -> bool:
        """One iteration: poll without waiting, run what is ready; whether the poll found I/O.
        This is `run_forever`'s body after `stop`, inside `running`: asyncio's hooks for async
        generators are in force during the iteration only (trio's are, the rest of the time)."""
        self._stepping = True
        hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(*self._asyncgen_hooks)
        self._stopping = True
        try:
            self._iterate()
        finally:
            self._stopping = False
            sys.set_asyncgen_hooks(*hooks)
            self._stepping = False
        found = self._stepped_selector.found
        if self._watcher_parked:  # the step took what woke the watcher: it may watch again
            self._watcher_parked = False
            assert self._watcher is not None
            trio.lowlevel.reschedule(self._watcher)
        return found

    async def drive(self) -> None:
        """Run the loop's iterations, in turn with trio's tasks, until cancelled. The loop runs
        on until it is idle (or for BURST iterations): grpc.aio takes ~3 iterations of its own
        per message, and a trio scheduling round between each would cost more than they do."""
        self._driver = trio.lowlevel.current_task()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch)
            while True:
                self._run_until_quiet()
                if self._more_ready():
                    await trio.lowlevel.checkpoint()
                else:
                    await self._park()

    async def _park(self) -> None:
        """Sleep until a callback is scheduled, I/O comes, or the next timer is due."""
        deadline = math.inf
        due = self._next_timer()
        if due is not None:
            deadline = trio.current_time() + max(0.0, due - self.time())

        def abort(_: object) -> trio.lowlevel.Abort:
            self._driver_parked = False
            return trio.lowlevel.Abort.SUCCEEDED

        self._driver_parked = True
        if deadline == math.inf:
            await trio.lowlevel.wait_task_rescheduled(abort)
        else:
            with trio.move_on_at(deadline):
                await trio.lowlevel.wait_task_rescheduled(abort)

    async def _watch(self) -> None:
        """Wake the driver when the selector has something; then wait for its next step."""
        self._watcher = trio.lowlevel.current_task()

        def abort(_: object) -> trio.lowlevel.Abort:
            self._watcher_parked = False
            return trio.lowlevel.Abort.SUCCEEDED

        while True:
            self.stamps.watched = True
            try:
                await trio.lowlevel.wait_readable(self._stepped_selector.fileno())
            finally:
                self.stamps.watched = False
            self._wake_driver()
            self._watcher_parked = True
            await trio.lowlevel.wait_task_rescheduled(abort)

    def finish(self) -> None:
        """After the trio run: let asyncio's leftovers end as asyncio.run would, and close."""
        try:
            tasks = asyncio.all_tasks(self)
            for task in tasks:
                task.cancel()
            if tasks:
                self.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.run_until_complete(self.shutdown_asyncgens())
            self.run_until_complete(self.shutdown_default_executor())
        finally:
            self.stamps.close()
            self.close()


async def _host(
    loop: _SteppedLoop,
    interrupt: _Interrupt,
    async_fn: Callable[..., Awaitable[T]],
    args: tuple[object, ...],
) -> T:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(loop.drive)
        # Captured, so that what `async_fn` raises comes out as it is, not in a group.
        result = await outcome.acapture(_interruptible, interrupt, async_fn, *args)
        nursery.cancel_scope.cancel()
    return result.unwrap()


async def _interruptible(
    interrupt: _Interrupt, async_fn: Callable[..., Awaitable[T]], *args: object
) -> T:
    interrupt.token = trio.lowlevel.current_trio_token()
    with trio.CancelScope() as scope:
        interrupt.scope = scope
        if interrupt.requested:
            scope.cancel()
        return await async_fn(*args)
    raise KeyboardInterrupt  # reached only when Ctrl-C cancelled the run


class _Interrupt:
    """Ctrl-C, as the signal handler sees it: cancel the trio run from its own thread."""

    def __init__(self) -> None:
        self.requested = False
        self.token: trio.lowlevel.TrioToken | None = None
        self.scope: trio.CancelScope | None = None

    def request(self, signum: int, frame: object) -> None:
        if self.requested:
            return
        self.requested = True
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C stops at once
        if self.token is not None and self.scope is not None:
            self.token.run_sync_soon(self.scope.cancel)


async def call_asyncio(coro: Coroutine[Any, Any, T]) -> T:
    """Await an asyncio coroutine from trio (both on the host's thread)."""
    task = asyncio_loop().create_task(coro)
    finished = trio.Event()
    task.add_done_callback(lambda _: finished.set())
    try:
        await finished.wait()
    finally:
        if not task.done():
            task.cancel()
    return task.result()
