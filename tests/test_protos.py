"""The committed generated code matches the .proto files (run `make proto` when this fails)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor

ROOT = Path(__file__).resolve().parent.parent
FIELD = re.compile(r"(repeated |optional )?[\w.<>, ]+ \w+ = \d+;.*")
COMMITTED = ROOT / "sdk" / "python" / "croupier" / "v1"


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "protogen.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    fresh = tmp_path / "croupier" / "v1"
    names = sorted(p.name for p in fresh.iterdir())
    assert names == sorted(p.name for p in COMMITTED.iterdir() if p.name != "__pycache__")
    stale = [n for n in names if (fresh / n).read_bytes() != (COMMITTED / n).read_bytes()]
    assert not stale, f"stale generated code, run `make proto`: {stale}"


def test_every_message_and_field_is_documented() -> None:
    """The .proto files are the manual for bot authors in every language."""
    undocumented = []
    for proto in sorted((ROOT / "proto" / "croupier" / "v1").glob("*.proto")):
        lines = proto.read_text().splitlines()
        for number, line in enumerate(lines):
            stripped = line.strip()
            declaration = stripped.startswith(("message ", "enum ", "service ", "rpc "))
            field = FIELD.fullmatch(stripped) is not None
            if declaration or field:
                previous = lines[number - 1].strip() if number else ""
                if not previous.startswith("//") and "//" not in stripped:
                    undocumented.append(f"{proto.name}:{number + 1}: {stripped}")
    assert not undocumented, "\n".join(undocumented)


#: Comment wording that gives a value the meaning "none": -1, 0 or "" standing for no value.
SENTINEL = re.compile(
    r"-1 (for|when|if|while|until|means)"
    r"|\b0 (if|when|while|until|means|otherwise|under)\b"
    r"|\b(else|otherwise),? 0\b"
    r'|""'
    r"|\bempty string\b",
    re.IGNORECASE,
)


def _field_comments() -> dict[str, tuple[FieldDescriptor, str]]:
    """Every field of every message, with its comments (leading and trailing), from the
    descriptor set with source info that `make proto` writes (the one reflection serves)."""
    data = (COMMITTED / "descriptors.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data)
    found: dict[str, tuple[FieldDescriptor, str]] = {}
    for file in files.file:
        if file.name.startswith("croupier/"):
            comments = {
                tuple(loc.path): loc.leading_comments + loc.trailing_comments
                for loc in file.source_code_info.location
            }
            _walk(file.message_type, (4,), file.package, comments, found)
    return found


def _walk(
    messages: Sequence[descriptor_pb2.DescriptorProto],
    path: tuple[int, ...],
    scope: str,
    comments: dict[tuple[int, ...], str],
    found: dict[str, tuple[FieldDescriptor, str]],
) -> None:
    for i, message in enumerate(messages):
        full = f"{scope}.{message.name}"
        described = descriptor_pool.Default().FindMessageTypeByName(full)
        for j, field in enumerate(message.field):
            text = comments.get((*path, i, 2, j), "")  # 2: a message's fields
            found[f"{full}.{field.name}"] = (described.fields_by_name[field.name], text)
        _walk(message.nested_type, (*path, i, 3), full, comments, found)  # 3: nested messages


def test_no_value_is_an_unset_field() -> None:
    """The convention (issue 16): "no value" is an unset proto3 `optional` scalar, or an unset
    message, never a sentinel (-1, 0, ""). A field whose comment gives a value the meaning "none"
    must have presence; a repeated field cannot, so it holds messages (XactikaSeatBid). A field
    kept for an older protocol version keeps its old meaning, and says so: `deprecated`."""
    import croupier.v1.challenges_pb2
    import croupier.v1.desk_pb2
    import croupier.v1.record_pb2
    import croupier.v1.referee_pb2
    import croupier.v1.submissions_pb2  # noqa: F401 (registers every file in the default pool)

    fields = _field_comments()
    assert len(fields) > 300  # the walk found the protos' fields and their comments
    assert "belongs to none" in fields["croupier.v1.Fault.request_id"][1]
    offending = [
        f"{name}: {text.strip()!r}"
        for name, (field, text) in sorted(fields.items())
        if SENTINEL.search(text)
        and field.message_type is None
        and not field.has_presence
        and not field.GetOptions().deprecated
    ]
    assert not offending, "\n".join(offending)


@pytest.mark.parametrize(
    "wording",
    [
        "The bid of each seat; -1 for a seat that has not bid yet.",
        "The request the fault belongs to (0 if none).",
        'The pile\'s top card, or "" when the pile is empty.',
        '(never a jack). "" otherwise.',
        "The points to reach. 0 otherwise.",
        "Rounds in the game; 0 under var_cumulative_151.",
        "The card's value if this seat knows it, else 0.",
    ],
)
def test_the_sentinel_check_knows_the_old_wordings(wording: str) -> None:
    assert SENTINEL.search(wording)


@pytest.mark.parametrize(
    "wording",
    ["Points the winner scored (0 on a tie).", "The seat, 0-based.", "Cards played, 0..48."],
)
def test_the_sentinel_check_lets_real_zeros_be(wording: str) -> None:
    assert not SENTINEL.search(wording)


def _comments() -> dict[str, str]:
    """Each file's header (keyed by the file's name), each top-level message's leading comment
    and each enum value's, whitespace folded, from the descriptors with source info."""
    data = (COMMITTED / "descriptors.binpb").read_bytes()
    found: dict[str, str] = {}
    for file in descriptor_pb2.FileDescriptorSet.FromString(data).file:
        if not file.name.startswith("croupier/"):
            continue
        comments = {tuple(loc.path): loc for loc in file.source_code_info.location}
        syntax = comments[(12,)]  # 12: the syntax statement, which the header comes before
        found[file.name] = "".join([*syntax.leading_detached_comments, syntax.leading_comments])
        for i, message in enumerate(file.message_type):
            found[message.name] = comments[(4, i)].leading_comments  # 4: the messages
        for i, enum in enumerate(file.enum_type):
            for j, value in enumerate(enum.value):  # 5: the enums, 2: their values
                found[value.name] = comments[(5, i, 2, j)].leading_comments
    return {where: " ".join(text.split()) for where, text in found.items()}


