"""Capacity of one `croupier serve` (issue 29.3): how many matches at once it holds when its bots
think about a second a move, with no timeout the bots did not cause.

A real contest of XIX in a temporary folder (`croupier serve contest.toml`, --accounts accounts,
`move_ms` --move-ms and `bank_ms` --bank-ms, records written, JSON logs), and --clients client
processes: asyncio programs holding their share of the Play sessions with the Python SDK's
`play_session`, over a connection per account, each answering every ActionRequest with a random
legal action after sleeping --think ± --jitter seconds (uniform). The matches are ramped in
--steps: a step of N matches opens sessions up to 2N in all, waits until the contest has seated
(almost) N tables, then holds --hold seconds.

Per step: matches in play (mean and least over the hold, counted from the referee's log),
decisions/s, harness faults (any fault, refused session or broken stream from the ramp's start
to the hold's end: these bots answer well within time, so every one is the harness's), the
referee's CPU (% of one core, /proc/PID/stat) and RSS (VmRSS, and per match above the idle
referee's), its open files, the clients' CPU (all of them, % of one core), and the decision
latency as the bots see it: from a bot's reply to the match's next request (to either seat),
the referee's turnaround, p50, p90, p99 and max over the hold. Then the referee's own lag over
every decision (the records' `lagMs`), and the largest step held: matches in play at least 95%
of N on average, 0 faults.

Run: .venv/bin/python bench/serve_capacity.py [--steps 100,250,500,1000] [--hold 20]
     [--think 1.0] [--jitter 0.2] [--move-ms 5000] [--bank-ms 0] [--clients 4] [--accounts 8]
     [--max-lead 2] [--gc] [--open-files N] [--quick] [--keep]

With --gc the referee runs under a hook that notes each garbage collection's pause, and each
step also prints the collections of 1 ms or more during its hold.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import grpc

import croupier
from croupier.client import play_session
from croupier.v1 import referee_pb2, referee_pb2_grpc
from referee.contest.tokens import TokenStore

PYTHON = sys.executable
CROUPIER = str(Path(PYTHON).parent / "croupier")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: A step is held when its matches in play average at least this share of its target.
HELD_SHARE = 0.95
#: What a step waits for its tables to sit down before it is held regardless.
RAMP_SECONDS = 90.0
#: Why the referee closes every session when the bench stops it.
SHUTDOWN = "the referee is shutting down"


# -- the bots' side: one client process ---------------------------------------------------------


class Thinker(croupier.Bot):
    """Thinks `think` ± `jitter` seconds, then plays a random legal action; notes each decision
    as (match, request id, request seen, reply sent), on time.monotonic() (one clock for every
    process of the machine)."""

    name = "thinker"
    games = ("xix",)

    def __init__(
        self, think: float, jitter: float, notes: list[tuple[str, int, float, float]]
    ) -> None:
        self.think = think
        self.jitter = jitter
        self.notes = notes
        self.rng = random.Random()

    async def act(self, request: referee_pb2.ActionRequest) -> int:  # type: ignore[override]
        seen = time.monotonic()
        await asyncio.sleep(
            max(0.0, self.rng.uniform(self.think - self.jitter, self.think + self.jitter))
        )
        self.notes.append((request.match_id, request.request_id, seen, time.monotonic()))
        return self.rng.randrange(len(request.legal_actions))


async def client(config: dict[str, Any]) -> None:
    """Read targets (sessions to hold) from stdin, one a line, until `stop`; then write the
    decisions noted, and the sessions' errors, to `config["out"]`."""
    notes: list[tuple[str, int, float, float]] = []
    errors: list[tuple[float, str]] = []
    tokens: list[str] = config["tokens"]
    # A connection of its own per account (channels share one otherwise).
    options = [("grpc.use_local_subchannel_pool", 1)]
    channels = [grpc.aio.insecure_channel(config["address"], options=options) for _ in tokens]
    stubs = [referee_pb2_grpc.RefereeStub(channel) for channel in channels]

    async def session(index: int) -> None:
        bot = Thinker(config["think"], config["jitter"], notes)
        try:
            await play_session(stubs[index % len(tokens)], bot, tokens[index % len(tokens)])
        except grpc.aio.AioRpcError as error:
            said = f"{error.code().name}: {error.details()} ({error.debug_error_string()})"
            errors.append((time.monotonic(), said))

    tasks: list[asyncio.Task[None]] = []
    while line := (await asyncio.to_thread(sys.stdin.readline)).strip():
        if line == "stop":
            break
        while len(tasks) < int(line):
            tasks.append(asyncio.create_task(session(len(tasks))))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    with open(config["out"], "w") as out:
        json.dump({"notes": notes, "errors": errors}, out)


