"""Hosted bots at contest speed (issue 27): what a contest of uploaded example bots plays, and
how it compares with a ladder of the very same built bots.

A real contest of XIX in a temporary folder: `croupier serve --db --runtime DIR --records`
(the runtime folder holding the checkout's proto/ and sdk/node, readable by others), eight
example bots uploaded with `croupier submit --wait`, all at once (Python random and
xix_heuristic, Node random and xix_cheap_winner, the C++ and Go bots, the Java random bot when
its tools are here, else a second Python random bot, and a second Python xix_heuristic: each an
account of its own), and two network bots (examples/python/random_bot.py, run by the bench with
their accounts' tokens). An example whose tools are missing is left out, saying so.

The uploads are built and qualified by a first run of the referee (the qualified versions play
one another meanwhile: that setup run is reported apart); it is then stopped, and a second run
on the same database, `--matches` the total so far plus N, is the one measured: its wall time
runs from its start to its N-th committed match (bot launches included). Then `croupier ladder
verify` checks every record of the database. Printed: matches, decisions, the faults of these
honest bots by reason and bot (each one is a finding), whether every record verified, the wall
time, decisions/s, the cores and the load average.

With --compare-ladder, the same built bots (each version's built folder and run command, in
the sandbox, persistent, not pondering, one match at a time per slot of cores as the contest's
hosted slots) and the two network bots' command play a round-robin `croupier ladder run` of
about N matches (whole rounds of its pairings), timed the same way; printed: the contest's
decisions/s over the ladder's, same run.

With --compare-cluster, the hosted versions alone (no network bots), in two final rounds of the
contest (`croupier contest final`: the same built versions), play N matches in this machine's
hosted slots, then N with `serve --cluster` on `croupier cluster local --workers 2` (one thread
each), same run: printed, each run's matches/s and decisions/s and their ratio.
Then a 50 MB version (the Python example and 50 MB of random bytes) is packed, then shipped to
each worker and cached there: printed, the time of each.

Run: .venv/bin/python bench/hosted_contest.py [--matches 1000] [--compare-ladder]
     [--compare-cluster] [--keep]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from referee.contest.slots import default_count
from referee.contest.tokens import TokenStore
from referee.hosted.manifest import load_manifest
from referee.hosted.pipeline import VersionFiles
from referee.hosted.store import SHORT_ID, read_listing
from referee.local.limits import Limits

ROOT = Path(__file__).resolve().parent.parent
CROUPIER = Path(sys.executable).parent / "croupier"
#: A clean C++ or Java gRPC build at nice 19 on a busy machine takes minutes.
SUBMIT_SECONDS = 1200
#: A run that commits no match for this long is stuck: the bench stops, pointing at its logs.
STALL_SECONDS = 120
#: XIX seats two: the contest's default hosted slots give each seat a core.
SEATS = 2
NETWORK = ("net-1", "net-2")


@dataclass(frozen=True)
class Example:
    """An example bot as one account uploads it."""

    account: str
    #: Its folder under examples/.
    folder: str
    #: Programs it needs on PATH (to build, or to run), and pkg-config libraries.
    tools: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()
    #: Its XIX bot's run command, with `games = ["xix"]`, as its manifest's comment says.
    run: str | None = None
    #: A manifest name of its own: a second account's copy is then a version of its own.
    name: str | None = None


CPP = ("make", "pkg-config", "protoc", "grpc_cpp_plugin", "g++")
GO = ("make", "protoc", "go", "protoc-gen-go", "protoc-gen-go-grpc")
JAVA = ("make", "protoc", "javac", "jar", "java", "grpc_java_plugin")
HEURISTIC = "{python} xix_heuristic.py"
EXAMPLES = (
    Example("py-random", "python"),
    Example("py-heuristic", "python", run=HEURISTIC),
    Example("node-random", "node", ("node",)),
    Example("node-cheap-winner", "node", ("node",), run="node xix_cheap_winner.js"),
    Example("cpp", "cpp", CPP, ("grpc++",)),
    Example("go", "go", GO),
)
JAVA_RANDOM = Example("java-random", "java", JAVA)
#: In the Java bot's place where its tools are missing.
PY_RANDOM_2 = Example("py-random-2", "python", name="random-2")
PY_HEURISTIC_2 = Example("py-heuristic-2", "python", run=HEURISTIC, name="heuristic-2")


def missing(example: Example) -> list[str]:
    """What `example` needs and this machine lacks."""
    lacking = [tool for tool in example.tools if shutil.which(tool) is None]
    for library in example.libraries:
        if (
            shutil.which("pkg-config")
            and subprocess.run(["pkg-config", "--exists", library]).returncode
        ):
            lacking.append(f"{library} (pkg-config)")
    if example.folder == "node" and not (ROOT / "sdk/node/node_modules/@grpc/grpc-js").is_dir():
        lacking.append("the Node SDK's dependencies (make node-deps)")
    return lacking


def field(examples: Sequence[Example]) -> list[Example]:
    """The examples this machine can build and run, saying which it leaves out and why."""
    chosen = []
    for example in examples:
        if lacking := missing(example):
            print(f"  left out {example.account}: {', '.join(lacking)} not found")
        else:
            chosen.append(example)
    return chosen


class Children:
    """Every process the bench started, each in a session of its own (a Ctrl-C reaches the
    bench alone), stopped by `stop_all` however the bench ends."""

    def __init__(self) -> None:
        #: Each running process and the signal that asks it to stop.
        self.running: dict[subprocess.Popen[bytes], signal.Signals] = {}

    def start(
        self,
        argv: Sequence[str | Path],
        log: Path,
        *,
        stop_with: signal.Signals = signal.SIGTERM,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.Popen[bytes]:
        """`argv` started, its output going to `log`."""
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(word) for word in argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        self.running[process] = stop_with
        return process

    def stop(self, process: subprocess.Popen[bytes], grace: float = 45) -> None:
        """Ask `process` to stop (a referee drains its matches), then kill it after `grace`."""
        asking = self.running.pop(process, signal.SIGTERM)
        if process.poll() is None:
            process.send_signal(asking)
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop_all(self) -> None:
        for process in reversed(list(self.running)):
            self.stop(process)


def uploaded(example: Example, into: Path) -> Path:
    """The example's folder as its author uploads it, its manifest edited as it says."""
    folder = into / example.account
    ignore = shutil.ignore_patterns("build", "__pycache__", "node_modules")
    shutil.copytree(ROOT / "examples" / example.folder, folder, ignore=ignore)
    manifest = (folder / "bot.toml").read_text()
    if example.run is not None:
        manifest = re.sub(r"(?m)^games = .*$", 'games = ["xix"]', manifest)
        manifest = re.sub(r"(?m)^run = .*$", f'run = "{example.run}"', manifest)
    if example.name is not None:
        manifest = re.sub(r"(?m)^name = .*$", f'name = "{example.name}"', manifest)
    (folder / "bot.toml").write_text(manifest)
    return folder


