"""Frozen submissions and the final round (issue 27.2): a real `croupier serve --db`, real gRPC
uploads, the real stores on disk, `croupier contest final` through the CLI."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from croupier.v1 import submissions_pb2 as pb
from croupier.v1 import submissions_pb2_grpc
from referee.cli import app
from referee.contest import file as contest_file
from referee.contest.book import ContestBook
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.store import SHORT_ID, VersionId, VersionStore, read_listing
from tests.pipes import drain
from tests.test_hosted_play import Contest, wait_for

pytestmark = pytest.mark.usefixtures("wide_console")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "python"
CROUPIER = str(Path(sys.executable).parent / "croupier")
XIX = get_game("xix")
runner = CliRunner()


def stored(store: VersionStore, account: str, bot: Path, active: bool) -> VersionId:
    """`bot`'s files as a version of `account` in `store` (made active, as if qualified)."""
    src = store.incoming()
    shutil.copytree(bot, src, ignore=shutil.ignore_patterns("__pycache__"))
    version = store.add(account, src)
    if active:
        store.activate(version.id, "qualified: 2 matches, 0 faults")
    return version.id


def a_contest(folder: Path) -> tuple[dict[str, str], dict[str, VersionId]]:
    """A contest that has played: alice with two versions (the second active), bob with one
    he never got qualified, carol revoked; a table seated in its book. Its tokens and the active
    versions by account."""
    db = folder / "contest.db"
    accounts = TokenStore(db)
    tokens = {name: accounts.add(name) for name in ("alice", "bob", "carol")}
    accounts.revoke("carol")
    store = VersionStore(folder / "versions")
    stored(store, "alice", EXAMPLE, active=True)
    second = folder / "second"
    shutil.copytree(EXAMPLE, second, ignore=shutil.ignore_patterns("__pycache__"))
    (second / "NOTES").write_text("the second version\n")
    alice = stored(store, "alice", second, active=True)
    (store.folder(alice) / "matches").mkdir()  # its output in this contest stays here
    (store.folder(alice) / "matches" / "contest-00001.log").write_text("thinking\n")
    (store.folder(alice) / "build.log").write_text("built\n")
    third = folder / "third"
    shutil.copytree(second, third)
    (third / "NOTES").write_text("bob's\n")
    stored(store, "bob", third, active=False)
    store.close()
    book = ContestBook(db, XIX, parse_options(XIX, {}))
    book.seat([f"alice@{alice[:SHORT_ID]}", "bob"])
    book.close(reveal=False)
    return tokens, {"alice": alice}


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under `folder`, by path, with its SHA-256; not SQLite's -wal and -shm files,
    which any reader of a WAL database may leave (empty of changes) beside it."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.endswith(("-wal", "-shm"))
    }


@contextmanager
def serving(db: Path, *args: str) -> Iterator[str]:
    """`croupier serve --db DB ARGS` on a free port: its address while it runs."""
    with served(db, *args) as (address, _):
        yield address


