"""How many matches separate two bots at 95% confidence, with duplicate deals against plain ones.

For each matchup a pool of deals (seeds from the ladder's own `derive_seed`) is played in both
seat orders through the real match runner with in-process bots (statistics do not depend on the
transport, and this is a hundred times faster). Then many sequential trials, each on deals drawn
at random from the pool:

- plain deals: every match has its own deal (seats alternate); after each match, is the
  heuristic separated from the other bot?
- duplicate deals: each deal is played in both seat orders; after each complete deal, the same
  question, with the two matches of a deal paired.

"Separated" is asked with two statistics: the ladder's own Elo interval (cluster-robust, a deal is
a cluster; separated when the lower 95% bound is above 0), and the point margin per match (paired
differences per deal: a one-sample t interval above 0); no procedure stops before 8 matches. Prints
the median and mean matches needed and the ratio plain / duplicate (target: at least 2x fewer).

Also printed: the matches a fixed-size test needs, z^2 var / mean^2, from the pool's per-match
variance of each statistic, plain and paired (twice the variance of a deal's mean); their ratio
is what the sequential trials approach as more matches are needed.

Matchups: the heuristic against the random bot in XIX and in Xeri, and the Xeri heuristic against
a noisy copy of itself (10% random moves), where the bots are close and the deal decides more.

Run: .venv/bin/python bench/duplicate_variance.py [--deals 600] [--trials 400] [MATCHUP ...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import trio

from croupier.bot import Bot
from croupier.bots import RandomBot, XeriHeuristicBot, XixHeuristicBot
from croupier.v1 import referee_pb2
from referee.games import get_game
from referee.games.base import parse_options
from referee.ladder.schedule import derive_seed
from referee.match.clock import TimeControl
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.ratings.fits import Z95, Game, elo

#: Student's t at 97.5% for 1..30 degrees of freedom: small samples need wider intervals.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)  # fmt: skip
#: No procedure may stop before this many matches (a t-test on fewer is noise, and duplicate
#: deals come in pairs: the same floor for both).
MIN_MATCHES = 8


class NoisyBot(Bot):
    """A heuristic that plays a random legal action with probability `noise`."""

    def __init__(self, inner: Bot, noise: float, seed: int) -> None:
        self.inner = inner
        self.noise = noise
        self.rng = random.Random(seed)
        self.name = f"noisy-{inner.name}"

    def on_match_start(self, start: referee_pb2.MatchStart) -> None:
        self.inner.on_match_start(start)

    def on_event(self, event: object) -> None:
        self.inner.on_event(event)  # type: ignore[arg-type]

    def on_match_end(self, end: referee_pb2.MatchEnd) -> None:
        self.inner.on_match_end(end)

    def act(self, request: referee_pb2.ActionRequest) -> int:
        index = int(self.inner.act(request))
        if self.rng.random() < self.noise:
            return self.rng.randrange(len(request.legal_actions))
        return index


@dataclass(frozen=True)
class Matchup:
    game: str
    options: dict[str, str]
    hero: Callable[[int], Bot]
    other: Callable[[int], Bot]
    description: str


MATCHUPS: dict[str, Matchup] = {
    "xix-random": Matchup(
        "xix", {}, lambda s: XixHeuristicBot(), RandomBot, "XIX heuristic vs random"
    ),
    "xeri-random": Matchup(
        "xeri",
        {"players": "2"},
        lambda s: XeriHeuristicBot(),
        RandomBot,
        "Xeri heuristic vs random",
    ),
    "xeri-noisy": Matchup(
        "xeri",
        {"players": "2"},
        lambda s: XeriHeuristicBot(),
        lambda s: NoisyBot(XeriHeuristicBot(), 0.1, s),
        "Xeri heuristic vs 10%-noisy heuristic",
    ),
}


@dataclass(frozen=True)
class Played:
    """The hero's match score (1 win, 0.5 draw, 0 loss) and point margin, per seat order."""

    score: tuple[float, float]
    margin: tuple[float, float]


async def play_pool(matchup: Matchup, deals: int) -> list[Played]:
    game = get_game(matchup.game)
    options = parse_options(game, matchup.options)
    pool = []
    for deal in range(deals):
        scores, margins = [], []
        for rotation in (0, 1):
            hero, other = matchup.hero(deal * 2 + rotation), matchup.other(deal * 2 + rotation)
            seats = [hero, other] if rotation == 0 else [other, hero]
            config = MatchConfig(
                game,
                options,
                seed=derive_seed("duplicate-variance", deal),
                match_id=f"dv-{deal}-{rotation}",
                time_control=TimeControl(move_ms=0),
            )
            outcome = await run_match(config, [InProcessSeat(bot) for bot in seats])
            mine, theirs = outcome.result.seats[rotation], outcome.result.seats[1 - rotation]
            scores.append(
                1.0 if mine.rank < theirs.rank else 0.5 if mine.rank == theirs.rank else 0
            )
            margins.append(float(mine.score - theirs.score))
        pool.append(Played((scores[0], scores[1]), (margins[0], margins[1])))
    return pool