def runtime_folder(into: Path) -> Path:
    """The organiser's runtime folder: the protos and the Node SDK, readable by others (the
    builds and the bots run as users of their own)."""
    runtime = into / "runtime"
    shutil.copytree(ROOT / "proto", runtime / "proto")
    if (ROOT / "sdk" / "node").is_dir():
        shutil.copytree(ROOT / "sdk" / "node", runtime / "sdk" / "node")
    for folder, _, files in os.walk(runtime):
        os.chmod(folder, os.stat(folder).st_mode | 0o005)
        for name in files:
            path = os.path.join(folder, name)
            os.chmod(path, os.stat(path).st_mode | 0o004)
    return runtime


def committed(database: Path, query: str = "SELECT count(*) FROM matches") -> int:
    """Matches committed in a ladder or contest database (or what `query` counts), read-only:
    the referee writes."""
    if not database.is_file():
        return 0
    db = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        db.execute("PRAGMA busy_timeout=10000")
        try:
            return int(db.execute(query).fetchone()[0] or 0)
        except sqlite3.OperationalError:  # not created yet
            return 0
    finally:
        db.close()


def wait_for_matches(
    database: Path, target: int, process: subprocess.Popen[bytes], log: Path
) -> float:
    """Until `target` matches are committed in `database`: the time.monotonic() it saw them.
    Raises SystemExit when `process` ends first or no match comes for STALL_SECONDS."""
    last, since = -1, time.monotonic()
    while (count := committed(database)) < target:
        if count != last:
            last, since = count, time.monotonic()
        if process.poll() is not None and committed(database) < target:
            raise SystemExit(
                f"{log.name}: stopped (exit {process.returncode}) at {count} of "
                f"{target} matches; its output: {log}"
            )
        if time.monotonic() - since > STALL_SECONDS:
            raise SystemExit(
                f"no match committed for {STALL_SECONDS} s at {count} of {target}: see {log}"
            )
        time.sleep(0.1)
    return time.monotonic()


