"""Real matches for the viewer tests: in-process bots, recorded to real files, every observation
and event each seat was sent kept, so views can be checked against what the engine sent."""

from __future__ import annotations

import base64
import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from google.protobuf.message import Message

from croupier import Bot
from croupier.bots import (
    RandomBot,
    TexTacToeHeuristicBot,
    XactikaHeuristicBot,
    XeriHeuristicBot,
    XixHeuristicBot,
)
from croupier.v1 import game_pb2, referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat


class Recording(Bot):
    """Plays as `inner` does and keeps every observation and event the referee sent it."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.observations: list[game_pb2.Observation] = []
        self.events: list[game_pb2.Event] = []

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.inner.on_match_start(start)

    def on_event(self, event: game_pb2.Event) -> None:
        self.events.append(event)
        self.inner.on_event(event)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        self.observations.append(request.observation)
        return self.inner.act(request)

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        self.inner.on_match_end(end)


@dataclass
class PlayedMatch:
    game: str
    path: Path
    seats: list[Recording] = field(default_factory=list)


#: One real match per game, with the options the issue names: XIX, a 10-player Xactika game,
#: 4-player (team) Xeri, and Tex-Tac-Toe with jokers.
MATCHES: dict[str, tuple[dict[str, str], list[type[Bot]]]] = {
    "xix": ({}, [RandomBot, XixHeuristicBot]),
    "xactika": ({"players": "10", "rounds": "3"}, [XactikaHeuristicBot, RandomBot]),
    "xeri": ({"players": "4", "rounds": "2"}, [XeriHeuristicBot, RandomBot]),
    "textactoe": ({"players": "3", "jokers": "true"}, [RandomBot, RandomBot, RandomBot]),
}


def _bot(kind: type[Bot], seat: int) -> Bot:
    if kind is RandomBot:
        return RandomBot(seat)
    if kind is TexTacToeHeuristicBot:
        return TexTacToeHeuristicBot(seed=seat, samples=8)
    return kind()


def play(
    game_id: str, path: Path, seed: int = 11, options: dict[str, str] | None = None
) -> PlayedMatch:
    """Play one recorded match of `game_id` between the reference bots (seats cycle them)."""
    default_options, kinds = MATCHES[game_id]
    game = get_game(game_id)
    parsed = parse_options(game, options if options is not None else default_options)
    count = game.seat_count(parsed)
    played = PlayedMatch(game_id, path)
    played.seats = [Recording(_bot(kinds[seat % len(kinds)], seat)) for seat in range(count)]
    config = MatchConfig(
        game, parsed, seed=seed, match_id=f"viewer-{game_id}-{seed}", time_control=TimeControl()
    )
    trio.run(run_match, config, [InProcessSeat(bot) for bot in played.seats], path)
    return played


_XIX_CARD_FIELDS = frozenset(
    {
        "hand",
        "trick",
        "played",
        "draft_pool",
        "known_value",
        "card",
        "cards",
        "value",
        "taken",
        "given",
    }
)
_CARD = re.compile(r"[1-3]{4}|[2-9TJQKA][CDHS]|X[12]")


def cards_in(message: Message, game: str) -> set[str]:
    """Every card text a message mentions (XIX cards are numbers in the fields that hold cards)."""
    found: set[str] = set()
    for descriptor, value in message.ListFields():
        values = value if descriptor.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                found |= cards_in(item, game)
            elif isinstance(item, str) and _CARD.fullmatch(item):
                found.add(item)
            elif game == "xix" and isinstance(item, int) and descriptor.name in _XIX_CARD_FIELDS:
                found.add(str(item))
    return found


def page_data(page: Path | str) -> dict[str, Any]:
    """The match a viewer page (a file, or its text) carries: inline JSON, or (a report's and
    the site's pages) gzipped base64."""
    text = page.read_text("utf-8") if isinstance(page, Path) else page
    kind, rest = text.split('<script id="match-data" type="', 1)[1].split('">', 1)
    payload = rest.split("</script>", 1)[0]
    if kind == "application/json":
        data: dict[str, Any] = json.loads(payload)
    else:
        assert kind == "application/gzip+base64", kind
        data = json.loads(gzip.decompress(base64.b64decode(payload)))
    return data


def faces_shown(data: dict[str, Any], index: int, view: int = 0) -> set[str]:
    """Every card face a page's data draws at step `index` in its view `view` (backs left out):
    its seats' hands and piles and the middle piles."""
    parts = data["parts"]
    _, seats, piles = parts[data["steps"][index]["table"][view]]
    boxes = [parts[i] for i in seats]
    every = [parts[i] for i in piles] + [pile for box in boxes for pile in box.get("piles", [])]
    cards = [card for box in boxes for card in box["hand"]]
    for pile in every:
        cards += pile.get("cards", []) + [
            card for stack in pile.get("stacks", []) for card in stack
        ]
    return {card["t"] for card in cards if card["t"]}


def unseen_faces(data: dict[str, Any], timeline: Any, seat: int) -> list[tuple[int, set[str]]]:
    """The steps at which a seat replay's data (`page_data`) draws a face `seat` could not see
    then, by the record (`timeline`, referee.viewer's): one in no observation of the seat and
    no event it was sent. Empty for a page that leaks nothing."""
    game = timeline.game
    found = []
    for index in range(len(timeline.steps)):
        known = cards_in(timeline.observation(index, seat), game)
        for event in timeline.events(index, seat):
            known |= cards_in(event.payload, game)
        if extra := faces_shown(data, index) - known:
            found.append((index, extra))
    return found
