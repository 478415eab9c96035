"""Qualification's positions test (issue 48.3): the organiser's positions, extracted from a
seeded XIX record with the reference's values, played by a hosted version once the doctor's
checks pass, launched as they launched it; a version losing more than the contest's points
fails the `positions` check, naming the worst positions. In the sandbox (bubblewrap) through
the real pipeline, the bot never able to open the file; without it through `qualify` itself.
And the contest file's `[hosted] qualify_positions` and `qualify_max_loss`, refused at load
where they cannot be used."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.bots import RandomBot, XixHeuristicBot
from referee import transport
from referee.cli import app
from referee.contest.file import load as load_contest_file
from referee.contest.settings import ServeSettings
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.manifest import load_manifest
from referee.hosted.pipeline import VersionFiles
from referee.hosted.qualify import STOPPED, PositionsTest, QualificationReport, qualify
from referee.hosted.store import VersionStatus, VersionStore
from referee.local.limits import Limits
from referee.review.positions import positions_file
from tests.test_hosted_pipeline import SETTINGS, bot_folder, settle, submit
from tests.test_review import played

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
XIX = get_game("xix")

#: A XIX bot that always plays its last legal action: a bad player, but a predictable one.
LAST_BOT = """
import croupier


class Last(croupier.Bot):
    def act(self, request):
        return len(request.legal_actions) - 1


croupier.run(Last)
"""

#: A XIX bot that plays its first legal action, and whose process dies (exit 3) when a match's
#: first request is a draft: no whole match starts with one (it passes the doctor's checks),
#: but a position can.
CRASHING_BOT = """
import os

import croupier


class CrashOnDraftPosition(croupier.Bot):
    def on_match_start(self, start):
        self.requests = 0

    def act(self, request):
        self.requests += 1
        if self.requests == 1 and request.legal_actions[0].text.startswith("draft"):
            os._exit(3)
        return 0


croupier.run(CrashOnDraftPosition)
"""

#: CRASHING_BOT's first crash, after which it never comes back: launched again, it sleeps
#: without calling Play (outside the sandbox, where it remembers its crash in `marker`).
GONE_BOT = """
import os
import pathlib
import time

import croupier

MARKER = pathlib.Path({marker!r})
if MARKER.exists():
    time.sleep(3600)


class GoneAfterADraft(croupier.Bot):
    def on_match_start(self, start):
        self.requests = 0

    def act(self, request):
        self.requests += 1
        if self.requests == 1 and request.legal_actions[0].text.startswith("draft"):
            MARKER.write_text("crashed")
            os._exit(3)
        return 0


croupier.run(GoneAfterADraft)
"""

#: A XIX bot that tries, at each decision, to read the positions file (whose path it was given)
#: and to play the reference's best action from it; it says on stderr what the open did.
PEEKING_BOT = """
import json
import sys

import croupier

PATH = {path!r}


class Peeking(croupier.Bot):
    def act(self, request):
        legal = [action.text for action in request.legal_actions]
        try:
            with open(PATH) as file:
                lines = [json.loads(line) for line in file]
        except OSError as error:
            print(f"peek: {{type(error).__name__}}", file=sys.stderr, flush=True)
            return 0
        print("peek: opened", file=sys.stderr, flush=True)
        for line in lines:
            if [v["text"] for v in line["values"]] == legal:
                best = max(line["values"], key=lambda v: v["mean"])
                return legal.index(best["text"])
        return 0


croupier.run(Peeking)
"""


@pytest.fixture(scope="module")
def positions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every decision of the random bot's seat in a seeded match, valued at budget 200 (at
    budget 24 the values are too noisy to tell the heuristic from a bad bot)."""
    folder = tmp_path_factory.mktemp("organiser")
    record = played(folder / "m.jsonl", 11, [XixHeuristicBot(), RandomBot(3)])
    out = folder / "positions.jsonl"
    args = ["positions", "extract", str(record), "--seat", "1", "-o", str(out)]
    result = runner.invoke(app, [*args, "--budget", "200", "--workers", "2"])
    assert result.exit_code == 0, result.output
    return out


