"""The example bots as an author submits them, uploaded alone (without the checkout's proto/ and
sdk/ beside them): the C++, Go and Java bots built in the sandbox against the protos of the
organiser's runtime folder (`croupier serve --runtime`), the Node bot running on its SDK, the
Python bot on the referee's; each qualified through a real `croupier serve --db` and `croupier
submit --wait`, and read back through the CLI and the contest's site."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.contest.tokens import TokenStore
from referee.hosted.store import SHORT_ID, read_listing
from tests.node_support import SDK, node_or_skip

ROOT = Path(__file__).resolve().parents[1]
CROUPIER = str(Path(sys.executable).parent / "croupier")
#: What building the C++ and Go examples needs (`make other-languages` installs it).
TOOLS = ("make", "pkg-config", "protoc", "grpc_cpp_plugin", "g++", "go", "protoc-gen-go")
#: A clean C++ gRPC build at nice 19 on a loaded machine takes minutes.
WAIT_SECONDS = 1200
#: The builds' wait, and the reading back after them, not the suite's 300 s for a test: beside
#: other work two builds at once took 280 s (issue 50).
pytestmark = pytest.mark.timeout(WAIT_SECONDS + 300)


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


@dataclass(frozen=True)
class Contest:
    """A running `croupier serve --db`: where bots and authors reach it, its accounts' tokens,
    and its web site (or "")."""

    folder: Path
    address: str
    tokens: dict[str, str]
    web: str = ""

    @property
    def token(self) -> str:
        """The token of its first account."""
        return next(iter(self.tokens.values()))


@contextmanager
def contest(
    game: str,
    folder: Path,
    runtime: Path | None,
    accounts: tuple[str, ...] = ("author",),
    web: bool = False,
) -> Iterator[Contest]:
    """A real `croupier serve --db` for `game` with `accounts` (and its site, with `web`)."""
    folder.mkdir()
    db = folder / "contest.db"
    tokens = {name: TokenStore(db).add(name) for name in accounts}
    command = [CROUPIER, "serve", "--db", str(db), "--port", "0", "--game", game]
    if runtime is not None:
        command += ["--runtime", str(runtime)]
    if web:
        command += ["--web", "127.0.0.1:0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as serve:
        assert serve.stdout is not None
        site = ""
        while "croupier referee" not in (line := serve.stdout.readline()):
            assert line, "the referee stopped before it listened"
            if "web site on " in line:
                site = line.split("web site on ")[1].strip()
        port = line.split(":")[-1].split()[0]
        while web and not site:  # after the address, and the luck value function's line
            line = serve.stdout.readline()
            assert line, "the referee stopped before its site listened"
            if "web site on " in line:
                site = line.split("web site on ")[1].strip()
        try:
            yield Contest(folder, f"127.0.0.1:{port}", tokens, site)
        finally:
            serve.terminate()
            serve.wait(timeout=60)


def submit(bot: Path, address: str, token: str) -> subprocess.Popen[str]:
    command = [CROUPIER, "submit", str(bot), "--to", address, "--token", token, "--wait"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


#: The e2e test's accounts and the example each submits.
AUTHORS = {"py-author": "python", "cpp-author": "cpp", "go-author": "go"}


def test_authors_submit_the_python_cpp_and_go_examples_and_read_them_on_the_cli_and_the_site(
    toolchains: None, tmp_path: Path, page: Any
) -> None:
    """Issue 26's end to end: three authors upload their bots with `croupier submit --wait` to
    one real contest; each is built in the sandbox against the runtime folder and qualified in
    the contest's game; each author reads their own version, status and build log, the
    organiser every account's, and the site each bot's versions, without their build logs."""
    runtime = runtime_folder(tmp_path)
    with contest("xix", tmp_path / "xix", runtime, tuple(AUTHORS), web=True) as running:
        submitted = {
            account: submit(uploaded_alone(AUTHORS[account], tmp_path), running.address, token)
            for account, token in running.tokens.items()
        }  # all at once: the slow part is the two builds
        for account, process in submitted.items():
            output, _ = process.communicate(timeout=WAIT_SECONDS)
            assert process.returncode == 0, f"{account}: {output}"
            assert " qualified" in output, output
        listing = read_listing(running.folder / "versions")
        ids = {version.account: version.id for version in listing.versions}
        assert set(ids) == set(AUTHORS) and set(ids.values()) == listing.active, listing
        for account, token in running.tokens.items():
            author = ("--to", running.address, "--token", token)
            mine = croupier("submissions", "list", *author)
            assert ids[account][:SHORT_ID] in mine and "qualified (active)" in mine, mine
            assert not [other for a, other in ids.items() if a != account and other[:8] in mine]
            shown = croupier("submissions", "show", ids[account][:8], *author)
            assert f"version: {ids[account]}" in shown and "status: qualified (active)" in shown
            log = croupier("submissions", "log", ids[account][:8], *author)
            assert str(tmp_path) not in log, log  # the referee's folders are named by stand-ins
            said = {"py-author": "nothing to build", "cpp-author": "g++", "go-author": "go build"}
            assert said[account] in log, log
        every = croupier("submissions", "list", "--db", str(running.folder / "contest.db"))
        assert all(account in every for account in AUTHORS), every
        for account, id in ids.items():
            page.goto(f"{running.web}/bots/{account}")
            rows = page.locator("#versions:not([hidden]) tbody tr")
            rows.first.wait_for(timeout=30_000)
            cells = rows.first.locator("td").all_text_contents()
            assert rows.count() == 1 and rows.first.get_attribute("data-version") == id, cells
            assert cells[1] == "qualifiedactive" and cells[5] == "passed the checks in xix", cells
            assert rows.first.locator(".badge.active").count() == 1
            assert "g++" not in page.content() and "go build" not in page.content()


def croupier(*arguments: str) -> str:
    """What a croupier command prints to a pipe; it must succeed."""
    done = subprocess.run([CROUPIER, *arguments], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


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
    with contest(game, tmp_path / game, runtime) as running:
        process = submit(bot, running.address, running.token)
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
    with contest("xix", tmp_path / "xix", None) as running:
        process = submit(bot, running.address, running.token)
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


def test_the_typescript_example_comes_with_its_packages_builds_to_dist_and_qualifies(
    bubblewrap: None, tmp_path: Path
) -> None:
    """Issue 42.7: a Node bot without the SDK brings its packages (node_modules, which submit
    used to drop without a word, and the build has no network for `npm ci`); its build compiles
    src/ to dist/ with the TypeScript among them; it runs as `node dist/bot.js`."""
    node_or_skip()
    if not (ROOT / "examples" / "typescript" / "node_modules" / "typescript").is_dir():
        message = "the TypeScript example's packages are not installed: run `make node-deps`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    folder = tmp_path / "typescript"
    source = ROOT / "examples" / "typescript"
    # As an author's folder holds it after `npm ci`: without the dist/ a local build left.
    shutil.copytree(
        source, folder, symlinks=True, ignore=lambda at, _: ["dist"] if at == str(source) else []
    )
    only_xix(folder, "node dist/bot.js", "node dist/bot.js")
    with contest("xix", tmp_path / "xix", runtime_folder(tmp_path)) as running:
        process = submit(folder, running.address, running.token)
        output, _ = process.communicate(timeout=WAIT_SECONDS)
    assert process.returncode == 0, output
    assert " qualified" in output, output
    # What it left out, it said: npm's links in node_modules/.bin.
    assert "left out 3 links in node_modules (node_modules/.bin/" in output, output
