"""The events of Tex-Tac-Toe's turns, calls, answers, commits and new hands.

Each depends only on a seat and a card or two (or a line, a pile size and a hand number), so each
is built once and shared by every state that has it: events are immutable values, and nobody may
mutate a payload. The caches are bounded by the 6 seats, 9 positions, 54 cards and the hands of a
game. A showdown's events depend on the whole table and are built by the state itself.
"""

from __future__ import annotations

from functools import cache

from croupier.v1 import textactoe_pb2 as pb
from referee.games.base import Event
from referee.games.textactoe_grid import LINES
from referee.games.textactoe_poker import card_text, card_texts, cards_text


@cache
def revealed_events(seat: int, position: int, card: int) -> tuple[Event]:
    text = card_text(card)
    return (
        Event(
            f"seat {seat} reveals position {position}: {text}",
            pb.TexTacToeEvent(
                revealed=pb.TexTacToeRevealed(seat=seat, position=position, card=text)
            ),
        ),
    )


@cache
def drew_event(seat: int, card: int) -> Event:
    text = card_text(card)
    return Event(
        f"seat {seat} draws {text}",
        pb.TexTacToeEvent(drew=pb.TexTacToeDrew(seat=seat, card=text)),
        frozenset({seat}),
    )


@cache
def played_event(seat: int, card: int, position: int) -> Event:
    text = card_text(card)
    return Event(
        f"seat {seat} plays {text} on position {position}",
        pb.TexTacToeEvent(played=pb.TexTacToePlayed(seat=seat, card=text, position=position)),
    )


@cache
def discarded_events(seat: int, card: int) -> tuple[Event, Event]:
    """The public discard and its private detail (TTT-R19: the discard goes face down; only the
    discarder knows the card)."""
    text = card_text(card)
    return (
        Event(
            f"seat {seat} discards a card to the bottom of the draw pile",
            pb.TexTacToeEvent(discarded=pb.TexTacToeDiscarded(seat=seat)),
        ),
        Event(
            f"seat {seat} discards {text}",
            pb.TexTacToeEvent(discard_detail=pb.TexTacToeDiscardDetail(card=text)),
            frozenset({seat}),
        ),
    )


@cache
def called_event(seat: int) -> Event:
    return Event(f"seat {seat} calls", pb.TexTacToeEvent(called=pb.TexTacToeCalled(seat=seat)))


@cache
def answered_events(seat: int, challenge: bool) -> tuple[Event]:
    if challenge:
        payload = pb.TexTacToeEvent(challenged=pb.TexTacToeChallenged(seat=seat))
        return (Event(f"seat {seat} challenges", payload),)
    payload = pb.TexTacToeEvent(conceded=pb.TexTacToeConceded(seat=seat))
    return (Event(f"seat {seat} concedes", payload),)


@cache
def committed_event(seat: int) -> Event:
    return Event(
        f"seat {seat} sets two cards face down",
        pb.TexTacToeEvent(committed=pb.TexTacToeCommitted(seat=seat)),
    )


@cache
def next_hand_events(line: int, pile_size: int, hand: int, starter: int) -> tuple[Event, Event]:
    """After `line` is cleared: its positions are refilled, and with `hand` hands over, the next
    one begins."""
    positions = LINES[line]
    return (
        Event(
            f"positions {' '.join(map(str, positions))} are refilled face down "
            f"(draw pile {pile_size})",
            pb.TexTacToeEvent(
                refilled=pb.TexTacToeRefilled(positions=positions, draw_pile_size=pile_size)
            ),
        ),
        Event(
            f"hand {hand + 1} begins: seat {starter} starts",
            pb.TexTacToeEvent(hand_started=pb.TexTacToeHandStarted(hand=hand, starter=starter)),
        ),
    )


@cache
def commit_detail_event(seat: int, pair: tuple[int, ...]) -> Event:
    return Event(
        f"seat {seat} sets {cards_text(pair)} face down",
        pb.TexTacToeEvent(commit_detail=pb.TexTacToeCommitDetail(cards=card_texts(pair))),
        frozenset({seat}),
    )
