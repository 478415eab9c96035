"""The fast JSON encoder gives exactly protobuf's JSON mapping, on real records of every game."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from google.protobuf import json_format

from croupier.bots import RandomBot
from croupier.v1 import common_pb2, record_pb2, referee_pb2
from referee.games import GAMES
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.protojson import message_to_dict
from referee.match.records import RecordReader
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_matches_message_to_dict_on_real_records(game_id: str, tmp_path: Path) -> None:
    game = GAMES[game_id]
    options = parse_options(game, {"rounds": "1"} if game_id in {"xactika", "xeri"} else {})
    seats = game.seat_count(options)
    config = MatchConfig(game, options, seed=3, match_id="j", time_control=TimeControl(5, 0))
    path = tmp_path / "m.jsonl"
    bots = [InProcessSeat(RandomBot(seat)) for seat in range(seats)]
    trio.run(run_match, config, bots, path)
    records = list(RecordReader(path))
    assert len(records) > 20
    for record in records:
        assert message_to_dict(record) == json_format.MessageToDict(record)
        assert json_format.ParseDict(message_to_dict(record), record_pb2.Record()) == record


def test_edge_cases_of_the_mapping() -> None:
    messages = [
        referee_pb2.ActionRequest(request_id=2**63 + 5),  # uint64 as a string
        common_pb2.Fault(reason=common_pb2.FAULT_REASON_TIMEOUT),  # enum by name
        common_pb2.Fault(reason=99),  # type: ignore[arg-type]  # unknown enum: a number
        record_pb2.ChanceRecord(pick=0),  # a oneof member set to its default is present
        record_pb2.RecordHeader(options={"players": "4"}),
        common_pb2.SeatResult(score=-3),
        record_pb2.Record(event=record_pb2.EventRecord()),  # an empty message that is set
    ]
    for message in messages:
        assert message_to_dict(message) == json_format.MessageToDict(message)
