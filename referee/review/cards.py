"""Where two protocol messages of one game differ only in their cards, and the relabelling of
cards that makes a sampled history show what the seat was shown.

The card fields are the ones the environment's sampler knows (croupier.env.sampling): a game's
string fields, and XIX's card-valued number fields. Relabelling an action's text is the
sampler's too, so that the two ways of resampling a seat's unseen cards agree on what a card is.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from croupier.env.encoding import CARD_NUMBERS
from croupier.env.sampling import EVENT_CARD_NUMBERS

#: A card of the sampled history and the card the seat was shown in its place.
Pair = tuple[str, str]


def card_pairs(game: str, sampled: Message, shown: Message) -> list[Pair] | None:
    """Each card place of the two messages as (sampled card, shown card), or None where they
    differ in anything but cards (another structure: no relabelling can make them equal)."""
    numbers = CARD_NUMBERS.get(game, frozenset()) | EVENT_CARD_NUMBERS.get(game, frozenset())
    pairs: list[Pair] = []
    return pairs if _walk(sampled, shown, numbers, pairs) else None


def _walk(a: Message, b: Message, numbers: frozenset[str], pairs: list[Pair]) -> bool:
    for field in a.DESCRIPTOR.fields:
        name = field.name
        if field.is_repeated:
            left, right = list(getattr(a, name)), list(getattr(b, name))
            if len(left) != len(right):
                return False
        elif field.has_presence and a.HasField(name) != b.HasField(name):
            return False
        else:
            left, right = [getattr(a, name)], [getattr(b, name)]
        if field.message_type is not None:
            if not all(_walk(x, y, numbers, pairs) for x, y in zip(left, right, strict=True)):
                return False
        elif field.type == FieldDescriptor.TYPE_STRING or name in numbers:
            if not (field.has_presence and not a.HasField(name)):
                pairs.extend((str(x), str(y)) for x, y in zip(left, right, strict=True))
        elif left != right:
            return False
    return True


def relabelling(pairs: Sequence[Pair], rng: random.Random) -> dict[str, str] | None:
    """A permutation of cards taking each sampled card of `pairs` to its shown card (None if the
    pairs contradict one another); the shown cards that were elsewhere in the sample take,
    at random, the places the sampled cards leave."""
    sigma: dict[str, str] = {}
    for sampled, shown in pairs:
        if sigma.setdefault(sampled, shown) != shown:
            return None
    targets = set(sigma.values())
    if len(targets) != len(sigma):
        return None
    arriving = sorted(card for card in targets if card not in sigma)
    leaving = sorted(card for card in sigma if card not in targets)
    rng.shuffle(leaving)
    sigma.update(zip(arriving, leaving, strict=True))
    return {card: other for card, other in sigma.items() if card != other}
