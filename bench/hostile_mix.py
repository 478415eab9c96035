"""Hostile mix (issue 20): `croupier serve --db` with about 100 matches at once, honest bots
beside hostile ones that hold valid tokens, on the default clock (1000 ms a move, 10 s bank).

The hostile kinds: flooders (60 KB messages at 400 a second, never asked for), impostors (their
Hello.name is an honest account's), droppers (drop their connection mid-match), crashers (exit
mid-match; restarted), slow bots (1.5 s a move), garbage senders, streams that never say Hello,
and tests/bots/misbehaving.py's out-of-range, stale, out-of-turn, other-match, huge and
burst-flood modes; for issue 32, bots that reconnect at once, a revoked account's bots coming
back, bots that reply twice, one account playing from two places at once (each reply sent on
both connections) and slowloris connections that never finish the HTTP/2 preface. Prints the
honest bots' faults (target 0), whether every record and the ladder database verify, the most
matches seen at once, and the referee's peak RSS (VmHWM).

With `--move-ms 100 --bank-ms 0` (issue 32) it plays at 100 ms a move with no bank, and with
`--control` it first plays the honest bots alone for the same time, in the same run: the share of
honest decisions that timed out, with and without the hostile bots, is the figure.

Run: .venv/bin/python bench/hostile_mix.py [--seconds 60] [--honest 10] [--sessions 12]
     [--move-ms 100 --bank-ms 0] [--control] [--hostile-nice 19] [--profile FILE]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.v1 import common_pb2, referee_pb2, referee_pb2_grpc
from referee.contest.tokens import TokenStore
from referee.match.records import read_all
from referee.match.replay import verify

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CROUPIER = str(Path(PYTHON).parent / "croupier")
RANDOM = str(ROOT / "examples" / "python" / "random_bot.py")
HOSTILE = str(ROOT / "tests" / "bots" / "hostile.py")
BAD = str(ROOT / "tests" / "bots" / "misbehaving.py")

#: kind: (script, mode, processes, environment). Every process holds one session at a time.
HOSTILE_KINDS: dict[str, tuple[str, str, int, dict[str, str]]] = {
    "flooder": (HOSTILE, "flood", 2, {"HOSTILE_SECONDS": "100000"}),
    "impostor": (HOSTILE, "impostor", 8, {"HOSTILE_NAME": "honest0"}),
    "dropper": (HOSTILE, "drop", 8, {"HOSTILE_SECONDS": "2"}),
    "crasher": (BAD, "exit", 8, {}),
    "slow": (HOSTILE, "slow", 8, {"HOSTILE_SECONDS": "1.5"}),
    "garbage": (HOSTILE, "garbage", 8, {}),
    "nohello": (HOSTILE, "no_hello", 1, {"HOSTILE_STREAMS": "20"}),
    "silent": (HOSTILE, "silent", 1, {"HOSTILE_STREAMS": "20"}),
    "outofrange": (BAD, "out_of_range", 4, {}),
    "stale": (BAD, "stale", 4, {}),
    "outofturn": (BAD, "out_of_turn", 4, {}),
    "othermatch": (BAD, "other_match", 4, {}),
    "huge": (BAD, "huge", 2, {}),
    "burst": (BAD, "flood", 2, {}),
    # Issue 32.1's kinds: bots that reconnect at once mid-match, and a revoked account whose
    # bots keep coming back (the bench restarts each within a second).
    "reconnect": (BAD, "reconnect", 4, {}),
    "revoked": (HOSTILE, "slow", 8, {}),
    "twice": (HOSTILE, "twice", 4, {}),
    "twoplaces": (HOSTILE, "two_places", 4, {}),
    "slowloris": (HOSTILE, "slowloris", 2, {"HOSTILE_STREAMS": "50", "HOSTILE_SECONDS": "1"}),
}
#: Kinds whose account is revoked before the bots start.
REVOKED = {"revoked"}


def status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to play")
    parser.add_argument("--honest", type=int, default=10, help="honest accounts")
    parser.add_argument("--sessions", type=int, default=12, help="sessions per honest account")
    parser.add_argument("--move-ms", type=int, default=1000, help="time per decision")
    parser.add_argument("--bank-ms", type=int, default=10_000, help="time bank")
    parser.add_argument(
        "--control", action="store_true", help="first the honest bots alone, as a control"
    )
    parser.add_argument("--profile", type=Path, help="cProfile the referee into this file")
    parser.add_argument(
        "--hostile-nice",
        type=int,
        default=0,
        help="niceness of the hostile bots (19: they take no CPU from honest bots, so that what "
        "honest bots lose is lost in the referee)",
    )
    args = parser.parse_args()
    if args.control:
        play(args, hostile=False)
    play(args, hostile=True)


def play(args: argparse.Namespace, *, hostile: bool) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hostile-mix-"))
    store = TokenStore(folder / "contest.db")
    honest = {f"honest{i}": store.add(f"honest{i}") for i in range(args.honest)}
    tokens = {kind: store.add(kind) for kind in HOSTILE_KINDS}
    for kind in REVOKED:
        store.revoke(kind)
    referee = [PYTHON, "-m", "cProfile", "-o", str(args.profile)] if args.profile else [CROUPIER]
    if args.profile:
        referee.append(str(ROOT / "referee" / "cli" / "__main__.py"))
    command = [*referee, "serve", "--port", "0", "--db", str(folder / "contest.db")]
    command += ["--move-ms", str(args.move_ms), "--bank-ms", str(args.bank_ms)]
    command += ["--records", str(folder / "records"), "--log-json", "--drain-seconds", "20"]
    command += ["--max-sessions-per-token", str(max(32, args.sessions))]
    with (folder / "serve.log").open("wb") as log:
        serve = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, cwd=ROOT)
    assert serve.stdout is not None
    line = b""
    while b"127.0.0.1:" not in line:  # serve says its seed's commitment first
        line = serve.stdout.readline()
        assert line, "the referee stopped before it listened"
    port = int(line.split(b"127.0.0.1:")[1].split()[0])
    base = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
    quiet = subprocess.DEVNULL

    def launch(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(argv, env=base | env, stdout=quiet, stderr=quiet)

    honest_bots = [
        launch([PYTHON, RANDOM], {"CROUPIER_TOKEN": token, "CROUPIER_SESSIONS": str(args.sessions)})
        for token in honest.values()
    ]
    hostile_bots: list[tuple[list[str], dict[str, str], subprocess.Popen[bytes]]] = []
    for kind, (script, mode, count, extra) in HOSTILE_KINDS.items() if hostile else ():
        for _ in range(count):
            argv = ["nice", "-n", str(args.hostile_nice), PYTHON, script, mode]
            env = {"CROUPIER_TOKEN": tokens[kind], **extra}
            hostile_bots.append((argv, env, launch(argv, env)))
    started = time.monotonic()
    most = 0
    restarts = 0
    serving_checks = Counter[str]()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = referee_pb2_grpc.RefereeStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        serving = health_pb2.HealthCheckResponse.SERVING
        while time.monotonic() - started < args.seconds:
            time.sleep(1.0)
            most = max(most, len(stub.ListMatches(referee_pb2.ListMatchesRequest()).matches))
            answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
            serving_checks["SERVING" if answer.status == serving else "other"] += 1
            for index, (argv, env, process) in enumerate(hostile_bots):
                if process.poll() is not None:  # crashers, droppers: back they come
                    hostile_bots[index] = (argv, env, launch(argv, env))
                    restarts += 1
    peak_before_drain = status(serve.pid, "VmHWM")
    serve.send_signal(signal.SIGTERM)
    peak = peak_before_drain
    while serve.poll() is None:
        peak = max(peak, status(serve.pid, "VmHWM"))
        time.sleep(0.2)
    serve.stdout.close()
    for _, _, process in hostile_bots:
        process.kill()
        process.wait()
    for process in honest_bots:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    report(
        folder, set(honest), most, peak, restarts, serving_checks, serve.returncode, args, hostile
    )


def report(
    folder: Path,
    honest: set[str],
    most: int,
    peak_kb: int,
    restarts: int,
    checks: Counter[str],
    code: int | None,
    args: argparse.Namespace,
    hostile: bool,
) -> None:
    records = sorted((folder / "records").glob("*.jsonl"))
    honest_faults: Counter[str] = Counter()
    honest_timeouts = honest_decisions = 0
    hostile_faults: Counter[str] = Counter()
    verified = 0
    for path in records:
        lines, _ = read_all(path, strict=True)
        names = [seat.name for seat in lines[0].header.seats]
        for line in lines:
            kind = line.WhichOneof("line")
            if kind == "action" and names[line.action.seat].split(" (")[0] in honest:
                honest_decisions += 1
            if kind == "fault":
                name = names[line.fault.fault.seat]
                account = name.split(" (")[0]
                (honest_faults if account in honest else hostile_faults)[account] += 1
                timeout = line.fault.fault.reason == common_pb2.FAULT_REASON_TIMEOUT
                honest_timeouts += timeout and account in honest
        verified += verify(path).ok
    ladder = subprocess.run(
        [CROUPIER, "ladder", "verify", str(folder / "contest.db")],
        capture_output=True,
        text=True,
    )
    title = "hostile mix" if hostile else "control, honest bots only"
    print(f"{title}: {args.seconds:g} s, {len(honest)} honest accounts x {args.sessions}")
    if hostile:
        print(f"  sessions, {sum(n for *_, n, _ in HOSTILE_KINDS.values())} hostile processes")
        print(f"  ({len(HOSTILE_KINDS)} kinds, {restarts} restarts)")
    print(f"  clock: {args.move_ms} ms a move, {args.bank_ms} ms bank; hostile bots at nice")
    print(f"  {args.hostile_nice}; folder {folder}")
    print(f"load average:              {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    share = honest_timeouts / honest_decisions if honest_decisions else 0.0
    print(
        f"honest timeouts:           {honest_timeouts} of {honest_decisions} decisions "
        f"({share:.2%})"
    )
    print(f"most matches at once:      {most}")
    print(f"records:                   {len(records)}, {verified} verify")
    print(f"ladder verify:             exit {ladder.returncode}: {ladder.stdout.strip()}")
    print(f"honest bots' faults:       {sum(honest_faults.values())} {dict(honest_faults)}")
    print(f"hostile bots' faults:      {sum(hostile_faults.values())}")
    print(f"health checks:             {dict(checks)}")
    print(f"referee exit code:         {code}")
    print(f"referee peak RSS (VmHWM):  {peak_kb / 1024:.0f} MB")


if __name__ == "__main__":
    main()
