"""The Node SDK's decisionLog for real (issue 46.4): a Node bot logging through it
(tests/bots/node_logging_bot.js) plays a real `croupier match` over loopback gRPC; its file's
lines name the decisions the record counts for its seat, hostile text (markup, quotes, line
breaks of every kind, control characters, lone surrogates, lines of megabytes) is written as
the Python SDK's DecisionLog writes it, byte for byte, and `croupier replay --seat S --log FILE`
shows each line under its decision. Two sessions at once each tag their own lines; a file that
cannot be written (/dev/full) never stops the bot; the XIX example logs beside its plays.

Skipped (with the reason) on a machine without `node`; see tests/node_support.py.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
import trio
from typer.testing import CliRunner

import croupier
from croupier.bots import RandomBot
from croupier.decision_log import MAX_LINE_CHARS, Decision, current
from referee import transport
from referee.cli import app
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.lobby import Lobby
from referee.match.remote_seat import RemoteSeat
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat, Seat
from referee.text import printable
from referee.viewer.decision_log import MAX_LINE_BYTES
from tests.decision_log_helpers import Played
from tests.node_support import ROOT, node_or_skip

NODE_LOGGING_BOT = ROOT / "tests" / "bots" / "node_logging_bot.js"
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
MARKUP = "<script>alert(1)</script>"
#: What the bot logs at its first decision, each with log("%s", message).
HOSTILE = [
    'quotes " and \\ backslashes \\" and {"decision": 99, "line": "forged"}',
    "one\ntwo\r\nthree\rfour\vfive\fsix\x1cseven\x1deight\x1enine\x85ten\u2028eleven\u2029twelve",
    "ends with a line break\n",
    "",
    "\n\n",
    "tab\there, escape \x1b[31mred\x1b[0m, bell \x07, nul \x00, del \x7f",
    "été, 東京, 😀, \U0001f0a1, a combining e\u0301, a zero-width joiner \u200d, bidi \u202e",
    "😀" * (MAX_LINE_CHARS + 3),  # cut by characters, not UTF-16 units
    "<b>" * 30_000 + MARKUP,
    "y" * (2 * MAX_LINE_BYTES),  # longer than the replay reads: the writer cuts it
]
#: A lone surrogate is no character: the Node writer writes U+FFFD (Python's would drop it).
LONE = "\ud800 alone \udfff"
runner = CliRunner()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """One Tex-Tac-Toe match: the Node logging bot in seat 0 (run on its author's machine: no
    sandbox, so it writes its own file), the Python SDK's random bot in seat 1."""
    node = node_or_skip()
    folder = tmp_path_factory.mktemp("node-logged")
    log, messages = folder / "bot.jsonl", folder / "messages.json"
    messages.write_text(json.dumps([*HOSTILE, LONE]))  # ASCII: the surrogates stay escapes
    result = runner.invoke(
        app,
        [
            *("match", "textactoe", "--no-sandbox", "--games", "1", "--move-ms", "5000"),
            *("--bot", f"{node} {NODE_LOGGING_BOT} {log} {messages}", "--bot", RANDOM),
            *("--records", str(folder / "records")),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = (folder / "records").glob("*.jsonl")
    return Played(record, log)


def python_lines(decision: Decision, messages: list[str], path: Path) -> bytes:
    """What the Python SDK's DecisionLog writes for `messages` logged during `decision`."""
    handler = croupier.DecisionLog(path)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log = logging.getLogger("test_node_decision_log")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    token = current.set(decision)
    try:
        for message in messages:
            log.info("%s", message)
    finally:
        current.reset(token)
        log.removeHandler(handler)
        handler.close()
    return path.read_bytes()


def test_the_bot_s_lines_name_its_decisions_as_the_record_counts_them(played: Played) -> None:
    raw = played.log.read_text("utf-8").splitlines()
    assert {json.loads(line)["match"] for line in raw} == {played.match}
    entries = played.entries()
    played.check_told(entries)
    # A message of two lines is two entries of one decision; after an await, the same one.
    assert [e["decision"] for e in entries if e["line"] == MARKUP] == played.ours()
    still = [e for e in entries if e["line"].startswith("still ")]
    assert [e["line"] for e in still] == [f"still {n} in {played.match}" for n in played.ours()]
    assert [e["decision"] for e in still] == played.ours()
    assert entries[-1] == {"match": played.match, "decision": played.ours()[-1], "line": "over"}
    lines = [e["line"] for e in entries]
    assert "before any match" not in lines and "after the match" not in lines  # no match then


def test_hostile_text_is_written_as_the_python_sdk_writes_it(
    played: Played, tmp_path: Path
) -> None:
    first = Decision(played.match, played.ours()[0])
    expected = python_lines(first, HOSTILE, tmp_path / "python.jsonl")
    written = played.log.read_bytes()
    assert expected in written  # byte for byte, in the order logged
    for raw in written.splitlines():  # valid JSON Lines: one entry a line, each readable
        assert len(raw) < MAX_LINE_BYTES
        entry = json.loads(raw)
        assert list(entry) == ["match", "decision", "line"]
    lines = [(e["decision"], e["line"]) for e in played.entries()]
    assert (first.decision, "\ufffd alone \ufffd") in lines
    assert (first.decision, "caught Error: boom") in lines
    stack = lines.index((first.decision, "caught Error: boom")) + 1
    assert lines[stack][0] == first.decision and str(lines[stack][1]).startswith("    at ")
    assert (first.decision, "😀" * MAX_LINE_CHARS + "... [3 characters cut]") in lines


def logged_under(output: str, header: str) -> Iterator[list[str]]:
    """For each printed line starting with `header`, the `  log | ` lines right under it."""
    lines = output.splitlines()
    for at, line in enumerate(lines):
        if line.startswith(header):
            under = []
            for below in lines[at + 1 :]:
                if not below.startswith("  log | "):
                    break
                under.append(below)
            yield under


def test_the_printed_replay_shows_each_line_under_its_decision(played: Played) -> None:
    result = runner.invoke(
        app, ["replay", str(played.record), "--seat", "0", "--log", str(played.log)]
    )
    assert result.exit_code == 0, result.output
    by_decision: dict[int, list[str]] = {}
    for entry in played.entries():
        by_decision.setdefault(entry["decision"], []).append(entry["line"])
    assert set(by_decision) == {0, *played.ours()}
    shown = list(logged_under(result.output, "seat 0 logging-node: "))
    assert len(shown) == len(played.ours())
    for under, decision in zip(shown, played.ours(), strict=True):
        text = played.actions[decision]["text"]
        assert under[:2] == [f"  log | decision {decision}: {text}", f"  log | {MARKUP}"]
        printed = [f"  log | {printable(line)}".expandtabs() for line in by_decision[decision]]
        assert under == printed  # the console expands tabs
    first = shown[0]
    assert (
        "  log | tab     here, escape \\x1b[31mred\\x1b[0m, bell \\x07, nul \\x00, del \\x7f"
        in first
    )
    assert (
        "  log | "
        + "y" * MAX_LINE_CHARS
        + f"... [{2 * MAX_LINE_BYTES - MAX_LINE_CHARS} characters cut]"
        in first
    )
    assert result.output.count("  log | ") == len(played.entries())


def test_the_html_replay_carries_each_line_beside_its_step(played: Played, tmp_path: Path) -> None:
    out = tmp_path / "seat0.html"
    command = ["replay", str(played.record), "--seat", "0", "--log", str(played.log)]
    result = runner.invoke(app, [*command, "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    data = json.loads(page.split('type="application/json">', 1)[1].split("</script>", 1)[0])
    steps = data["steps"]
    action_steps = [i for i, step in enumerate(steps) if step["seat"] is not None]
    for decision in played.ours():
        lines = [e["line"] for e in played.entries() if e["decision"] == decision]
        assert steps[action_steps[decision - 1]]["log"] == lines
    assert MARKUP not in page  # inside the page's JSON only escaped, never as markup


def test_each_of_two_sessions_at_once_tags_its_own_lines(tmp_path: Path) -> None:
    """One Node process playing two matches at once (CROUPIER_SESSIONS=2): each line names the
    match and decision of the session that logged it, across the awaits of an async act."""
    node = node_or_skip()
    game = get_game("textactoe")
    log = tmp_path / "two.jsonl"

    async def scenario() -> None:
        lobby = Lobby()
        lobby.admit("two")
        async with transport.serve(lobby, transport.ServerSettings()) as port:
            clean = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
            env = {
                **clean,
                "CROUPIER_ADDRESS": f"127.0.0.1:{port}",
                "CROUPIER_TOKEN": "two",
                "CROUPIER_SESSIONS": "2",
            }
            async with trio.open_nursery() as nursery:

                async def bot() -> None:
                    await trio.run_process([node, str(NODE_LOGGING_BOT), str(log)], env=env)

                nursery.start_soon(bot)
                with trio.fail_after(60):
                    sessions = [await lobby.take("two"), await lobby.take("two")]
                    async with trio.open_nursery() as matches:
                        for name, session in zip("ab", sessions, strict=True):
                            config = MatchConfig(
                                game, parse_options(game, {}), seed=5, match_id=f"two-{name}"
                            )
                            seats: list[Seat] = [RemoteSeat(session), InProcessSeat(RandomBot(5))]
                            record = tmp_path / f"{name}.jsonl"
                            matches.start_soon(run_match, config, seats, record)
                    lobby.end_all("test over")

    transport.run(scenario)
    order = [json.loads(line)["match"] for line in log.read_text().splitlines()]
    assert sum(a != b for a, b in pairwise(order)) >= 2  # the sessions did interleave
    for name in "ab":
        played = Played(tmp_path / f"{name}.jsonl", log)
        assert played.match == f"two-{name}"
        entries = played.entries()
        told = [e["decision"] for e in entries if e["line"].startswith("decision ")]
        assert told == played.ours()
        still = [(e["decision"], e["line"]) for e in entries if e["line"].startswith("still")]
        assert still == [(n, f"still {n} in two-{name}") for n in played.ours()]


def test_the_xix_example_logs_why_it_played_each_card_beside_it(tmp_path: Path) -> None:
    """examples/node/xix_cheap_winner.js, given a file, says there why it played each card it
    followed with; the record's action at that decision is the card it named."""
    example = ROOT / "examples" / "node" / "xix_cheap_winner.js"
    log = tmp_path / "cheap.jsonl"
    result = runner.invoke(
        app,
        [
            *("match", "xix", "--no-sandbox", "--games", "1", "--move-ms", "5000"),
            *("--bot", f"{node_or_skip()} {example} {log}", "--bot", RANDOM),
            *("--records", str(tmp_path / "records")),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = (tmp_path / "records").glob("*.jsonl")
    played = Played(record, log)
    entries = played.entries()
    assert entries and len(entries) == len(log.read_text().splitlines())
    for entry in entries:
        assert entry["decision"] in played.ours()
        card = entry["line"].rsplit(", ", 1)[1]
        assert entry["line"].startswith("following ")
        assert played.actions[entry["decision"]]["text"] == f"play {card}"
    replayed = runner.invoke(app, ["replay", str(record), "--seat", "0", "--log", str(log)])
    assert replayed.exit_code == 0, replayed.output
    for under, decision in zip(
        logged_under(replayed.output, "seat 0 xix-cheap-winner: "), played.ours(), strict=True
    ):
        assert under == [f"  log | {e['line']}" for e in entries if e["decision"] == decision]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this machine")
def test_a_log_that_cannot_be_written_never_stops_the_bot(tmp_path: Path) -> None:
    """Every write to /dev/full fails (ENOSPC): the bot plays on, and says so once."""
    result = runner.invoke(
        app,
        [
            *("match", "textactoe", "--no-sandbox", "--games", "1", "--move-ms", "5000"),
            *("--bot", f"{node_or_skip()} {NODE_LOGGING_BOT} /dev/full", "--bot", RANDOM),
            *("--records", str(tmp_path / "records")),
        ],
    )
    assert result.exit_code == 0, result.output
    (record,) = (tmp_path / "records").glob("*.jsonl")
    assert not any("fault" in json.loads(line) for line in record.read_text().splitlines())
    (said,) = (tmp_path / "records" / "logs").glob("*-bot0.log")
    complaints = [line for line in said.read_text().splitlines() if "decision log" in line]
    said_once = 'croupier: cannot write the decision log "/dev/full": ENOSPC: no space left'
    assert len(complaints) == 1 and complaints[0].startswith(said_once), complaints
