"""What a spectator may see: the seats' observations less every private field.

Two rules, each a guard for the other. A field any seat holds privately (a hand, a card it
peeked at, the cards it set face down) is cleared by name, as the game's `private_fields` in
referee.games.catalog lists them: two seats may each know a card and a spectator still may not
(both XIX players can peek at one strike-row position). And a field on which the seats'
observations differ is cleared too, so a private field a game adds later does not leak while it
is missing from that list. Messages are compared field by field, and repeated messages of the
same length element by element, so a strike row keeps its public slots.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import Message

from croupier.v1 import game_pb2
from referee.games.base import State
from referee.games.catalog import CATALOG


def public_observation(game_id: str, state: State, seats: int) -> game_pb2.Observation:
    """What a spectator may see of `state`: the seats' common observation, less the game's
    private fields."""
    shared = common([state.observation(s) for s in range(seats)])
    _scrub(shared, CATALOG[game_id].private_fields)
    wrapper = game_pb2.Observation()
    getattr(wrapper, game_id).CopyFrom(shared)
    return wrapper


def _scrub(message: Message, private: frozenset[str]) -> None:
    for field in message.DESCRIPTOR.fields:
        if field.name in private:
            message.ClearField(field.name)
        elif field.message_type is not None and field.is_repeated:
            for item in getattr(message, field.name):
                _scrub(item, private)
        elif field.message_type is not None and message.HasField(field.name):
            _scrub(getattr(message, field.name), private)


def common(messages: Sequence[Message]) -> Message:
    """A copy of `messages[0]` keeping only what every message holds alike."""
    first = messages[0]
    shared = type(first)()
    for field in first.DESCRIPTOR.fields:
        if field.message_type is None and field.has_presence:  # an `optional` scalar
            present = [(m.HasField(field.name), getattr(m, field.name)) for m in messages]
            if present[0][0] and all(item == present[0] for item in present[1:]):
                setattr(shared, field.name, present[0][1])
            continue
        values = [getattr(message, field.name) for message in messages]
        if all(value == values[0] for value in values[1:]):
            _copy(shared, field.name, values[0], field)
        elif field.message_type is not None and not field.is_repeated:
            if all(message.HasField(field.name) for message in messages):
                getattr(shared, field.name).CopyFrom(common(values))
        elif field.message_type is not None and len({len(value) for value in values}) == 1:
            target = getattr(shared, field.name)
            for items in zip(*values, strict=True):
                target.add().CopyFrom(common(items))
    return shared


def _copy(shared: Message, name: str, value: object, field: object) -> None:
    target = getattr(shared, name)
    if isinstance(target, Message):
        target.CopyFrom(value)  # type: ignore[arg-type]
    elif hasattr(target, "extend"):
        target.extend(value)
    else:
        setattr(shared, name, value)
