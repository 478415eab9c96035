"""The organiser's view of hosted versions: `croupier submissions list|show|log --db` over a
real store and a real contest database, no server (the author's form, `--to`, is tested against
a real referee in tests/test_submissions.py)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.contest.tokens import TokenStore
from referee.hosted.store import MIN_PREFIX, SHORT_ID, VersionId, version_folder
from referee.hosted.submitting import build_log
from tests.hosted_helpers import SECRET_LOG_LINE, add_three

pytestmark = pytest.mark.usefixtures("wide_console")

runner = CliRunner()


@dataclass(frozen=True)
class Contest:
    db: Path
    versions: Path
    broken: VersionId  # alice's, its build failed
    active: VersionId  # alice's, qualified and played
    failed: VersionId  # bob's, failed its qualification


def _contest(folder: Path, versions: Path | None = None) -> Contest:
    db = folder / "contest.db"
    TokenStore(db).add("alice")
    root = versions or folder / "versions"
    return Contest(db, root, *add_three(root, "alice", "bob"))


@pytest.fixture
def contest(tmp_path: Path) -> Contest:
    return _contest(tmp_path)


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["submissions", *args])
    return result.exit_code, result.output


def test_the_organiser_lists_every_account_s_versions(contest: Contest) -> None:
    code, listed = _cli("list", "--db", str(contest.db))
    assert code == 0, listed
    lines = {line.split("│")[1].strip(): line for line in listed.splitlines() if "│" in line}
    broken, active, failed = (
        id[:SHORT_ID] for id in (contest.broken, contest.active, contest.failed)
    )
    assert "alice" in lines[broken] and "build-failed" in lines[broken]
    assert "the build exited with status 2" in lines[broken]
    assert "alice" in lines[active] and "qualified (active)" in lines[active]
    assert "bob" in lines[failed] and "reconnects: no answer" in lines[failed]
    assert SECRET_LOG_LINE not in listed
    # Oldest first.
    ids = [broken, active, failed]
    assert sorted(ids, key=listed.index) == ids
    # As narrow as it may be, whatever the terminal (the wide console here): a long reason is
    # folded, not one line of some 250 columns.
    assert max(map(len, listed.splitlines())) <= 120, listed


def test_a_version_is_named_by_a_prefix_of_its_id(contest: Contest) -> None:
    """As git names commits: the table's short id, or any 6 or more first digits that name one
    version only, names it; fewer digits, or none that match, are one line and exit 2."""
    code, shown = _cli("show", contest.failed[:SHORT_ID], "--db", str(contest.db))
    assert code == 0 and f"version: {contest.failed}" in shown, shown
    code, shown = _cli("show", contest.failed[:MIN_PREFIX].upper(), "--db", str(contest.db))
    assert code == 0 and f"version: {contest.failed}" in shown, shown
    code, output = _cli("show", contest.failed[: MIN_PREFIX - 1], "--db", str(contest.db))
    assert code == 2 and f"at least {MIN_PREFIX} digits" in output, output
    code, output = _cli("show", "ffffffffffff", "--db", str(contest.db))
    assert code == 2 and "no version 'ffffffffffff'" in output, output


def test_the_organiser_shows_any_version_and_reads_its_build_log(contest: Contest) -> None:
    code, shown = _cli("show", contest.failed, "--db", str(contest.db))
    assert code == 0, shown
    assert f"version: {contest.failed}" in shown and "account: bob" in shown
    assert "status: failed" in shown and "reason: reconnects: no answer within 10 s" in shown
    code, shown = _cli("show", contest.active, "--db", str(contest.db))
    assert code == 0 and "status: qualified (active)" in shown, shown
    code, log = _cli("log", contest.broken, "--db", str(contest.db))
    assert code == 0 and SECRET_LOG_LINE in log and "compiling one" in log, log


def test_a_store_kept_elsewhere_is_named_with_versions(tmp_path: Path) -> None:
    contest = _contest(tmp_path, tmp_path / "elsewhere")
    code, output = _cli("list", "--db", str(contest.db))
    assert code == 2 and "no versions folder" in output and "--versions" in output, output
    code, listed = _cli("list", "--db", str(contest.db), "--versions", str(contest.versions))
    assert code == 0 and contest.active[:SHORT_ID] in listed, listed


def test_reading_changes_nothing_and_waits_for_no_writer(contest: Contest) -> None:
    """The organiser reads while the referee writes: SQLite read-only, never blocked by the
    referee's open write transaction, and no folder made (VersionStore would make `incoming/`)."""
    (contest.versions / "incoming").rmdir()
    writer = sqlite3.connect(contest.versions / "store.db", isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE versions SET reason = 'uncommitted' WHERE id = ?", (contest.active,))
        started = time.monotonic()
        code, listed = _cli("list", "--db", str(contest.db))
        assert time.monotonic() - started < 5
        assert code == 0 and "every check passed" in listed and "uncommitted" not in listed
        writer.execute("ROLLBACK")
    finally:
        writer.close()
    assert not (contest.versions / "incoming").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["list"], "give --to HOST:PORT and --token"),
        (["list", "--to", "127.0.0.1:1"], "give --to HOST:PORT and --token"),
        (["list", "--versions", "v"], "--versions is the folder of a contest's --db"),
        (["list", "--db", "DB", "--to", "127.0.0.1:1"], "give one of them"),
        (["list", "--db", "missing.db"], "'missing.db': no such file or directory"),
        (["show", "0" * 64, "--db", "DB"], f"no version {'0' * 64!r}"),
        (["log", "nope", "--db", "DB"], "no version 'nope'"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(
    contest: Contest, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    monkeypatch.delenv("CROUPIER_TOKEN", raising=False)
    code, output = _cli(*[str(contest.db) if arg == "DB" else arg for arg in args])
    assert code == 2, output
    assert output.startswith("error: ") and output.count("\n") == 1 and said in output, output


def test_a_build_log_s_terminal_escapes_are_shown_not_acted_on(contest: Contest) -> None:
    """Issue 41.4: a build that prints escapes (clear the screen, retitle the window) had them
    run on the organiser's terminal by `submissions log --db`; they are shown as `\\x1b`."""
    build_log(version_folder(contest.versions, contest.active)).write_text(
        "compiling\n\x1b[2J\x1b]0;pwned\x07done\r\n"
    )
    code, output = _cli("log", contest.active[:12], "--db", str(contest.db))
    assert code == 0, output
    assert "\x1b" not in output and "\x07" not in output
    assert "\\x1b[2J\\x1b]0;pwned\\x07done\\x0d" in output, output
