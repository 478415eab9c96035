"""The referee's decision rate with and without the contest site under load (issue 19).

A XIX contest served in-process (`serve_matches`, a contest database, records written) between
two Python SDK bot processes (examples/python/random_bot.py), each holding MATCHES sessions, so
MATCHES matches run at once. Run twice for the same time: without a site, then with `--web` and
VIEWERS page viewers in another process, half on the standings' event stream and half following
the live matches (each watches one live match after another, so spectator tables are built).
Decisions are the action lines in the records; prints both rates, the change, and what the
viewers received (events and bytes, by stream), for ROUNDS alternated pairs of runs, then the
medians.

Run: .venv/bin/python bench/web_load.py [--seconds 20] [--matches 100] [--viewers 200]
[--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee import transport
from referee.contest.config import ServeConfig
from referee.contest.serving import serve_matches
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.transport import ServerSettings
from referee.web import WebSettings, serve_site

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "examples" / "python" / "random_bot.py"
GAME = get_game("xix")


def run(seconds: float, matches: int, viewers: int) -> tuple[float, float, int, str]:
    """(decisions per second, the referee process's CPU µs per decision, matches started, the
    viewers' report) for one run. CPU time per decision moves less than the rate when other
    work shares the machine."""
    folder = Path(tempfile.mkdtemp(prefix="croupier-web-bench-"))
    store = TokenStore(folder / "contest.db")
    tokens = [store.add(f"bench-{i}") for i in range(2)]
    config = ServeConfig(
        game=GAME,
        options=parse_options(GAME, {}),
        settings=ServerSettings(max_sessions_per_token=matches),
        tokens=folder / "contest.db",
        records=folder / "records",
        time_control=TimeControl(move_ms=10_000, bank_ms=0),
        drain_seconds=0.0,  # the matches still running when the run ends are aborted
    )
    report = ""

    async def main() -> tuple[int, float, float]:
        nonlocal report
        stop = trio.Event()
        port = trio.Event()
        ports: list[int] = []
        urls: list[str] = []

        def listening(bound: int) -> None:
            ports.append(bound)
            port.set()

        site = functools.partial(serve_site, WebSettings(), urls.append) if viewers else None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve_matches, config, listening, lambda _: None, stop, site)
            await port.wait()
            env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{ports[0]}"}
            env["CROUPIER_SESSIONS"] = str(matches)
            bots = [
                subprocess.Popen(
                    [sys.executable, str(BOT)],
                    env=env | {"CROUPIER_TOKEN": token},
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for token in tokens
            ]
            watchers = None
            if viewers:
                watchers = subprocess.Popen(
                    [sys.executable, __file__, "--viewers-of", urls[0], str(viewers)],
                    stdout=subprocess.PIPE,
                    text=True,
                )
            await trio.sleep(3)  # sessions open, tables sit down, viewers connect
            started, cpu = trio.current_time(), time.process_time()
            before = _decisions(folder / "records")
            await trio.sleep(seconds)
            after = _decisions(folder / "records")
            elapsed, cpu = trio.current_time() - started, time.process_time() - cpu
            if watchers is not None:
                watchers.terminate()
                report = (await trio.to_thread.run_sync(watchers.communicate))[0].strip()
            stop.set()
            for bot in bots:
                bot.terminate()
        return after - before, elapsed, cpu

    decisions, elapsed, cpu = transport.run(main)
    started = len(list((folder / "records").glob("*.jsonl")))
    return decisions / elapsed, cpu / decisions * 1e6, started, report


def _decisions(records: Path) -> int:
    """Action lines written so far, in every record (each is one decision)."""
    count = 0
    for path in records.glob("*.jsonl"):
        with path.open("rb") as lines:
            count += sum(1 for line in lines if line.startswith(b'{"action"'))
    return count


async def _viewers(url: str, count: int) -> None:
    """`count` page viewers on raw sockets: half on the standings stream, half following the
    live matches; prints events and bytes received when terminated."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    received = {path: [0, 0] for path in ("/events/contest", "/events/follow")}

    async def viewer(path: str) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        while chunk := await reader.read(65536):
            received[path][0] += chunk.count(b"\n\n")
            received[path][1] += len(chunk)

    paths = ["/events/contest" if i % 2 else "/events/follow" for i in range(count)]
    tasks = [asyncio.ensure_future(viewer(path)) for path in paths]
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, done.set)
    started = time.perf_counter()
    await done.wait()
    elapsed = time.perf_counter() - started
    failed = sum(task.done() for task in tasks)
    print(
        f"{count} viewers ({failed} dropped) in {elapsed:.0f} s: "
        + ", ".join(f"{path} {n:,} events {b / 1e6:.1f} MB" for path, (n, b) in received.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--viewers-of", nargs=2, metavar=("URL", "COUNT"))
    args = parser.parse_args()
    if args.viewers_of:
        asyncio.run(_viewers(args.viewers_of[0], int(args.viewers_of[1])))
        return
    plains, loadeds, plain_cpus, loaded_cpus = [], [], [], []
    for round_ in range(1, args.rounds + 1):  # alternated, so a busy machine hits both alike
        plain, plain_cpu, plain_matches, _ = run(args.seconds, args.matches, 0)
        plains.append(plain)
        plain_cpus.append(plain_cpu)
        print(
            f"round {round_} without the site: {plain:,.0f} decisions/s, "
            f"{plain_cpu:.0f} µs referee CPU each ({plain_matches} matches)"
        )
        loaded, loaded_cpu, loaded_matches, report = run(args.seconds, args.matches, args.viewers)
        loadeds.append(loaded)
        loaded_cpus.append(loaded_cpu)
        print(
            f"round {round_} with the site:    {loaded:,.0f} decisions/s, "
            f"{loaded_cpu:.0f} µs referee CPU each ({loaded_matches} matches)"
        )
        print(f"  {report}")
    plain, loaded = statistics.median(plains), statistics.median(loadeds)
    plain_cpu, loaded_cpu = statistics.median(plain_cpus), statistics.median(loaded_cpus)
    print(f"median without the site: {plain:,.0f} decisions/s, {plain_cpu:.0f} µs CPU each")
    print(f"median with the site:    {loaded:,.0f} decisions/s, {loaded_cpu:.0f} µs CPU each")
    print(f"change: {100 * (loaded - plain) / plain:+.1f}% (target: a fall of less than 10%)")


if __name__ == "__main__":
    main()
