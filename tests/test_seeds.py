"""Seeds a bot cannot guess: without --seed every run draws a secret master seed, publishes its
SHA-256 first and reveals it last, and each match's seed is keyed by it (HMAC), so a match id and
index say nothing of the deal."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from referee.cli import app
from referee.match.seeds import commitment, derive_seed

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"{sys.executable} {ROOT / 'examples' / 'python' / 'random_bot.py'}"
runner = CliRunner()


def _old_unkeyed(seed: int, index: int) -> int:
    """The seed formula before issue 15: anyone could compute it from a match's index."""
    digest = hashlib.sha256(f"croupier/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def test_match_seeds_are_hmac_of_the_master_seed() -> None:
    digest = hmac.new(b"secret", b"3", hashlib.sha256).digest()
    assert derive_seed("secret", 3) == int.from_bytes(digest[:8], "big") >> 1
    assert derive_seed(0, 3) != _old_unkeyed(0, 3)
    assert commitment("secret") == hashlib.sha256(b"secret").hexdigest()


def _run(tmp_path: Path, *extra: str) -> tuple[str, list[int]]:
    result = runner.invoke(
        app,
        ["match", "xix", "--bot", RANDOM, "--games", "2", "--records", str(tmp_path), *extra],
    )
    assert result.exit_code == 0, result.output
    seeds = []
    for record in sorted(tmp_path.glob("*.jsonl")):
        header = json.loads(record.read_text().splitlines()[0])["header"]
        seeds.append(int(header["seed"]))
    return result.output, seeds


def test_without_seed_a_secret_master_seed_is_committed_then_revealed(tmp_path: Path) -> None:
    output, seeds = _run(tmp_path / "a")
    published = re.search(r"master seed sha256: ([0-9a-f]{64})", output)
    revealed = re.search(r"master seed: ([0-9a-f]{32})", output)
    assert published and revealed, output
    assert output.index(published.group(0)) < output.index(revealed.group(0))
    assert commitment(revealed.group(1)) == published.group(1)
    assert seeds == [derive_seed(revealed.group(1), index) for index in range(2)]
    # What a bot could compute from its match id's index with the old default (seed 0) is wrong.
    assert all(seed != _old_unkeyed(0, index) for index, seed in enumerate(seeds))
    # A second run deals differently.
    _, again = _run(tmp_path / "b")
    assert again != seeds


def test_a_given_seed_is_reproducible_and_said_so(tmp_path: Path) -> None:
    output, seeds = _run(tmp_path / "a", "--seed", "7")
    assert "master seed (given, reproducible): 7" in output
    assert seeds == [derive_seed("7", index) for index in range(2)]
    assert _run(tmp_path / "b", "--seed", "7")[1] == seeds


def test_serve_commits_to_its_seed_first_and_reveals_it_last(tmp_path: Path) -> None:
    """`croupier serve` without --db draws its own master seed like `croupier match`."""
    records = tmp_path / "records"
    command = ["serve", "--game", "xix", "--port", "0", "--matches", "2", "--records"]
    serve = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", *command, str(records)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert serve.stdout is not None
    first = serve.stdout.readline()
    listening = serve.stdout.readline()
    port = listening.split("127.0.0.1:")[1].split()[0]
    env = {**os.environ, "CROUPIER_ADDRESS": f"127.0.0.1:{port}", "CROUPIER_TOKEN": "t"}
    bots = [subprocess.Popen(RANDOM.split(), env=env, cwd=ROOT) for _ in range(2)]
    try:
        rest, _ = serve.communicate(timeout=120)
    finally:
        serve.kill()
        for bot in bots:
            bot.kill()
            bot.wait()
    assert serve.returncode == 0
    published = re.fullmatch(r"master seed sha256: ([0-9a-f]{64})\n", first)
    revealed = re.fullmatch(r"master seed: ([0-9a-f]{32})", rest.strip().splitlines()[-1])
    assert published and revealed, first + listening + rest
    assert commitment(revealed.group(1)) == published.group(1)
    seeds = sorted(
        int(json.loads(path.read_text().splitlines()[0])["header"]["seed"])
        for path in records.glob("*.jsonl")
    )
    assert seeds == sorted(derive_seed(revealed.group(1), index) for index in range(2))
