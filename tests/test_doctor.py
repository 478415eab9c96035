"""The bot doctor for real: it passes the example bots (Python and Node) and fails a bot broken
in each way (tests/bots/broken_bot.py) on exactly the check that names that defect."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee import transport
from referee.cli import app
from referee.doctor.checks import (
    CheckName,
    DoctorConfig,
    DoctorReport,
    Status,
    parse_command,
)
from referee.doctor.examine import examine
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.replay import verify
from tests.node_support import NODE_RANDOM, ROOT, node_or_skip

PYTHON = sys.executable
EXAMPLES = ROOT / "examples" / "python"
BROKEN = ROOT / "tests" / "bots" / "broken_bot.py"
runner = CliRunner()

C = CheckName
# The checks each defect must fail, with what their detail says (every other check must pass,
# or be skipped when an earlier failure makes it impossible).
EXPECTED: dict[str, dict[CheckName, str]] = {
    "good": {},
    "wrong_token": {C.AUTHENTICATES: "presented 'not-the-token', not CROUPIER_TOKEN"},
    "no_hello": {C.AUTHENTICATES: "no Hello came as the stream's first message"},
    "wrong_game": {C.HELLO: "plays chess: not 'xix'"},
    "slow": {C.TIME: "decisions timed out, e.g. timeout: no reply within 500 ms"},
    "illegal": {C.LEGAL_ACTIONS: "named no legal action, e.g. illegal_action: action index"},
    "stale": {C.PROTOCOL: "bad replies, e.g. wrong_request: reply names request"},
    # A bot that cannot play two matches in a row loses its seat in the sessions match too.
    "one_match": {
        C.MATCH_CYCLE: "the bot closed its session right after MatchEnd",
        C.SEVERAL_MATCHES: "sessions for 3 matches",
        # Not SESSIONS: a fresh session plays its one match to the end (the doctor waits for
        # a bot that hangs up to do so before it hands out another session).
    },
    "second_match": {
        C.SEVERAL_MATCHES: "lost in match 2: crashed: bot process exited: exit code 3",
        C.SESSIONS: "1 sessions in one match, but one was lost: crashed",
    },
    "no_reconnect": {C.RECONNECT: "did not take its seat back and answer the request pending"},
    "ignore_goodbye": {C.GOODBYE: "still running 1 s after Goodbye"},
}


def examine_broken(mode: str, workdir: Path, sessions: int = 1) -> DoctorReport:
    """The broken bot opens one session whatever CROUPIER_SESSIONS says: ask it for one."""
    game = get_game("xix")
    config = DoctorConfig(
        game=game,
        options=parse_options(game, {}),
        argv=(PYTHON, str(BROKEN), mode),
        workdir=workdir,
        time_control=TimeControl(move_ms=500, bank_ms=0),
        connect_timeout=3.0,
        goodbye_grace=1.0,
        sessions=sessions,
    )
    return transport.run(examine, config)


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_each_defect_fails_its_own_check(tmp_path: Path, mode: str) -> None:
    failing = EXPECTED[mode]
    report = examine_broken(mode, tmp_path)
    statuses = {check.name: check.status for check in report.checks}
    assert list(statuses) == list(CheckName)
    assert {name for name, status in statuses.items() if status is Status.FAIL} == set(failing)
    assert report.ok == (not failing)
    for check in report.checks:
        if check.name in failing:
            assert failing[CheckName(check.name)] in check.detail, check.detail
            assert check.advice
        if check.status is Status.SKIP:
            # Only what an earlier failure made impossible is skipped.
            assert set(failing) & {C.CONNECTS, C.AUTHENTICATES, C.RECONNECT}, (mode, check)
    for record in tmp_path.glob("*.jsonl"):
        assert verify(record).ok, record


def test_the_doctor_runs_its_bot_as_a_ladder_does(tmp_path: Path) -> None:
    """One supervisor (issue 25.5): the bot is launched and attached to the lobby as a ladder's
    bots are, so that each decision of its seat records the bot's CPU time (cpuMs)."""
    report = examine_broken("good", tmp_path)
    assert report.ok
    record = (tmp_path / "xix-doctor-00.jsonl").read_text()
    lines = [json.loads(line) for line in record.splitlines()]
    actions = [line["action"] for line in lines if "action" in line]
    bot = [action for action in actions if action.get("seat", 0) == 0]  # its seat in match 1
    assert bot and all("cpuMs" in action for action in bot), bot
    assert not any("cpuMs" in action for action in actions if action.get("seat", 0) != 0)