@contextmanager
def served(db: Path, *args: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`croupier serve --db DB ARGS` on a free port: its address and process while it runs."""
    command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--drain-seconds", "5", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE) as serve:
        assert serve.stdout is not None
        while b"croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
        drain(serve.stdout)
        try:
            yield f"127.0.0.1:{line.decode().split(':')[-1].split()[0]}", serve
        finally:
            serve.terminate()
            serve.wait(timeout=60)


def refused_upload(address: str, token: str) -> grpc.RpcError:
    metadata = pb.UploadRequest(metadata=pb.UploadMetadata(file_name="bot.tar.gz"))
    with grpc.insecure_channel(address) as channel:
        stub = submissions_pb2_grpc.SubmissionsStub(channel)
        with pytest.raises(grpc.RpcError) as raised:
            stub.Upload(iter([metadata]), metadata=(("authorization", f"Bearer {token}"),))
    return raised.value


def test_a_frozen_serve_refuses_uploads_and_withdrawals_and_still_lists(tmp_path: Path) -> None:
    tokens, active = a_contest(tmp_path)
    with serving(tmp_path / "contest.db", "--freeze-submissions") as address:
        error = refused_upload(address, tokens["alice"])
        assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert (error.details() or "").startswith("submissions are frozen: the organiser has")
        author = ["--to", address, "--token", tokens["alice"]]
        result = runner.invoke(app, ["submit", str(EXAMPLE), *author])
        assert result.exit_code != 0 and "submissions are frozen: " in result.output
        result = runner.invoke(app, ["submissions", "list", *author])
        assert result.exit_code == 0 and active["alice"][:SHORT_ID] in result.output
        result = runner.invoke(app, ["submissions", "show", active["alice"][:8], *author])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["submissions", "withdraw", active["alice"][:8], *author])
        assert result.exit_code != 0 and "submissions are frozen: " in result.output
    assert read_listing(tmp_path / "versions").active == frozenset(active.values())


def test_a_contest_file_freezes_submissions(tmp_path: Path) -> None:
    contest = tmp_path / "contest.toml"
    contest.write_text('game = "xix"\ndatabase = "contest.db"\n[hosted]\nfreeze = true\n')
    assert contest_file.load(contest)["freeze_submissions"] is True


def test_the_final_round_replays_the_active_versions_from_nothing(tmp_path: Path) -> None:
    """The final has the accounts (same tokens, carol still revoked), alice's active version
    (not her first, nor bob's unqualified one, nor her output in the contest), an empty book and
    frozen submissions; the contest's database and store are byte for byte as they were."""
    tokens, active = a_contest(tmp_path)
    gc.collect()  # the connections the setting up left to the collector: their WAL checkpointed
    before = fingerprint(tmp_path)
    final = tmp_path / "final" / "contest.db"
    command = ["contest", "final", str(tmp_path / "contest.db"), "--into", str(final)]
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert f"alice: {active['alice'][:SHORT_ID]}" in result.output
    assert "contest.db" in before and "versions/store.db" in before
    assert {k: v for k, v in fingerprint(tmp_path).items() if not k.startswith("final/")} == before

    accounts = TokenStore(final, create=False)
    assert accounts.lookup(tokens["alice"]) == "alice"
    assert accounts.revoked() == {"carol"}
    with contextlib.closing(sqlite3.connect(final)) as book:
        for table in ("schedule", "matches", "seats", "faults", "exits"):
            assert book.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (0,), table
        # No master seed yet (`serve` draws a new one); the contest's game and options, no bot.
        meta = dict(book.execute("SELECT key, value FROM meta"))
        plan = json.loads(meta.pop("plan"))
        assert meta == {
            "submissions_frozen": "this is the contest's final round, played by the versions "
            "active when it began"
        }
        assert (plan["game"], plan["options"], plan["bots"]) == ("xix", {}, [])
    listing = read_listing(final.parent / "versions")
    assert [v.id for v in listing.versions] == [active["alice"]]
    assert listing.active == frozenset(active.values())
    copied = final.parent / "versions" / "versions" / active["alice"]
    assert (copied / "build.log").read_text() == "built\n"
    assert not (copied / "matches").exists()

    again = runner.invoke(app, command)
    assert again.exit_code == 2 and "exists already" in again.output
    beside = runner.invoke(app, [*command[:3], "--into", str(tmp_path / "final.db")])
    assert beside.exit_code == 2 and "share the versions folder" in beside.output
    with serving(final) as address:
        error = refused_upload(address, tokens["alice"])
        assert error.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert "frozen: this is the contest's final round" in (error.details() or "")


@pytest.mark.usefixtures("bubblewrap")
def test_the_final_round_plays_the_version_that_qualified(tmp_path: Path) -> None:
    """A real contest: alice's version is submitted and qualifies. Its final round, served,
    launches that very version (copied as it was built, not built again) against bob."""
    db = tmp_path / "contest.db"
    tokens = {name: TokenStore(db).add(name) for name in ("alice", "bob")}
    xix = ("--game", "xix", "--move-ms", "2000")
    with served(db, *xix) as (address, serve):
        version = Contest(tmp_path, address, tokens, serve).submit("alice", EXAMPLE)
    final = tmp_path / "final" / "contest.db"
    result = runner.invoke(app, ["contest", "final", str(db), "--into", str(final)])
    assert result.exit_code == 0, result.output
    with served(final, *xix) as (address, serve):
        env = os.environ | {"CROUPIER_ADDRESS": address, "CROUPIER_TOKEN": tokens["bob"]}
        bob = [sys.executable, str(EXAMPLE / "random_bot.py")]
        with subprocess.Popen(bob, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            finalist = Contest(final.parent, address, tokens, serve)
            wait_for(finalist, f"alice@{version[:SHORT_ID]}", 2)
            serve.terminate()  # bob leaves with the referee's Goodbye
    assert not list((tmp_path / "final" / "versions" / "incoming").iterdir())


def test_a_fifo_or_socket_an_older_build_left_never_breaks_the_final(tmp_path: Path) -> None:
    """Issue 41.3: a version built before builds kept only folders, files and links holds a
    FIFO and a socket in its build folder. The final is made, without them, and says so."""
    _, active = a_contest(tmp_path)
    build = tmp_path / "versions" / "versions" / active["alice"] / "build"
    build.mkdir()
    (build / "bot").write_text("built")
    os.mkfifo(build / "pipe")
    here = Path.cwd()
    os.chdir(build)  # a socket's path is at most 108 bytes: bound by its name alone
    try:
        with contextlib.closing(socket.socket(socket.AF_UNIX)) as bound:
            bound.bind("sock")
    finally:
        os.chdir(here)
    final = tmp_path / "final" / "contest.db"
    result = runner.invoke(
        app, ["contest", "final", str(tmp_path / "contest.db"), "--into", str(final)]
    )
    assert result.exit_code == 0, result.output
    short = active["alice"][:SHORT_ID]
    for name in ("pipe", "sock"):
        assert f"left out {short}/build/{name}: no folder, file or link" in result.output
    copied = final.parent / "versions" / "versions" / active["alice"] / "build"
    assert sorted(p.name for p in copied.iterdir()) == ["bot"]


def test_a_final_that_fails_on_the_way_leaves_nothing_and_can_be_made_again(
    tmp_path: Path,
) -> None:
    """A version whose files changed under it (its id no longer their hash) stops the final:
    it leaves no database and no versions behind, with a message that says what to do; once the
    version is whole again, the same command makes the final."""
    _, active = a_contest(tmp_path)
    notes = tmp_path / "versions" / "versions" / active["alice"] / "src" / "NOTES"
    kept = notes.read_text()
    notes.write_text("changed after it was stored\n")
    final = tmp_path / "final" / "contest.db"
    command = ["contest", "final", str(tmp_path / "contest.db"), "--into", str(final)]
    failed = runner.invoke(app, command)
    assert failed.exit_code == 2 and "changed while it was copied" in failed.output, failed.output
    assert not final.exists() and not (final.parent / "versions").exists()
    assert list(final.parent.glob("contest.db*")) == []
    notes.write_text(kept)
    assert runner.invoke(app, command).exit_code == 0


@contextmanager
def serving_file(contest: Path, *args: str) -> Iterator[tuple[str, str]]:
    """`croupier serve CONTEST ARGS`: its address and its listening line while it runs."""
    command = [CROUPIER, "serve", str(contest), "--drain-seconds", "5", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, cwd=contest.parent) as serve:
        assert serve.stdout is not None
        while b"croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
        drain(serve.stdout)
        try:
            yield f"127.0.0.1:{line.decode().split(':')[-1].split()[0]}", line.decode()
        finally:
            serve.terminate()
            serve.wait(timeout=60)


@pytest.mark.parametrize(("in_file", "flag"), [("false", "--freeze"), ("true", "--no-freeze")])
def test_a_flag_given_with_a_contest_file_wins_over_the_file(
    tmp_path: Path, in_file: str, flag: str
) -> None:
    """Issue 42.3: `croupier serve CONTEST.toml --freeze-submissions` ignored the flag (and
    --port): a flag given with the file overrides the file's key, both ways."""
    token = TokenStore(tmp_path / "contest.db").add("alice")
    contest = tmp_path / "contest.toml"
    contest.write_text(
        f'game = "xix"\ndatabase = "contest.db"\nport = 1\n[hosted]\nfreeze = {in_file}\n'
    )  # port 1 is no port a referee may take: --port 0 must win for it to listen at all
    with serving_file(contest, f"{flag}-submissions", "--port", "0") as (address, _):
        if flag == "--freeze":
            error = refused_upload(address, token)
            assert error.code() is grpc.StatusCode.FAILED_PRECONDITION, error
        else:
            result = runner.invoke(app, ["submit", str(EXAMPLE), "--to", address, "--token", token])
            assert result.exit_code == 0 and "new version" in result.output, result.output


def test_the_final_plays_its_contest_s_game_and_refuses_another(tmp_path: Path) -> None:
    """Issue 42.4: the final's first serve could name any game (34 Tex-Tac-Toe matches were
    rated among XIX bots). It keeps its contest's game and options, as the contest does."""
    a_contest(tmp_path)  # a XIX contest that has seated a table
    final = tmp_path / "final" / "contest.db"
    made = runner.invoke(
        app, ["contest", "final", str(tmp_path / "contest.db"), "--into", str(final)]
    )
    assert made.exit_code == 0, made.output
    assert f"play it: croupier serve --db {final}" in made.output
    command = [CROUPIER, "serve", "--db", str(final), "--port", "0"]  # no --game: the final's
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        assert serve.stdout is not None
        while "croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
        serve.terminate()
    assert line.startswith("croupier referee for xix on "), line
    for database in (final, tmp_path / "contest.db"):
        refused = subprocess.run(
            [CROUPIER, "serve", "--db", str(database), "--port", "0", "--game", "textactoe"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "plays 'xix' (default options), not 'textactoe'" in refused.stderr, refused.stderr
        assert "serve it with --game xix" in refused.stderr
