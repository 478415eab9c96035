"""The hosted pipeline for real: versions unpacked into a real store, built in bubblewrap, and
qualified by the doctor against the random bot, their bots real processes in the sandbox."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from referee import transport
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.manifest import Manifest
from referee.hosted.pipeline import Pipeline, PipelineSettings, VersionFiles
from referee.hosted.qualify import QualifySettings, qualify
from referee.hosted.store import Version, VersionId, VersionStatus, VersionStore
from referee.hosted.submitting import Submitting
from referee.local.limits import Limits
from referee.match.clock import TimeControl
from tests.node_support import ROOT

EXAMPLE = ROOT / "examples" / "python"
BROKEN = ROOT / "tests" / "bots" / "broken_bot.py"
FINAL = {
    VersionStatus.BUILD_FAILED,
    VersionStatus.QUALIFIED,
    VersionStatus.FAILED,
}
# Quick, as a contest's would be: the bots here answer in milliseconds.
SETTINGS = PipelineSettings(
    qualify=QualifySettings(
        time_control=TimeControl(move_ms=1000, bank_ms=2000), startup_seconds=10.0
    )
)


pytestmark = pytest.mark.usefixtures("bubblewrap")


def bot_folder(tmp_path: Path, manifest: str, **files: str) -> Path:
    """A bot's folder: the example random bot, its `bot.toml` replaced by `manifest`."""
    folder = tmp_path / "upload"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(textwrap.dedent(manifest))
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


def built_bot(tmp_path: Path, build: str) -> Path:
    """The example random bot, for textactoe, with `build` as its build.py."""
    manifest = (
        'games = ["textactoe"]\nbuild = "{python} build.py"\nrun = "{python} random_bot.py"\n'
    )
    return bot_folder(tmp_path, manifest, **{"build.py": build})


def submit(store: VersionStore, folder: Path, account: str = "alice") -> Version:
    """What the Submissions service does with an upload: unpack it, then add it."""
    into = store.incoming()
    unpack(folder, into, ArchiveLimits())
    return store.add(account, into)


def settle(
    store: VersionStore, *ids: VersionId, settings: PipelineSettings = SETTINGS, linger: float = 0
) -> list[Version]:
    """Run the pipeline until each version is built and qualified, or has failed, then `linger`
    seconds more; the versions as they were when they got there."""
    return transport.run(_settle, store, ids, settings, linger)


async def _settle(
    store: VersionStore, ids: tuple[VersionId, ...], settings: PipelineSettings, linger: float
) -> list[Version]:
    pipeline = Pipeline(store, settings)
    async with trio.open_nursery() as nursery:
        await nursery.start(pipeline.run)
        with trio.fail_after(120):
            while not all(store.version(id).status in FINAL for id in ids):
                await trio.sleep(0.1)
        settled = [store.version(id) for id in ids]
        await trio.sleep(linger)
        nursery.cancel_scope.cancel()
    return settled