def listening(log: Path, process: subprocess.Popen[bytes]) -> str:
    """The referee's address, once its log says it listens."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"croupier referee for \S+ on (\S+):(\d+)", log.read_text())
        if found:
            return f"127.0.0.1:{found.group(2)}"
        if process.poll() is not None:
            raise SystemExit(f"the referee stopped before it listened: {log.read_text()}")
        time.sleep(0.1)
    raise SystemExit(f"the referee did not listen within 120 s: see {log}")


@dataclass(frozen=True)
class Played:
    """Matches of a database after a given number: their count, decisions and faults."""

    matches: int
    decisions: int
    #: (reason, bot) -> faults.
    faults: Counter[tuple[str, str]]


def played(database: Path, after: int = 0) -> Played:
    """What the matches of `database` numbered after `after` hold: decisions from their
    records, faults from the database."""
    db = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT record FROM matches WHERE number > ?", (after,)).fetchall()
        faults = db.execute(
            "SELECT reason, bot, count(*) FROM faults WHERE number > ? GROUP BY reason, bot",
            (after,),
        ).fetchall()
    finally:
        db.close()
    decisions = 0
    for (record,) in rows:
        path = Path(record) if Path(record).is_absolute() else database.parent / record
        with path.open() as lines:
            decisions += sum("action" in json.loads(line) for line in lines)
    return Played(len(rows), decisions, Counter({(r, b): n for r, b, n in faults}))


def faults_line(faults: Counter[tuple[str, str]]) -> str:
    if not faults:
        return "0"
    shown = ", ".join(f"{reason} {bot} x{n}" for (reason, bot), n in sorted(faults.items()))
    return f"{sum(faults.values())} ({shown})"


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f}"


@dataclass(frozen=True)
class Hosted:
    """A qualified hosted version: its account and where and how it runs."""

    account: str
    entrant: str
    folder: Path
    run: str


def serve_command(db: Path, runtime: Path, records: Path, move_ms: int) -> list[str | Path]:
    options = f"--game xix --port 0 --move-ms {move_ms} --drain-seconds 10"
    return [
        CROUPIER,
        "serve",
        "--db",
        db,
        "--runtime",
        runtime,
        "--records",
        records,
        *options.split(),
    ]


def submit_all(
    children: Children, examples: Sequence[Example], folder: Path, tokens: dict[str, str]
) -> list[Hosted]:
    """A first run of the referee, to which every example is submitted at once: the qualified
    versions, once every submission is done (a failed one is left out, saying so)."""
    db, records = folder / "contest.db", folder / "records"
    serve_log = folder / "serve-setup.log"
    serve = children.start(
        serve_command(db, folder.parent / "runtime", records, 1000), serve_log, cwd=folder
    )
    address = listening(serve_log, serve)
    uploads = folder.parent / "uploads"
    submitting = {
        example.account: children.start(
            [
                CROUPIER,
                "submit",
                uploaded(example, uploads),
                "--to",
                address,
                "--token",
                tokens[example.account],
                "--wait",
            ],
            folder.parent / f"submit-{example.account}.log",
        )
        for example in examples
    }
    began = time.monotonic()
    for account, process in submitting.items():
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(1, SUBMIT_SECONDS - (time.monotonic() - began)))
        children.stop(process)
        said = (folder.parent / f"submit-{account}.log").read_text().strip().splitlines()
        if process.returncode != 0:
            print(f"  left out {account}: its submission failed (exit {process.returncode}):")
            print("\n".join(f"    {line}" for line in said[-10:]))
    print(f"  built and qualified in {time.monotonic() - began:.0f} s")
    children.stop(serve)
    return qualified(folder / "versions")


def qualified(store: Path) -> list[Hosted]:
    """The store's active versions."""
    listing = read_listing(store)
    hosted = []
    for version in listing.versions:
        if version.id in listing.active:
            files = VersionFiles(store / "versions" / version.id)
            manifest = load_manifest(files.src, Limits())
            hosted.append(
                Hosted(
                    version.account,
                    f"{version.account}@{version.id[:SHORT_ID]}",
                    files.run_folder(manifest),
                    manifest.run,
                )
            )
    return hosted


