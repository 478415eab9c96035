"""In-process random-play games per second through the checked path, per game and option set.

Each game is played to its end by choosing uniformly random legal indices with
`referee.games.checked.apply_index` and resolving chance with a seeded RNG, exactly the calls the
match runner makes, without bots or transport. Run: `.venv/bin/python bench/game_speed.py [GAME]`.

`--against REV` also times git revision REV's engines, checked out in a temporary worktree
(removed afterwards), with this same loop: two worker processes, one whose `referee` is REV's
and one with this checkout's, take turns on each case (`--rounds` turns each of
`--seconds / --rounds`, old first every other turn); the medians are printed, with the median
of the turns' ratios new/old, so a noisy machine slows both alike. Workers time by their CPU
time, which a busy machine disturbs less than wall time. REV needs this checkout's layout
(`referee.match.runner`, `referee.match.records.action_line`): commit 031ec3d or later.

`--beyond` (implied by `--against`) prints what one decision costs the referee beyond the engine,
mirroring `referee.match.runner`: the observation and legal actions in protocol form, the
`ActionRequest`, the record's action line, and each event in protocol form with its record line;
against the engine's own calls (legal actions, the checked apply, chance).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.games import GAMES, checked, get_game
from referee.games.base import Event, Game, parse_options
from referee.match.runner import draw_chance

# Option sets to measure per game (text form); a game not listed runs with its defaults.
CASES: dict[str, list[dict[str, str]]] = {
    "xactika": [{"players": "4"}, {"players": "10"}],
    "xeri": [{"players": "2"}, {"players": "4"}],
    "textactoe": [{"players": "2"}, {"players": "2", "jokers": "true"}],
}
SECONDS = 3.0
ROOT = Path(__file__).resolve().parent.parent


def play_one(game: Game, options_text: dict[str, str], rng: random.Random) -> int:
    """One full random game; returns the number of decisions."""
    state = game.new_game(parse_options(game, options_text))
    decisions = 0
    while not state.is_terminal():
        seat = state.to_move
        if seat is None:
            node = state.chance()
            assert node is not None
            state = checked.apply_chance(state, draw_chance(node, rng))
            continue
        count = len(state.legal_actions())
        state, _ = checked.apply_index(state, seat, rng.randrange(count))
        decisions += 1
    return decisions


def measure(
    game: Game,
    options_text: dict[str, str],
    seconds: float = SECONDS,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """(games per second, decisions per second) over about `seconds` of play on one core, by
    `clock` (the CPU time of this process is steadier than wall time on a busy machine)."""
    rng = random.Random(1)
    games = decisions = 0
    started = clock()
    while (elapsed := clock() - started) < seconds:
        decisions += play_one(game, options_text, rng)
        games += 1
    return games / elapsed, decisions / elapsed


def decision_cost(
    game: Game,
    options_text: dict[str, str],
    seconds: float,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """(engine, beyond the engine) in µs per decision, over random games for about `seconds`.

    The referee's part mirrors `_Match.decide`, `play` and `publish` in referee/match/runner.py
    with a record writer and no spectators: the chance record, each event in protocol form and
    its record line and queue, the ActionRequest (observation, legal actions, clock, events),
    the action line. The RNG's draws count in neither.
    """
    # Imported here: a revision whose referee lacks one of them still has its games/s timed.
    from croupier.v1 import game_pb2, record_pb2, referee_pb2
    from referee.match import protocol
    from referee.match.clock import SeatClock, TimeControl
    from referee.match.records import action_line, event_line, to_json_line

    try:
        from referee.match.runner import encoded_event

        def event_message(game_id: str, event: Event) -> game_pb2.Event:
            encoded = encoded_event(game_id, event)
            # an EncodedEvent since issue 49, a (message, line) pair before
            return encoded[0] if isinstance(encoded, tuple) else encoded.message  # type: ignore[unreachable]
    except ImportError:  # a revision before the runner kept each shared event's encoding

        def event_message(game_id: str, event: Event) -> game_pb2.Event:
            message = protocol.event(game_id, event)
            seats = sorted(event.seats) if event.seats is not None else None
            event_line(message, seats)
            return message

    seat_clock = SeatClock.start(TimeControl())
    rng = random.Random(1)
    engine = beyond = 0.0
    decisions = 0
    now = clock
    started = now()
    while now() - started < seconds:
        options = parse_options(game, options_text)
        t0 = now()
        state = game.new_game(options)
        pending: list[list[game_pb2.Event]] = [[] for _ in range(game.seat_count(options))]
        t1 = now()
        engine += t1 - t0
        while True:
            t0 = now()
            terminal = state.is_terminal()
            seat = state.to_move
            if terminal:
                state.result()
                engine += now() - t0
                break
            if seat is None:
                node = state.chance()
                assert node is not None
                t1 = now()
                outcome = draw_chance(node, rng)
                t2 = now()
                state = checked.apply_chance(state, outcome)
                t3 = now()
                if isinstance(outcome, tuple):
                    chance = record_pb2.ChanceRecord(
                        deck=record_pb2.Deck(cards=outcome), label=node.label
                    )
                else:
                    chance = record_pb2.ChanceRecord(pick=outcome, label=node.label)
                to_json_line(record_pb2.Record(chance=chance))
                engine += (t1 - t0) + (t3 - t2)
                referee_from = t3
            else:
                legal = state.legal_actions()
                t1 = now()
                referee_pb2.ActionRequest(
                    match_id="bench",
                    request_id=decisions + 1,
                    observation=protocol.observation(game.id, state, seat),
                    legal_actions=protocol.legal_actions(game.id, legal),
                    clock=seat_clock.to_proto(),
                    events=pending[seat],
                )
                pending[seat] = []
                t2 = now()
                index = rng.randrange(len(legal))
                t3 = now()
                state, action = checked.apply_index(state, seat, index, legal)
                t4 = now()
                action_line(seat, index, action.text, 1, False, 0, None, None)
                engine += (t1 - t0) + (t4 - t3)
                beyond += t2 - t1
                decisions += 1
                referee_from = t4
            for event in state.events:
                message = event_message(game.id, event)
                for seat_index, queue in enumerate(pending):
                    if event.visible_to(seat_index):
                        queue.append(message)
            beyond += now() - referee_from
    return engine / decisions * 1e6, beyond / decisions * 1e6


def label_of(options_text: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in options_text.items()) or "default"


def cases_of(names: list[str]) -> Iterator[tuple[str, dict[str, str]]]:
    for name in names:
        for options_text in CASES.get(name, [{}]):
            yield name, options_text


@contextmanager
def revision_worktree(revision: str) -> Iterator[Path]:
    """A detached git worktree of `revision` in a temporary folder, removed on exit."""
    with tempfile.TemporaryDirectory(prefix="croupier-rev-") as folder:
        path = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT)]
        subprocess.run(
            [*git, "worktree", "add", "--detach", "--quiet", str(path), revision], check=True
        )
        try:
            yield path
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(path)], check=True)


def engines_env(root: Path) -> dict[str, str]:
    """The environment of a process whose `referee` and `croupier` come from `root`."""
    path = os.pathsep.join([str(root), str(root / "sdk" / "python")])
    return {**os.environ, "PYTHONPATH": path}


def run_with_engines(root: Path, script: Path, args: list[str]) -> str:
    """Run `script` in a fresh process with `root`'s engines; returns its output."""
    done = subprocess.run(
        [sys.executable, str(script), *args],
        cwd=root,
        env=engines_env(root),
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def serve_worker() -> None:
    """`--worker`: say which engines this process has, then answer one JSON line per request
    line ({"mode": "speed" or "cost", "game", "options", "seconds"}) with the figures."""
    import referee

    print(json.dumps({"root": str(Path(referee.__file__).parent.parent)}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        game, options_text, seconds = (
            get_game(request["game"]),
            request["options"],
            request["seconds"],
        )
        if request["mode"] == "speed":
            figures = measure(game, options_text, seconds, time.process_time)
        else:
            figures = decision_cost(game, options_text, seconds, time.process_time)
        print(json.dumps(figures), flush=True)


class Worker:
    """A `--worker` process timing `root`'s engines, asked one measurement at a time."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            cwd=root,
            env=engines_env(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        hello = json.loads(self.readline())
        assert Path(hello["root"]) == root, (
            f"the worker has {hello['root']}'s engines, not {root}'s"
        )

    def readline(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker stopped (exit code {self.process.wait()})")
        return line

    def ask(
        self, mode: str, name: str, options_text: dict[str, str], seconds: float
    ) -> list[float]:
        assert self.process.stdin is not None
        request = {"mode": mode, "game": name, "options": options_text, "seconds": seconds}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return [float(figure) for figure in json.loads(self.readline())]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def against(revision: str, names: list[str], rounds: int, seconds: float) -> None:
    """Time REV's engines (old) and this checkout's (new) in two worker processes, taking turns
    per case: `rounds` slices of `seconds / rounds` each, old first in every other round."""
    runs: dict[tuple[str, str, str, str], list[list[float]]] = {}
    with revision_worktree(revision) as old_root:
        workers = {"old": Worker(old_root), "new": Worker(ROOT)}
        try:
            for mode in ("speed", "cost"):
                for name, options_text in cases_of(names):
                    for number in range(rounds):
                        for which in ("old", "new") if number % 2 == 0 else ("new", "old"):
                            figures = workers[which].ask(mode, name, options_text, seconds / rounds)
                            key = (mode, which, name, label_of(options_text))
                            runs.setdefault(key, []).append(figures)
        finally:
            for worker in workers.values():
                worker.close()

    def medians(mode: str, which: str, name: str, label: str) -> list[float]:
        return [statistics.median(f) for f in zip(*runs[mode, which, name, label], strict=True)]

    print(f"engines of {revision} (old) against this checkout's (new), medians of {rounds} turns")
    print(f"{'game':<10} {'options':<30} {'old g/s':>9} {'new g/s':>9} {'ratio':>7}")
    for name, options_text in cases_of(names):
        label = label_of(options_text)
        old, new = medians("speed", "old", name, label)[0], medians("speed", "new", name, label)[0]
        # The ratio is the median of each turn's: old and new ran back to back in one turn, so
        # they shared the machine's mood, which drifts over seconds.
        turns = zip(
            runs["speed", "old", name, label], runs["speed", "new", name, label], strict=True
        )
        ratio = statistics.median(after[0] / before[0] for before, after in turns)
        print(f"{name:<10} {label:<30} {old:>9.1f} {new:>9.1f} {ratio:>6.2f}x")
    print()
    print("µs per decision: the engine's calls, and the referee's work beyond them")
    heads = ("old eng", "old ref", "new eng", "new ref")
    print(f"{'game':<10} {'options':<30} " + " ".join(f"{head:>8}" for head in heads))
    for name, options_text in cases_of(names):
        label = label_of(options_text)
        figures = medians("cost", "old", name, label) + medians("cost", "new", name, label)
        print(f"{name:<10} {label:<30} " + " ".join(f"{figure:>8.1f}" for figure in figures))


def main() -> None:
    parser = argparse.ArgumentParser(description="Games per second of each game's engine.")
    parser.add_argument("games", nargs="*", metavar="GAME", help="games to time (default: all)")
    parser.add_argument("--against", metavar="REV", help="also time this git revision's engines")
    parser.add_argument("--rounds", type=int, default=10, help="turns each with --against")
    parser.add_argument("--seconds", type=float, default=SECONDS, help="per game and engines")
    parser.add_argument("--beyond", action="store_true", help="µs per decision beyond the engine")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve_worker()
        return
    names = args.games or list(GAMES)
    if args.against:
        against(args.against, names, args.rounds, args.seconds)
        return
    print(f"{'game':<10} {'options':<30} {'games/s':>9} {'decisions/s':>12}")
    for name, options_text in cases_of(names):
        game = get_game(name)
        games_per_s, decisions_per_s = measure(game, options_text, args.seconds)
        label = label_of(options_text)
        print(f"{name:<10} {label:<30} {games_per_s:>9.1f} {decisions_per_s:>12.0f}")
    if args.beyond:
        print()
        print(f"{'game':<10} {'options':<30} {'engine µs':>10} {'beyond µs':>10}  per decision")
        for name, options_text in cases_of(names):
            engine, beyond = decision_cost(get_game(name), options_text, args.seconds)
            print(f"{name:<10} {label_of(options_text):<30} {engine:>10.1f} {beyond:>10.1f}")


if __name__ == "__main__":
    main()
