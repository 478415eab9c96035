"""The cluster's parts that need no cluster: the Dask task run in this process, shipping bot
files, the `[cluster]` table, and what `--cluster` says without Dask installed."""

from __future__ import annotations

import pickle
import socket
import stat
import subprocess
import sys
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from croupier.v1 import common_pb2
from referee.cli import app
from referee.cluster import ClusterError
from referee.cluster.batch import BatchFailed, play_batch, template
from referee.ladder.config import ClusterConfig, LadderConfigError, load, parse
from referee.ladder.schedule import first_schedule
from referee.ladder.venue import LadderError
from referee.match.records import read_all
from tests.cluster_helpers import CLI, HEURISTIC, ROOT, ladder_file

runner = CliRunner()


def test_the_task_plays_its_batch_and_sends_records_back(tmp_path: Path) -> None:
    config = load(ladder_file(tmp_path, 4))
    matches = tuple(first_schedule(config, "batch")[:3])
    outcome = play_batch(replace(template(config), number=7, matches=matches))
    assert outcome.number == 7
    assert [played.number for played in outcome.played] == [1, 2, 3]
    assert outcome.seconds >= sum(played.seconds for played in outcome.played) > 0
    for match, played in zip(matches, outcome.played, strict=True):
        data = zlib.decompress(played.record)
        assert len(data) == played.record_size and len(played.record) < len(data) / 3
        (tmp_path / "record.jsonl").write_bytes(data)
        lines, errors = read_all(tmp_path / "record.jsonl", strict=True)
        assert lines[0].header.match_id == f"ladder-{match.number:05d}"
        assert lines[0].header.seed == str(match.seed)
        assert [seat.name for seat in lines[0].header.seats] == list(match.bots)
        result = common_pb2.Result.FromString(played.result)
        assert lines[-1].result.result == result
        assert played.luck and tuple(lines[-1].result.luck) == played.luck  # issue 28.4
        assert not played.faults and not played.exits
    # The bot logs come back (the seeded bot says where it ran); nothing is left behind here.
    logs = {name: zlib.decompress(tail).decode() for name, tail in outcome.logs}
    assert f"runs in {ROOT}" in logs["seeded-0.log"]
    assert not (tmp_path / "records").exists() and not (tmp_path / "ladder.sqlite").exists()
    assert not errors


def test_a_batch_whose_bot_cannot_play_names_the_worker_and_the_log(tmp_path: Path) -> None:
    broken = ("broken", "tests/bots/no_luck.py")
    config = load(ladder_file(tmp_path, 2, bots=(broken, HEURISTIC)))
    config = replace(config, placement=replace(config.placement, max_restarts=0))
    matches = tuple(first_schedule(config, "broken")[:1])
    with pytest.raises(LadderError) as caught:
        play_batch(replace(template(config), matches=matches))
    message = str(caught.value)
    assert "exited 1 times (exit code 3)" in message
    assert "(on worker " in message and "broken-0: 'no luck today'" in message
    # The logs travel with the error (the worker's folder is gone): the coordinator keeps them.
    assert isinstance(caught.value, BatchFailed) and "croupier-batch-" not in message
    travelled = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(travelled, BatchFailed) and str(travelled) == message
    logs = {name: zlib.decompress(tail).decode() for name, tail in travelled.logs}
    assert "no luck today" in logs["broken-0.log"]


def test_a_worker_with_another_version_or_no_bots_refuses(tmp_path: Path) -> None:
    config = load(ladder_file(tmp_path, 2))
    matches = tuple(first_schedule(config, "x")[:1])
    with pytest.raises(ClusterError, match=r"runs croupier .* but the coordinator runs '0\.0'"):
        play_batch(replace(template(config), version="0.0", matches=matches))
    with pytest.raises(ClusterError, match="has no folder '/nowhere/at/all'"):
        play_batch(replace(template(config, root="/nowhere/at/all"), matches=matches))


def test_a_worker_that_leaves_while_it_is_checked_is_left_out_not_a_wrong_install() -> None:
    """A worker killed (or restarted by its nanny) while the coordinator asks every worker what
    it runs answers with Dask's CommClosedError: it is left out, and the contest or ladder goes
    on with the others (it ended them all before). A worker that answers with another error,
    or another croupier, still stops it."""
    comm = pytest.importorskip("distributed.comm.core")
    from referee.cluster.batch import worker_facts
    from referee.cluster.coordinator import checked_workers

    closed = comm.CommClosedError("in <TCP (closed) Scheduler Broadcast>: Stream is closed")
    good = worker_facts()
    facts = {"tcp://a": good, "tcp://b": closed, "tcp://c": good}
    assert checked_workers(facts) == ["tcp://a", "tcp://c"]
    assert checked_workers({"tcp://b": closed}) == []
    with pytest.raises(ClusterError, match=r"tcp://b cannot run croupier \(ModuleNotFoundError"):
        checked_workers({"tcp://a": good, "tcp://b": ModuleNotFoundError("referee")})
    with pytest.raises(ClusterError, match=r"tcp://c runs croupier '0\.0\.1'"):
        checked_workers({"tcp://a": good, "tcp://c": {**good, "croupier": "0.0.1"}})