def noting_collections(pauses: Path, argv: list[str]) -> None:
    """Run the croupier CLI with `argv`, writing a line to `pauses` for each garbage collection
    of the main thread that took a millisecond or more: when it ended (time.monotonic()), its
    generation, its seconds and the objects it freed."""
    out = pauses.open("w", buffering=1)
    began = 0.0

    def note(phase: str, info: dict[str, int]) -> None:
        nonlocal began
        if phase == "start":
            began = time.perf_counter()
        elif (seconds := time.perf_counter() - began) >= 0.001:
            out.write(f"{time.monotonic()} {info['generation']} {seconds} {info['collected']}\n")

    gc.callbacks.append(note)
    sys.argv = ["croupier", *argv]
    from referee.cli import main

    main()


# -- the bench: the referee, its clients, the ramp ----------------------------------------------


def contest_file(folder: Path, args: argparse.Namespace) -> tuple[Path, list[str]]:
    """The contest's file and its accounts' tokens."""
    store = TokenStore(folder / "contest.db")
    tokens = [store.add(f"bot{i:02d}") for i in range(args.accounts)]
    most = max(args.steps)
    per_account = -(-2 * most // args.accounts)
    path = folder / "contest.toml"
    path.write_text(
        f"""game = "xix"
port = 0
database = "contest.db"
records = "records"
log_json = true

[time_control]
move_ms = {args.move_ms}
bank_ms = {args.bank_ms}

[limits]
max_sessions_per_token = {per_account + 16}
max_lead = {args.max_lead}
drain_seconds = 2
"""
    )
    return path, tokens


class ServeLog:
    """The referee's JSON log, read as it grows: matches started and over, and every line that
    is a harness fault (a fault; a refused or broken session), on time.monotonic()."""

    def __init__(self, path: Path) -> None:
        self.file: IO[str] = path.open()
        self.started = 0
        self.over = 0
        #: The accounts that opened a session.
        self.bots: set[str] = set()
        self.faults: list[tuple[float, str]] = []
        self.pending = ""
        self.offset = time.time() - time.monotonic()

    def read(self) -> None:
        self.pending += self.file.read()
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                self.faults.append((time.monotonic(), f"not a log line: {line[:200]}"))
                continue
            event = entry.get("event")
            if event == "session opened":
                self.bots.add(entry["bot"])
            elif event == "match started":
                self.started += 1
            elif event == "match over":
                self.over += 1
            elif (
                event in ("fault", "refused", "no hello")
                or (event == "session closed" and entry.get("why") != SHUTDOWN)
                or entry.get("level") == "error"
            ):
                when = datetime.fromisoformat(entry["time"]).timestamp() - self.offset
                what = entry.get("reason") or entry.get("why") or entry.get("event")
                self.faults.append((when, f"{event}: {what} {entry.get('detail', '')}".strip()))

    @property
    def in_play(self) -> int:
        return self.started - self.over


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time of `pid`, every thread's."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Step:
    """One step of the ramp, as measured."""

    target: int
    ramp_began: float = 0.0
    ramp_seconds: float = 0.0
    held_from: float = 0.0
    held_to: float = 0.0
    in_play: list[int] = field(default_factory=list)
    referee_cpu: float = 0.0
    clients_cpu: float = 0.0
    rss: list[float] = field(default_factory=list)
    files: int = 0
    load: float = 0.0


def start_referee(
    contest: Path, log: Path, pauses: Path | None, open_files: int | None
) -> tuple[subprocess.Popen[bytes], str]:
    """`croupier serve CONTEST`, its log to `log`; with `pauses`, run so that each of its garbage
    collections' pauses is noted there (`noting_collections`); with `open_files`, under that
    soft limit of open files (RLIMIT_NOFILE), as many systems set it (1024)."""

    def limited() -> None:
        if open_files is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, hard))

    command = [CROUPIER] if pauses is None else [PYTHON, __file__, "--gc-log", str(pauses), "--"]
    with log.open("wb") as err:
        serve = subprocess.Popen(
            [*command, "serve", str(contest)],
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            cwd=contest.parent,
            preexec_fn=limited,
        )
    assert serve.stdout is not None
    line = b""
    while b"127.0.0.1:" not in line:  # serve says its seed's commitment first
        line = serve.stdout.readline()
        if not line:
            raise SystemExit(f"the referee stopped before it listened: see {log}")
    port = int(line.split(b"127.0.0.1:")[1].split()[0])
    # Its stdout says each match's result: read it away, or a full pipe would stall it.
    threading.Thread(target=serve.stdout.read, daemon=True).start()
    return serve, f"127.0.0.1:{port}"


