"""The example bots in other languages as an author submits them, uploaded alone (without the
checkout's proto/ and sdk/ beside them): the C++, Go and Java bots built in the sandbox against
the protos of the organiser's runtime folder (`croupier serve --runtime`), the Node bot running
on its SDK, each qualified through a real `croupier serve --db` and `croupier submit --wait`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from referee.contest.tokens import TokenStore
from tests.node_support import SDK, node_or_skip

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = str(Path(sys.executable).parent / "croupier")
#: What building the C++ and Go examples needs (`make other-languages` installs it).
TOOLS = ("make", "pkg-config", "protoc", "grpc_cpp_plugin", "g++", "go", "protoc-gen-go")
#: A clean C++ gRPC build at nice 19 on a loaded machine takes minutes.
WAIT_SECONDS = 1200


def require(*tools: str, libraries: tuple[str, ...] = ()) -> None:
    """Skip where a tool or a pkg-config library is missing (never on CI: fail there)."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if not missing:
        missing += [
            f"{library} (pkg-config)"
            for library in libraries
            if subprocess.run(["pkg-config", "--exists", library]).returncode != 0
        ]
    if missing:
        message = f"{' '.join(missing)} not found: `make other-languages` installs them"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def toolchains(bubblewrap: None) -> None:
    """The C++ and Go examples' compilers and gRPC's packages."""
    require(*TOOLS, libraries=("grpc++",))


def uploaded_alone(example: str, into: Path) -> Path:
    """The example's own files, as an author's folder holds them: no proto/ two levels up, no
    build/ left by a local `make`."""
    folder = into / example
    shutil.copytree(ROOT / "examples" / example, folder, ignore=shutil.ignore_patterns("build"))
    return folder


def runtime_folder(into: Path, *, node_sdk: bool = False) -> Path:
    """An organiser's runtime folder holding the contest's protos (and the Node SDK with its
    dependencies), readable by the builds' and bots' own users."""
    runtime = into / "runtime"
    shutil.copytree(ROOT / "proto", runtime / "proto")
    if node_sdk:
        shutil.copytree(SDK, runtime / "sdk" / "node")
    runtime.chmod(0o755)
    return runtime


@contextmanager
def contest(game: str, folder: Path, runtime: Path | None) -> Iterator[tuple[str, str]]:
    """A real `croupier serve --db` for `game`; yields its address and an account's token."""
    folder.mkdir()
    db = folder / "contest.db"
    token = TokenStore(db).add("author")
    command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--game", game]
    if runtime is not None:
        command += ["--runtime", str(runtime)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        assert serve.stdout is not None
        while "croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
        port = line.split(":")[-1].split()[0]
        try:
            yield f"127.0.0.1:{port}", token
        finally:
            serve.terminate()
            serve.wait(timeout=60)


def submit(bot: Path, address: str, token: str) -> subprocess.Popen[str]:
    command = [CROUPIER, "submit", str(bot), "--to", address, "--token", token, "--wait"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_the_cpp_and_go_examples_build_against_the_runtime_folder_and_qualify(
    toolchains: None, tmp_path: Path
) -> None:
    runtime = runtime_folder(tmp_path)
    bots = {"xix": uploaded_alone("cpp", tmp_path), "xeri": uploaded_alone("go", tmp_path)}
    with ExitStack() as stack:
        submitted = {}
        for game, bot in bots.items():  # both at once: the slow part is the two builds
            address, token = stack.enter_context(contest(game, tmp_path / game, runtime))
            submitted[game] = submit(bot, address, token)
        for game, process in submitted.items():
            output, _ = process.communicate(timeout=WAIT_SECONDS)
            assert process.returncode == 0, f"{game}: {output}"
            assert " qualified" in output, output


def only_xix(bot: Path, every_game_run: str, xix_run: str) -> None:
    """The example's manifest playing XIX alone (one game to qualify in, not four)."""
    manifest = (bot / "bot.toml").read_text()
    manifest = manifest.replace(
        'games = ["xix", "xactika", "xeri", "textactoe"]', 'games = ["xix"]'
    )
    manifest = manifest.replace(f'run = "{every_game_run}"', f'run = "{xix_run}"')
    assert 'games = ["xix"]' in manifest and f'run = "{xix_run}"' in manifest, manifest
    (bot / "bot.toml").write_text(manifest)


def qualifies(bot: Path, game: str, runtime: Path, tmp_path: Path) -> None:
    with contest(game, tmp_path / game, runtime) as (address, token):
        process = submit(bot, address, token)
        output, _ = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 0, output
    assert " qualified" in output, output


def test_the_node_example_runs_on_the_runtime_folders_sdk_and_qualifies(
    bubblewrap: None, tmp_path: Path
) -> None:
    node_or_skip()
    bot = uploaded_alone("node", tmp_path)
    # The XIX bot, as its manifest's comment says.
    only_xix(bot, "node random_bot.js", "node xix_cheap_winner.js")
    qualifies(bot, "xix", runtime_folder(tmp_path, node_sdk=True), tmp_path)


def test_the_java_example_builds_against_the_runtime_folder_and_qualifies(
    bubblewrap: None, tmp_path: Path
) -> None:
    require("make", "protoc", "javac", "jar", "grpc_java_plugin")
    bot = uploaded_alone("java", tmp_path)
    jar = "java -jar build/random_bot.jar"
    only_xix(bot, jar, jar)
    qualifies(bot, "xix", runtime_folder(tmp_path), tmp_path)


def test_without_the_runtime_folder_the_cpp_example_fails_its_build_and_says_why(
    toolchains: None, tmp_path: Path
) -> None:
    bot = uploaded_alone("cpp", tmp_path)
    with contest("xix", tmp_path / "xix", None) as (address, token):
        process = submit(bot, address, token)
        output, _ = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 1, output
    assert "build-failed" in output and "no protos in /proto/croupier/v1" in output, output


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ((), "--runtime is for hosted bots of a contest: give --db too"),
        (("--db", "contest.db"), "--runtime: no such folder"),
        (("--db", "contest.db"), "would show"),
    ],
    ids=["without --db", "missing folder", "holding the database"],
)
def test_a_runtime_folder_that_cannot_serve_is_refused_in_one_line(
    tmp_path: Path, extra: tuple[str, ...], said: str
) -> None:
    if extra:
        TokenStore(tmp_path / "contest.db").add("author")
    runtime = tmp_path / ("runtime" if said.startswith("--runtime:") else "")
    command = [CROUPIER, "serve", "--port", "0", "--runtime", str(runtime), *extra]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
