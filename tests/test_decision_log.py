"""A network bot's own log beside each decision (issue 46.4): a Python bot logging through the
SDK's DecisionLog (tests/bots/logging_bot.py) plays a real `croupier match` over loopback gRPC;
its file's lines name the decisions the record counts for its seat, and `croupier replay --seat
S --log FILE` shows each under its decision (printed) and beside its step (the HTML page, in
chromium, as text, never markup). A file that is no decision log is refused in one line."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static
from typer.testing import CliRunner

import croupier
from croupier.decision_log import MAX_LINE_CHARS, Decision, current
from referee.cli import app
from referee.viewer import StepKind, load
from referee.viewer.decision_log import MAX_LINE_BYTES, read_decision_log
from referee.viewer.stepper import Stepper
from tests.decision_log_helpers import Played

ROOT = Path(__file__).resolve().parent.parent
LOGGING_BOT = ROOT / "tests" / "bots" / "logging_bot.py"
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
MARKUP = "<script>alert(1)</script>"
runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """One Tex-Tac-Toe match: the logging bot in seat 0 (a bot run on its author's machine: no
    sandbox, so it writes its own file), the SDK's random bot in seat 1."""
    folder = tmp_path_factory.mktemp("logged")
    log = folder / "bot.jsonl"
    result = runner.invoke(
        app,
        [
            *("match", "textactoe", "--no-sandbox", "--games", "1", "--move-ms", "5000"),
            *("--bot", f"{sys.executable} {LOGGING_BOT} {log}", "--bot", RANDOM),
            *("--records", str(folder / "records")),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = (folder / "records").glob("*.jsonl")
    return Played(record, log)


def test_the_bot_s_lines_name_its_decisions_as_the_record_counts_them(played: Played) -> None:
    entries = [json.loads(line) for line in played.log.read_text().splitlines()]
    assert {entry["match"] for entry in entries} == {played.match}
    played.check_told(entries)
    # A message of two lines is two entries of one decision; after the last reply, the end.
    markup = [e["decision"] for e in entries if e["line"] == MARKUP]
    assert markup == played.ours()
    assert entries[-1] == {"match": played.match, "decision": played.ours()[-1], "line": "over"}


def test_the_printed_replay_shows_each_line_under_its_decision(played: Played) -> None:
    result = runner.invoke(
        app, ["replay", str(played.record), "--seat", "0", "--log", str(played.log)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines.index("  log | seated at 0") < next(
        i for i, line in enumerate(lines) if line.startswith("seat 0 ")
    )
    ours = [i for i, line in enumerate(lines) if line.startswith("seat 0 logging: ")]
    assert len(ours) == len(played.ours())
    for at, decision in zip(ours, played.ours(), strict=True):
        text = played.actions[decision]["text"]
        assert lines[at + 1] == f"  log | decision {decision}: {text}"
        assert lines[at + 2] == f"  log | {MARKUP}"
    assert lines[ours[-1] + 3] == "  log | over"
    assert sum(line.startswith("  log | ") for line in lines) == 2 + 2 * len(ours)


def test_the_stepper_shows_each_line_under_its_decision_in_the_seat_s_view(
    played: Played,
) -> None:
    """The terminal stepper (`croupier replay --seat 0 --log FILE` on a terminal) shows a
    decision's lines under its caption in seat 0's view, as text, and none in another view."""
    timeline = load(played.record)
    movers = [step.seat for step in timeline.steps if step.seat is not None]
    log = read_decision_log(played.log, played.match, 0, movers)
    actions = [step.index for step in timeline.steps if step.kind is StepKind.ACTION]
    decision = played.ours()[1]
    step = actions[decision - 1]
    text = played.actions[decision]["text"]

    async def run() -> tuple[str, str, str]:
        app = Stepper(timeline, 0, log)
        async with app.run_test(size=(120, 60)) as pilot:
            start = _caption(app)
            app.go(step)
            await pilot.pause()
            ours = _caption(app)
            await pilot.press("1")  # seat 1's view: its lines are seat 0's, not shown
            return start, ours, _caption(app)

    start, ours, theirs = asyncio.run(run())
    assert start.endswith("log | seated at 0")
    assert ours.endswith(f"log | decision {decision}: {text}\nlog | {MARKUP}")
    assert "log |" not in theirs


def _caption(app: Stepper) -> str:
    return str(app.query_one("#caption", Static).content)


def test_another_seat_s_view_leaves_the_lines_out_and_says_so(played: Played) -> None:
    result = runner.invoke(
        app, ["replay", str(played.record), "--seat", "1", "--log", str(played.log)]
    )
    assert result.exit_code == 0, result.output
    assert "  log | seated at 0" in result.output  # decision 0: before the seat's first
    assert "  log | decision" not in result.output
    assert "naming decisions that are not seat 1's: left out" in result.output


def test_another_match_s_lines_are_left_out(played: Played, tmp_path: Path) -> None:
    log = tmp_path / "two-matches.jsonl"
    other = {"match": "xix-other-0000", "decision": played.ours()[0], "line": "not this match"}
    hosted = {"decision": played.ours()[0], "line": "a hosted line, no match named"}
    log.write_text(
        json.dumps(other) + "\n" + played.log.read_text() + "\n" + json.dumps(hosted) + "\n"
    )
    result = runner.invoke(app, ["replay", str(played.record), "--seat", "0", "--log", str(log)])
    assert result.exit_code == 0, result.output
    assert "not this match" not in result.output
    assert "  log | a hosted line, no match named" in result.output


def _step_of(page: Any, index: int) -> list[str]:
    page.evaluate(f"location.hash = 'step={index}&seat=0'")
    page.reload()
    page.wait_for_selector(f"body[data-step='{index}']")
    return page.locator("#bot-log-lines li").all_text_contents()  # type: ignore[no-any-return]


def test_the_html_replay_shows_the_lines_beside_the_step_as_text(
    played: Played, browser: Any, tmp_path: Path
) -> None:
    out = tmp_path / "seat0.html"
    result = runner.invoke(
        app,
        [
            *("replay", str(played.record), "--seat", "0", "--log", str(played.log)),
            *("--html", str(out)),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(
        out.read_text().split('type="application/json">', 1)[1].split("</script>", 1)[0]
    )
    # A seat replay: seat 0's view alone (the desk serves the same page, issue 46.4).
    assert data["views"] == [f"seat 0 ({data['names'][0]})"]
    assert {move[1] for move in data["moves"]} == {0}
    steps = data["steps"]
    action_steps = [i for i, step in enumerate(steps) if step["seat"] is not None]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)

    def dialog(opened: Any) -> None:  # an alert() the markup would run
        dialogs.append(opened.message)
        opened.dismiss()

    page.on("dialog", dialog)
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-step='0']")
    assert page.locator("#bot-log").is_visible()
    assert page.text_content("#bot-log-title") == "seat 0 logged"
    assert page.locator("#bot-log-lines li").all_text_contents() == ["seated at 0"]
    for decision in played.ours()[:3]:
        text = played.actions[decision]["text"]
        shown = _step_of(page, action_steps[decision - 1])
        assert shown == [f"decision {decision}: {text}", MARKUP]
    theirs = next(n for n, a in played.actions.items() if a.get("seat", 0) == 1)
    assert _step_of(page, action_steps[theirs - 1]) == ["nothing logged at this step"]
    assert page.locator("#bot-log script, #log script").count() == 0
    page.close()
    assert dialogs == [] and problems == []


def test_a_page_without_a_log_shows_none(played: Played, browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "plain.html"
    result = runner.invoke(app, ["replay", str(played.record), "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = browser.new_page()
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-step='0']")
    assert page.locator("#bot-log").is_hidden()
    page.close()


BAD_LOGS: dict[str, bytes] = {
    "garbage": b'{"decision": 1, "line": "fine"}\nnot json at all\n',
    "a list": b"[1, 2]\n",
    "no line": b'{"decision": 3}\n',
    "a negative decision": b'{"decision": -1, "line": "x"}\n',
    "a decision as text": b'{"decision": "1", "line": "x"}\n',
    "not UTF-8": b'{"decision": 1, "line": "\xff\xfe"}\n',
    "a huge line": b'{"decision": 1, "line": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}\n',
}


@pytest.mark.parametrize("kind", sorted(BAD_LOGS))
@pytest.mark.parametrize("html", [False, True], ids=["printed", "html"])
def test_a_file_that_is_no_decision_log_is_refused_in_one_line(
    played: Played, tmp_path: Path, kind: str, html: bool
) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_bytes(BAD_LOGS[kind])
    command = ["replay", str(played.record), "--seat", "0", "--log", str(log)]
    result = runner.invoke(app, [*command, *(["--html", str(tmp_path / "o.html")] if html else [])])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"error: {str(log)!r} line "), line
    assert not (tmp_path / "o.html").exists()


def test_a_log_that_is_no_file_is_refused(played: Played, tmp_path: Path) -> None:
    for log, said in (
        (tmp_path / "missing.jsonl", "cannot read the log"),
        (Path(os.devnull), "is not a regular file"),
        (tmp_path, "is not a regular file"),
    ):
        command = ["replay", str(played.record), "--seat", "0", "--log", str(log)]
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert said in result.output and len(result.output.strip().splitlines()) == 1
    result = runner.invoke(app, ["replay", str(played.record), "--log", str(played.log)])
    assert result.exit_code == 2 and "give --seat too" in result.output


def test_the_handler_cuts_long_lines_and_writes_nothing_outside_a_match(tmp_path: Path) -> None:
    """Every line the SDK writes is one the replay reads: cut well below its limit."""
    path = tmp_path / "direct.jsonl"
    handler = croupier.DecisionLog(path)
    log = logging.getLogger("test_decision_log")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        log.info("between matches")
        token = current.set(Decision("m-1", 4))
        try:
            log.info("\x1b" * (MAX_LINE_CHARS + 5))
            assert croupier.current_decision() == ("m-1", 4)
        finally:
            current.reset(token)
        assert croupier.current_decision() is None
    finally:
        log.removeHandler(handler)
        handler.close()
    (only,) = path.read_text().splitlines()
    entry = json.loads(only)
    assert (entry["match"], entry["decision"]) == ("m-1", 4)
    assert entry["line"] == "\x1b" * MAX_LINE_CHARS + "... [5 characters cut]"
    assert len(only.encode()) < MAX_LINE_BYTES
