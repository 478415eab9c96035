"""Referee worker processes on this machine: matches played by N referees at once, one per core.

One Python process referees at most one core's worth of matches (its event loop, the
engines, the records, gRPC: about 600 µs of CPU per decision), so a ladder or a series that
should use every core spreads its matches over worker processes. Each worker is a whole
referee: its own loopback server and socket folder, its own launch of the bots, persistent over
its matches as a single referee's are. What a worker plays and where its results go stay with
the caller (the coordinator): a worker asks for its next piece of work and hands back each
result through `Link.call`, and the coordinator answers through a `Host`.

Workers are fresh interpreters (`python -m referee.local.workers`, in a session of their own
so that a terminal's Ctrl-C reaches the coordinator alone), speaking length-prefixed pickles
over their stdin and stdout. Their stderr goes to a log file. A worker that loses its
coordinator (stdin closed: Ctrl-C, an error, a kill -9 of the coordinator) cancels what it
plays, ends its bots and exits. A worker that dies is reported to the host (`Host.lost`), which
takes back what it held, and is started again, up to `restarts` times; past that the run stops
with a `WorkerError`, as it does when a worker's own work fails (a bot that never connects).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import trio

from referee.errors import CroupierError, leaves

#: How long a worker has to end its bots and exit once its coordinator closes its stdin.
STOP_SECONDS = 10.0
#: How many times each worker may be started again after it died, by default.
RESTARTS = 3
#: A frame's length prefix (bytes, big-endian).
_PREFIX = 8


def shares(concurrency: int, workers: int) -> list[int]:
    """The matches at once of each worker: `concurrency` split as evenly as it goes, over at
    most `concurrency` workers (each plays at least one)."""
    count = max(1, min(workers, concurrency))
    return [concurrency // count + (n < concurrency % count) for n in range(count)]


class WorkerError(CroupierError):
    """A worker's work failed (`mistakes`: each of its errors, e.g. two bots that cannot
    start), or a worker died more often than it may be restarted."""

    def __init__(self, *mistakes: str) -> None:
        super().__init__("; ".join(mistakes))
        self.mistakes = mistakes


def failed(error: WorkerError, kind: type[CroupierError]) -> BaseException:
    """A worker's failure as the caller's error `kind`: one, or a group of one per mistake (as
    a nursery of one referee would raise them, and the CLI prints them, one a line)."""
    if len(error.mistakes) == 1:
        return kind(error.mistakes[0])
    return BaseExceptionGroup(str(error), [kind(mistake) for mistake in error.mistakes])


class Link:
    """Framed pickles over a pair of trio streams: the worker's calls (`call`), answered by the
    coordinator's replies, and the messages that start and end a worker."""

    def __init__(self, send: trio.abc.SendStream, receive: trio.abc.ReceiveStream) -> None:
        self._send = send
        self._receive = receive
        self._buffer = bytearray()
        self._sending = trio.Lock()
        self._calls = 0
        self._waiting: dict[int, trio.Event] = {}
        self._replies: dict[int, Any] = {}

    async def send(self, message: object) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        async with self._sending:
            await self._send.send_all(len(data).to_bytes(_PREFIX, "big") + data)

    async def receive(self) -> Any:
        """The next message; EOFError when the other side is gone (a frame cut short too)."""
        size = int.from_bytes(await self._exactly(_PREFIX), "big")
        return pickle.loads(await self._exactly(size))

    async def _exactly(self, count: int) -> bytes:
        while len(self._buffer) < count:
            try:
                chunk = await self._receive.receive_some(max(65536, count - len(self._buffer)))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk:
                raise EOFError
            self._buffer += chunk
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    async def close(self) -> None:
        await self._send.aclose()

    # -- the worker's side: calls to the coordinator ---------------------------------------

    async def call(self, method: str, payload: object = None) -> Any:
        """Ask the coordinator (its `Host.call`) and wait for the answer."""
        self._calls += 1
        number = self._calls
        self._waiting[number] = arrived = trio.Event()
        await self.send(("call", number, method, payload))
        await arrived.wait()
        return self._replies.pop(number)

    async def read_replies(self) -> None:
        """Hand each reply to its call, until the coordinator closes the link (EOFError)."""
        while True:
            _, number, value = await self.receive()
            self._replies[number] = value
            self._waiting.pop(number).set()


#: What a worker runs: `entry(link, *arguments)`, a module-level async function (pickled by
#: name), on the worker's trio loop hosted for gRPC.
Entry = Callable[..., Awaitable[None]]


@dataclass(eq=False)
class Worker:
    """One worker process as the host sees it: its number (kept across restarts), whether it is
    alive, and what the host handed it that it has not handed back (the host's to fill)."""

    number: int
    alive: bool = True
    held: dict[int, Any] = field(default_factory=dict)


class Host(Protocol):
    """The coordinator's side of the workers' calls."""

    def call(self, worker: Worker, method: str, payload: Any) -> Callable[[], Awaitable[Any]]:
        """Take `worker`'s call at once (bookkeeping that must happen before the worker can be
        lost), and return what answers it."""
        ...

    def lost(self, worker: Worker) -> None:
        """`worker` died: take back what it held."""
        ...


