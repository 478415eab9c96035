"""The runner's requests, assembled from encoded pieces (referee.match.wire), are byte for byte
what protobuf serializes for the same ActionRequest built as a message, in every game."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.v1 import game_pb2, record_pb2, referee_pb2
from referee.games import GAMES, get_game
from referee.games.base import Event, parse_options
from referee.match import protocol, wire
from referee.match.clock import SeatClock, TimeControl
from referee.match.requests import SeatName, SeatQueues
from referee.match.runner import MatchConfig, encoded_event
from tests.playouts import seeded_playout


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_assembled_requests_are_the_messages_serialized(game_id: str, seed: int) -> None:
    game = get_game(game_id)
    options = parse_options(game, {})
    playout = seeded_playout(game, options, seed)
    clocks = [
        SeatClock.start(TimeControl(move_ms=1000, bank_ms=5000)),
        SeatClock.start(TimeControl(move_ms=0, bank_ms=0)),
    ]
    pending: list[list[object]] = [[] for _ in range(game.seat_count(options))]
    checked = 0
    for number, state in enumerate(playout.states):
        for event in state.events:
            for seat, queue in enumerate(pending):
                if event.visible_to(seat):
                    queue.append(event)
        mover = state.to_move
        if mover is None:
            continue
        seat = mover
        legal = state.legal_actions()
        clock = clocks[number % 2]
        clock.bank_ms = float(number % 7) * 100.5
        events = [encoded_event(game_id, e) for e in pending[seat]]  # type: ignore[arg-type]
        expected = referee_pb2.ActionRequest(
            match_id=f"m-{number}" if number % 3 else "",
            request_id=number * 1000 + 1,
            observation=protocol.observation(game_id, state, seat),
            legal_actions=protocol.legal_actions(game_id, legal),
            clock=clock.to_proto(),
            events=[e.message for e in events],
            decision=number if number % 5 else 0,
        )
        assembled = wire.action_request(
            expected.match_id,
            expected.request_id,
            wire.observation_bytes(game_id, state.observation(seat).SerializeToString()),
            protocol.legal_action_fields(game_id, legal),
            clock.encoded(),
            [e.field for e in events],
            expected.decision,
        )
        assert assembled.body == expected.SerializeToString()
        assert assembled.message == expected
        assert assembled.legal_count == len(legal)
        sent = referee_pb2.RefereeMessage.FromString(assembled.data)
        assert sent == referee_pb2.RefereeMessage(action_request=expected)
        pending[seat] = []
        checked += 1
    assert checked > 10


@settings(max_examples=300)
@given(st.integers(min_value=0, max_value=2**15) | st.integers(min_value=0, max_value=2**64 - 1))
def test_varint_is_protobufs(value: int) -> None:
    message = referee_pb2.ActionRequest(request_id=value)
    assert wire.action_request("", value, b"", [], b"", []).message.request_id == value
    assert message.SerializeToString() == (
        wire.varint(8 * 2) + wire.varint(value) if value else b""
    )
    assert message.SerializeToString() == (b"\x10" + wire.varint(value) if value else b"")


def test_a_reconnect_resends_the_request_as_it_was() -> None:
    """WireRequest.of: a request that exists as a message goes out as its serialization."""
    message = referee_pb2.ActionRequest(match_id="m", request_id=7)
    message.legal_actions.add(text="pass")
    request = wire.WireRequest.of(message)
    assert request.message is message
    assert request.data == referee_pb2.RefereeMessage(action_request=message).SerializeToString()
    assert (request.match_id, request.request_id, request.legal_count) == ("m", 7, 1)


def test_an_environments_request_is_the_runners() -> None:
    """SeatQueues hands its caller the parsed request of the runner's own assembly."""
    game = get_game("xix")
    config = MatchConfig(game, parse_options(game, {}), seed=3, match_id="env")
    seats = [SeatName(f"s{i}") for i in range(game.seat_count(config.options))]
    with SeatQueues(config, seats) as match:
        assert match.request is not None
        assert match.request.match_id == "env"
        assert match.request.observation.HasField("xix")
        assert len(match.request.legal_actions) > 0


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_event_encoded_by_its_value_is_the_event_encoded_afresh(game_id: str) -> None:
    """The runner encodes an event once per value (issue 49.1): every event of seeded games,
    and a copy of it (another object of the same value, as an engine makes afresh), gives the
    field that serializing its message gives and the record line protobuf's own JSON printer
    gives; an event of the same payload seen by other seats is another line."""
    game = get_game(game_id)
    options = parse_options(game, {})
    checked = 0
    for seed in (3, 4):
        for state in seeded_playout(game, options, seed).states:
            for event in state.events:
                payload = type(event.payload)()
                payload.CopyFrom(event.payload)
                copy = Event(event.text, payload, event.seats)
                message = protocol.event(game_id, event)
                field = wire.length_delimited(wire.EVENT, message.SerializeToString())
                line = _printed(message, event.seats)
                for each in (event, copy):
                    encoded = encoded_event(game_id, each)
                    assert encoded.field == field and encoded.record_line() == line
                    assert encoded.message == message
                checked += 1
    assert checked > 20
    first = next(e for s in seeded_playout(game, options, 3).states for e in s.events)
    for seats in (frozenset({0}), frozenset({1}), None):
        other = Event(first.text, first.payload, seats)
        message = protocol.event(game_id, other)
        assert encoded_event(game_id, other).record_line() == _printed(message, seats)


def _printed(message: game_pb2.Event, seats: frozenset[int] | None) -> str:
    """An event's record line as protobuf's json_format prints it (compact)."""
    line = record_pb2.EventRecord(event=message, public=seats is None, seats=sorted(seats or ()))
    record = json_format.MessageToDict(record_pb2.Record(event=line))
    return json.dumps(record, separators=(",", ":"))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_legal_action_fields_are_the_same_for_equal_actions(game_id: str) -> None:
    """Fields are found by the action object first (issue 49.1): an equal action made afresh
    gets the same field, and every field is its action's message serialized."""
    game = get_game(game_id)
    options = parse_options(game, {})
    for state in seeded_playout(game, options, 5).states[:200]:
        if state.to_move is None:
            continue
        legal = list(state.legal_actions())
        fresh = [game.parse_action(action.text) for action in legal]
        expected = [
            wire.length_delimited(
                wire.LEGAL_ACTION, protocol.action(game_id, a).SerializeToString()
            )
            for a in legal
        ]
        assert protocol.legal_action_fields(game_id, legal) == expected
        assert [protocol.action_text(game_id, a) for a in legal] == [a.text for a in legal]
        assert protocol.legal_action_fields(game_id, fresh) == expected
        assert [protocol.action_text(game_id, a) for a in fresh] == [a.text for a in legal]
