"""docs/training.md's commands for real (issue 47.7): the numpy agent trains, beats the random bot
at XIX with a head-to-head interval that excludes an even result, and its bot, run unchanged as a
process, passes `croupier doctor`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import croupier.env
from croupier.bots.random_bot import RandomBot
from referee.cli import app

ROOT = Path(__file__).resolve().parent.parent
TRAINING = ROOT / "examples" / "training"
runner = CliRunner()


def test_the_numpy_agent_beats_random_and_passes_the_doctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = tmp_path / "xix_policy.npz"
    command = [sys.executable, str(TRAINING / "train_xix.py"), "--episodes", "800"]
    subprocess.run([*command, "--weights", str(weights)], check=True, cwd=ROOT)
    sys.path.insert(0, str(TRAINING))
    try:
        from xix_policy_bot import greedy  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(TRAINING))
    policy = greedy(np.load(weights)["weights"])
    wins, games = 0, 200
    for seat in (0, 1):  # both seats, fresh deals the training never saw
        env = croupier.env.gym("xix", [RandomBot(seat)], seat=seat)
        for deal in range(games // 2):
            observation, _ = env.reset(seed=10_000_000 + deal)
            done, reward = False, 0.0
            while not done:
                observation, reward, done, _, _ = env.step(policy(observation))
            wins += reward > 0
    rate = wins / games
    low = rate - 1.96 * (rate * (1 - rate) / games) ** 0.5
    assert low > 0.5, f"{wins} wins of {games}"
    # The bot's folder as it is submitted: the script and its weights beside it.
    folder = tmp_path / "bot"
    folder.mkdir()
    shutil.copy(TRAINING / "xix_policy_bot.py", folder / "bot.py")
    shutil.copy(weights, folder / "xix_policy.npz")
    for path in (tmp_path, folder, *folder.iterdir()):  # the sandbox's own user reads it
        path.chmod(0o755)
    monkeypatch.chdir(folder)
    result = runner.invoke(app, ["doctor", "--game", "xix", "--", f"{sys.executable} bot.py"])
    assert result.exit_code == 0, result.output
    random_bot = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
    command = ["match", "xix", "--bot", f"{sys.executable} bot.py", "--bot", random_bot]
    result = runner.invoke(app, [*command, "--games", "2", "--records", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    records = sorted((tmp_path / "r").glob("*.jsonl"))
    assert len(records) == 2
    for record in records:
        assert '"fault"' not in record.read_text()
