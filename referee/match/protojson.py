"""protobuf's JSON mapping, written directly: records are written on the referee's hot path.

`json_format.MessageToJson` is generic and slow (about 35 µs a record line here), and building
its dictionary to dump it costs most of that again. This writer produces the compact text that
`json.dumps(json_format.MessageToDict(message), separators=(",", ":"))` gives (map entries in
their keys' order), from writers
cached per field (tests/test_protojson.py holds it to that on real records of every game and on
messages hypothesis draws from the schema), in a fraction of the time.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal.type_checkers import ToShortestFloat
from google.protobuf.message import Message

_Writer = Callable[[Any], str]
#: Per field: its key ('"jsonName":') and its value's writer.
_fields: dict[FieldDescriptor, tuple[str, _Writer]] = {}

_AS_STRING = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_FIXED64,
    FieldDescriptor.TYPE_SFIXED64,
}
#: Text that json.dumps writes as it is, between quotes.
_PLAIN = re.compile(r"[ !#-\[\]-~]*")


def message_to_json(message: Message) -> str:
    """`message` in protobuf's JSON mapping, compact, as json.dumps writes MessageToDict's."""
    parts = []
    for field, value in message.ListFields():
        entry = _fields.get(field)
        if entry is None:
            entry = _fields[field] = (json_string(field.json_name) + ":", _field_writer(field))
        parts.append(entry[0] + entry[1](value))
    return "{" + ",".join(parts) + "}"


def json_string(text: str) -> str:
    """A JSON string, as json.dumps writes it (ASCII, escaped)."""
    return f'"{text}"' if _PLAIN.fullmatch(text) else json.dumps(text)


def _double(value: float) -> str:
    if math.isnan(value):
        return '"NaN"'
    if math.isinf(value):
        return '"Infinity"' if value > 0 else '"-Infinity"'
    return float.__repr__(value)


def _float(value: float) -> str:
    """A 32-bit float, as json_format prints it: the shortest text that reads back the same."""
    return _double(value if math.isnan(value) or math.isinf(value) else ToShortestFloat(value))


def _boolean(value: bool) -> str:
    return "true" if value else "false"


def _bytes(data: bytes) -> str:
    return '"' + base64.b64encode(data).decode("ascii") + '"'


def _scalar(field: FieldDescriptor) -> _Writer:
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return message_to_json
    if kind == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        names = {value.number: json_string(value.name) for value in field.enum_type.values}
        return lambda number: names.get(number) or str(number)  # an unknown one: its number
    if kind in _AS_STRING:
        return lambda number: f'"{number}"'
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return _double
    if kind == FieldDescriptor.TYPE_FLOAT:
        return _float
    if kind == FieldDescriptor.TYPE_BOOL:
        return _boolean
    if kind == FieldDescriptor.TYPE_STRING:
        return json_string
    if kind == FieldDescriptor.TYPE_BYTES:
        return _bytes
    return str  # the 32-bit integers


def _field_writer(field: FieldDescriptor) -> _Writer:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key_field = field.message_type.fields_by_name["key"]
        value_of = _scalar(field.message_type.fields_by_name["value"])
        bool_keys = key_field.type == FieldDescriptor.TYPE_BOOL

        def write_map(mapping: Any) -> str:
            # In the keys' order, not the map's: protobuf's maps iterate in an order seeded per
            # process, and one match written twice must give the same bytes.
            texts = sorted((str(key).lower() if bool_keys else str(key), key) for key in mapping)
            pairs = (json_string(text) + ":" + value_of(mapping[key]) for text, key in texts)
            return "{" + ",".join(pairs) + "}"

        return write_map
    write = _scalar(field)
    if field.is_repeated:
        return lambda values: "[" + ",".join(map(write, values)) + "]"
    return write