def doctor(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["doctor", *args])
    return result.exit_code, result.output


def assert_all_passed(output: str) -> None:
    lines = output.splitlines()
    for name in CheckName:
        assert any(line.startswith(f"PASS  {name} ") for line in lines), (name, output)
    assert lines[-1] == f"all {len(CheckName)} checks passed"


def test_the_python_examples_pass() -> None:
    code, output = doctor("--game", "xix", "--", PYTHON, str(EXAMPLES / "random_bot.py"))
    assert code == 0, output
    assert_all_passed(output)
    # Issue 42.9: the Python SDK reconnects by itself, as the Node SDK does (it used to exit,
    # and pass only because the doctor restarted it, as nothing does against `croupier serve`).
    assert "the bot reconnected by itself" in output
    code, output = doctor("--game", "xix", "--", PYTHON, str(EXAMPLES / "xix_heuristic.py"))
    assert code == 0, output
    assert_all_passed(output)


def test_the_node_example_passes_and_reconnects_by_itself() -> None:
    node = node_or_skip()
    code, output = doctor("--game", "xeri", "--players", "4", "--", node, str(NODE_RANDOM))
    assert code == 0, output
    assert_all_passed(output)
    assert "4 matches on one session, in seats 0, 1, 2, 3" in output
    assert "the bot reconnected by itself" in output


TYPESCRIPT = ROOT / "examples" / "typescript"


def typescript_or_skip() -> str:
    """`node`, with the TypeScript example built (`make node-deps` builds it to dist/)."""
    node = node_or_skip()
    if not (TYPESCRIPT / "dist" / "bot.js").is_file():
        message = "the TypeScript example is not built: run `make node-deps`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return node


def test_a_bot_run_as_node_dist_bot_js_is_told_what_the_sandbox_showed_and_refused() -> None:
    """Issue 42.7: the sandbox shows `node dist/bot.js` the folder dist/, not the node_modules
    beside it; the doctor said "run npm ci" and that nothing was refused. It names the folder
    shown, what the bot looked for outside it, and --cwd, which runs it from its own folder."""
    node = typescript_or_skip()
    code, output = doctor("--game", "xix", "--", node, str(TYPESCRIPT / "dist" / "bot.js"))
    assert code == 1, output
    assert f"sandbox: showed the bot its folder {TYPESCRIPT / 'dist'} (read-only)" in output
    refused = next(line for line in output.splitlines() if line.startswith("sandbox: refused"))
    assert "Cannot find package '@grpc/grpc-js'" in refused, output
    assert f"({TYPESCRIPT / 'node_modules'} is not in the bot's view)" in refused, output
    assert f"give --cwd {TYPESCRIPT} to run it from its own folder" in output, output
    assert "npm ci" not in output, output
    code, output = doctor("--game", "xix", "--cwd", str(TYPESCRIPT), "--", node, "dist/bot.js")
    assert code == 0, output
    assert_all_passed(output)
    assert f"sandbox: showed the bot its folder {TYPESCRIPT} (read-only)" in output


def test_a_failing_bot_gets_advice_its_output_and_exit_code_1(tmp_path: Path) -> None:
    code, output = doctor(
        *("--game", "xix", "--move-ms", "500", "--bank-ms", "0", "--keep", str(tmp_path)),
        *("--sessions", "1"),  # the broken bot opens one session whatever it is asked
        *("--", PYTHON, str(BROKEN), "illegal"),
    )
    assert code == 1, output
    lines = output.splitlines()
    failed = lines.index(next(line for line in lines if line.startswith("FAIL")))
    assert lines[failed].startswith("FAIL  legal actions")
    assert "advice: answer with an index into request.legal_actions" in lines[failed + 1]
    assert "1 of 12 checks did not pass" in output
    assert f"the bot's last output ({tmp_path / 'bot.log'}):" in output
    assert len(list(tmp_path.glob("xix-doctor-*.jsonl"))) == 5  # 3, the reconnect, the sessions


