"""No two fields of a message generate the same name in any language docs/bots.md documents.

protoc's generators derive accessors from field names: C++ gives a repeated `pile` a `pile_size()`
that a field `pile_size` also defines (the clash that once kept `xeri.pb.h` from compiling), Java
`getPileList()`/`getPileCount()`, Go and C# the CamelCase of every name. The C++, Go and Java
builds in `make test` catch some of these only when those toolchains are there, and Java renames
silently; this check reads the descriptors, so every message is covered on any machine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import pytest
from google.protobuf import descriptor_pb2

from tests.test_protos import COMMITTED

LABEL_REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
TYPE_MESSAGE = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
TYPE_ENUM = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
TYPE_STRING = descriptor_pb2.FieldDescriptorProto.TYPE_STRING


def camel(name: str) -> str:
    """protoc's CamelCase of a snake_case name (Go, Java and C# all start from it)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def generated_names(field: descriptor_pb2.FieldDescriptorProto) -> Iterator[tuple[str, str]]:
    """(language, name) of what the generators make of one field."""
    name = field.name.lower()
    repeated = field.label == LABEL_REPEATED
    present = field.proto3_optional or field.type == TYPE_MESSAGE or field.HasField("oneof_index")
    cpp = [name, f"set_{name}", f"clear_{name}", f"mutable_{name}", f"release_{name}"]
    cpp += [f"{name}_size", f"add_{name}"] if repeated else []
    cpp += [f"has_{name}", f"set_allocated_{name}"] if present and not repeated else []
    yield from (("C++", each) for each in cpp)
    big = camel(field.name)
    java = [f"get{big}", f"set{big}", f"clear{big}"]
    java += [f"get{big}List", f"get{big}Count", f"add{big}", f"addAll{big}"] if repeated else []
    java += [f"has{big}"] if present and not repeated else []
    java += [f"get{big}OrBuilder"] if field.type == TYPE_MESSAGE else []
    java += [f"get{big}Value"] if field.type == TYPE_ENUM else []
    java += [f"get{big}Bytes"] if field.type == TYPE_STRING else []
    yield from (("Java", each) for each in java)
    yield from (("Go", each) for each in (big, f"Get{big}"))
    csharp = [big, f"Has{big}", f"Clear{big}"] if present else [big]
    yield from (("C#", each) for each in csharp)


def clashes(message: descriptor_pb2.DescriptorProto) -> list[str]:
    """Every generated name two of the message's fields (or oneofs) would both define, and C#
    properties named as their own class (which C# forbids)."""
    owners: dict[tuple[str, str], set[str]] = defaultdict(set)
    for field in message.field:
        for language, name in generated_names(field):
            owners[language, name].add(field.name)
    for oneof in message.oneof_decl:
        if not oneof.name.startswith("_"):  # a proto3 optional's synthetic oneof
            owners["C++", f"{oneof.name.lower()}_case"].add(oneof.name)
            owners["Java", f"get{camel(oneof.name)}Case"].add(oneof.name)
            owners["C#", f"{camel(oneof.name)}Case"].add(oneof.name)
    found = [
        f"{message.name}: {language} {name!r} from {sorted(fields)}"
        for (language, name), fields in sorted(owners.items())
        if len(fields) > 1
    ]
    found += [
        f"{message.name}: C# property {message.name!r} from {field.name!r}"
        for field in message.field
        if camel(field.name) == message.name
    ]
    return found


def every_message() -> Iterator[descriptor_pb2.DescriptorProto]:
    data = (COMMITTED / "descriptors.binpb").read_bytes()
    for file in descriptor_pb2.FileDescriptorSet.FromString(data).file:
        if file.name.startswith("croupier/"):
            stack = list(file.message_type)
            while stack:
                message = stack.pop()
                stack.extend(message.nested_type)
                yield message


def test_no_message_has_a_generator_name_clash() -> None:
    messages = list(every_message())
    assert len(messages) > 80  # the descriptor set holds every file's messages
    found = [clash for message in messages for clash in clashes(message)]
    assert not found, "\n".join(found)


def _message(*fields: tuple[str, bool]) -> descriptor_pb2.DescriptorProto:
    message = descriptor_pb2.DescriptorProto(name="Sample")
    for number, (name, repeated) in enumerate(fields, start=1):
        field = message.field.add(
            name=name, number=number, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32
        )
        field.label = (
            LABEL_REPEATED if repeated else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
        )
    return message


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ((("pile", True), ("pile_size", False)), "C++ 'pile_size'"),  # the old XeriObservation
        ((("cards", True), ("cards_count", False)), "Java 'getCardsCount'"),
        ((("seat_id", False), ("seatId", False)), "Go 'SeatId'"),
        ((("sample", False),), "C# property 'Sample'"),
    ],
)
def test_the_check_finds_each_kind_of_clash(
    fields: tuple[tuple[str, bool], ...], expected: str
) -> None:
    assert any(expected in clash for clash in clashes(_message(*fields)))
