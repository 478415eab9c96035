"""The SPRT of one bot against another (two-player games: it tests a logistic Elo difference,
or a point margin), as fishtest runs it: GSPRT over units of a match, or of a complete duplicate
deal, whose variance is right when a deal's matches are not independent. Once it stops, its
estimate is corrected for the stopping rule (`stopping`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from referee.ratings.intervals import t95
from referee.ratings.stopping import STOPPING_MARK, Rule, Stopped, correct
from referee.results.matches import MatchResult


def elo_difference(score: float) -> float:
    """The Elo difference that an expected score implies (logistic model)."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def expected_score(elo_diff: float) -> float:
    return 1 / (1 + 10 ** (-elo_diff / 400))


#: What an SPRT may run on: the match score (win, draw, loss), the point margin, or the margin
#: corrected for luck (referee.ratings.margins).
SPRT_ON = ("score", "margin", "corrected")


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1 (logistic
    Elo of the first bot over the second), with error rates alpha and beta. `on` "margin" or
    "corrected" tests the first bot's mean point margin (raw, or corrected for luck) instead:
    elo0 and elo1 are then margins in points."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    on: str = "score"

    @property
    def unit(self) -> str:
        return {"margin": "points of margin", "corrected": "points of corrected margin"}.get(
            self.on, "Elo"
        )

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def check(self) -> str | None:
        """A problem with the parameters, or None."""
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            return f"alpha and beta must lie between 0 and 0.5, got {self.alpha!r}, {self.beta!r}"
        if self.elo1 <= self.elo0:
            return f"elo1 must exceed elo0, got elo0 {self.elo0!r}, elo1 {self.elo1!r}"
        if self.on not in SPRT_ON:
            return f"the SPRT runs on one of {', '.join(SPRT_ON)}, not {self.on!r}"
        return None


@dataclass(frozen=True, slots=True)
class SprtState:
    """The test after some matches: the log-likelihood ratio against its bounds."""

    test: Sprt
    llr: float
    units: int
    verdict: str | None  # "H1" (elo >= elo1 accepted), "H0" (elo <= elo0 accepted), or None
    #: Once it stops: the mean per unit at the stop and its fixed-sample 95% interval (biased by
    #: the stop), and the estimate and interval under the stopping rule (referee.ratings.stopping).
    mean: float | None = None
    fixed: tuple[float, float] | None = None
    stopped: Stopped | None = None

    def estimate_text(self) -> str | None:
        """The estimate line once stopped: the corrected one, marked, beside the fixed one."""
        if self.verdict is None or self.mean is None:
            return None

        def unit(x: float) -> str:
            if self.test.on == "score":
                return f"{elo_difference(x):+.0f}"
            return f"{x:+.2f}"

        fixed = "" if self.fixed is None else f" ({unit(self.fixed[0])}..{unit(self.fixed[1])})"
        head = (
            f"fixed-sample estimate {unit(self.mean)}{fixed} {self.test.unit}, biased by the stop"
        )
        if self.stopped is None:
            return head
        s = self.stopped
        return (
            f"estimate under the stopping rule {unit(s.estimate)}{STOPPING_MARK} "
            f"(95% {unit(s.low)}..{unit(s.high)}{STOPPING_MARK}); {head}"
        )

    def describe(self, a: str, b: str) -> str:
        t = self.test
        if self.verdict == "H1":
            where = f">= the upper bound {t.upper:.2f}"
        elif self.verdict == "H0":
            where = f"<= the lower bound {t.lower:.2f}"
        else:
            where = f"between the bounds {t.lower:.2f} and {t.upper:.2f}"
        on = f" on {t.on}" if t.on != "score" else ""
        head = (
            f"SPRT{on} {a} vs {b}: elo0 {t.elo0:g}, elo1 {t.elo1:g}, alpha {t.alpha:g}, "
            f"beta {t.beta:g}: LLR {self.llr:.2f} {where}"
        )
        estimate = self.estimate_text()
        tail = f"; {estimate}" if estimate else ""
        if self.verdict == "H1":
            return f"{head}: H1 accepted ({a} is at least {t.elo1:g} {t.unit} stronger){tail}"
        if self.verdict == "H0":
            return f"{head}: H0 accepted ({a} is at most {t.elo0:g} {t.unit} stronger){tail}"
        return f"{head}: no verdict yet"


