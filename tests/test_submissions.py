"""Submitting hosted bots (issue 26.2, 26.6): a real `croupier serve --db` on loopback, real
uploads through `croupier submit` and raw gRPC streams, the real store on disk."""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import trio
from typer.testing import CliRunner

from croupier.v1 import submissions_pb2 as pb
from croupier.v1 import submissions_pb2_grpc
from referee import transport
from referee.cli import app
from referee.contest.tokens import TokenStore
from referee.hosted.store import SHORT_ID, VersionStore
from referee.hosted.submitting import Submitting
from referee.local.limits import Limits
from referee.match.lobby import Lobby
from tests.cluster_helpers import wait_until
from tests.hosted_helpers import previous_submissions_stubs

pytestmark = pytest.mark.usefixtures("wide_console")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "python"
runner = CliRunner()


class Contest:
    def __init__(self, address: str, tokens: dict[str, str], versions: Path, runtime: Path) -> None:
        self.address = address
        self.tokens = tokens
        self.versions = versions
        self.runtime = runtime

    def cli(self, account: str, *args: str) -> tuple[int, str]:
        result = runner.invoke(app, [*args, "--to", self.address, "--token", self.tokens[account]])
        return result.exit_code, result.output

    def stub(self) -> tuple[grpc.Channel, submissions_pb2_grpc.SubmissionsStub]:
        channel = grpc.insecure_channel(self.address)
        return channel, submissions_pb2_grpc.SubmissionsStub(channel)

    def auth(self, account: str) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens[account]}"),)


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contest]:
    folder = tmp_path_factory.mktemp("contest")
    db = folder / "contest.db"
    store = TokenStore(db)
    tokens = {name: store.add(name) for name in ("alice", "bob", "carol", "dave", "erin", "frank")}
    runtime = tmp_path_factory.mktemp("runtime")
    runtime.chmod(0o755)  # the builds' own users read it
    croupier = str(Path(sys.executable).parent / "croupier")
    command = [croupier, "serve", "--db", str(db), "--port", "0", "--max-upload-mb", "1"]
    command += ["--runtime", str(runtime)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        assert serve.stdout is not None
        while "croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
        port = line.split(":")[-1].split()[0]
        yield Contest(f"127.0.0.1:{port}", tokens, folder / "versions", runtime)
        serve.terminate()
        serve.wait(timeout=60)


def _tar(entries: dict[str, bytes]) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, content in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return data.getvalue()


def _stored(contest: Contest) -> set[str]:
    return {entry.name for entry in (contest.versions / "versions").iterdir()}


def test_the_example_bot_is_submitted_once_and_again_is_the_same_version(
    contest: Contest,
) -> None:
    code, first = contest.cli("alice", "submit", str(EXAMPLE))
    assert code == 0, first
    id = first.split()[0]
    assert "new version" in first and "received" in first
    code, again = contest.cli("alice", "submit", str(EXAMPLE))
    assert code == 0, again
    assert again.split()[0] == id and "already submitted" in again
    code, listed = contest.cli("alice", "submissions", "list")
    assert code == 0 and listed.count(id[:SHORT_ID]) == 1, listed
    code, shown = contest.cli("alice", "submissions", "show", id)
    assert code == 0 and f"version: {id}" in shown, shown
    assert (contest.versions / "versions" / id / "src" / "bot.toml").is_file()
    # The contest's pipeline builds and qualifies it (issue 26.5): --wait sees it through.
    code, waited = contest.cli("alice", "submit", str(EXAMPLE), "--wait")
    assert code == 0, waited
    assert f"{id} qualified" in waited
    code, shown = contest.cli("alice", "submissions", "show", id)
    assert code == 0 and "status: qualified (active)" in shown, shown
    # It declares four games; the contest plays XIX, and qualifies it there alone.
    assert "reason: passed the checks in xix\n" in shown, shown
    code, listed = contest.cli("alice", "submissions", "list")
    assert code == 0 and "qualified (active)" in listed, listed


def test_another_account_can_neither_see_nor_withdraw_a_version(contest: Contest) -> None:
    code, output = contest.cli("alice", "submit", str(EXAMPLE))
    id = output.split()[0]
    code, listed = contest.cli("bob", "submissions", "list")
    assert code == 0 and id not in listed
    for command in ("show", "log", "withdraw"):
        code, output = contest.cli("bob", "submissions", command, id)
        assert code == 2 and "NOT_FOUND" in output and "bob" in output, output
    code, output = contest.cli("bob", "submit", str(EXAMPLE))  # the same contents
    assert code == 2 and "ALREADY_EXISTS" in output
    code, output = contest.cli("alice", "submissions", "withdraw", id)
    assert code == 0 and "withdrawn" in output


def test_a_path_traversal_archive_is_refused_with_its_reason(
    contest: Contest, tmp_path: Path
) -> None:
    archive = tmp_path / "evil.tar.gz"
    archive.write_bytes(_tar({"bot.toml": b'games = ["xix"]\nrun = "x"\n', "../escape": b"x"}))
    before = _stored(contest)
    # Another test's upload may still be spooling (one held open waits for its idle timeout).
    spooling = set((contest.versions / "incoming").iterdir())
    code, output = contest.cli("bob", "submit", str(archive))
    assert code == 2 and "INVALID_ARGUMENT" in output and "'../escape'" in output, output
    assert _stored(contest) == before
    assert not (contest.versions / "escape").exists()
    # The refused upload's spool goes as its stream ends, which may be just after the answer.
    assert wait_until(lambda: set((contest.versions / "incoming").iterdir()) <= spooling, 10)


def test_an_upload_over_the_size_limit_is_refused_as_it_streams(contest: Contest) -> None:
    """The server counts the bytes as they arrive: a client that says nothing of its size, then
    would send 32 MiB against a 1 MiB limit, is stopped near the limit (the limit plus what
    HTTP/2's flow-control windows let it have in flight, a few MiB), never reads to the end."""
    sent = 0

    def messages() -> Iterator[pb.UploadRequest]:
        nonlocal sent
        yield pb.UploadRequest(metadata=pb.UploadMetadata(file_name="big.tar"))
        for _ in range(1024):
            sent += 32 * 1024
            yield pb.UploadRequest(chunk=b"\0" * 32 * 1024)

    channel, stub = contest.stub()
    with channel, pytest.raises(grpc.RpcError) as raised:
        stub.Upload(messages(), metadata=contest.auth("dave"), timeout=30)
    channel, stub = contest.stub()
    assert raised.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "more than the 1,048,576 allowed" in (raised.value.details() or "")
    assert sent < 16 * 1024 * 1024
    declared = pb.UploadRequest(metadata=pb.UploadMetadata(file_name="b", size_bytes=2**30))
    with channel, pytest.raises(grpc.RpcError) as refused:
        stub.Upload(iter([declared]), metadata=contest.auth("dave"), timeout=30)
    assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_an_upload_held_open_halfway_stores_nothing_and_blocks_no_one(
    contest: Contest, tmp_path: Path
) -> None:
    channel, stub = contest.stub()
    held = [
        pb.UploadRequest(metadata=pb.UploadMetadata(file_name="half.tar.gz")),
        pb.UploadRequest(chunk=(EXAMPLE / "random_bot.py").read_bytes()[:1000]),
    ]
    release = False

    def messages() -> Iterator[pb.UploadRequest]:
        yield from held
        while not release:
            time.sleep(0.05)

    before = _stored(contest)
    spooling = set((contest.versions / "incoming").iterdir())  # another test's, if any
    future = stub.Upload.future(messages(), metadata=contest.auth("dave"))
    time.sleep(0.5)  # the stream is open, half sent
    incoming = set((contest.versions / "incoming").iterdir()) - spooling
    assert len(incoming) == 1 and _stored(contest) == before  # spooled, never stored
    code, output = contest.cli("dave", "submissions", "list")  # the server keeps serving
    assert code == 0, output
    future.cancel()  # the client goes away mid-upload
    release = True
    channel.close()
    deadline = time.monotonic() + 10
    while incoming & set((contest.versions / "incoming").iterdir()):
        assert time.monotonic() < deadline, "the held upload's spool is still there"
        time.sleep(0.05)
    assert _stored(contest) == before


def test_a_flood_of_submissions_is_refused_past_the_hourly_quota_quickly(
    contest: Contest,
) -> None:
    archive = _tar({"bot.toml": b'games = ["xix"]\nrun = "{python} bot.py"\n', "bot.py": b""})
    channel, stub = contest.stub()
    codes = []
    details: set[str] = set()
    started = time.monotonic()
    with channel:
        for _ in range(1000):
            messages = [
                pb.UploadRequest(metadata=pb.UploadMetadata(file_name="a.tar.gz")),
                pb.UploadRequest(chunk=archive),
            ]
            try:
                stub.Upload(iter(messages), metadata=contest.auth("carol"), timeout=30)
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())
                details.add(error.details() or "")
    assert codes[:20] == [grpc.StatusCode.OK] * 20
    assert set(codes[20:]) == {grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert all("at most 20 submissions an hour" in line for line in details), details
    assert time.monotonic() - started < 60  # 1,000 a minute, answered


def test_wait_prints_a_failed_builds_log_tail(contest: Contest, tmp_path: Path) -> None:
    """--wait polls until a final status: a build that fails for real (no Makefile) is
    build-failed, and the end of its log is printed."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('games = ["xix"]\nbuild = "make"\nrun = "./bot"\n')
    code, output = contest.cli("dave", "submit", str(bot), "--wait")
    assert code == 1, output
    id = output.split()[0]
    assert f"{id} build-failed" in output, output
    assert "no makefile found" in output.lower(), output


def test_a_failed_qualification_shows_its_author_the_whole_report(
    contest: Contest, tmp_path: Path
) -> None:
    """Issue 42.9: the reason quotes the bot's last line; --wait and `submissions report`
    (GetQualificationReport) show the whole report, the traceback whole, each check and its
    advice, with no folder of the referee's machine."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('games = ["xix"]\nrun = "{python} bot.py"\n')
    (bot / "bot.py").write_text(
        "def load_book():\n    raise RuntimeError('no opening book')\n\n\nload_book()\n"
    )
    code, output = contest.cli("frank", "submit", str(bot), "--wait")
    assert code == 1, output
    id = output.split()[0]
    assert f"{id} failed: xix: connects FAIL" in output, output
    assert "RuntimeError: no opening book" in output.split("qualification report:")[0], output
    report = output.split("qualification report:\n")[1]
    for line in ("Traceback (most recent call last):", "in load_book", "FAIL  connects"):
        assert line in report, report
    assert "advice: " in report, report
    code, again = contest.cli("frank", "submissions", "report", id[:SHORT_ID])
    assert code == 0, again
    assert again.strip() == report.strip()
    assert str(contest.versions) not in again, again
    organiser = runner.invoke(
        app, ["submissions", "report", id, "--db", str(contest.versions.parent / "contest.db")]
    )
    assert organiser.exit_code == 0 and "in load_book" in organiser.output, organiser.output


def test_a_client_built_from_the_previous_release_s_stubs_still_works(
    contest: Contest, tmp_path: Path
) -> None:
    """GetQualificationReport is an addition (issue 42.9): stubs generated from the previous
    release's submissions.proto (tests/data/submissions-v1.binpb) list and read versions on
    this referee as before."""
    stubs = previous_submissions_stubs(tmp_path / "stubs")
    code, output = contest.cli("alice", "submit", str(EXAMPLE))
    assert code == 0, output
    id = output.split()[0]
    script = (
        "import sys, grpc\n"
        "from croupier.v1 import submissions_pb2 as pb, submissions_pb2_grpc as rpc\n"
        "stub = rpc.SubmissionsStub(grpc.insecure_channel(sys.argv[1]))\n"
        "auth = (('authorization', 'Bearer ' + sys.argv[2]),)\n"
        "assert not hasattr(pb, 'GetQualificationReportRequest')\n"
        "listed = stub.ListVersions(pb.ListVersionsRequest(), metadata=auth)\n"
        "ids = [v.id for v in listed.versions]\n"
        "one = stub.GetVersion(pb.GetVersionRequest(version_id=sys.argv[3]), metadata=auth)\n"
        "print(sys.argv[3] in ids, one.version.id == sys.argv[3])\n"
    )
    old = subprocess.run(
        [sys.executable, "-c", script, contest.address, contest.tokens["alice"], id],
        env={"PYTHONPATH": str(stubs), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        cwd=stubs,
        check=False,
    )
    assert old.returncode == 0, old.stderr
    assert old.stdout.split() == ["True", "True"], old.stdout


def test_an_author_s_build_log_names_no_folder_of_the_referee_s_machine(
    contest: Contest, tmp_path: Path
) -> None:
    """The build runs in the version's folder in the store and sees the runtime folder at their
    real paths; its author reads them as `<version>` and `$CROUPIER_RUNTIME`, the organiser as
    they are."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_text('games = ["xix"]\nbuild = "sh build.sh"\nrun = "./bot"\n')
    (bot / "build.sh").write_text('echo "in $(pwd)"\necho "runtime $CROUPIER_RUNTIME"\nexit 3\n')
    code, output = contest.cli("erin", "submit", str(bot), "--wait")
    assert code == 1, output
    id = output.split()[0]
    code, log = contest.cli("erin", "submissions", "log", id)
    assert code == 0, log
    assert "in <version>/build\n" in log and "runtime $CROUPIER_RUNTIME\n" in log, log
    assert str(contest.versions) not in log and str(contest.runtime) not in log, log
    organiser = runner.invoke(
        app, ["submissions", "log", id, "--db", str(contest.versions.parent / "contest.db")]
    )
    assert f"runtime {contest.runtime.resolve()}" in organiser.output, organiser.output


def _refused(contest: Contest, messages: list[pb.UploadRequest]) -> grpc.RpcError:
    channel, stub = contest.stub()
    with channel, pytest.raises(grpc.RpcError) as raised:
        stub.Upload(iter(messages), metadata=contest.auth("erin"), timeout=60)
    return raised.value


def test_a_name_too_long_for_a_file_system_is_refused_by_name(contest: Contest) -> None:
    """Issue 41.4: a 304-character file name came back as UNKNOWN with Python's OSError."""
    archive = _tar({"bot.toml": b'games = ["xix"]\nrun = "./run"\n', "x" * 304: b"data"})
    error = _refused(
        contest,
        [
            pb.UploadRequest(metadata=pb.UploadMetadata(file_name="t.tgz")),
            pb.UploadRequest(chunk=archive),
        ],
    )
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error
    assert "a name of 304 bytes, more than the 255 a file system holds" in (error.details() or "")


def test_bytes_that_are_no_upload_message_are_refused_as_such(contest: Contest) -> None:
    """Issue 41.4: garbage where an UploadRequest goes came back as UNKNOWN."""
    channel = grpc.insecure_channel(contest.address)
    upload = channel.stream_unary(
        "/croupier.v1.Submissions/Upload",
        request_serializer=lambda raw: raw,
        response_deserializer=pb.UploadResponse.FromString,
    )
    first = pb.UploadRequest(metadata=pb.UploadMetadata(file_name="t.tgz")).SerializeToString()
    with channel, pytest.raises(grpc.RpcError) as raised:
        upload(iter([first, b"\xff\xfe\xfd not a protobuf"]), metadata=contest.auth("erin"))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT, raised.value
    assert "could not be read as an UploadRequest" in (raised.value.details() or "")


def test_an_upload_that_trickles_is_ended_at_its_time_in_all(tmp_path: Path) -> None:
    """Issue 41.4: a byte every 20 s never tripped the idle limit, so the upload held its
    spool for ever. Now it has `upload_seconds` in all (2 s here), and its spool goes."""
    transport.run(_trickle, tmp_path)


async def _trickle(tmp_path: Path) -> None:
    store = VersionStore(tmp_path / "versions")
    lobby = Lobby()
    lobby.admit("alice-token", identity="alice")
    settings = transport.ServerSettings(upload_idle_seconds=1.0, upload_seconds=2.0)
    async with transport.serve(lobby, settings, desk=Submitting(store, Limits())) as port:

        def trickle() -> tuple[grpc.StatusCode, str, float]:
            def messages() -> Iterator[pb.UploadRequest]:
                yield pb.UploadRequest(metadata=pb.UploadMetadata(file_name="slow.tgz"))
                for _ in range(40):
                    time.sleep(0.5)  # within the idle limit, every time
                    yield pb.UploadRequest(chunk=b"x")

            started = time.monotonic()
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = submissions_pb2_grpc.SubmissionsStub(channel)
                try:
                    stub.Upload(messages(), metadata=(("authorization", "Bearer alice-token"),))
                except grpc.RpcError as error:
                    return error.code(), error.details() or "", time.monotonic() - started
            raise AssertionError("a trickling upload was accepted")

        code, details, seconds = await trio.to_thread.run_sync(trickle)
    assert code is grpc.StatusCode.DEADLINE_EXCEEDED, details
    assert "did not end within 2 s" in details and seconds < 10
    assert list((tmp_path / "versions" / "incoming").iterdir()) == []
    store.close()