def test_shipped_files_unpack_once_with_their_modes(tmp_path: Path) -> None:
    ship = pytest.importorskip("referee.cluster.ship")  # needs Dask for its worker plugin
    source = tmp_path / "source"
    (source / "bots" / "__pycache__").mkdir(parents=True)
    (source / "bots" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (source / "bots" / "run.sh").chmod(0o755)
    (source / "bots" / "__pycache__" / "x.pyc").write_bytes(b"junk")
    (source / "extra.txt").write_text("extra")
    digest, data = ship.pack(source, ["bots", "extra.txt"])
    again, _ = ship.pack(source, ["extra.txt", "bots"])
    assert digest == again  # content decides the name, not order or file times
    target = tmp_path / "worker" / f"croupier-ship-{digest}"
    ship.unpack(data, target)
    ship.unpack(data, target)  # a second plugin setup is a no-op
    assert (target / ".complete").is_file()
    assert (target / "extra.txt").read_text() == "extra"
    assert stat.S_IMODE((target / "bots" / "run.sh").stat().st_mode) == 0o755
    assert not (target / "bots" / "__pycache__").exists()
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no half-made folder
    with pytest.raises(ClusterError, match="cannot ship 'missing'"):
        ship.pack(source, ["missing"])


def test_the_cluster_table(tmp_path: Path) -> None:
    path = ladder_file(
        tmp_path, 2, 'scheduler = "tcp://10.0.0.1:8786"\nship = ["examples/python"]\nbatch = 8'
    )
    config = load(path)
    assert config.placement.cluster == ClusterConfig(
        "tcp://10.0.0.1:8786", ("examples/python",), None, 8
    )
    assert "cluster" not in config.fingerprint()  # a ladder may resume on a cluster, or off it
    assert load(ladder_file(tmp_path, 2)).placement.cluster is None
    for body, message in [
        ("schedular = 'x'", "unknown key (did you mean 'scheduler'?)"),
        ("ship = ['no/such/folder']", "no such file or directory 'no/such/folder' in root"),
        ("ship = ['examples']\nroot = '/srv/bots'", "give `ship` or `root`, not both"),
        ("batch = 0", "expected at least 1"),
        ("scheduler = 8786", "expected a string"),
        ("scheduler = 'http://host:8786'", "expected an address such as tcp://host:8786"),
    ]:
        text = ladder_file(tmp_path, 2, body).read_text()
        with pytest.raises(LadderConfigError, match="key 'cluster") as caught:
            parse(text, tmp_path / "ladder.toml")
        assert message in str(caught.value)


def test_without_dask_cluster_commands_say_how_to_install_it(tmp_path: Path) -> None:
    blanked = "import sys; sys.modules['distributed'] = None; from referee.cli import main; main()"
    path = ladder_file(tmp_path, 2)
    for arguments in (
        ["ladder", "run", str(path), "--cluster", "tcp://127.0.0.1:8786"],
        ["cluster", "local"],
    ):
        result = subprocess.run(
            [sys.executable, "-c", blanked, *arguments],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        assert "needs Dask: pip install 'croupier[cluster]'" in result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "ladder.sqlite").exists()  # refused before anything started


def test_a_bad_or_unreachable_scheduler_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ladder_file(tmp_path, 2)
    bad = runner.invoke(app, ["ladder", "run", str(path), "--cluster", "http://host:8786"])
    assert bad.exit_code == 2
    assert "--cluster 'http://host:8786': expected an address such as tcp://" in bad.output
    coordinator = pytest.importorskip("referee.cluster.coordinator")
    monkeypatch.setattr(coordinator, "CONNECT_SECONDS", 0.5)
    with socket.socket() as unused:  # a port that nothing listens on
        unused.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{unused.getsockname()[1]}"
        away = runner.invoke(app, ["ladder", "run", str(path), "--cluster", address])
    assert away.exit_code == 2, away.output
    assert f"cannot reach the Dask scheduler at '{address}'" in away.output


def test_batches_are_sized_from_what_batches_cost() -> None:
    coordinator = pytest.importorskip("referee.cluster.coordinator")
    measure = coordinator.BatchSizes()
    assert measure.size(12, threads=2, backlog=1000) == 12  # `batch = 12` decides
    assert measure.size(None, threads=2, backlog=1000) == coordinator.FIRST_BATCH
    assert measure.size(None, threads=2, backlog=6) == 3  # nothing measured: share the rest
    # Starting a batch takes 0.5 s and a match 0.1 s: 95 matches make the start 5% of it.
    measure.batches, measure.matches, measure.overhead, measure.playing = 2, 20, 1.0, 2.0
    assert measure.size(None, threads=2, backlog=1000) == 95
    assert measure.size(None, threads=2, backlog=40) == 20  # the end: a share per thread
    assert measure.size(None, threads=2, backlog=4) == 5  # but never mostly starting
    measure.playing = 20 * 30.0  # 30 s matches: a batch of two is a minute already
    assert measure.size(None, threads=2, backlog=1000) == 1
    measure.playing = 20 * 0.001  # very fast matches: capped by MAX_BATCH
    assert measure.size(None, threads=2, backlog=10**6) == coordinator.MAX_BATCH


@pytest.mark.parametrize("option", ["--port", "--dashboard-port"])
def test_cluster_local_on_a_taken_port_is_a_clear_error(option: str) -> None:
    pytest.importorskip("distributed")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        other = "--dashboard-port" if option == "--port" else "--port"
        result = subprocess.run(
            [*CLI, "cluster", "local", "--workers", "1", option, str(port), other, "0"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2, result.stderr
    assert f"cannot start a Dask cluster on 127.0.0.1:{port}: " in result.stderr
    assert f"choose another {option}," in " ".join(result.stderr.split())
    assert "Address already in use" in result.stderr and "Traceback" not in result.stderr
