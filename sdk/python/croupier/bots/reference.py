"""Reference bots that search (issue 48): determinized Monte Carlo at every decision.

Each decision samples the cards the seat has not seen consistently with everything it was sent
(referee.review.determinize), plays every legal action out with the game's default policy (a
greedy one for Xeri, where random playouts misjudge every capture; on fresh redeals of the
sample where the game allows: referee.review.rollout), within a playout budget and the
decision's deadline, seeded for repeatability: the same matches, the same choices. The values
are referee.review.search.evaluate's, as `croupier review`'s are (issue 48.2). In Xeri the
game's heuristic proposes an action and the search must beat it (`rollout.heuristic_prior`):
the best action is taken only where its paired margin over the heuristic's has a 95% interval
above zero, on playouts other than those that chose it (`Values.confirmed`; a few noisy
playouts otherwise override good card sense, issue 48.1); in Xactika the same in trick play,
while the bid, the decision that scores, is the search's alone on eight times the budget, each
playout stopping at the round's end (`rollout.budget_for`, `rollout.settled_for`). Where no
determinization fits in time, the heuristic decides. These import the referee (the `croupier`
distribution has it); `croupier.bots` itself does not.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from croupier.bot import Bot
from croupier.bots.textactoe_heuristic import TexTacToeHeuristicBot
from croupier.bots.xactika_heuristic import XactikaHeuristicBot
from croupier.bots.xeri_heuristic import XeriHeuristicBot
from croupier.bots.xix_heuristic import XixHeuristicBot
from croupier.v1 import game_pb2, referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.review.rollout import Step, budget_for, heuristic_prior
from referee.review.search import Unsampled, evaluate
from referee.review.view import SeatDecision, SeatView, from_request

#: Playouts a decision unless told.
DEFAULT_BUDGET = 200
#: Seconds of the decision's time left to the SDK and the reply.
SLACK = 0.15

_HEURISTICS: dict[str, type[Bot]] = {
    "xix": XixHeuristicBot,
    "xeri": XeriHeuristicBot,
    "xactika": XactikaHeuristicBot,
    "textactoe": TexTacToeHeuristicBot,
}


class ReferenceBot(Bot):
    """Determinized Monte Carlo with `budget` playouts a decision, seeded by `seed`."""

    name = "reference"
    version = "1"

    def __init__(self, budget: int = DEFAULT_BUDGET, seed: int = 0) -> None:
        self.budget = budget
        self.seed = seed
        self._view: SeatView | None = None
        self._fallback: Bot | None = None
        self._particles: list[list[Step]] = []
        #: Decisions the heuristic took because no determinization fitted (a diagnostic).
        self.fallbacks = 0

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        game = get_game(start.game)
        self._view = SeatView(game, parse_options(game, dict(start.options)), start.seat, ())
        self._fallback = _HEURISTICS[game.id]()
        self._particles = []
        self._fallback.on_match_start(start)

    def on_event(self, event: game_pb2.Event) -> None:
        if self._fallback is not None:
            self._fallback.on_event(event)

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        if self._fallback is not None:
            self._fallback.on_match_end(end)
        self._view = None

    def act(self, request: referee_pb2.ActionRequest) -> int:
        view = self._view
        assert view is not None and self._fallback is not None
        decision = from_request(view.game.id, request)
        view = replace(view, decisions=(*view.decisions, decision))
        if len(decision.legal) == 1:
            return self._chose(view, decision, 0)
        left = self.time_left()
        deadline = None if left == float("inf") else time.monotonic() + (left - SLACK) / 2
        try:
            values = evaluate(
                view,
                budget_for(view.game.id, decision.legal, self.budget),
                self.seed,
                deadline,
                self._particles,
            )
            if heuristic_prior(view.game.id, decision.legal):
                index = values.confirmed(self._fallback.act(request))
            else:
                index = values.best
        except Unsampled:
            self.fallbacks += 1
            index = self._fallback.act(request)
        return self._chose(view, decision, index)

    def _chose(self, view: SeatView, decision: SeatDecision, index: int) -> int:
        done = replace(decision, chosen=decision.legal[index])
        self._view = replace(view, decisions=(*view.decisions[:-1], done))
        return index


class XixReferenceBot(ReferenceBot):
    name = "xix-reference"
    games = ("xix",)


class XeriReferenceBot(ReferenceBot):
    name = "xeri-reference"
    games = ("xeri",)


class XactikaReferenceBot(ReferenceBot):
    name = "xactika-reference"
    games = ("xactika",)


class TexTacToeReferenceBot(ReferenceBot):
    name = "textactoe-reference"
    games = ("textactoe",)


def main(bot: type[ReferenceBot]) -> None:
    """Run `bot` as a bot program: `--budget N` playouts a decision, `--seed S`."""
    import croupier

    parser = argparse.ArgumentParser(description=bot.__doc__)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    croupier.run(lambda: bot(args.budget, args.seed))