def measured(file: Path, script: Path) -> float:
    """The points `croupier positions test` says the bot `script` loses on `file`."""
    args = ["positions", "test", str(file), "--json", "--no-sandbox", "--bank-ms", "2000"]
    result = runner.invoke(app, [*args, "--", sys.executable, str(script)])
    assert result.exit_code == 0, result.output
    lost: float = json.loads(result.output.splitlines()[-1])["lost"]
    return lost


@pytest.fixture(scope="module")
def threshold(positions: Path, tmp_path_factory: pytest.TempPathFactory) -> float:
    """Points between what the heuristic and the last-action bot lose on the positions."""
    last = tmp_path_factory.mktemp("last") / "last.py"
    last.write_text(textwrap.dedent(LAST_BOT))
    good = measured(positions, ROOT / "examples/python/xix_heuristic.py")
    bad = measured(positions, last)
    assert good + 4 < bad, (good, bad)
    return round((good + bad) / 2, 1)


def heuristic(tmp_path: Path) -> Path:
    return bot_folder(
        tmp_path / "heuristic", 'games = ["xix"]\nrun = "{python} xix_heuristic.py"\n'
    )


def last_action(tmp_path: Path) -> Path:
    manifest = 'games = ["xix"]\nrun = "{python} last.py"\n'
    return bot_folder(tmp_path / "last", manifest, **{"last.py": LAST_BOT})


def positions_test(positions: Path, most: float) -> PositionsTest:
    return PositionsTest(tuple(positions_file(positions)), most, positions)


def qualified(folder: Path, workdir: Path, test: PositionsTest) -> QualificationReport:
    """`folder` qualified in XIX with the positions test, outside the sandbox."""
    settings = replace(
        SETTINGS.qualify,
        sandbox=False,
        games=((XIX, parse_options(XIX, {})),),
        positions=test,
    )
    manifest = load_manifest(folder, Limits())
    return transport.run(qualify, folder, manifest, workdir, settings)


def test_a_good_bot_qualifies_with_its_points_lost_and_a_bad_one_fails(
    positions: Path, threshold: float, tmp_path: Path
) -> None:
    test = positions_test(positions, threshold)
    good = qualified(heuristic(tmp_path), tmp_path / "good", test)
    assert good.ok, good.lines()
    assert good.reason.startswith("passed the checks in xix; xix positions: lost "), good.reason
    assert (
        f"over {len(test.positions)} positions, within the contest's {threshold:g}" in good.reason
    )
    assert any(line.startswith("PASS  positions") for line in good.lines())
    assert "all 13 checks passed" in good.lines()
    bad = qualified(last_action(tmp_path), tmp_path / "bad", test)
    assert not bad.ok
    assert bad.summary == "xix: positions FAIL"
    reason = bad.reason
    assert reason.startswith("xix: positions FAIL: lost "), reason
    assert f"more than the contest's {threshold:g}; the worst: m.jsonl#" in reason, reason
    lost = float(reason.removeprefix("xix: positions FAIL: lost ").split()[0])
    assert lost > threshold
    assert any("advice: the contest's positions are decisions of real" in x for x in bad.lines())


def test_a_crash_loses_its_position_only(positions: Path, tmp_path: Path) -> None:
    """A bot that dies on every draft position is launched again for each, and plays the
    rest."""
    drafts = sum(p.decision.legal[0].startswith("draft") for p in positions_file(positions))
    assert drafts > 3  # more than a series' usual restarts
    manifest = 'games = ["xix"]\nrun = "{python} crash.py"\n'
    folder = bot_folder(tmp_path, manifest, **{"crash.py": CRASHING_BOT})
    report = qualified(folder, tmp_path / "work", positions_test(positions, 1000.0))
    assert report.ok, report.lines()
    assert f", {drafts} of them faulted (their first legal action played)" in report.reason