def test_a_fault_is_told_by_its_decision_and_match_as_the_record_numbers_them(
    tmp_path: Path,
) -> None:
    """Issue 42: "(request 19349)" was the referee's own counter, which in a contest's
    qualification tells an author nothing; the doctor says "decision N of match M", the N-th
    action line of that match's record (the fault's line comes just before it)."""
    report = examine_broken("illegal", tmp_path)
    (check,) = [c for c in report.checks if c.name is CheckName.LEGAL_ACTIONS]
    found = re.search(r"\(decision (\d+) of match (\d+)\)$", check.detail)
    assert found is not None and "request" not in check.detail, check.detail
    decision, match = int(found[1]), int(found[2])
    lines = (tmp_path / f"xix-doctor-{match - 1:02d}.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    first_fault = next(i for i, r in enumerate(records) if "fault" in r)
    assert records[first_fault]["fault"]["fault"]["reason"] == "FAULT_REASON_ILLEGAL_ACTION"
    assert sum("action" in r for r in records[:first_fault]) == decision - 1
    assert "action" in records[first_fault + 1]


def test_a_command_that_cannot_start_fails_the_first_check() -> None:
    code, output = doctor("--game", "xix", "--", "/nonexistent/bot")
    assert code == 1
    assert output.splitlines()[1].startswith("FAIL  starts           cannot start: ")
    assert output.count("SKIP") == len(CheckName) - 1


def test_bad_input_is_a_clear_error() -> None:
    code, output = doctor("--game", "chess", "--", PYTHON, "bot.py")
    assert code == 2
    assert "unknown game 'chess'" in output
    code, output = doctor("--game", "xix", "--option", "players=2", "--", PYTHON, "bot.py")
    assert code == 2
    assert "unknown option 'players' for game 'xix'" in output


def test_a_quoted_command_line_is_split_like_a_shell() -> None:
    assert parse_command(["node bot.js --fast"]) == ("node", "bot.js", "--fast")
    assert parse_command(["node", "bot.js"]) == ("node", "bot.js")
    assert parse_command([shlex.join([PYTHON, "my bot.py"])]) == (PYTHON, "my bot.py")


def test_a_bot_that_opens_one_session_when_asked_for_two_fails_sessions(tmp_path: Path) -> None:
    """Such a bot passes every one-session check, then stalls a ladder that seats it twice."""
    report = examine_broken("good", tmp_path, sessions=2)
    failed = {check.name: check for check in report.checks if check.status is not Status.PASS}
    assert set(failed) == {C.SESSIONS}
    assert "only 1 of CROUPIER_SESSIONS=2 sessions were open at once" in failed[C.SESSIONS].detail


def test_the_bot_gets_the_variables_given_with_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the sandbox the author's environment is scrubbed, as in a contest: `--env` passes a
    variable (`NAME` alone: its value here), as a ladder file's `env` does."""
    needs = (
        "import os, runpy, sys\n"
        "if os.environ.get('BOT_LEVEL') != '7':\n"
        "    sys.exit(f'this bot needs BOT_LEVEL=7, got {os.environ.get(\"BOT_LEVEL\")!r}')\n"
        f"runpy.run_path({str(EXAMPLES / 'random_bot.py')!r}, run_name='__main__')\n"
    )
    monkeypatch.setenv("BOT_LEVEL", "7")
    command = ("--", PYTHON, "-c", needs)
    code, output = doctor("--game", "xix", "--sandbox", *command)
    assert code == 1
    assert "this bot needs BOT_LEVEL=7, got None" in output
    assert "what --env gives" in output  # the advice under "connects" names the way out
    code, output = doctor("--game", "xix", "--sandbox", "--env", "BOT_LEVEL", *command)
    assert code == 0, output
    code, output = doctor("--game", "xix", "--env", "BOT_LEVEL=6", *command)
    assert code == 1
    assert "got '6'" in output
    code, output = doctor("--game", "xix", "--env", "=6", *command)
    assert code == 2
    assert "bad --env '=6'" in output


def test_a_silent_bot_is_said_to_have_printed_nothing() -> None:
    # Issue 24.9: the advice pointed at "the bot's output below", and nothing was below.
    code, output = doctor("--game", "xix", "--", PYTHON, "-c", "raise SystemExit(3)")
    assert code == 1
    assert "see its output below" in output
    assert output.splitlines()[-1] == "the bot printed nothing, on stdout or stderr"


def test_a_node_bot_missing_a_package_is_told_to_run_npm_ci(tmp_path: Path) -> None:
    node = node_or_skip()
    bot = tmp_path / "bot.mjs"
    bot.write_text('import "croupier-no-such-package";\n')
    code, output = doctor("--game", "xix", "--no-sandbox", "--", node, str(bot))
    assert code == 1
    assert "  | Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'croupier-no-such" in output
    advice = "advice: Node cannot find 'croupier-no-such-package': run `npm ci` in the bot's"
    assert f"{advice} folder ({tmp_path}), where its package.json" in output
