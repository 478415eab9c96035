"""Resample what a seat cannot see at a recorded decision (issue 47.4, `resample=True`).

The cards the seat never saw (its observations' card fields, up to the decision) are dealt again
by a random permutation among themselves: the first deal relabelled, and every action naming one
of them relabelled likewise. The relabelled history is played through the referee's match, and
kept only if every action is still legal and the seat is sent exactly what it was sent in the
record (each request: observation, legal actions and events); otherwise another permutation is
drawn. So a sample is a legal state of the engine that the seat cannot tell from the true one
(whatever the game's obligations: Xactika's follow rules, XIX's peeks and draft, Xeri's captures
are all checked by the engine and the comparison, not modelled here), and every arrangement of
the unseen cards consistent with the seat's view can be drawn. Only decisions before the
record's second shuffle can be resampled (a later deal, even a redeal before the first
decision, is drawn by the match's RNG): others raise ValueError.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.message import Message

from croupier.env.encoding import CARD_NUMBERS
from croupier.env.start import from_record, header_match
from croupier.env.table import Table
from croupier.v1 import record_pb2, referee_pb2
from referee.match.records import read_all
from referee.match.requests import SeatQueues

#: The events' number fields that hold cards (XIX: xix.proto's events).
EVENT_CARD_NUMBERS: dict[str, frozenset[str]] = {
    "xix": frozenset({"card", "cards", "taken", "given", "value"}),
}

#: Permutations tried before giving up (each is a replay of the record's prefix).
MAX_TRIES = 2000


@dataclass(frozen=True, slots=True)
class Sample:
    """A resampled start: the match at the decision, its first deal and the actions before."""

    match: SeatQueues
    deck: tuple[str, ...]
    actions: tuple[str, ...]
    tries: int


def seen_cards(game: str, requests: Iterable[referee_pb2.ActionRequest]) -> set[str]:
    """Every card text in the card fields of these requests' observations and events."""
    seen: set[str] = set()
    numbers = CARD_NUMBERS.get(game, frozenset()) | EVENT_CARD_NUMBERS.get(game, frozenset())
    for request in requests:
        _collect(getattr(request.observation, game), numbers, seen)
        for event in request.events:  # a card shown between two requests (played, captured)
            if event.HasField(game):
                _collect(getattr(event, game), numbers, seen)
    return seen


def _collect(message: Message, numbers: frozenset[str], seen: set[str]) -> None:
    for field, value in message.ListFields():
        items = value if field.is_repeated else [value]
        if field.message_type is not None:
            for item in items:
                _collect(item, numbers, seen)
        elif field.type == field.TYPE_STRING or field.name in numbers:
            seen.update(str(item) for item in items)


def resample(
    table: Table, path: Path, decision: int, seat: int | None, rng: random.Random
) -> Sample:
    """A start at `decision` of the record with the cards its seat never saw dealt again."""
    true_match, replayed = from_record(table, path, decision, seat)
    assert true_match.request is not None
    seat = true_match.seat
    lines, _ = read_all(path, strict=True)
    deals = [
        i
        for i, line in enumerate(lines)
        if line.HasField("chance") and line.chance.HasField("deck")
    ]
    action_lines = [i for i, line in enumerate(lines) if line.HasField("action")]
    if len(deals) > 1 and action_lines[decision] > deals[1]:
        raise ValueError(f"decision {decision!r} is after the record's first deal: not resampled")
    deck = tuple(lines[deals[0]].chance.deck.cards)
    texts = [lines[i].action.text for i in action_lines[:decision]]
    mine = [request for s, request in replayed if s == seat] + [true_match.request]
    seen = seen_cards(table.game.id, mine)
    unseen = [card for card in deck if card not in seen]
    header = lines[0].header
    for tries in range(1, MAX_TRIES + 1):
        shuffled = unseen[:]
        rng.shuffle(shuffled)
        sigma = dict(zip(unseen, shuffled, strict=True))
        new_deck = tuple(sigma.get(card, card) for card in deck)
        new_texts = [relabel(table.game.id, text, sigma) for text in texts]
        match = _replay(table, header, new_deck, new_texts, seat, mine)
        if match is not None:
            return Sample(match, new_deck, tuple(new_texts), tries)
    raise ValueError(f"no consistent resample of decision {decision!r} in {MAX_TRIES} tries")


def relabel(game: str, text: str, sigma: dict[str, str]) -> str:
    """The action's text with its cards relabelled by `sigma` (referee.review's sampler too)."""
    words = text.split()
    if game == "xix":  # "play C", "draft C", "trade P C", "strike P": only C is a card
        if words[0] in ("play", "draft", "trade"):
            words[-1] = sigma.get(words[-1], words[-1])
        return " ".join(words)
    return " ".join(sigma.get(word, word) for word in words)


def _replay(
    table: Table,
    header: record_pb2.RecordHeader,
    deck: tuple[str, ...],
    texts: list[str],
    seat: int,
    mine: list[referee_pb2.ActionRequest],
) -> SeatQueues | None:
    """The relabelled history through the referee's match, or None where it is not consistent."""
    match = header_match(table, header, deck)
    asked = 0
    for text in texts:
        request = match.request
        assert request is not None
        if match.seat == seat:
            if not _same(request, mine[asked]):
                match.close()
                return None
            asked += 1
        index = next((i for i, a in enumerate(request.legal_actions) if a.text == text), None)
        if index is None:
            match.close()
            return None
        match.answer(index)
    if match.request is None or match.seat != seat or not _same(match.request, mine[asked]):
        match.close()
        return None
    return match


def _same(a: referee_pb2.ActionRequest, b: referee_pb2.ActionRequest) -> bool:
    return (
        a.observation == b.observation
        and list(a.legal_actions) == list(b.legal_actions)
        and list(a.events) == list(b.events)
    )