def test_a_bot_that_does_not_come_back_fails_the_positions(positions: Path, tmp_path: Path) -> None:
    source = GONE_BOT.format(marker=str(tmp_path / "crashed"))
    folder = bot_folder(
        tmp_path, 'games = ["xix"]\nrun = "{python} gone.py"\n', **{"gone.py": source}
    )
    settings = replace(
        SETTINGS.qualify,
        sandbox=False,
        startup_seconds=3.0,
        games=((XIX, parse_options(XIX, {})),),
        positions=positions_test(positions, 1000.0),
    )
    manifest = load_manifest(folder, Limits())
    report = transport.run(qualify, folder, manifest, tmp_path / "work", settings)
    assert (tmp_path / "crashed").exists()
    assert report.reason == f"xix: positions FAIL: {STOPPED}", report.reason
    assert str(tmp_path) not in report.reason


def test_positions_of_another_game_are_not_played(positions: Path, tmp_path: Path) -> None:
    """Outside a contest a version qualifies in each game it declares: the XIX positions are
    played in XIX only."""
    folder = bot_folder(tmp_path, 'games = ["textactoe"]\nrun = "{python} random_bot.py"\n')
    settings = replace(SETTINGS.qualify, sandbox=False, positions=positions_test(positions, 0.0))
    manifest = load_manifest(folder, Limits())
    report = transport.run(qualify, folder, manifest, tmp_path / "work", settings)
    assert report.ok and report.reason == "passed the checks in textactoe", report.reason


@pytest.mark.usefixtures("bubblewrap")
def test_the_pipeline_qualifies_the_good_bot_and_fails_the_bad(
    positions: Path, threshold: float, tmp_path: Path
) -> None:
    test = positions_test(positions, threshold)
    settings = replace(SETTINGS, qualify=replace(SETTINGS.qualify, positions=test))
    settings = replace(settings, secrets=(positions,))
    store = VersionStore(tmp_path / "store")
    good = submit(store, heuristic(tmp_path), "alice")
    bad = submit(store, last_action(tmp_path), "bob")
    done_good, done_bad = settle(store, good.id, bad.id, settings=settings)
    assert done_good.status is VersionStatus.QUALIFIED, done_good.reason
    assert "xix positions: lost " in done_good.reason
    assert done_bad.status is VersionStatus.FAILED, done_bad.reason
    assert done_bad.reason.startswith("xix: positions FAIL: lost "), done_bad.reason
    assert f"more than the contest's {threshold:g}; the worst: m.jsonl#" in done_bad.reason
    assert done_bad.public_reason == "xix: positions FAIL"  # no source on the site
    report = VersionFiles(store.folder(bad.id)).report.read_text()
    assert "FAIL  positions" in report and str(tmp_path) not in report


@pytest.mark.usefixtures("bubblewrap")
def test_a_bot_cannot_open_the_positions_file(positions: Path, tmp_path: Path) -> None:
    """The bot is told the file's very path (the contest file's), and the sandbox shows it
    nothing there: it plays without the reference's values."""
    source = PEEKING_BOT.format(path=str(positions.resolve()))
    folder = bot_folder(
        tmp_path, 'games = ["xix"]\nrun = "{python} peek.py"\n', **{"peek.py": source}
    )
    test = positions_test(positions, 1000.0)
    settings = replace(SETTINGS, qualify=replace(SETTINGS.qualify, positions=test))
    store = VersionStore(tmp_path / "store")
    version = submit(store, folder)
    (done,) = settle(store, version.id, settings=replace(settings, secrets=(positions,)))
    assert done.status is VersionStatus.QUALIFIED, done.reason
    logs = list(
        (VersionFiles(store.folder(version.id)).qualification / "xix" / "positions").glob("*.log")
    )
    said = "".join(log.read_text() for log in logs)
    assert "peek: FileNotFoundError" in said or "peek: PermissionError" in said, said
    assert "peek: opened" not in said


def contest_file(tmp_path: Path, hosted: str, game: str = "xix") -> Path:
    """A contest file with an account database and `hosted` as its `[hosted]` table."""
    database = tmp_path / "contest.db"
    if not database.exists():
        made = runner.invoke(app, ["token", "add", "alice", "--db", str(database)])
        assert made.exit_code == 0, made.output
    contest = tmp_path / "contest.toml"
    contest.write_text(f'game = "{game}"\ndatabase = "contest.db"\n[hosted]\n{hosted}\n')
    return contest


