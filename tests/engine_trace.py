"""Everything a game engine shows the referee over seeded random games, as text lines.

A trace visits every state of a game played through the checked path (seeded chance and seeded
random choices) and writes, per state: the seat to move, the pending chance node, the events
(text, payload, seats), the legal actions (text and protocol form), every seat's observation,
the result at the end, and what `parse_action` makes of each legal action's text. Protocol
messages are written as their serialized bytes, so two engines (say, an optimised one and the
revision it replaces) can be compared with no shared Python objects: `tests/test_engine_traces.py`
checks digests of these traces against the ones revision 8d3b4b3's engines produced, and
`bench/engine_equivalence.py` compares whole traces with any git revision's engines.

Run as a script it prints the digests (or one game's trace) with whatever engines `referee`
imports, as JSON, with the folder they came from: `python tests/engine_trace.py digests
[--games N]` (the reference digests file holds its "digests" for N = 3) or
`python tests/engine_trace.py lines CASE SEED`. It imports only the engine API, so a
subprocess can run it with another revision's `referee` first on its path.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from google.protobuf.message import Message

from referee.errors import InvalidActionError
from referee.games import checked, get_game
from referee.games.base import Event, Game, Pick, Shuffle, State, parse_options
from referee.match.runner import draw_chance

#: (game, options) cases, each a name for the command line: every option and variation is in.
CASES: dict[str, tuple[str, dict[str, str]]] = {
    "xix": ("xix", {}),
    **{
        f"xactika-{players}p": ("xactika", {"players": str(players)})
        for players in (2, 3, 4, 5, 7, 10)
    },
    "xactika-2p-1round": ("xactika", {"players": "2", "rounds": "1"}),
    **{
        f"xeri-{players}p{suffix}": ("xeri", {"players": str(players), **extra})
        for players in (2, 4)
        for suffix, extra in (
            ("", {}),
            ("-1round", {"rounds": "1"}),
            ("-cut", {"var_cut_reveal": "true"}),
            ("-lenient", {"var_lenient_pile": "true"}),
            ("-nolast", {"var_no_last_xeri": "true"}),
            ("-jack25", {"var_jack_xeri_25": "true"}),
            ("-151", {"var_cumulative_151": "true"}),
            (
                "-all",
                {
                    "var_cut_reveal": "true",
                    "var_lenient_pile": "true",
                    "var_no_last_xeri": "true",
                    "var_jack_xeri_25": "true",
                    "var_cumulative_151": "true",
                },
            ),
        )
    },
    **{
        f"textactoe-{players}p{suffix}": ("textactoe", {"players": str(players), **extra})
        for players in (2, 3, 4, 6)
        for suffix, extra in (("", {}), ("-jokers", {"jokers": "true"}))
    },
    "textactoe-2p-turns3": ("textactoe", {"players": "2", "max_turns_per_hand": "3"}),
    "textactoe-3p-jokers-turns1": (
        "textactoe",
        {"players": "3", "jokers": "true", "max_turns_per_hand": "1"},
    ),
}

#: Texts no engine accepts, to compare the errors `parse_action` raises.
MALFORMED: tuple[str, ...] = ("", "play", "play 99", "bid x", "commit 2C 2C", "trade 1", "lead 1")


def _proto(message: Message) -> str:
    return f"{type(message).__name__}:{message.SerializeToString(deterministic=True).hex()}"


def _event(event: Event) -> str:
    seats = "public" if event.seats is None else ",".join(map(str, sorted(event.seats)))
    return f"event {event.text!r} [{seats}] {_proto(event.payload)}"


def _chance(state: State) -> str:
    node = state.chance()
    if isinstance(node, Shuffle):
        return f"shuffle {node.label!r} {' '.join(node.cards)}"
    if isinstance(node, Pick):
        return f"pick {node.label!r} {node.count}"
    return "none"


def _state_lines(game: Game, state: State, seats: int) -> Iterator[str]:
    yield f"state to_move={state.to_move} terminal={state.is_terminal()} chance={_chance(state)}"
    for event in state.events:
        yield _event(event)
    for seat in range(seats):
        yield f"observation {seat} {_proto(state.observation(seat))}"
    legal = state.legal_actions()
    yield f"legal actions: a {type(legal).__name__} of {len(legal)}"
    for action in legal:
        parsed = game.parse_action(action.text)
        same = parsed == action and hash(parsed) == hash(action)
        yield f"legal {action.text!r} {_proto(action.to_proto())} parsed={same}"
    if state.is_terminal():
        result = state.result()
        yield f"result {result.scores} {result.ranks} {result.text!r} {result.teams}"


def trace(case: str, seed: int) -> list[str]:
    """The lines of one seeded game of `case` (a key of CASES)."""
    game_id, options_text = CASES[case]
    game = get_game(game_id)
    options = parse_options(game, options_text)
    seats = game.seat_count(options)
    lines = [f"game {game.id} {game.rules_version} {sorted(options.as_text().items())} {seats}"]
    for text in MALFORMED:
        try:
            action = game.parse_action(text)
        except InvalidActionError as error:
            lines.append(f"parse {text!r} error {error}")
        else:
            lines.append(f"parse {text!r} {action.text!r} {_proto(action.to_proto())}")
    rng = random.Random(seed)
    state = game.new_game(options)
    lines.extend(_state_lines(game, state, seats))
    while not state.is_terminal():
        seat = state.to_move
        if seat is None:
            node = state.chance()
            assert node is not None
            outcome = draw_chance(node, rng)
            state = checked.apply_chance(state, outcome)
        else:
            legal = state.legal_actions()
            index = rng.randrange(len(legal))
            _, by_text = checked.apply_text(game, state, seat, legal[index].text)
            state, action = checked.apply_index(state, seat, index, legal)
            lines.append(f"action {seat} {index} {by_text} {action.text!r}")
        lines.extend(_state_lines(game, state, seats))
    return lines


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def digests(games: int) -> tuple[dict[str, list[str]], int]:
    """Per case, the digests of the traces of seeds 0..games-1; and the decisions they hold."""
    found: dict[str, list[str]] = {}
    decisions = 0
    for case in CASES:
        found[case] = []
        for seed in range(games):
            lines = trace(case, seed)
            found[case].append(digest(lines))
            decisions += sum(line.startswith("action ") for line in lines)
    return found, decisions


def main(argv: list[str]) -> None:
    import referee

    engines = str(Path(referee.__file__).parent.parent)
    if argv[:1] == ["digests"]:
        games = int(argv[2]) if argv[1:2] == ["--games"] else 3
        found, decisions = digests(games)
        print(json.dumps({"engines": engines, "decisions": decisions, "digests": found}))
    elif argv[:1] == ["lines"] and len(argv) == 3:
        print(json.dumps({"engines": engines, "lines": trace(argv[1], int(argv[2]))}))
    else:
        raise SystemExit("usage: engine_trace.py digests [--games N] | lines CASE SEED")


if __name__ == "__main__":
    main(sys.argv[1:])
