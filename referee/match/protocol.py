"""Conversions from engine values to the protocol's messages (wrappers with one case per game)."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.v1 import common_pb2, game_pb2
from referee.games.base import Action, Event, Result, State
from referee.match import wire


def observation(game_id: str, state: State, seat: int) -> game_pb2.Observation:
    wrapper = game_pb2.Observation()
    getattr(wrapper, game_id).CopyFrom(state.observation(seat))
    return wrapper


#: Each action's field in an ActionRequest (referee.match.wire), per game: a game's action space
#: is small and fixed, and building these was a tenth of the referee's time per decision.
_fields: dict[str, dict[Action, bytes]] = {}
#: The same by the action object (kept, so that its id is not reused while the entry lives):
#: engines that build their actions once (XIX's tables) give the same objects again, and
#: hashing an action (a dataclass, often of enums) costs more than the rest of its lookup.
_by_id: dict[str, dict[int, tuple[Action, bytes, str]]] = {}
_BY_ID_MAX = 4096


def action(game_id: str, value: Action) -> game_pb2.Action:
    """The protocol's form of an action."""
    message = game_pb2.Action(text=value.text)
    getattr(message, game_id).CopyFrom(value.to_proto())
    return message


def legal_actions(game_id: str, actions: Sequence[Action]) -> list[game_pb2.Action]:
    """The protocol's form of the actions (a request's own are `legal_action_fields`)."""
    return [action(game_id, legal) for legal in actions]


def legal_action_fields(game_id: str, actions: Sequence[Action]) -> list[bytes]:
    """The actions as an ActionRequest's `legal_actions` fields, encoded (each once a process)."""
    known = _by_id.get(game_id)
    if known is None:
        known = _by_id[game_id] = {}
    fields = []
    for legal in actions:
        entry = known.get(id(legal))
        if entry is None or entry[0] is not legal:
            entry = (legal, _action_field(game_id, legal), legal.text)
            if len(known) >= _BY_ID_MAX:
                known.clear()  # an engine's own tables come back at once
            known[id(legal)] = entry
        fields.append(entry[1])
    return fields


def action_text(game_id: str, value: Action) -> str:
    """`value.text`, kept with its field when it was a legal action of a request."""
    known = _by_id.get(game_id)
    entry = known.get(id(value)) if known is not None else None
    return entry[2] if entry is not None and entry[0] is value else value.text


def _action_field(game_id: str, legal: Action) -> bytes:
    cache = _fields.get(game_id)
    if cache is None:
        cache = _fields[game_id] = {}
    field = cache.get(legal)
    if field is None:
        encoded = action(game_id, legal).SerializeToString()
        field = cache[legal] = wire.length_delimited(wire.LEGAL_ACTION, encoded)
    return field


def event(game_id: str, event: Event) -> game_pb2.Event:
    message = game_pb2.Event(text=event.text)
    getattr(message, game_id).CopyFrom(event.payload)
    return message


def aborted_result(
    names: Sequence[str], faults: Sequence[int], retired: Sequence[bool]
) -> common_pb2.Result:
    """The result of a match the referee stopped before its end (a shutdown): no score, no
    rank, each seat's faults so far. A replay expects exactly this (issue 42.2)."""
    return common_pb2.Result(
        termination=common_pb2.TERMINATION_ABORTED,
        text="aborted by the referee",
        seats=[
            common_pb2.SeatResult(seat=seat, name=name, faults=faults[seat], retired=retired[seat])
            for seat, name in enumerate(names)
        ],
    )


def result(
    outcome: Result,
    names: Sequence[str],
    faults: Sequence[int],
    retired: Sequence[bool],
) -> common_pb2.Result:
    """The protocol result. Retired seats rank last (tied among themselves) whatever their score;
    the others keep the order the game's own ranking gives them."""
    active = [seat for seat in range(len(names)) if not retired[seat]]
    better = sorted({outcome.ranks[seat] for seat in active})
    ranks = [
        better.index(outcome.ranks[seat]) + 1 if not retired[seat] else len(better) + 1
        for seat in range(len(names))
    ]
    if len(active) == len(names):
        ranks = list(outcome.ranks)
    termination = (
        common_pb2.TERMINATION_NORMAL
        if len(active) == len(names)
        else common_pb2.TERMINATION_RETIRED
    )
    text = outcome.text if len(active) == len(names) else _retired_text(outcome, ranks, retired)
    return common_pb2.Result(
        termination=termination,
        text=text,
        seats=[
            common_pb2.SeatResult(
                seat=seat,
                name=names[seat],
                score=outcome.scores[seat],
                rank=ranks[seat],
                faults=faults[seat],
                retired=retired[seat],
                team=outcome.teams[seat] if outcome.teams else None,
            )
            for seat in range(len(names))
        ],
    )


def _retired_text(outcome: Result, ranks: Sequence[int], retired: Sequence[bool]) -> str:
    """A result text that follows the ranks when seats retired (ranked last whatever their
    score): who placed first, who retired, and the scores the game left."""
    first = [seat for seat, rank in enumerate(ranks) if rank == 1]
    lead = (
        f"seat {first[0]} wins" if len(first) == 1 else f"seats {_seats(first)} share first place"
    )
    gone = [seat for seat, out in enumerate(retired) if out]
    scores = "-".join(str(score) for score in outcome.scores)
    return (
        f"{lead} (retired: {'seat' if len(gone) == 1 else 'seats'} {_seats(gone)}; scores {scores})"
    )


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(str(seat) for seat in seats)


def legacy_result_text(outcome: Result, retired: Sequence[bool]) -> str:
    """The text records of schema 1 gave a match with retired seats (the game's own text and the
    retired seats), which may name a retired seat as the winner: kept so those records verify."""
    gone = ", ".join(f"seat {seat}" for seat, out in enumerate(retired) if out)
    return f"{outcome.text} (retired: {gone})"