def ended(process: subprocess.Popen[Any], grace: float = 60) -> None:
    """Wait for `process`, asked to stop, to end; past `grace` seconds, kill it."""
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def ramp(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="serve-capacity-"))
    contest, tokens = contest_file(folder, args)
    pauses = folder / "gc.log" if args.gc else None
    serve, address = start_referee(contest, folder / "serve.log", pauses, args.open_files)
    serve_log = ServeLog(folder / "serve.log")
    clients: list[subprocess.Popen[str]] = []
    steps: list[Step] = []
    try:
        time.sleep(1.0)
        idle_rss = rss_mb(serve.pid)
        for index in range(args.clients):
            mine = tokens[index :: args.clients]
            process = subprocess.Popen(
                [PYTHON, __file__, "--client"],
                stdin=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            assert process.stdin is not None
            config = {
                "address": address,
                "tokens": mine,
                "think": args.think,
                "jitter": args.jitter,
                "out": str(folder / f"client-{index}.json"),
            }
            process.stdin.write(json.dumps(config) + "\n")
            process.stdin.flush()
            clients.append(process)
        # One session per account first, and only then the ramp: a bot that arrives after the
        # others have seated many tables is held to their pace (referee.contest.pairing).
        for index, process in enumerate(clients):
            assert process.stdin is not None
            process.stdin.write(f"{len(tokens[index :: args.clients])}\n")
            process.stdin.flush()
        began = time.monotonic()
        while len(serve_log.bots) < len(tokens) and time.monotonic() - began < 30:
            time.sleep(0.1)
            serve_log.read()
        print(
            f"referee pid {serve.pid} on {address}, idle RSS {idle_rss:.0f} MB; "
            f"{args.clients} client processes, {args.accounts} accounts; think {args.think:g} "
            f"± {args.jitter:g} s, move_ms {args.move_ms}, bank_ms {args.bank_ms}; folder {folder}",
            flush=True,
        )
        for target in args.steps:
            steps.append(hold(target, args, serve, clients, serve_log))
    finally:
        # The referee first: it drains (2 s) and says Goodbye, so no seat faults as its bot
        # leaves; then each client writes what it noted.
        serve.send_signal(signal.SIGTERM)
        ended(serve)
        for process in clients:
            with contextlib.suppress(BrokenPipeError):
                assert process.stdin is not None
                process.stdin.write("stop\n")
                process.stdin.close()
        for process in clients:
            ended(process)
    serve_log.read()
    report(steps, folder, serve_log, idle_rss, args)
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)