def sprt_units(
    results: Iterable[MatchResult], a: str, duplicate: bool, on: str = "score"
) -> list[float]:
    """`a`'s scores for the SPRT: per match, or with duplicate deals per complete deal (the
    mean over its rotations: pentanomial for two rotations), the unit whose variance is
    right when a deal's matches are not independent. With `on` "margin" or "corrected", its
    point margins instead (raw, or plus its luck corrections: a match recorded without them
    does not count)."""
    deals: dict[int, list[float]] = defaultdict(list)
    sizes: dict[int, int] = {}
    for result in results:
        if result.side_count != 2:
            continue
        side = result.match.entrants.index(a) if a in result.match.entrants else None
        if side is None:
            continue
        key = result.match.deal if duplicate else -result.match.number
        if on == "score":
            deals[key].append(result.side_results()[side])
        elif on == "margin" or result.luck is not None:
            deals[key].append(result.side_margins(corrected=on == "corrected")[side])
        sizes[key] = len(result.match.bots) if duplicate else 1
    return [sum(s) / len(s) for key, s in sorted(deals.items()) if len(s) == sizes[key]]


def sprt(test: Sprt, units: Sequence[float], cap: int | None = None) -> SprtState:
    """The GSPRT log-likelihood ratio (Van den Bergh's normal approximation, as fishtest uses):
    n (s1 - s0)(2 mean - s0 - s1) / (2 var), over units of mean score in [0, 1].

    The mean and variance include one pseudo-unit split between 0 and 1 (weight 1/2 each): it
    keeps the variance of a clean sweep above zero, so a few wins in a row are not yet proof,
    and its weight vanishes as units accumulate."""
    n = len(units)
    if n < 2:
        return SprtState(test, 0.0, n, None)
    if test.on != "score":  # margins in points: no natural range for a pseudo-unit
        mean = sum(units) / n
        variance = max(sum((u - mean) ** 2 for u in units) / n, 1e-12)
        llr = n * (test.elo1 - test.elo0) * (2 * mean - test.elo0 - test.elo1) / (2 * variance)
        verdict = "H1" if llr >= test.upper else "H0" if llr <= test.lower else None
        return _stopped(SprtState(test, llr, n, verdict), units, test.elo0, test.elo1, cap)
    s0, s1 = expected_score(test.elo0), expected_score(test.elo1)
    weight = n + 1.0
    mean = (sum(units) + 0.5) / weight
    variance = (
        sum((u - mean) ** 2 for u in units) + 0.5 * mean**2 + 0.5 * (1 - mean) ** 2
    ) / weight
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    verdict = "H1" if llr >= test.upper else "H0" if llr <= test.lower else None
    return _stopped(SprtState(test, llr, n, verdict), units, s0, s1, cap)


def _stopped(
    state: SprtState, units: Sequence[float], s0: float, s1: float, cap: int | None
) -> SprtState:
    """The state with its estimates once the test has stopped (none before: it is still
    running, and the correction replays the test, which costs a second or so)."""
    if state.verdict is None:
        return state
    n = len(units)
    mean = sum(units) / n
    spread = math.sqrt(sum((u - mean) ** 2 for u in units) / (n - 1))
    half = t95(n) * spread / math.sqrt(n)
    fixed = (mean - half, mean + half)
    if state.test.on == "score":
        fixed = (max(fixed[0], 1e-9), min(fixed[1], 1 - 1e-9))
    rule = Rule(
        state.test.lower,
        state.test.upper,
        s0,
        s1,
        state.test.on == "score",
        cap or max(20 * n, 1000),
    )
    found = correct(rule, units)
    if found is not None and state.test.on == "score":
        clip = (1e-9, 1 - 1e-9)
        found = Stopped(
            *(min(max(x, clip[0]), clip[1]) for x in (found.estimate, found.low, found.high))
        )
    return replace(state, mean=mean, fixed=fixed, stopped=found)