def contest(
    children: Children,
    folder: Path,
    tokens: dict[str, str],
    matches: int,
    move_ms: int,
    *extra: str,
    run: str = "serve",
) -> tuple[Played, float, int]:
    """A measured run, `extra` added to its serve command: what its matches played, its wall
    time, and the matches before it. With no tokens, the hosted versions play alone."""
    db, records = folder / "contest.db", folder / "records"
    before = committed(db)
    # A match the setup run's stop cut short keeps its number: the measured ones come after.
    last_number = committed(db, "SELECT max(number) FROM schedule")
    serve_log = folder / f"{run}.log"
    command = [*serve_command(db, folder.parent / "runtime", records, move_ms), *extra]
    began = time.monotonic()
    serve = children.start([*command, "--matches", str(before + matches)], serve_log, cwd=folder)
    address = listening(serve_log, serve)
    bots = [
        children.start(
            [sys.executable, ROOT / "examples" / "python" / "random_bot.py"],
            folder.parent / f"{account}.log",
            env=os.environ | {"CROUPIER_ADDRESS": address, "CROUPIER_TOKEN": tokens[account]},
        )
        for account in NETWORK
        if account in tokens
    ]
    ended = wait_for_matches(db, before + matches, serve, serve_log)
    with contextlib.suppress(subprocess.TimeoutExpired):
        serve.wait(timeout=60)  # it ends once its matches are played, revealing its seed
    children.stop(serve)
    if serve.returncode != 0:
        raise SystemExit(f"the referee exited {serve.returncode}: see {serve_log}")
    for bot in bots:
        children.stop(bot, grace=5)
    return played(db, last_number), ended - began, before


def ladder_text(hosted: Sequence[Hosted], per_pairing: int, move_ms: int, slots: int) -> str:
    """A round-robin of the hosted versions and the network bots' command, as the contest
    plays them: in the sandbox, persistent, not pondering, each slot on its cores."""
    cpus = sorted(os.sched_getaffinity(0))
    cores = [
        [cpus[(slot * SEATS + seat) % len(cpus)] for seat in range(SEATS)] for slot in range(slots)
    ]
    lines = [
        'game = "xix"',
        'format = "round-robin"',
        f"matches_per_pairing = {per_pairing}",
        "duplicate = false",
        f"concurrency = {slots}",
        f"cpus = {json.dumps(cores)}",
        "ponder = false",
        "sandbox = true",
        'database = "ladder.sqlite"',
        'records = "records"',
        "[time_control]",
        f"move_ms = {move_ms}",
    ]
    # The Node examples find the SDK through CROUPIER_RUNTIME, as uploaded: here, the
    # checkout's sdk/, which the sandbox shows a `node` command.
    node_runtime = f"env = {{ CROUPIER_RUNTIME = {json.dumps(str(ROOT))} }}"
    for bot in hosted:
        lines += [
            "[[bot]]",
            f"name = {json.dumps(bot.account)}",
            f"command = {json.dumps(bot.run)}",
            f"cwd = {json.dumps(str(bot.folder))}",
        ]
        if bot.run.startswith("node "):
            lines.append(node_runtime)
    for account in NETWORK:
        lines += [
            "[[bot]]",
            f"name = {json.dumps(account)}",
            'command = "{python} random_bot.py"',
            f"cwd = {json.dumps(str(ROOT / 'examples' / 'python'))}",
        ]
    return "\n".join(lines) + "\n"