def hold(
    target: int,
    args: argparse.Namespace,
    serve: subprocess.Popen[bytes],
    clients: list[subprocess.Popen[str]],
    serve_log: ServeLog,
) -> Step:
    """Open sessions for `target` matches, wait for their tables, then hold them."""
    step = Step(target, ramp_began=time.monotonic())
    sessions = 2 * target
    for index, process in enumerate(clients):
        share = sessions // len(clients) + (index < sessions % len(clients))
        assert process.stdin is not None
        process.stdin.write(f"{share}\n")
        process.stdin.flush()
    while time.monotonic() - step.ramp_began < RAMP_SECONDS:
        serve_log.read()
        if serve_log.in_play >= HELD_SHARE * target or serve.poll() is not None:
            break
        time.sleep(0.2)
    step.held_from = time.monotonic()
    step.ramp_seconds = step.held_from - step.ramp_began
    referee_cpu = cpu_seconds(serve.pid)
    clients_cpu = sum(cpu_seconds(p.pid) for p in clients)
    while time.monotonic() - step.held_from < args.hold and serve.poll() is None:
        time.sleep(1.0)
        serve_log.read()
        step.in_play.append(serve_log.in_play)
        step.rss.append(rss_mb(serve.pid))
        step.files = max(step.files, open_files(serve.pid))
    step.held_to = time.monotonic()
    seconds = step.held_to - step.held_from
    step.referee_cpu = (cpu_seconds(serve.pid) - referee_cpu) / seconds
    step.clients_cpu = (sum(cpu_seconds(p.pid) for p in clients) - clients_cpu) / seconds
    step.load = os.getloadavg()[0]
    faults = sum(step.ramp_began <= when <= step.held_to for when, _ in serve_log.faults)
    print(
        f"  {target} matches: seated in {step.ramp_seconds:.1f} s, in play "
        f"{min(step.in_play, default=0)}-{max(step.in_play, default=0)}, referee CPU "
        f"{step.referee_cpu:.0%}, RSS {max(step.rss, default=0):.0f} MB, faults {faults}, "
        f"load average {step.load:.2f}",
        flush=True,
    )
    return step


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of sorted `values` (0 when empty)."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, round(share * len(values)) - 1))]