def test_the_example_bot_is_built_qualified_and_active(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    version = submit(store, EXAMPLE)
    assert version.status is VersionStatus.RECEIVED
    (done,) = settle(store, version.id)
    assert done.status is VersionStatus.QUALIFIED, done.reason
    assert done.reason == "passed the checks in xix, xactika, xeri, textactoe"
    assert store.active("alice") == done
    files = VersionFiles(store.folder(version.id))
    assert "nothing to build" in files.build_log.read_text()
    report = files.report.read_text()
    assert report.count("all 12 checks passed") == 4, report
    assert str(tmp_path) not in report  # the author reads it: no path of the referee's machine


def test_a_contest_qualifies_a_version_in_its_own_game_with_its_options(tmp_path: Path) -> None:
    """In a contest, a version that declares four games qualifies in the one the contest plays,
    as the contest plays it (three players), not in the other three."""
    xactika = get_game("xactika")
    three = parse_options(xactika, {"players": "3"})
    contest = replace(SETTINGS, qualify=replace(SETTINGS.qualify, games=((xactika, three),)))
    store = VersionStore(tmp_path / "store")
    version = submit(store, EXAMPLE)
    (done,) = settle(store, version.id, settings=contest)
    assert done.status is VersionStatus.QUALIFIED, done.reason
    assert done.reason == "passed the checks in xactika"
    played = VersionFiles(store.folder(version.id)).qualification
    assert [folder.name for folder in played.iterdir()] == ["xactika"]
    records = played.rglob("*.jsonl")
    headers = [json.loads(path.read_text().partition("\n")[0])["header"] for path in records]
    assert headers and all(h["options"] == dict(three.as_text()) for h in headers), headers
    assert {len(h["seats"]) for h in headers} == {3}


def test_a_version_declaring_none_of_the_contest_s_games_fails(tmp_path: Path) -> None:
    """Submitting refuses such a version; one stored before the contest changed its game (a
    restart with another) fails at qualification instead of passing with no match played."""
    xeri = get_game("xeri")
    contest = replace(
        SETTINGS, qualify=replace(SETTINGS.qualify, games=((xeri, parse_options(xeri, {})),))
    )
    store = VersionStore(tmp_path / "store")
    only_xix = bot_folder(tmp_path, 'games = ["xix"]\nrun = "{python} random_bot.py"\n')
    version = submit(store, only_xix)
    (done,) = settle(store, version.id, settings=contest)
    assert done.status is VersionStatus.FAILED
    assert done.reason.startswith(
        "bot.toml declares none of the games this contest plays: ['xeri']"
    ), done.reason
    assert store.active("alice") is None


def test_a_crash_at_start_up_fails_and_the_active_version_stays(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    good = submit(store, EXAMPLE)
    store.activate(good.id, "qualified before")
    folder = bot_folder(
        tmp_path,
        """
        games = ["textactoe"]
        run = "{python} crash.py"
        """,
        **{
            "crash.py": """
            import sys
            print("loading the model from weights.bin", flush=True)
            sys.exit("weights.bin: no such file")
            """
        },
    )
    crashing = submit(store, folder)
    (done,) = settle(store, crashing.id)
    assert done.status is VersionStatus.FAILED
    assert done.reason.startswith("textactoe: connects FAIL: the process exited with code 1")
    assert done.reason.endswith("its last output: 'weights.bin: no such file'")
    assert done.public_reason == "textactoe: connects FAIL"  # the site never quotes the bot
    report = VersionFiles(store.folder(crashing.id)).report.read_text()
    assert "loading the model from weights.bin" in report
    active = store.active("alice")
    assert active is not None and active.id == good.id


def test_a_slow_first_move_fails_on_time_once(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    folder = bot_folder(tmp_path, 'games = ["xix"]\nrun = "{python} broken_bot.py slow"\n')
    shutil.copy(BROKEN, folder / "broken_bot.py")
    slow = submit(store, folder)
    settings = PipelineSettings(qualify=QualifySettings(TimeControl(move_ms=300, bank_ms=0)))
    # Lingering more than a poll: the failed version is not tried again.
    (failed,) = settle(store, slow.id, settings=settings, linger=1.5)
    assert failed.reason.startswith("xix: time FAIL: "), failed.reason
    assert "no reply within 300 ms" in failed.reason
    assert store.version(slow.id) == failed
    assert store.active("alice") is None


def test_a_bot_speaking_an_undeclared_game_fails(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    folder = bot_folder(
        tmp_path,
        'games = ["textactoe"]\nrun = "{python} two_games.py"\n',
        **{
            "two_games.py": """
            import random
            import croupier

            class TwoGames(croupier.Bot):
                games = ("textactoe", "xix")

                def act(self, request):
                    return random.randrange(len(request.legal_actions))

            croupier.run(TwoGames)
            """
        },
    )
    version = submit(store, folder)
    (done,) = settle(store, version.id)
    assert done.status is VersionStatus.FAILED
    assert "hello FAIL" in done.reason
    assert "'xix' is not among the games bot.toml declares (textactoe)" in done.reason


def test_a_failed_build_is_build_failed_with_its_log(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    folder = built_bot(
        tmp_path,
        """
        import sys
        print("compiling random_bot")
        sys.exit("random_bot.c:3: error: expected ';'")
        """,
    )
    version = submit(store, folder)
    (done,) = settle(store, version.id)
    assert done.status is VersionStatus.BUILD_FAILED
    assert done.reason.startswith("build failed (exit 1)"), done.reason
    log = VersionFiles(store.folder(version.id)).build_log.read_text()
    assert "compiling random_bot" in log
    assert "random_bot.c:3: error: expected ';'" in log
    assert store.active("alice") is None


def test_a_build_cut_by_a_kill_runs_again_at_start(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    folder = built_bot(tmp_path, "open('built.txt', 'w').write('built')\n")
    version = submit(store, folder)
    # As a kill -9 in the middle of its build leaves it: building, half a build on disk.
    store.set_status(version.id, VersionStatus.BUILDING)
    files = VersionFiles(store.folder(version.id))
    files.build.mkdir()
    (files.build / "half-built.o").write_text("cut short")
    store.close()
    store = VersionStore(tmp_path / "store")
    (done,) = settle(store, version.id)
    assert done.status is VersionStatus.QUALIFIED, done.reason
    assert (files.build / "built.txt").read_text() == "built"
    assert not (files.build / "half-built.o").exists()
    assert "built" not in {p.name for p in files.src.iterdir()}
    assert store.active("alice") == done


SEER = ROOT / "tests" / "bots" / "seer.py"


@pytest.mark.parametrize(
    ("link", "target"),
    [
        ("contest", "{contest}"),  # the attack of issue 41.0, by an absolute link
        ("up", ".."),  # the version's folder, and from there every other version
        ("rt", "{runtime}/.."),  # the runtime's parent: the contest's folder here
    ],
)
def test_links_in_a_version_s_folder_show_its_bot_nothing_they_point_at(
    tmp_path: Path, link: str, target: str
) -> None:
    """A folder that a build left with a link out of it (as builds could before issue 41.3),
    its run command naming the link as its first existing path: the qualified bot is shown its
    folder and the runtime only, whatever the link points at."""
    from tests.test_hosted_play import runtime_roots

    contest = tmp_path / "contest"
    runtime = contest / "runtime"
    runtime.mkdir(parents=True)
    (contest / "contest.db").write_text("master_seed=...")
    folder = contest / "versions" / "v1" / "build"
    folder.mkdir(parents=True)
    (folder.parent / "qualification.txt").write_text("the organiser's report")
    shutil.copy(SEER, folder / "seer.py")
    allowed = [*runtime_roots(), runtime]
    (folder / "allowed.json").write_text(json.dumps([str(p) for p in allowed]))
    (folder / link).symlink_to(target.format(contest=contest, runtime=runtime))
    manifest = Manifest(games=("xix",), run=f"{{python}} -m seer {link}")
    workdir = tmp_path / "qualify"
    settings = replace(SETTINGS.qualify, matches=1)
    secrets = (contest / "contest.db",)
    report = transport.run(qualify, folder, manifest, workdir, settings, runtime, secrets)
    output = "\n".join(report.games[0][1].output())
    assert report.ok, report.lines()
    assert "WALKED: nothing else" in output and "SEEN" not in output, output


def sleeper(tmp_path: Path, name: str, seconds: str) -> Path:
    """The random bot, whose build sleeps `seconds` (a number that names its process)."""
    return bot_folder(
        tmp_path / name,
        f'games = ["xix"]\nbuild = "sleep {seconds}"\nrun = "{{python}} random_bot.py"\n',
    )


def test_one_account_s_sleeping_builds_delay_no_other_account_and_withdraw_stops_them(
    tmp_path: Path,
) -> None:
    """Issue 41.2's attack: alice's builds sleep for an hour. Bob's build still runs at once
    (each account holds one build turn at a time); alice's second version waits for her turn,
    QUEUED, and her third replaces it in the queue; withdrawing her first ends its build at
    once (its process is gone, it stays withdrawn) and her third takes its turn."""
    from tests.test_hosted_build import running_with

    store = VersionStore(tmp_path / "store")
    marker = f"3600.{os.getpid()}{len(str(tmp_path))}"
    first = submit(store, sleeper(tmp_path, "a1", marker))
    bob_s = 'games = ["xix"]\nbuild = "true"\nrun = "{python} random_bot.py"\n'

    def status(version: Version) -> VersionStatus:
        return store.version(version.id).status

    async def until(condition: Callable[[], bool], seconds: float = 10) -> None:
        with trio.fail_after(seconds):
            while not condition():
                await trio.sleep(0.1)

    async def scenario() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(Pipeline(store, SETTINGS).run)
            await until(lambda: status(first) is VersionStatus.BUILDING)
            second = submit(store, sleeper(tmp_path, "a2", marker + "1"))
            bob = submit(store, bot_folder(tmp_path / "b", bob_s), "bob")
            await until(lambda: status(bob) is VersionStatus.QUALIFIED, 90)
            assert (status(first), status(second)) == (VersionStatus.BUILDING, VersionStatus.QUEUED)
            assert running_with(marker + "\x00")
            third = submit(store, sleeper(tmp_path, "a3", marker + "3"))
            await until(lambda: status(second) is VersionStatus.WITHDRAWN)
            assert "replaced by the account's newer upload" in store.version(second.id).reason
            store.withdraw("alice", first.id)
            await until(
                lambda: (
                    status(third) is VersionStatus.BUILDING and not running_with(marker + "\x00")
                )
            )
            assert store.version(first.id).reason == "withdrawn by alice"
            nursery.cancel_scope.cancel()

    transport.run(scenario)
    assert status(first) is VersionStatus.WITHDRAWN  # not build-failed once its build ended


def test_a_qualification_ends_at_its_time_limit(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "store")
    version = submit(store, EXAMPLE)
    quick = replace(SETTINGS, qualify=replace(SETTINGS.qualify, wall_seconds=1.0))
    (done,) = settle(store, version.id, settings=quick)
    assert done.status is VersionStatus.FAILED
    assert done.reason == "qualification took longer than its limit of 1 s in all"


def test_files_submitted_again_after_a_failed_build_are_built_again(tmp_path: Path) -> None:
    """Issue 42.8: a build the machine failed (here: the runtime lacked a file it needs) is
    built again when its author submits the very same files, without changing a byte."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    runtime.chmod(0o755)
    manifest = 'games = ["xix"]\nbuild = "sh build.sh"\nrun = "{python} random_bot.py"\n'
    folder = bot_folder(tmp_path, manifest, **{"build.sh": 'test -e "$CROUPIER_RUNTIME/ready"\n'})
    store = VersionStore(tmp_path / "store")
    settings = replace(SETTINGS, runtime=runtime)
    version = submit(store, folder)
    (failed,) = settle(store, version.id, settings=settings)
    assert failed.status is VersionStatus.BUILD_FAILED, failed
    assert failed.public_reason == "build failed (exit 1)"
    (runtime / "ready").write_text("")
    again = Submitting(store, Limits()).submit("alice", folder)  # as the service would
    assert (again.id, again.new, again.status) == (version.id, False, VersionStatus.RECEIVED)
    assert again.reason == "submitted again"
    (done,) = settle(store, version.id, settings=settings)
    assert done.status is VersionStatus.QUALIFIED, done