def elo_separated(games: list[Game]) -> bool:
    rating = elo(games, ["hero", "other"]).get("hero")
    return rating is not None and rating.low > 0


def t975(freedom: int) -> float:
    if freedom <= len(_T975):
        return _T975[freedom - 1]
    return Z95 + (Z95**3 + Z95) / (4 * freedom)


def margin_separated(units: Sequence[float]) -> bool:
    """A one-sample t interval of the mean margin lies above zero."""
    if len(units) < 2:
        return False
    mean = statistics.fmean(units)
    error = statistics.stdev(units) / len(units) ** 0.5
    return mean - t975(len(units) - 1) * error > 0 if error > 0 else mean > 0


def trial(pool: list[Played], rng: random.Random, limit: int) -> dict[str, int]:
    """Matches each procedure needed on one random sequence of deals (`limit` if never)."""
    order = [rng.randrange(len(pool)) for _ in range(limit)]
    needed: dict[str, int] = {}
    # Plain deals: match i has its own deal, seats alternate.
    games: list[Game] = []
    margins: list[float] = []
    for i, deal in enumerate(order):
        seat = i % 2
        games.append(Game("hero", "other", pool[deal].score[seat], i))
        margins.append(pool[deal].margin[seat])
        matches = i + 1
        if matches < MIN_MATCHES:
            continue
        if "plain elo" not in needed and elo_separated(games):
            needed["plain elo"] = matches
        if "plain margin" not in needed and margin_separated(margins):
            needed["plain margin"] = matches
        if len(needed) == 2:
            break
    # Duplicate deals: both seat orders of each deal, the pair as one observation.
    games, pairs = [], []
    for i, deal in enumerate(order[: limit // 2]):
        for seat in (0, 1):
            games.append(Game("hero", "other", pool[deal].score[seat], i))
        pairs.append(statistics.fmean(pool[deal].margin))
        matches = 2 * (i + 1)
        if matches < MIN_MATCHES:
            continue
        if "duplicate elo" not in needed and elo_separated(games):
            needed["duplicate elo"] = matches
        if "duplicate margin" not in needed and margin_separated(pairs):
            needed["duplicate margin"] = matches
        if len(needed) == 4:
            break
    for key in ("plain elo", "plain margin", "duplicate elo", "duplicate margin"):
        needed.setdefault(key, limit)
    return needed


def expected_matches(pool: list[Played], field: str) -> tuple[float, float, float]:
    """(mean advantage per match, matches a fixed test needs plain, and paired): z^2 var/mean^2,
    with the per-match variance plain, or paired (twice the variance of a deal's mean)."""
    values = [getattr(p, field) for p in pool]
    centre = 0.5 if field == "score" else 0.0
    mean = statistics.fmean(v for pair in values for v in pair) - centre
    plain = statistics.pvariance([v for pair in values for v in pair])
    paired = 2 * statistics.pvariance([statistics.fmean(pair) for pair in values])
    return mean, Z95**2 * plain / mean**2, Z95**2 * paired / mean**2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=600, help="deals in each matchup's pool")
    parser.add_argument("--trials", type=int, default=400, help="sequential trials per matchup")
    parser.add_argument("--limit", type=int, default=400, help="most matches per trial")
    parser.add_argument("matchups", nargs="*", choices=[*MATCHUPS, []], help="default: all")
    args = parser.parse_args()
    chosen = args.matchups or list(MATCHUPS)
    rng = random.Random(20261)
    print(
        f"{'matchup':<40} {'stat':<7} {'mean':>7} | {'fixed-size test':^22} | "
        f"{'sequential trials: median, mean':^37}"
    )
    print(
        f"{'':<40} {'':<7} {'':>7} | {'plain':>6} {'dup':>6} {'ratio':>7} | "
        f"{'plain':>11} {'dup':>11} {'ratio':>11}"
    )
    for key in chosen:
        matchup = MATCHUPS[key]
        began = time.perf_counter()
        pool = trio.run(play_pool, matchup, args.deals)
        trials = [trial(pool, rng, args.limit) for _ in range(args.trials)]
        for statistic, field in (("elo", "score"), ("margin", "margin")):
            mean, fixed_plain, fixed_dup = expected_matches(pool, field)
            plain = [t[f"plain {statistic}"] for t in trials]
            dup = [t[f"duplicate {statistic}"] for t in trials]
            print(
                f"{matchup.description:<40} {statistic:<7} {mean:>7.3g} | "
                f"{fixed_plain:>6.1f} {fixed_dup:>6.1f} {fixed_plain / fixed_dup:>6.2f}x | "
                f"{statistics.median(plain):>4.0f} {statistics.fmean(plain):>6.1f} "
                f"{statistics.median(dup):>4.0f} {statistics.fmean(dup):>6.1f} "
                f"{statistics.fmean(plain) / statistics.fmean(dup):>10.2f}x"
            )
        print(f"  ({2 * args.deals} matches in the pool, {time.perf_counter() - began:.0f} s)")
    print(
        "elo: the ladder's Elo interval on win/draw/loss (pairs as clusters); margin: points per "
        "match (paired differences per deal); mean: the hero's score above 0.5, or its margin"
    )


if __name__ == "__main__":
    main()
