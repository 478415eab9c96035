"""A challenge's GSPRT: the ladder's own test (referee.ratings.sprt.sprt, with its estimate
under the stopping rule) on the challenger's paired deal results, a complete deal a unit (the
mean over its rotations: the unit whose variance is right when a deal's matches share their
cards). The only module of the challenges that imports the ratings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from referee.challenges.book import Challenge, Outcome, challenge_entrant, opponent_entrant
from referee.ratings.sprt import Sprt, elo_difference, sprt, sprt_units
from referee.results.matches import MatchResult


@dataclass(frozen=True, slots=True)
class Decision:
    """The test after the deals played: its LLR against its bounds, and its verdict."""

    deals: int
    llr: float
    lower: float
    upper: float
    #: BETTER, NOT_BETTER, or None while undecided.
    outcome: Outcome | None
    #: The estimate, in the test's terms (`+38 ± 20 Elo`), and the point margin's.
    estimate: str
    margin: str


def test_of(challenge: Challenge) -> Sprt:
    return Sprt(challenge.elo0, challenge.elo1, challenge.alpha, challenge.beta, challenge.on)


def bounds_problem(elo0: float, elo1: float, alpha: float, beta: float, on: str) -> str | None:
    """Why bounds cannot decide (E0 >= E1, alpha or beta outside (0, 0.5)), or None."""
    return Sprt(elo0, elo1, alpha, beta, on).check()


def decide(challenge: Challenge, results: Sequence[MatchResult]) -> Decision:
    """The test on the challenge's committed matches (complete deals only)."""
    test = test_of(challenge)
    a = challenge_entrant(challenge)
    units = sprt_units(results, a, duplicate=True, on=challenge.on)
    state = sprt(test, units, cap=challenge.deals)
    outcome = {"H1": Outcome.BETTER, "H0": Outcome.NOT_BETTER}.get(state.verdict or "")
    scores = sprt_units(results, a, duplicate=True, on="score")
    margins = sprt_units(results, a, duplicate=True, on="margin")
    return Decision(
        len(units), state.llr, test.lower, test.upper, outcome, _elo(scores), _points(margins)
    )


def _spread(units: Sequence[float]) -> tuple[float, float] | None:
    """Mean and 95% half-width, or None with fewer than two units."""
    n = len(units)
    if n < 2:
        return None
    mean = sum(units) / n
    sd = math.sqrt(sum((u - mean) ** 2 for u in units) / (n - 1))
    return mean, 1.96 * sd / math.sqrt(n)


def _elo(scores: Sequence[float]) -> str:
    found = _spread(scores)
    if found is None:
        return "no Elo yet"
    mean, half = found
    elo = elo_difference(mean)
    width = (
        elo_difference(min(mean + half, 1 - 1e-9)) - elo_difference(max(mean - half, 1e-9))
    ) / 2
    return f"{elo:+.0f} ± {width:.0f} Elo"


def _points(margins: Sequence[float]) -> str:
    found = _spread(margins)
    if found is None:
        return "no margin yet"
    mean, half = found
    return f"margin {mean:+.1f} ± {half:.1f}"


def summary(challenge: Challenge, decision: Decision, outcome: str, seconds: float) -> str:
    """`v12 vs alice@3f2a: +38 ± 20 Elo (margin +1.9 ± 0.8), H1 accepted after 64 deals, 2 min`."""
    verdicts = {Outcome.BETTER: "H1 accepted", Outcome.NOT_BETTER: "H0 accepted"}
    verdict = verdicts.get(Outcome(outcome), "undecided") if outcome else "undecided"
    minutes = f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
    return (
        f"{challenge_entrant(challenge)} vs {opponent_entrant(challenge)}: {decision.estimate} "
        f"({decision.margin}), {verdict} after {decision.deals} deals, {minutes}"
    )
