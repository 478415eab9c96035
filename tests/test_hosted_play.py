"""Hosted bots at play (issue 27.1): a real `croupier serve --db`, real submissions through
`croupier submit --wait`, the referee launching the active version in the sandbox, a network
bot connecting from outside, and a version replaced while the contest runs."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.store import SHORT_ID, read_listing
from tests.hosted_helpers import network_bot
from tests.pipes import drain

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = str(Path(sys.executable).parent / "croupier")
EXAMPLE = ROOT / "examples" / "python"

pytestmark = pytest.mark.usefixtures("bubblewrap")


@dataclass(frozen=True)
class Played:
    """A committed match: its id, its seats' names and its faults."""

    match: str
    seats: list[str]
    faults: list[object]
    #: The cores each seat's bot was pinned to (empty: not pinned).
    cores: list[list[int]]

    def has(self, entrant: str) -> bool:
        return any(seat.startswith(entrant) for seat in self.seats)


@dataclass(frozen=True)
class Contest:
    folder: Path
    address: str
    tokens: dict[str, str]
    serve: subprocess.Popen[bytes]

    @property
    def records(self) -> Path:
        return self.folder / "contest-records"

    def played(self) -> list[Played]:
        """Every committed match, from its record."""
        played = []
        for path in sorted(self.records.glob("contest-*.jsonl")):
            text = path.read_text()
            if not text.endswith("}\n") or '"result"' not in text.rsplit("\n", 2)[-2]:
                continue  # still being played (its last line may be half written)
            lines = [json.loads(line) for line in text.splitlines()]
            seats = lines[0]["header"]["seats"]
            faults = [line["fault"] for line in lines if "fault" in line]
            names = [seat["name"] for seat in seats]
            played.append(Played(path.stem, names, faults, [s.get("cores", []) for s in seats]))
        return played

    def submit(self, account: str, bot: Path) -> str:
        """Submit `bot` as `account`, wait for its qualification; its version's id."""
        command = [CROUPIER, "submit", str(bot), "--to", self.address, "--wait"]
        done = subprocess.run(
            [*command, "--token", self.tokens[account]],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert " qualified" in done.stdout, done.stdout
        return done.stdout.split()[0]


@pytest.fixture
def contest(tmp_path: Path) -> Iterator[Contest]:
    with running(tmp_path) as started:
        yield started


@contextmanager
def running(tmp_path: Path, *extra: str) -> Iterator[Contest]:
    """A real `croupier serve --db` of XIX with accounts alice and bob (and `extra` options)."""
    db = tmp_path / "contest.db"
    tokens = {name: TokenStore(db).add(name) for name in ("alice", "bob")}
    command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--game", "xix", *extra]
    serve = subprocess.Popen([*command, "--move-ms", "2000"], stdout=subprocess.PIPE, cwd=tmp_path)
    assert serve.stdout is not None
    while b"croupier referee" not in (line := serve.stdout.readline()):
        assert line, "the referee stopped before it listened"
    port = line.decode().split(":")[-1].split()[0]
    drain(serve.stdout)
    try:
        yield Contest(tmp_path, f"127.0.0.1:{port}", tokens, serve)
    finally:
        if serve.poll() is None:
            serve.send_signal(signal.SIGTERM)
            serve.wait(timeout=60)


def wait_for(contest: Contest, entrant: str, matches: int, timeout: float = 120) -> None:
    """Until `entrant` has played `matches` committed matches."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len([p for p in contest.played() if p.has(entrant)]) >= matches:
            return
        time.sleep(0.2)
    raise AssertionError(f"{entrant} played fewer than {matches} matches: {contest.played()}")


def test_a_hosted_version_plays_a_network_bot_and_is_replaced_between_matches(
    contest: Contest, tmp_path: Path
) -> None:
    first = contest.submit("alice", EXAMPLE)
    bob = network_bot(contest.address, contest.tokens["bob"])
    try:
        old = f"alice@{first[:SHORT_ID]}"
        wait_for(contest, old, 3)
        # A second version, which says what it plays on stderr; it replaces the first once
        # qualified.
        second_bot = tmp_path / "second"
        shutil.copytree(EXAMPLE, second_bot, ignore=shutil.ignore_patterns("__pycache__"))
        source = (second_bot / "random_bot.py").read_text()
        said = 'print("thinking about", request.match_id, file=sys.stderr, flush=True)\n'
        source = source.replace("        return random", f"        {said}        return random")
        source = source.replace("import random", "import random\nimport sys")
        (second_bot / "random_bot.py").write_text(source)
        second = contest.submit("alice", second_bot)
        assert second != first
        new = f"alice@{second[:SHORT_ID]}"
        wait_for(contest, new, 3)
        reads_its_match_log(contest, [p.match for p in contest.played() if p.has(new)][-1])
    finally:
        contest.serve.send_signal(signal.SIGTERM)
        assert contest.serve.wait(timeout=60) == 0
        bob.kill()
        bob.wait()
    played = contest.played()
    # Each match: bob against one of alice's versions, none cut short by the replacement.
    for match in played:
        assert match.has("bob") and match.faults == [], match
        # The hosted seat plays on a core of its own (referee.contest.slots); bob, at home.
        pinned = [len(cores) for name, cores in zip(match.seats, match.cores, strict=True)]
        assert sorted(pinned) == [0, 1], match
    olds = [i for i, match in enumerate(played) if match.has(old)]
    news = [i for i, match in enumerate(played) if match.has(new)]
    assert olds and news and max(olds) < max(news)
    assert len({match.match for match in played}) == len(played)
    verify = subprocess.run(
        [CROUPIER, "ladder", "verify", str(contest.folder / "contest.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    listing = read_listing(contest.folder / "versions")
    assert listing.active == {second}


def croupier(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CROUPIER, *arguments], capture_output=True, text=True, timeout=60)


def test_a_revoked_account_s_hosted_version_stops_at_once(contest: Contest) -> None:
    version = contest.submit("alice", EXAMPLE)
    bob = network_bot(contest.address, contest.tokens["bob"])
    try:
        hosted = f"alice@{version[:SHORT_ID]}"
        wait_for(contest, hosted, 2)
        revoke = [CROUPIER, "token", "revoke", "alice", "--db", str(contest.folder / "contest.db")]
        subprocess.run(revoke, check=True, capture_output=True, timeout=60)
        time.sleep(3)  # the referee looks for revocations every 0.5 s, the roster every 1 s
        before = sum(match.has(hosted) for match in contest.played())
        time.sleep(3)
        assert sum(match.has(hosted) for match in contest.played()) == before
    finally:
        bob.kill()
        bob.wait()
    # Its launched process is gone: nothing of it runs under the version's folder.
    folder = str(contest.folder / "versions" / "versions" / version)
    running = subprocess.run(["pgrep", "-f", folder], capture_output=True, text=True)
    assert running.stdout == "", running.stdout


def test_under_a_cpu_clock_the_hosted_seat_is_timed_by_its_cpu_the_network_one_by_the_wall(
    tmp_path: Path,
) -> None:
    with running(tmp_path, "--clock", "cpu") as contest:
        version = contest.submit("alice", EXAMPLE)
        bob = network_bot(contest.address, contest.tokens["bob"])
        try:
            wait_for(contest, f"alice@{version[:SHORT_ID]}", 2)
        finally:
            bob.kill()
            bob.wait()
    path = contest.records / f"{contest.played()[0].match}.jsonl"
    header = json.loads(path.read_text().partition("\n")[0])["header"]
    assert header["timeControl"]["clock"] == "CLOCK_KIND_CPU", header
    seats = header["seats"]
    clocks = {seat["name"].split("@")[0].split(" ")[0]: seat.get("clock") for seat in seats}
    assert clocks == {"alice": None, "bob": "CLOCK_KIND_WALL"}, header["seats"]


def reads_its_match_log(contest: Contest, match_id: str) -> None:
    """Alice reads what her hosted version printed in `match_id` (issue 27.4); nobody else
    does, and no name climbs out of the store."""
    alice = ("--to", contest.address, "--token", contest.tokens["alice"])
    shown = croupier("submissions", "log", "--match", match_id, *alice)
    assert shown.returncode == 0 and f"thinking about {match_id}\n" in shown.stdout, shown
    others = [line for line in shown.stdout.splitlines() if match_id not in line]
    assert others == [], others  # its other matches' lines are in their own logs
    bob = ("--to", contest.address, "--token", contest.tokens["bob"])
    refused = croupier("submissions", "log", "--match", match_id, *bob)
    assert refused.returncode != 0 and "no output of account 'bob'" in refused.stderr, refused
    climbing = croupier("submissions", "log", "--match", "../../contest", *alice)
    assert climbing.returncode != 0 and "no match" in climbing.stderr, climbing
    db = str(contest.folder / "contest.db")
    organiser = croupier("submissions", "log", "--match", match_id, "--db", db)
    assert "--- alice, version " in organiser.stdout and f"about {match_id}" in organiser.stdout


#: A hosted bot that, at each move, looks for the contest's secrets: at the paths they have on
#: the referee's machine (an attacker may guess them), and up from wherever it runs.
SNOOP = """
import os, random, sys
import croupier

SECRETS = {secrets!r}


def snoop():
    found = [path for path in SECRETS if os.path.exists(path)]
    here = os.path.abspath(os.getcwd())
    while here != "/":
        here = os.path.dirname(here)
        try:
            found += [os.path.join(here, f) for f in os.listdir(here) if f.endswith(".db")]
        except OSError:
            pass
    return sorted(set(found))


class Snoop(croupier.Bot):
    name = "snoop"

    def act(self, request):
        print("found", snoop() or "nothing", request.match_id, file=sys.stderr, flush=True)
        return random.randrange(len(request.legal_actions))


croupier.run(Snoop)
"""


def test_a_hosted_bot_sees_neither_the_database_nor_the_store_nor_the_records(
    contest: Contest, tmp_path: Path
) -> None:
    bot = tmp_path / "snoop"
    bot.mkdir()
    (bot / "bot.toml").write_text('games = ["xix"]\nrun = "{python} snoop.py"\n')
    folder = contest.folder
    names = ("contest.db", "versions/store.db", "contest-records")
    secrets = [str(folder / name) for name in names]  # its own folder is in versions/: shown
    (bot / "snoop.py").write_text(SNOOP.format(secrets=secrets))
    version = contest.submit("alice", bot)
    bob = network_bot(contest.address, contest.tokens["bob"])
    try:
        hosted = f"alice@{version[:SHORT_ID]}"
        wait_for(contest, hosted, 1)
        match = next(p.match for p in contest.played() if p.has(hosted))
        alice = ("--to", contest.address, "--token", contest.tokens["alice"])
        shown = croupier("submissions", "log", "--match", match, *alice)
    finally:
        bob.kill()
        bob.wait()
    assert shown.returncode == 0, shown
    assert f"found nothing {match}" in shown.stdout and "found [" not in shown.stdout, shown


SEER = ROOT / "tests" / "bots" / "seer.py"


def seeing_bot(folder: Path, manifest: str, allowed: list[Path]) -> Path:
    """A bot folder holding the seer (tests/bots/seer.py), which says each path it sees outside
    `allowed`, under `manifest`."""
    folder.mkdir()
    shutil.copy(SEER, folder / "seer.py")
    (folder / "allowed.json").write_text(json.dumps([str(p) for p in allowed]))
    (folder / "bot.toml").write_text(manifest)
    return folder


def runtime_roots() -> list[Path]:
    """What a hosted bot may see besides its run folder: the system, croupier's Python, the
    SDKs it is run with and the referee's package, which the SDK's reference bots import
    (referee.local.bot_root), its scratch and its door."""
    import croupier
    import referee

    sdks = Path(croupier.__file__).resolve().parents[2]
    engines = Path(referee.__file__).resolve().parent
    python = [Path(sys.prefix), Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    system = [Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")]
    # Its private scratch: /tmp/home (the rest of /tmp holds, in these tests, the parents of its
    # own folder, made to hold it), and /run, its door and relay.
    return [*python, sdks, engines, *system, Path("/tmp/home"), Path("/run")]


def test_a_build_s_link_out_of_its_folder_shows_the_bot_nothing_of_the_contest(
    contest: Contest, tmp_path: Path
) -> None:
    """Issue 41.0, the attack itself: the build links its folder's way up to the contest's
    (`ln -s ../../.. contest`, from versions/ID/build/), and the run command names the link as
    its first existing path. The bot sees its folder and the runtime only: no database, no
    records, no master seed; the link is not even kept."""
    manifest = 'games = ["xix"]\nbuild = "sh build.sh"\nrun = "{python} -m seer contest"\n'
    bot = seeing_bot(tmp_path / "climber", manifest, runtime_roots())
    (bot / "build.sh").write_text("ln -s ../../.. contest\n")  # bot.toml may not name '..'
    version = contest.submit("alice", bot)
    bob = network_bot(contest.address, contest.tokens["bob"])
    try:
        hosted = f"alice@{version[:SHORT_ID]}"
        wait_for(contest, hosted, 1)
        match = next(p.match for p in contest.played() if p.has(hosted))
        alice = ("--to", contest.address, "--token", contest.tokens["alice"])
        shown = croupier("submissions", "log", "--match", match, *alice)
        build_log = croupier("submissions", "log", version, *alice)
    finally:
        bob.kill()
        bob.wait()
    assert shown.returncode == 0, shown
    assert "WALKED: nothing else" in shown.stdout and "SEEN" not in shown.stdout, shown.stdout
    # The author reads where it ran in the referee's stand-ins, not the organiser's paths.
    assert "RUNS IN <version>/build ON <python>/" in shown.stdout, shown.stdout
    assert "WITH <croupier>/sdk/python/croupier/__init__.py" in shown.stdout, shown.stdout
    assert str(contest.folder) not in shown.stdout and sys.prefix not in shown.stdout
    assert "left out 'contest', a link to '../../..'" in build_log.stdout, build_log
    # And had it seen them, it could have read none: what croupier made is owner-only.
    folder = contest.folder
    made = [*folder.glob("contest.db*"), contest.records, *contest.records.rglob("*")]
    made += [folder / "versions", *(folder / "versions").glob("store.db*")]
    assert len(made) > 5 and all(path.stat().st_mode & 0o077 == 0 for path in made), [
        (str(path), oct(path.stat().st_mode)) for path in made if path.stat().st_mode & 0o077
    ]
