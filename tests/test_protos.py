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
