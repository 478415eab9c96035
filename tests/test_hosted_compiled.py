"""The compiled example bots as an author submits them: examples/cpp and examples/go, uploaded
alone (without the checkout's proto/ beside them), built in the sandbox against the protos of
the organiser's runtime folder (`croupier serve --runtime`), and qualified, through a real
`croupier serve --db` per game and `croupier submit --wait`."""

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


@pytest.fixture
def toolchains(bubblewrap: None) -> None:
    """Skip where the compilers or gRPC's packages are missing (never on CI: fail there)."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if not missing and subprocess.run(["pkg-config", "--exists", "grpc++"]).returncode != 0:
        missing.append("libgrpc++-dev")
    if missing:
        message = f"{' '.join(missing)} not found: `make other-languages` installs them"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


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


def test_the_node_example_runs_on_the_runtime_folders_sdk_and_qualifies(
    bubblewrap: None, tmp_path: Path
) -> None:
    node_or_skip()
    runtime = runtime_folder(tmp_path, node_sdk=True)
    bot = uploaded_alone("node", tmp_path)
    # The XIX bot, as its manifest's comment says: one game to qualify in, not four.
    manifest = (bot / "bot.toml").read_text()
    manifest = manifest.replace(
        'games = ["xix", "xactika", "xeri", "textactoe"]', 'games = ["xix"]'
    )
    manifest = manifest.replace('run = "node random_bot.js"', 'run = "node xix_cheap_winner.js"')
    assert 'games = ["xix"]' in manifest and "xix_cheap_winner.js" in manifest, manifest
    (bot / "bot.toml").write_text(manifest)
    with contest("xix", tmp_path / "xix", runtime) as (address, token):
        process = submit(bot, address, token)
        output, _ = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 0, output
    assert " qualified" in output, output


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
    ],
    ids=["without --db", "missing folder"],
)
def test_a_runtime_folder_that_cannot_serve_is_refused_in_one_line(
    tmp_path: Path, extra: tuple[str, ...], said: str
) -> None:
    if extra:
        TokenStore(tmp_path / "contest.db").add("author")
    runtime = tmp_path / ("runtime" if extra else "")
    command = [CROUPIER, "serve", "--port", "0", "--runtime", str(runtime), *extra]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
