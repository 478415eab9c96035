"""Positions from real matches as tests (issue 48.3): a decision of a seat, as the seat saw it
(its whole view up to there, so the position can be checked against the engine), with the
reference's value of each legal action (`croupier review`'s: the reference bots' valuation,
numbered in `valuation`), one JSON object a line.

`extract` writes them from records (every decision of the seat, or only the costly ones: those
graded); `read_positions` reads a file back and refuses a position that the engine could not
have produced (another rules version, or a view that no history of the game fits), and
`positions_file` a whole file as `croupier positions test` and a contest's qualification
(referee.hosted.qualify) take it: some positions, all of one game, options and seat.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from google.protobuf import json_format

from croupier.v1 import game_pb2
from referee.errors import CroupierError
from referee.games import get_game
from referee.games.base import parse_options
from referee.review.determinize import Unsampled, sample
from referee.review.review import review
from referee.review.search import VALUATION, ActionValue
from referee.review.view import SeatDecision, SeatView, view_of_record

#: Fresh starts of the sampler before a position is declared one the engine cannot produce (a
#: position extracted from a record passes at the first nearly always).
CHECK_ATTEMPTS = 4


@dataclass(frozen=True, slots=True)
class Position:
    """The view at its last decision (its choice, the recorded one, in `chosen`) and values."""

    view: SeatView
    chosen: str
    values: tuple[ActionValue, ...]
    source: str

    @property
    def decision(self) -> SeatDecision:
        return self.view.decisions[-1]

    def lost(self, text: str) -> float:
        """Points the action `text` loses against the reference's best."""
        means = {value.text: value.mean for value in self.values}
        return max(means.values()) - means[text]


def extract(
    records: Iterable[Path], seat: int, budget: int, out: TextIO, *, costly: bool, workers: int
) -> int:
    """Write seat `seat`'s positions of every record to `out`; returns how many."""
    count = 0
    for path in records:
        view = view_of_record(path, seat)
        for reviewed in review(path, seat, budget, workers=workers):
            if reviewed.unsampled or (costly and reviewed.grade is None):
                continue
            k = reviewed.decision
            mine = view.decisions[: k + 1]
            line = {
                "game": view.game.id,
                "rules_version": view.game.rules_version,
                "options": view.options.as_text(),
                "seat": seat,
                "source": f"{path.name}#{k}",
                "view": [_decision_json(view.game.id, d) for d in mine],
                "values": [
                    {"text": v.text, "mean": v.mean, "half_width": _finite(v.half_width)}
                    for v in reviewed.values
                ],
                "grade": reviewed.grade.value if reviewed.grade else None,
                "valuation": VALUATION,
            }
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
            count += 1
    return count


def _finite(value: float) -> float | None:
    return value if value != float("inf") else None


def _decision_json(game: str, decision: SeatDecision) -> dict[str, object]:
    return {
        "events": [json_format.MessageToDict(e) for e in decision.events],
        "observation": json_format.MessageToDict(decision.observation),
        "legal": list(decision.legal),
        "chosen": decision.chosen,
    }


def positions_file(path: Path) -> list[Position]:
    """The positions of the file at `path`, each checked against the engine, of one game,
    options and seat; raises CroupierError saying why not."""
    if not path.is_file():
        raise CroupierError(f"no such positions file {str(path)!r}")
    positions = list(read_positions(path))
    if not positions:
        raise CroupierError(f"no positions in {str(path)!r}")
    kinds = {(p.view.game.id, p.view.seat, str(p.view.options.as_text())) for p in positions}
    if len(kinds) > 1:
        raise CroupierError("the positions are of several games, options or seats: one a file")
    return positions


def read_positions(path: Path) -> Iterator[Position]:
    """The positions of the file at `path`, each checked against the engine; raises
    CroupierError naming the line of the first one that is not a position of the game."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    yield _position(json.loads(line))
                except (CroupierError, ValueError, KeyError, TypeError, AttributeError) as error:
                    raise CroupierError(
                        f"position on line {number} of {str(path)!r} is not a position of the "
                        f"engine: {error}"
                    ) from None


def _position(data: dict[str, object]) -> Position:
    game = get_game(str(data["game"]))
    if data["rules_version"] != game.rules_version:
        raise CroupierError(
            f"rules version {data['rules_version']!r} is not the engine's {game.rules_version!r}"
        )
    options = parse_options(game, dict(data["options"]))  # type: ignore[call-overload]
    observation_type = type(getattr(game_pb2.Observation(), game.id))
    decisions = []
    for item in data["view"]:  # type: ignore[attr-defined]
        events = tuple(json_format.ParseDict(e, game_pb2.Event()) for e in item["events"])
        observation = json_format.ParseDict(item["observation"], observation_type())
        decisions.append(SeatDecision(events, observation, tuple(item["legal"]), item["chosen"]))
    seat = int(data["seat"])  # type: ignore[call-overload]
    view = SeatView(game, options, seat, tuple(decisions))
    chosen = decisions[-1].chosen
    values = tuple(
        ActionValue(str(v["text"]), float(v["mean"]), float(v["half_width"] or "inf"))
        for v in data["values"]  # type: ignore[attr-defined]
    )
    at = view.up_to(len(decisions) - 1)
    if chosen not in at.decisions[-1].legal or [v.text for v in values] != list(
        at.decisions[-1].legal
    ):
        raise CroupierError("its choice or its values are not of its legal actions")
    try:
        sample(at, random.Random(0), attempts=CHECK_ATTEMPTS)
    except Unsampled:
        raise CroupierError("no history of the game fits the seat's view") from None
    return Position(at, str(chosen), values, str(data.get("source", "")))