def report(
    steps: list[Step], folder: Path, serve_log: ServeLog, idle_rss: float, args: argparse.Namespace
) -> None:
    # Each match's decisions, from both seats' clients, in the order the referee asked.
    decisions: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    errors: list[tuple[float, str]] = []
    for path in sorted(folder.glob("client-*.json")):
        noted = json.loads(path.read_text())
        for match, request, seen, replied in noted["notes"]:
            decisions[match].append((request, seen, replied))
        errors += [(when, text) for when, text in noted["errors"]]
    replies: list[float] = []
    turnarounds: list[tuple[float, float]] = []  # (when the request came, seconds since reply)
    for noted in decisions.values():
        noted.sort()
        replies += [replied for _, _, replied in noted]
        for (_, _, replied), (_, seen, _) in itertools.pairwise(noted):
            turnarounds.append((seen, seen - replied))
    faults = serve_log.faults + errors
    collections = None
    if (folder / "gc.log").is_file():
        collections = [
            (float(when), int(generation), float(pause))
            for when, generation, pause, _ in map(
                str.split, (folder / "gc.log").read_text().splitlines()
            )
        ]
    print()
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores: {os.cpu_count()})"
    )
    print(
        f"{'matches':>7} {'in play':>11} {'ramp s':>6} {'dec/s':>6} {'faults':>6} "
        f"{'ref CPU':>7} {'RSS MB':>6} {'MB/match':>8} {'files':>5} {'bots CPU':>8} "
        f"{'p50 ms':>6} {'p90 ms':>6} {'p99 ms':>6} {'max ms':>6} {'load':>5}"
    )
    largest = 0
    for step in steps:
        seconds = step.held_to - step.held_from
        made = sum(step.held_from <= r < step.held_to for r in replies)
        latencies = sorted(
            1000 * lag for when, lag in turnarounds if step.held_from <= when < step.held_to
        )
        counted = [text for when, text in faults if step.ramp_began <= when <= step.held_to]
        mean = sum(step.in_play) / len(step.in_play) if step.in_play else 0.0
        rss = max(step.rss, default=0.0)
        per_match = (rss - idle_rss) / mean if mean else 0.0
        held = mean >= HELD_SHARE * step.target and not counted
        if held:
            largest = max(largest, step.target)
        print(
            f"{step.target:>7} {mean:>6.0f} ({min(step.in_play, default=0):>3}) "
            f"{step.ramp_seconds:>6.1f} {made / seconds:>6.0f} {len(counted):>6} "
            f"{step.referee_cpu:>7.0%} {rss:>6.0f} {per_match:>8.2f} {step.files:>5} "
            f"{step.clients_cpu:>8.0%} {percentile(latencies, 0.5):>6.1f} "
            f"{percentile(latencies, 0.9):>6.1f} {percentile(latencies, 0.99):>6.1f} "
            f"{max(latencies, default=0.0):>6.1f} {step.load:>5.2f}"
        )
        for text, count in Counter(counted).most_common(5):
            print(f"        {count} x {text}")
        if collections is not None:
            held_gcs = [
                (generation, pause)
                for when, generation, pause in collections
                if step.held_from <= when < step.held_to
            ]
            print(
                f"        garbage collections of 1 ms or more: {len(held_gcs)} "
                f"({sum(g == 2 for g, _ in held_gcs)} of generation 2), longest "
                f"{1000 * max((p for _, p in held_gcs), default=0):.0f} ms, "
                f"{1000 * sum(p for _, p in held_gcs) / seconds:.0f} ms a second"
            )
    lags = referee_lags(folder / "records")
    print(
        f"referee's own lag (records' lagMs), {len(lags)} decisions: p50 "
        f"{percentile(lags, 0.5):.0f} ms, p99 {percentile(lags, 0.99):.0f} ms, max "
        f"{max(lags, default=0):.0f} ms"
    )
    print(f"largest count held with 0 harness faults: {largest}")


def referee_lags(records: Path) -> list[float]:
    """Every decision's `lagMs` in the records (0 where the line leaves it out), sorted."""
    lags = []
    for path in records.glob("*.jsonl"):
        with path.open() as lines:
            for line in lines:
                if line.startswith('{"action"'):
                    lags.append(float(json.loads(line)["action"].get("lagMs", 0)))
    return sorted(lags)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[100, 250, 500, 1000],
        help="matches at once, step by step",
    )
    parser.add_argument("--hold", type=float, default=20.0, help="seconds each step is held")
    parser.add_argument("--think", type=float, default=1.0, help="bots' thinking, seconds")
    parser.add_argument("--jitter", type=float, default=0.2, help="± this, uniform")
    parser.add_argument("--move-ms", type=int, default=5000)
    parser.add_argument("--bank-ms", type=int, default=0)
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument("--accounts", type=int, default=8, help="bot accounts (tokens)")
    parser.add_argument("--max-lead", type=int, default=2, help="the contest's max_lead")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10 matches, 3 s")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--gc", action="store_true", help="note the referee's garbage collection pauses"
    )
    parser.add_argument(
        "--open-files", type=int, help="the referee's soft limit of open files (default: ours)"
    )
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    if sys.argv[1:2] == ["--gc-log"]:  # the referee, run by the bench with --gc
        noting_collections(Path(sys.argv[2]), sys.argv[4:])
        return
    args = parser.parse_args()
    if args.client:
        asyncio.run(client(json.loads(sys.stdin.readline())))
        return
    if args.quick:
        args.steps, args.hold, args.think, args.jitter = [10], 3.0, 0.1, 0.05
        args.clients, args.accounts, args.move_ms = 2, 2, 2000
    args.accounts = max(args.accounts, args.clients)
    ramp(args)


if __name__ == "__main__":
    main()