#: What the protos must tell an author of each game, as its manual (issue 42.11), by where.
MANUAL = {
    "croupier/v1/xix.proto": [
        "when the two sum to 19: then the lower card takes it",  # the trick's winner
        "third strike in an exchange ends it at once",  # XIX-R7: how an exchange ends
        "3 strikes, 3 points; 4, 5 points; 5, 8 points",  # the stakes
        "a seat with 19 points or more wins the game",  # XIX-R8: the game's end
    ],
    "XixTrickTaken": ["by the higher card, or by the lower when the two cards sum to 19"],
    "XixExchangeWon": ["its third strike of the exchange", "19 points or more (XIX-R8)"],
    "croupier/v1/xeri.proto": [
        "the card has the top card's rank, or is a jack",  # XERI-R5: the capture rule
        "exactly one card, by a card of the same rank, is a Xeri",  # XERI-R6
    ],
    "TexTacToeShowdownHand": [  # who may use which line at the showdown
        "A line is eligible when all three of its positions are face up (TTT-R6)",
        "face-down grid cards are never part of a hand",  # TTT-R7
        "best eligible line on the grid as it stands after any challenge turn",  # TTT-R10
    ],
    "FAULT_REASON_MEMORY": ["its in-memory scratch included (a memory cgroup)"],
}


def test_the_protos_tell_each_game_s_rules_where_a_bot_reads_them() -> None:
    comments = _comments()
    missing = [
        f"{where}: {said!r}"
        for where, sayings in MANUAL.items()
        for said in sayings
        if said not in comments[where]
    ]
    assert not missing, "\n".join(missing)


def test_the_guide_says_what_xactika_s_field_9_is() -> None:
    """docs/bots.md called field 9 reserved (issue 42.11): it is version 1's bids, still sent."""
    from croupier.v1 import xactika_pb2

    field = xactika_pb2.XactikaObservation.DESCRIPTOR.fields_by_number[9]
    assert field.name == "bids_v1" and field.GetOptions().deprecated
    guide = " ".join((ROOT / "docs" / "bots.md").read_text().split())
    assert "field 9 is reserved" not in guide
    assert "field 9 is still sent, as the deprecated `bids_v1`" in guide