def ladder(
    children: Children, folder: Path, hosted: Sequence[Hosted], matches: int, move_ms: int
) -> tuple[Played, float]:
    """The same bots in a `croupier ladder run`: what it played and its wall time."""
    folder.mkdir()
    slots = default_count(SEATS, sorted(os.sched_getaffinity(0)))
    competitors = len(hosted) + len(NETWORK)
    pairings = competitors * (competitors - 1) // 2
    per_pairing = max(1, math.ceil(matches / pairings))  # whole rounds: about `matches`
    file = folder / "ladder.toml"
    file.write_text(ladder_text(hosted, per_pairing, move_ms, slots))
    log = folder / "ladder.log"
    began = time.monotonic()
    run = children.start(
        [CROUPIER, "ladder", "run", file, "--no-live"], log, stop_with=signal.SIGINT, cwd=folder
    )
    ended = wait_for_matches(folder / "ladder.sqlite", per_pairing * pairings, run, log)
    with contextlib.suppress(subprocess.TimeoutExpired):
        run.wait(timeout=60)  # it ends once its matches are played, revealing its seed
    children.stop(run)
    if run.returncode != 0:
        raise SystemExit(f"the ladder exited {run.returncode}: {log.read_text()[-3000:]}")
    return played(folder / "ladder.sqlite"), ended - began


def verified(db: Path) -> tuple[bool, str]:
    """`croupier ladder verify` on the database: whether every record checks out, and what it
    said."""
    done = subprocess.run([CROUPIER, "ladder", "verify", str(db)], capture_output=True, text=True)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def interrupted(signum: int, frame: FrameType | None) -> None:
    """A SIGTERM ends the bench as a Ctrl-C does: every child stopped, the folder removed."""
    raise KeyboardInterrupt


def removed(folder: Path) -> list[str]:
    """Remove `folder`; what could not be removed."""
    failures: list[str] = []
    shutil.rmtree(folder, onerror=lambda _f, path, _e: failures.append(path))
    return failures


def local_cluster(children: Children, top: Path) -> str:
    """`croupier cluster local --workers 2` on free ports: its scheduler's address."""
    log = top / "cluster.log"
    process = children.start(
        [CROUPIER, "cluster", "local", "--workers", "2", "--port", "0", "--dashboard-port", "0"],
        log,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if found := re.search(r"^(tcp://\S+)$", log.read_text(), re.MULTILINE):
            return found.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f"croupier cluster local did not start: see {log}")


def compare_cluster(
    children: Children, top: Path, folder: Path, matches: int, move_ms: int
) -> None:
    """The hosted versions alone, `matches` in this machine's slots then as many on a local
    Dask cluster of two workers, same run, each in a final round of the contest (the same
    built versions, fresh ratings); then the time to ship and cache a 50 MB version."""
    address = local_cluster(children, top)
    here, there = final(folder, top / "here"), final(folder, top / "there")
    local, local_seconds, _ = contest(children, here, {}, matches, move_ms, run="serve-local")
    cores = len(os.sched_getaffinity(0))
    slots = default_count(SEATS, sorted(os.sched_getaffinity(0)))
    local_rate = report(f"{cores} cores, hosted alone, {slots} slot(s) here", local, local_seconds)
    on_cluster, cluster_seconds, _ = contest(
        children, there, {}, matches, move_ms, "--cluster", address, run="serve-cluster"
    )
    cluster_rate = report("hosted alone, cluster local --workers 2", on_cluster, cluster_seconds)
    print(
        f"hosted matches/s here {local.matches / local_seconds:.2f}, on the cluster "
        f"{on_cluster.matches / cluster_seconds:.2f}; decisions/s cluster / here: "
        f"{cluster_rate / local_rate:.2f}"
    )
    for where in (here, there):
        ok, said = verified(where / "contest.db")
        print(f"    every record of {where.name} verified: {'yes' if ok else 'NO: ' + said}")
    ship_50mb(address, top)


