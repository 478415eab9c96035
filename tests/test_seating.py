"""One way to seat and play a match, one bot supervisor (issue 25.5): every player of matches
(series, ladder slots, contest, doctor) seats through referee.match.seating, and every launched
bot runs under referee.local.launcher.supervise."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import trio
import trio.testing

from croupier.v1 import referee_pb2
from referee.errors import CroupierError
from referee.match.lobby import Lobby
from referee.match.seating import take_sessions
from referee.match.session import Session

REFEREE = Path(__file__).resolve().parent.parent / "referee"

#: Calls that seat or play a match, or start or kill a bot's process, and the one module each
#: belongs in.
OWNERS = {
    "RemoteSeat": {"match/seating.py"},
    "MatchConfig": {"match/seating.py"},
    "run_match": {"match/seating.py"},
    # A hosted version's build is a process too, started once in the same sandbox and never a
    # bot: no lobby, no restarts, nothing to supervise (issue 26.4).
    "spawn.start": {"local/launcher.py", "hosted/build.py"},
    "kill_group": {"local/launcher.py", "hosted/build.py"},
}


def _called(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return func.id if isinstance(func, ast.Name) else ""


def test_matches_are_seated_and_bots_supervised_in_one_place() -> None:
    found = sorted(
        (str(path.relative_to(REFEREE)), node.lineno, _called(node))
        for path in REFEREE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and _called(node) in OWNERS
    )
    strays = [(path, line, name) for path, line, name in found if path not in OWNERS[name]]
    assert not strays, strays
    assert {name for *_, name in found} == set(OWNERS)  # the check still sees every one


def _session(token: str) -> Session:
    return Session(
        identity=token, hello=referee_pb2.Hello(), send=lambda _: None, finish=lambda _: None
    )


class _Late(CroupierError):
    pass


async def test_a_bot_that_does_not_come_gives_back_the_sessions_taken(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1's bot never connects: its caller's error is raised, naming that seat, and seat
    0's session waits in the lobby for the next match instead of being lost with the table."""
    lobby = Lobby()
    for token in ("a", "b"):
        lobby.admit(token)
    first = _session("a")
    lobby.open(first)
    with pytest.raises(_Late, match="seat 1"):
        await take_sessions(lobby, ["a", "b"], 5.0, lambda seat: _Late(f"seat {seat}"))
    assert trio.current_time() == pytest.approx(5.0)
    assert lobby.take_nowait("a") is first


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)
