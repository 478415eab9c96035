"""The training environments play the referee's own match (issue 47.3): a seeded match through
the real gRPC referee with bot processes, and the same match through `croupier.env` with the
same bots in-process, send each seat the very same messages, byte for byte; the environment's
rewards are the record's scores and its own record verifies."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import croupier.env
from croupier.env.start import from_record
from croupier.env.table import Table
from referee.cli import app
from referee.match.clock import TimeControl
from referee.match.records import read_all
from referee.match.replay import verify
from tests.bots.digest_bot import DigestBot
from tests.bots.stream_bot import invariant

ROOT = Path(__file__).resolve().parent.parent
STREAM_BOT = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'stream_bot.py'}"
runner = CliRunner()

TABLES = [
    ("xix", {}),
    ("xeri", {"players": 2}),
    ("xeri", {"players": 4}),
    ("xactika", {"players": 2}),
    ("xactika", {"players": 4, "rounds": 3}),
    ("textactoe", {"players": 2}),
    ("textactoe", {"players": 3}),
]


def over_grpc(tmp_path: Path, game: str, options: dict[str, object], seed: str) -> Path:
    """Play one match on the real referee; returns its record (streams in tmp_path/streams)."""
    streams = tmp_path / "streams"
    streams.mkdir()
    flags = [item for name, value in options.items() for item in ("--option", f"{name}={value}")]
    seats = 4 if options.get("players") == 4 else int(str(options.get("players", 2)))
    bots = [item for _ in range(seats) for item in ("--bot", f"{STREAM_BOT} {streams}")]
    records = tmp_path / "records"
    # Unsandboxed, so that the bots can write their streams where the test reads them.
    command = ["match", game, *flags, *bots, "--seed", seed, "--records", str(records)]
    result = runner.invoke(app, [*command, "--no-sandbox"])
    assert result.exit_code == 0, result.output
    (record,) = records.glob("*.jsonl")
    assert '"fault"' not in record.read_text()
    return record


def split(data: bytes) -> list[bytes]:
    out = []
    while data:
        size = int.from_bytes(data[:4], "big")
        out.append(data[4 : 4 + size])
        data = data[4 + size :]
    return out


@pytest.mark.parametrize(("game", "options"), TABLES)
def test_a_match_in_the_environment_is_the_referees(
    tmp_path: Path, game: str, options: dict[str, object]
) -> None:
    record = over_grpc(tmp_path, game, options, seed="parity")
    lines, problems = read_all(record, strict=True)
    assert not problems
    header = lines[0].header
    control = header.time_control
    env = croupier.env.aec(
        game,
        names=[seat.name for seat in header.seats],
        time_control=TimeControl(move_ms=control.move_ms, bank_ms=control.bank_ms),
        **options,
    )
    mine = tmp_path / "env.jsonl"
    env.reset(seed=int(header.seed), options={"record_to": mine})
    assert env.match is not None
    bots = [DigestBot() for _ in env.possible_agents]
    streams: list[list[bytes]] = [[invariant(start)] for start in env.match.starts]
    for bot, start in zip(bots, env.match.starts, strict=True):
        bot.on_match_start(start)
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        if terminated:
            rewards[agent] = float(reward)
            env.step(None)
            continue
        request = env.request(agent)
        assert request is not None
        seat = int(agent.removeprefix("seat_"))
        streams[seat].append(invariant(request))
        env.step(bots[seat].act(request))
    for seat, end in enumerate(env.match.ends):
        streams[seat].append(invariant(end))
    for seat, stream in enumerate(streams):
        theirs = split((tmp_path / "streams" / f"{seat}.bin").read_bytes())
        assert len(theirs) == len(stream), f"seat {seat}"
        assert [m[4:] for m in stream] == theirs, f"seat {seat}"
    scores = {f"seat_{s.seat}": float(s.score) for s in lines[-1].result.result.seats}
    assert rewards == scores
    report = verify(mine)
    assert report.ok, report.problems
    starts_anywhere(env.table, record, tmp_path / "streams")


def starts_anywhere(table: Table, record: Path, streams: Path) -> None:
    """Started at decision K of the referee's record, the seat to move gets the very request
    it got from the referee there (issue 47.4)."""
    sent = [split((streams / f"{seat}.bin").read_bytes())[1:-1] for seat in range(table.seats)]
    order = [a.action.seat for a in read_all(record, strict=True)[0] if a.HasField("action")]
    for decision in sorted({0, 1, len(order) // 2, len(order) - 1}):
        match, replayed = from_record(table, record, decision, order[decision])
        assert len(replayed) == decision and match.request is not None
        seat = order[decision]
        nth = order[:decision].count(seat)
        assert invariant(match.request)[4:] == sent[seat][nth], f"decision {decision}"