def final(folder: Path, into: Path) -> Path:
    """A fresh contest of the same built versions (`croupier contest final`): the measured
    contest is over, its seed revealed."""
    done = subprocess.run(
        [CROUPIER, "contest", "final", folder / "contest.db", "--into", into / "contest.db"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"croupier contest final: {done.stdout}{done.stderr}")
    return into


def ship_50mb(address: str, top: Path) -> None:
    """A version of 50 MB (the Python example and 50 MB that does not compress) packed, then
    shipped to each worker and cached there, as the contest ships a version."""
    from distributed import Client

    from referee.cluster.versions import cache_version, pack_folder

    connect: Any = Client  # Dask's annotations are partial

    folder = top / "big-version"
    shutil.copytree(ROOT / "examples" / "python", folder)
    (folder / "model.bin").write_bytes(os.urandom(50 * 2**20))
    began = time.monotonic()
    digest, data = pack_folder(folder)
    packed = time.monotonic() - began
    with connect(address, timeout=30) as client:
        times = []
        for worker in sorted(client.scheduler_info()["workers"]):
            began = time.monotonic()
            client.run(cache_version, f"big-{digest[:12]}", digest, data, workers=[worker])
            times.append(time.monotonic() - began)
    shipped = ", ".join(f"{seconds:.2f} s" for seconds in times)
    print(
        f"a {len(data) / 2**20:.1f} MB version: packed in {packed:.2f} s (once), shipped and "
        f"cached on each worker in {shipped} (then never sent again)  {load()}"
    )


def report(label: str, figures: Played, seconds: float) -> float:
    rate = figures.decisions / seconds
    print(
        f"{label}: matches {figures.matches}  decisions {figures.decisions}  "
        f"wall {seconds:.1f} s  decisions/s {rate:,.0f}  {load()}"
    )
    print(f"    honest faults: {faults_line(figures.faults)}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches measured")
    parser.add_argument("--move-ms", type=int, default=1000, help="time per decision")
    parser.add_argument(
        "--compare-ladder", action="store_true", help="also the same bots in a croupier ladder run"
    )
    parser.add_argument(
        "--compare-cluster",
        action="store_true",
        help="also the hosted versions alone here and on croupier cluster local --workers 2",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if not CROUPIER.is_file():
        raise SystemExit(f"no croupier beside {sys.executable}: run with the checkout's .venv")
    if shutil.which("bwrap") is None:
        raise SystemExit(
            "bwrap not found: hosted bots are built and run in bubblewrap (make sandbox-deps)"
        )
    signal.signal(signal.SIGTERM, interrupted)
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores; hosted XIX contest, {args.matches} matches measured")
    examples = field([*EXAMPLES, JAVA_RANDOM])
    if JAVA_RANDOM not in examples:
        print(f"  {PY_RANDOM_2.account} plays in the Java bot's place")
        examples.append(PY_RANDOM_2)
    examples.append(PY_HEURISTIC_2)
    print(f"  hosted: {', '.join(e.account for e in examples)}; network: {', '.join(NETWORK)}")
    top = Path(tempfile.mkdtemp(prefix="croupier-hosted-contest-"))
    children = Children()
    try:
        runtime_folder(top)
        folder = top / "contest"
        folder.mkdir()
        tokens = {
            account: TokenStore(folder / "contest.db").add(account)
            for account in [*(e.account for e in examples), *NETWORK]
        }
        hosted = submit_all(children, examples, folder, tokens)
        setup = played(folder / "contest.db")
        print(
            f"  setup run (not measured): matches {setup.matches}, "
            f"honest faults {faults_line(setup.faults)}"
        )
        print(f"  qualified: {', '.join(h.entrant for h in hosted)}")
        figures, seconds, before = contest(children, folder, tokens, args.matches, args.move_ms)
        rate = report(f"{cores} cores, hosted contest", figures, seconds)
        ok, said = verified(folder / "contest.db")
        print(
            f"    every record verified ({before + figures.matches} matches): "
            f"{'yes' if ok else 'NO: ' + said}"
        )
        if args.compare_ladder:
            ladder_figures, ladder_seconds = ladder(
                children, top / "ladder", hosted, args.matches, args.move_ms
            )
            ladder_rate = report(
                f"{cores} cores, same bots in a ladder", ladder_figures, ladder_seconds
            )
            print(f"decisions/s of the hosted contest / the ladder's: {rate / ladder_rate:.2f}")
        if args.compare_cluster:
            compare_cluster(children, top, folder, args.matches, args.move_ms)
    except KeyboardInterrupt:
        print("interrupted: stopping every process the bench started", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        for stopping in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not orphan any
            signal.signal(stopping, signal.SIG_IGN)
        children.stop_all()
        if args.keep:
            print(f"kept {top}")
        elif failures := removed(top):
            print(f"could not remove {len(failures)} paths under {top}", file=sys.stderr)


if __name__ == "__main__":
    main()