def refused(contest: Path) -> str:
    """What `croupier serve` says refusing `contest` (exit 2), on one line."""
    result = runner.invoke(app, ["serve", str(contest)])
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_the_contest_file_names_the_positions_and_the_points(
    positions: Path, tmp_path: Path
) -> None:
    shutil.copy(positions, tmp_path / "positions.jsonl")
    contest = contest_file(tmp_path, 'qualify_positions = "positions.jsonl"\nqualify_max_loss = 5')
    loaded = load_contest_file(contest)
    assert loaded["qualify_positions"] == tmp_path / "positions.jsonl"
    assert loaded["qualify_max_loss"] == 5.0
    config = ServeSettings().over(loaded).config("")
    test = config.qualify_positions
    assert test is not None and test.max_loss == 5.0 and test.game == "xix"
    assert len(test.positions) == len(positions.read_text().splitlines())
    assert test.source == (tmp_path / "positions.jsonl").resolve()


def test_a_positions_file_that_cannot_be_used_is_refused_at_load(
    positions: Path, tmp_path: Path
) -> None:
    lines = positions.read_text().splitlines()
    both = 'qualify_positions = "p.jsonl"\nqualify_max_loss = 5.0'
    (tmp_path / "p.jsonl").write_text("not json\n")
    said = refused(contest_file(tmp_path, both))
    assert "[hosted] qualify_positions" in said and "p.jsonl" in said
    assert "position on line 1" in said and "is not a position of the engine" in said
    line = json.loads(lines[0])  # one card, many times: no deal gives that hand
    hand = line["view"][-1]["observation"]["hand"]
    line["view"][-1]["observation"]["hand"] = [hand[0]] * len(hand)
    (tmp_path / "p.jsonl").write_text(lines[1] + "\n" + json.dumps(line) + "\n")
    said = refused(contest_file(tmp_path, both))
    assert "position on line 2" in said and "no history of the game fits" in said, said
    (tmp_path / "p.jsonl").write_text("")
    assert "no positions in" in refused(contest_file(tmp_path, both))
    shutil.copy(positions, tmp_path / "p.jsonl")
    said = refused(contest_file(tmp_path, both, game="xeri"))
    assert "holds positions of xix with options {}, and this contest plays xeri" in said, said
    said = refused(contest_file(tmp_path, 'qualify_positions = "p.jsonl"'))
    assert "give qualify_max_loss too" in said, said
    said = refused(contest_file(tmp_path, "qualify_max_loss = 5.0"))
    assert "give qualify_positions too" in said, said
    contest = contest_file(tmp_path, 'qualify_positions = "p.jsonl"\nqualify_max_loss = -1')
    said = refused(contest)
    assert f"{contest}:5: key 'hosted.qualify_max_loss': expected a number of points" in said
    contest = contest_file(tmp_path, 'qualify_positions = "none.jsonl"\nqualify_max_loss = 1')
    assert "no such positions file" in refused(contest)


def test_a_positions_file_a_bot_would_be_shown_is_refused(positions: Path, tmp_path: Path) -> None:
    """In the runtime folder, or among the versions, every hosted bot (or one) would see it."""
    (tmp_path / "runtime").mkdir()
    shutil.copy(positions, tmp_path / "runtime" / "p.jsonl")
    contest = contest_file(
        tmp_path,
        'runtime = "runtime"\nqualify_positions = "runtime/p.jsonl"\nqualify_max_loss = 5.0',
    )
    said = refused(contest)
    assert "lies in" in said and "which every hosted bot is shown" in said, said
    (tmp_path / "versions").mkdir()
    shutil.copy(positions, tmp_path / "versions" / "p.jsonl")
    contest = contest_file(tmp_path, 'qualify_positions = "versions/p.jsonl"\nqualify_max_loss = 5')
    assert "which every hosted bot is shown" in refused(contest)


def test_a_positions_test_needs_a_contest(positions: Path) -> None:
    settings = ServeSettings(qualify_positions=positions, qualify_max_loss=1.0)
    with pytest.raises(CroupierError, match="qualify_positions tests hosted bots of a contest"):
        settings.check()