async def run_workers(
    count: int,
    start: Callable[[int], tuple[Entry, tuple[object, ...]]],
    host: Host,
    logs: Path,
    restarts: int = RESTARTS,
) -> None:
    """Run `count` workers, worker n running `start(n)`, until every one has finished its
    entry. Raises WorkerError when one fails or dies more than `restarts` times; every worker
    is stopped before this returns or raises (stdin closed, killed after STOP_SECONDS)."""
    logs.mkdir(parents=True, exist_ok=True)
    try:
        async with trio.open_nursery() as nursery:
            for number in range(count):
                log = logs / f"referee-{number}.log"
                nursery.start_soon(_keep_running, number, start, host, log, restarts)
    except BaseExceptionGroup as group:
        found, others = group.split(WorkerError)
        if found is None or others is not None:
            raise
        # Several workers fail alike (a bot that cannot start, in each): say each thing once.
        said = (mistake for error in leaves(found) for mistake in _mistakes(error))
        raise WorkerError(*dict.fromkeys(said)) from None


def _mistakes(error: BaseException) -> tuple[str, ...]:
    return error.mistakes if isinstance(error, WorkerError) else (str(error),)


async def _keep_running(
    number: int,
    start: Callable[[int], tuple[Entry, tuple[object, ...]]],
    host: Host,
    log: Path,
    restarts: int,
) -> None:
    died = 0
    async with trio.open_nursery() as calls:  # a dead worker's calls may outlive it
        while True:
            worker = Worker(number)
            code = await _incarnation(worker, start(number), host, log, calls)
            if code is None:
                return
            died += 1
            with log.open("a") as note:  # beside what the worker itself said last
                again = "stopping" if died > restarts else f"restart {died} of {restarts}"
                note.write(f"== croupier: referee worker {number} {_death(code)}; {again}\n")
            if died > restarts:
                raise WorkerError(
                    f"referee worker {number} {_death(code)}, and died {died} times in all: "
                    f"stopped (its log: {log}); what was committed is kept, run the same "
                    "command to resume"
                )


def _death(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


async def _incarnation(
    worker: Worker,
    work: tuple[Entry, tuple[object, ...]],
    host: Host,
    log: Path,
    calls: trio.Nursery,
) -> int | None:
    """Start the worker, answer its calls until it is done (None) or dies (its exit code,
    after `host.lost`). The process is stopped on the way out whatever happens."""
    with log.open("ab") as output:
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "referee.local.workers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=output,
            start_new_session=True,
        )
    assert process.stdin is not None and process.stdout is not None
    link = Link(process.stdin, process.stdout)
    try:
        try:
            await link.send(work)
            while True:
                message = await link.receive()
                if message[0] == "call":
                    _, call, method, payload = message
                    answer = host.call(worker, method, payload)
                    calls.start_soon(_answer, link, worker, call, answer)
                elif message[0] == "done":
                    return None
                else:  # ("failed", text)
                    raise WorkerError(*message[1])
        except (EOFError, trio.BrokenResourceError):
            pass
        worker.alive = False
        host.lost(worker)
        with trio.CancelScope(shield=True):
            await process.wait()
        return process.returncode if process.returncode is not None else -signal.SIGKILL
    finally:
        worker.alive = False
        with trio.CancelScope(shield=True):
            await _stop(process, link)


async def _answer(
    link: Link, worker: Worker, call: int, answer: Callable[[], Awaitable[Any]]
) -> None:
    value = await answer()
    if worker.alive:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await link.send(("reply", call, value))  # unless it died meanwhile (host told)


async def _stop(process: trio.Process, link: Link) -> None:
    """Close the worker's stdin (it ends its bots and exits), kill it if it takes too long."""
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await link.close()
    with trio.move_on_after(STOP_SECONDS):
        await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()


# -- inside a worker ------------------------------------------------------------------------


def main() -> None:
    """A worker: read what to run from stdin, run it, say how it went on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator decides when to stop
    # The link keeps stdout to itself: anything printed goes to the log (stderr).
    out = os.dup(1)
    os.dup2(2, 1)
    from referee import transport

    transport.run(_work, out)


async def _work(out: int) -> None:
    link = Link(trio.lowlevel.FdStream(out), trio.lowlevel.FdStream(os.dup(0)))
    try:
        entry, arguments = await link.receive()
    except EOFError:
        return
    stopped = False
    try:
        async with trio.open_nursery() as nursery:

            async def replies() -> None:
                nonlocal stopped
                try:
                    await link.read_replies()
                except EOFError:  # the coordinator is gone, or stops us: stop
                    stopped = True
                    nursery.cancel_scope.cancel()

            nursery.start_soon(replies)
            await entry(link, *arguments)
            nursery.cancel_scope.cancel()
    except BaseException as error:
        if stopped:
            return
        said = _explained(error)
        bug = f"a referee worker failed:\n{traceback.format_exc()}"
        await _say(link, ("failed", said or (bug,)))
        if not said:
            raise  # our own bug: its traceback goes to the log too
        return
    if not stopped:
        await _say(link, ("done",))


async def _say(link: Link, message: object) -> None:
    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await link.send(message)  # unless the coordinator is gone


def _explained(error: BaseException) -> tuple[str, ...]:
    """The worker's mistakes (bots that cannot play), each once; none for our own bug."""
    if isinstance(error, CroupierError):
        return (str(error),)
    if not isinstance(error, BaseExceptionGroup):
        return ()
    mistakes, others = error.split(CroupierError)
    if mistakes is None or others is not None:
        return ()
    return tuple(dict.fromkeys(str(mistake) for mistake in leaves(mistakes)))


if __name__ == "__main__":
    main()
