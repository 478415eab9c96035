"""`croupier token ...` and `croupier watch` through typer's runner, on real files and servers."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from rich.console import Console
from typer.testing import CliRunner

from croupier.v1 import referee_pb2
from referee.challenges.terms import ChallengeTerms, Ranked
from referee.cli import app
from referee.cli.serve import serve_command
from referee.cli.watch import draw
from referee.clock_kind import ClockKind
from referee.contest.file import load as load_contest_file
from referee.contest.settings import FILE_ONLY, ServeSettings
from referee.contest.tokens import TokenStore
from referee.errors import CroupierError
from referee.transport.client import watch
from tests.test_contest import BAD, RANDOM, Contest, accounts, run_contest

runner = CliRunner()


def test_tokens_are_shown_once_and_stored_hashed(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    added = runner.invoke(app, ["token", "add", "alice", "--db", db])
    assert added.exit_code == 0, added.output
    token = added.output.strip()
    assert len(token) >= 40
    assert token.encode() not in (tmp_path / "c.db").read_bytes()
    assert TokenStore(tmp_path / "c.db").lookup(token) == "alice"
    again = runner.invoke(app, ["token", "add", "alice", "--db", db])
    assert again.exit_code == 2
    assert "already has a token" in again.output
    listed = runner.invoke(app, ["token", "list", "--db", db])
    assert "alice" in listed.output
    assert token not in listed.output
    assert runner.invoke(app, ["token", "revoke", "alice", "--db", db]).exit_code == 0
    assert TokenStore(tmp_path / "c.db").lookup(token) is None
    missing = runner.invoke(app, ["token", "revoke", "bob", "--db", db])
    assert missing.exit_code == 2
    assert "no active token for bot 'bob'" in missing.output
    bad = runner.invoke(app, ["token", "add", "no spaces", "--db", db])
    assert bad.exit_code == 2


def test_token_add_takes_many_names_at_once_all_or_none(tmp_path: Path) -> None:
    """A 40-student contest (issue 42): names on the command line and in a file (--from), a
    `NAME<TAB>TOKEN` line each; a taken or repeated name adds no account."""
    db = tmp_path / "c.db"
    names = tmp_path / "students.txt"
    names.write_text("# the class of 2026\ncarol\n\ndave   # late\nerin\n")
    added = runner.invoke(
        app, ["token", "add", "alice", "bob", "--from", str(names), "--db", str(db)]
    )
    assert added.exit_code == 0, added.output
    rows = [line.split("\t") for line in added.output.splitlines()]
    assert [name for name, _ in rows] == ["alice", "bob", "carol", "dave", "erin"]
    store = TokenStore(db)
    assert all(store.lookup(token) == name for name, token in rows)
    piped = runner.invoke(app, ["token", "add", "--from", "-", "--db", str(db)], input="frank\n")
    assert piped.exit_code == 0 and piped.output.startswith("frank\t"), piped.output
    for taken in (["gina", "bob"], ["gina", "hugo", "gina"], ["gina", "no spaces"]):
        refused = runner.invoke(app, ["token", "add", *taken, "--db", str(db)])
        assert refused.exit_code == 2, refused.output
        assert "no account was added" in refused.output or "bad bot name" in refused.output
    assert "gina" not in {account.name for account in store.accounts()}
    nothing = runner.invoke(app, ["token", "add", "--db", str(db)])
    assert nothing.exit_code == 2 and "give the accounts' names" in nothing.output


def test_serve_refuses_plaintext_off_loopback() -> None:
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--db", "x.db"])
    assert result.exit_code == 2
    assert "refusing plaintext on '0.0.0.0'" in result.output


def test_watch_lists_and_follows_a_live_match(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")
    outputs: list[str] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        address = f"127.0.0.1:{contest.port}"

        def watch() -> None:  # the CLI is synchronous: run it beside the referee
            for _ in range(1000):
                if "contest-" in (listing := runner.invoke(app, ["watch", address]).output):
                    break
                time.sleep(0.01)
            outputs.append(listing)
            match_id = "contest-" + listing.split("contest-")[1].split()[0]
            outputs.append(runner.invoke(app, ["watch", address, match_id]).output)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["alice"], "slow_good")
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "slow_good")
            await trio.to_thread.run_sync(watch)

    run_contest(tmp_path, scenario, matches=1)
    assert "live matches" in outputs[0]
    assert "bad-slow_good" in outputs[0]
    assert "seat 0 is dealt" not in outputs[1]  # private
    assert "leads first" in outputs[1]
    assert "result: seat" in outputs[1]


def test_a_contest_file_runs_a_contest_to_its_end(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")
    contest = tmp_path / "contest.toml"
    contest.write_text(
        'game = "xix"\nport = 0\ndatabase = "contest.db"\nrecords = "records"\nmatches = 4\n'
        "[time_control]\nmove_ms = 5000\nbank_ms = 0\n[limits]\nmax_faults = 2\n"
    )
    croupier = str(Path(sys.executable).parent / "croupier")
    with subprocess.Popen([croupier, "serve", str(contest)], stdout=subprocess.PIPE) as serve:
        assert serve.stdout is not None
        committed = serve.stdout.readline().decode()  # issue 24.3: the seed's SHA-256 first
        assert committed.startswith("master seed sha256: ")
        port = serve.stdout.readline().split(b"127.0.0.1:")[1].split()[0].decode()
        env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
        bots = [
            subprocess.Popen([sys.executable, BAD, "good"], env=env | {"CROUPIER_TOKEN": t})
            for t in tokens.values()
        ]
        assert serve.wait(timeout=60) == 0
        output = serve.stdout.read().decode()
        for bot in bots:
            assert bot.wait(timeout=30) == 0
    assert output.count("contest-") == 4
    revealed = output.strip().splitlines()[-1].removeprefix("master seed: ")
    assert hashlib.sha256(revealed.encode()).hexdigest() == committed.split()[-1]
    database = str(tmp_path / "contest.db")
    standings = runner.invoke(app, ["ladder", "standings", database, "--format", "json"])
    assert standings.exit_code == 0, standings.output
    assert '"bot": "alice"' in standings.output
    assert '"bot": "bob"' in standings.output
    verified = runner.invoke(app, ["ladder", "verify", database])
    assert verified.exit_code == 0, verified.output
    again = runner.invoke(app, ["serve", str(contest)])  # over: its seed was revealed
    assert again.exit_code == 2
    assert "is over and its seed was revealed" in again.output


def test_a_bad_contest_file_names_the_line_and_key(tmp_path: Path) -> None:
    contest = tmp_path / "contest.toml"
    contest.write_text('game = "xix"\n[limits]\nmax_fault = 2\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert f"{contest}:3: key 'limits.max_fault': unknown key (did you mean 'max_faults'?)" in said
    contest.write_text('game = "xix"\ndatabse = "c.db"\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    assert "key 'databse': unknown key (did you mean 'database'?)" in result.output
    contest.write_text('game = "xix"\nport = "fifty"\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    assert "key 'port': expected a whole number, got 'fifty'" in result.output


def test_a_contest_file_sets_the_hosted_bots_folders_and_quotas(tmp_path: Path) -> None:
    contest = tmp_path / "contest.toml"
    contest.write_text(
        'game = "xix"\ndatabase = "contest.db"\n[hosted]\nversions = "store"\n'
        'runtime = "runtime"\nsubmissions_per_hour = 5\nmax_upload_mb = 8\nversions_kept = 3\n'
        'cluster = "tcp://scheduler.lan:8786"\n'
    )
    assert load_contest_file(contest) == {
        "game": "xix",
        "tokens": tmp_path / "contest.db",
        "versions": tmp_path / "store",
        "runtime": tmp_path / "runtime",
        "submissions_per_hour": 5,
        "max_upload_mb": 8,
        "versions_kept": 3,
        "cluster": "tcp://scheduler.lan:8786",
    }
    contest.write_text('game = "xix"\ndatabase = "contest.db"\n[hosted]\nversions_kept = 0\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert f"{contest}:4: key 'hosted.versions_kept': expected at least 1" in said, said


def test_the_serve_command_s_defaults_are_the_library_s(tmp_path: Path) -> None:
    """One set of defaults (issue 43.3): each option's default on `croupier serve` is its
    setting's default in referee.contest.settings, which a contest file and a library caller
    get too; and a contest file's every key is a setting there (a table of rules only the file
    holds, `[challenges]`, too)."""
    defaults = ServeSettings()
    shown = inspect.signature(serve_command).parameters
    assert not FILE_ONLY & set(shown)
    for name in {f.name for f in dataclasses.fields(ServeSettings)} - FILE_ONLY:
        assert shown[name].default == getattr(defaults, name), name
    contest = tmp_path / "contest.toml"
    contest.write_text(
        'game = "xix"\nhost = "::1"\nport = 1\ndatabase = "c.db"\nrecords = "r"\n'
        'tls_cert = "c"\ntls_key = "k"\ninsecure = true\nmatches = 2\nlog_json = true\n'
        '[options]\n[time_control]\nmove_ms = 5\nbank_ms = 5\nclock = "cpu"\n'
        "ceiling_factor = 3\n[limits]\nmax_faults = 1\nreconnect_grace = 1.0\n"
        "max_sessions_per_token = 1\nmax_matches_per_session = 1\n"
        "max_messages_per_second = 1.0\nmax_message_bytes = 2048\ndrain_seconds = 1.0\n"
        "max_lead = 1\nmax_team_size = 2\n[web]\nport = 1\n"
        "[hosted]\nversions = 'v'\nruntime = 'u'\n"
        "submissions_per_hour = 1\nmax_upload_mb = 1\nversions_kept = 1\nslots = 1\n"
        "freeze = true\ncluster = 'tcp://s:1'\n[challenges]\nshare = 0.5\nranked = 'off'\n"
    )
    settings = defaults.over(load_contest_file(contest))
    assert settings.challenge_terms() == ChallengeTerms(share=0.5, ranked=Ranked.OFF)
    assert settings.clock is ClockKind.CPU and settings.web == "127.0.0.1:1"
    assert settings.option == () and settings.hosted_slots == 1
    assert settings.max_team_size == 2


def test_a_library_caller_is_held_to_the_serve_s_rules(tmp_path: Path) -> None:
    """The cross-option rules live with the settings, not in the command (issue 43.3)."""
    with pytest.raises(CroupierError, match=re.escape("refusing to accept any token on '0.0.0.0'")):
        ServeSettings(host="0.0.0.0", insecure=True).config("seed")
    with pytest.raises(CroupierError, match="--web shows a contest: give --db too"):
        ServeSettings(web="127.0.0.1:8080").check()
    with pytest.raises(CroupierError, match="--ceiling-factor is for --clock cpu"):
        ServeSettings(ceiling_factor=3).check()
    with pytest.raises(TypeError, match="no serve setting named colour"):
        ServeSettings().over({"colour": "red"})


def test_a_contest_file_is_read_as_a_ladder_file_is(tmp_path: Path) -> None:
    """One reader, one format (issue 25.5): a contest file that is not TOML is refused at its
    line, and one that is not UTF-8 at the line of its first bad byte, as a ladder file is."""
    contest = tmp_path / "contest.toml"
    contest.write_text('game = "xix"\nport = = 1\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    assert f"{contest}:2: not valid TOML: " in " ".join(result.output.split())
    contest.write_bytes(b'game = "\xff"\n')
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2
    expected = f"{contest}:1: not UTF-8 text (byte 0xff): save the contest file as UTF-8"
    assert expected in " ".join(result.output.split())


def test_a_contest_files_paths_have_no_dot_dot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "contests").mkdir()
    contest = tmp_path / "contests" / "contest.toml"
    contest.write_text('game = "xix"\ndatabase = "../out/contest.db"\nrecords = "./records"\n')
    monkeypatch.chdir(tmp_path)
    settings = load_contest_file(Path("contests/contest.toml"))
    assert settings["tokens"] == Path("out/contest.db")
    assert settings["records"] == Path("contests/records")


def test_watch_follow_shows_each_match_with_the_bots_names(tmp_path: Path) -> None:
    # Issue 17: matches end in a blink; --follow watches each one as it starts.
    tokens = accounts(tmp_path, "alice", "bob")
    croupier = str(Path(sys.executable).parent / "croupier")
    out: list[str] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        address = f"127.0.0.1:{contest.port}"
        watcher = subprocess.Popen(
            [croupier, "watch", address, "--follow", "--bot", "alice"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert watcher.stdout is not None
        first = await trio.to_thread.run_sync(watcher.stdout.readline)
        assert first.startswith(f"following the matches on {address} of alice"), first
        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["alice"], "good")
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "good")
        while len(contest.outcomes) < 3:
            await trio.sleep(0.05)
        await trio.sleep(0.5)
        watcher.send_signal(signal.SIGINT)
        rest, _ = await trio.to_thread.run_sync(watcher.communicate)
        out.append(rest)
        assert watcher.returncode == 130

    contest = run_contest(tmp_path, scenario, matches=3)
    text = out[0]
    for outcome in contest.outcomes:
        assert f"xix match {outcome.match_id}: " in text
    assert text.count("result: seat ") == 3
    assert "(alice (" in text and "(bob (" in text  # seats named by their accounts
    assert "Traceback" not in text


def test_a_spectator_sees_the_table_and_never_a_hidden_card(tmp_path: Path) -> None:
    # Issue 17: `croupier watch` draws the table as the stepper does, from public facts only.
    tokens = accounts(tmp_path, "alice", "bob")
    seen: list[referee_pb2.WatchMessage] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        address = f"127.0.0.1:{contest.port}"

        def spectate() -> None:
            for message in watch(address, None):
                seen.append(message)
                if message.WhichOneof("kind") == "match_end":
                    return

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, spectate)
            await trio.sleep(0.5)
            nursery.start_soon(contest.bot, BAD, tokens["alice"], "good")
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "good")

    contest = run_contest(tmp_path, scenario, matches=1)
    tables = [m.public_table.xix for m in seen if m.WhichOneof("kind") == "public_table"]
    assert len(tables) > 10
    record = next((tmp_path / "records").glob("*.jsonl")).read_text()
    assert "is dealt" in record  # the hands were dealt, privately
    for table in tables:
        assert not table.hand  # nobody's hand, ever
        assert all(slot.known_value == 0 for slot in table.strike_row if not slot.slid)
    screen = Console(file=io.StringIO(), force_terminal=True, width=120)
    draw(seen, screen)
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    names = contest.outcomes[0].result.seats
    assert all(seat.name in drawn for seat in names)
    assert "result: seat" in drawn


def test_the_console_names_accounts_with_reasons(tmp_path: Path) -> None:
    # Issue 17: results, log lines and standings name the account an organiser looks for.
    tokens = accounts(tmp_path, "alice", "bob")
    contest = tmp_path / "contest.toml"
    contest.write_text(
        'game = "xix"\nport = 0\ndatabase = "contest.db"\nrecords = "records"\n'
        "[time_control]\nmove_ms = 5000\nbank_ms = 0\n"
    )
    croupier = str(Path(sys.executable).parent / "croupier")
    with subprocess.Popen(
        [croupier, "serve", str(contest)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as serve:
        assert serve.stdout is not None and serve.stderr is not None
        assert serve.stdout.readline().startswith(b"master seed sha256: ")  # the contest's
        port = serve.stdout.readline().split(b"127.0.0.1:")[1].split()[0].decode()
        env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}"}
        wrong = subprocess.run(
            [sys.executable, BAD, "good"], env=env | {"CROUPIER_TOKEN": "nope"}, check=False
        )
        assert wrong.returncode != 0
        bots = [
            subprocess.Popen([sys.executable, BAD, "good"], env=env | {"CROUPIER_TOKEN": t})
            for t in tokens.values()
        ]
        assert serve.stdout.readline().startswith(b"luck value function: xix-")
        result = serve.stdout.readline().decode()
        TokenStore(tmp_path / "contest.db").revoke("bob")
        time.sleep(1)  # the referee polls revocations twice a second
        serve.send_signal(signal.SIGINT)  # an open-ended contest: stop it
        serve.wait(timeout=60)
        for bot in bots:
            bot.wait(timeout=30)
        log = serve.stderr.read().decode()
    assert result.startswith("contest-") and ("(alice (" in result or "(bob (" in result), result
    opened = [line for line in log.splitlines() if "session opened" in line]
    assert any("bot=alice" in line for line in opened) and any("bot=bob" in line for line in opened)
    assert any("refused" in line and "why=" in line for line in log.splitlines()), log
    assert any("match started" in line and "alice" in line for line in log.splitlines()), log
    for token in tokens.values():
        assert token not in log
    plain = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    standings = subprocess.run(
        [croupier, "ladder", "standings", str(tmp_path / "contest.db")],
        capture_output=True,
        text=True,
        check=True,
        env=plain,
    ).stdout
    assert "bob (revoked)" in standings
    assert " of " not in standings.splitlines()[0]  # no total to reach in a contest


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_serve_stopped_by_ctrl_c_or_sigterm_exits_0_and_reveals_its_seed(
    stop: signal.Signals,
) -> None:
    """Issue 24.3: as its help says, a stopped `serve` exits 0 (Ctrl-C drained like SIGTERM,
    not interrupted with 130), and a referee without a contest reveals its master seed."""
    croupier = str(Path(sys.executable).parent / "croupier")
    with subprocess.Popen(
        [croupier, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
    ) as serve:
        assert serve.stdout is not None
        committed = serve.stdout.readline()
        assert "croupier referee for xix" in serve.stdout.readline()
        serve.send_signal(stop)
        assert serve.wait(timeout=60) == 0
        revealed = serve.stdout.read().strip().splitlines()[-1].removeprefix("master seed: ")
    assert hashlib.sha256(revealed.encode()).hexdigest() == committed.split()[-1]


def test_the_report_of_a_contest_marks_its_revoked_accounts(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """As `ladder standings` does (issue 24.10), in the report's page as chromium draws it
    (the site's own script, issue 43.4)."""
    tokens = accounts(tmp_path, "alice", "bob")

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        async with trio.open_nursery() as nursery:
            for token in tokens.values():
                nursery.start_soon(contest.bot, RANDOM, token)

    run_contest(tmp_path, scenario, matches=2)
    database = tmp_path / "contest.db"
    TokenStore(database).revoke("bob")
    result = runner.invoke(app, ["ladder", "report", str(database), "--html", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    browser = request.getfixturevalue("browser")  # after the contest: trio, then chromium
    page = browser.new_page()
    try:
        page.goto((tmp_path / "r" / "index.html").as_uri())
        page.wait_for_selector("body[data-version]")
        rows = page.locator("#standings tbody tr").evaluate_all(
            "rows => rows.map((row) => [row.dataset.bot, row.className, row.cells[1].textContent])"
        )
    finally:
        page.close()
    drawn = {bot: (classes.split(), name) for bot, classes, name in rows}
    assert "revoked" in drawn["bob"][0] and drawn["bob"][1].endswith("bob (revoked)"), drawn
    assert "revoked" not in drawn["alice"][0] and "revoked" not in drawn["alice"][1], drawn
