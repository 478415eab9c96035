"""A team's seat replay on its desk (issues 46.4 and 45.4): /desk/replay/<match>.

One of the team's committed matches, a contest's or one of a challenge it asked or was asked
(referee.challenges.book's, its seats found by the book's entrants), replayed from a seat the
team held (`?seat=N` among them; the first by default), with what its hosted version printed
during each of that seat's decisions beside it: the same page as `croupier replay RECORD --seat
S --log FILE --html` (referee.viewer's seat replay, which holds that seat's view alone, so no
card the seat could not see is in the page), its code and style from the site's /static/ files,
since the desk's Content-Security-Policy runs no inline script. The lines are the store's, kept
per decision and capped when the match was played (referee.hosted.roster.kept_output), redacted
as `croupier submissions log` shows them; the page puts each in as text. A match the team did
not play, one not committed yet, one whose record changed since and one that does not exist
are refused in the same words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from referee.errors import NotFoundError
from referee.hosted.store import plays_as
from referee.hosted.submitting import Submitting
from referee.viewer import Timeline, load, render_html
from referee.viewer.decision_log import DecisionLog, seat_log
from referee.viewer.timeline import StepKind

#: Where the page takes the viewer's code and style: the site's static files.
STATIC = "/static/"
#: The page's way back.
BACK = ("/desk", "your desk")


def no_match(match_id: str) -> NotFoundError:
    """The one refusal for a match that is not the team's to replay, whatever the reason."""
    return NotFoundError(f"no finished match {match_id!r} of your team")


def seat_replay(
    record: Path,
    match_id: str,
    bots: Sequence[str],
    team: str,
    seat: int | None,
    submitting: Submitting,
    marks: Mapping[int, Mapping[str, object]] | None = None,
) -> str:
    """The page of `team`'s `seat` (None: its first) in the committed match at `record`, whose
    seats `bots` held (the results' or the challenge book's names: an account, or a hosted
    version's entrant, where the record has each bot's own name too); NotFoundError for a
    seat the team did not hold, or a match it did not play. `marks`: the seat's review on it
    (referee.review.marks, issue 48.2)."""
    shown = held_seat(match_id, bots, team, seat)
    timeline = load(record)
    return render_html(
        timeline,
        shown,
        shared=True,
        assets=STATIC,
        links=[BACK, *_other_seats(held_seats(bots, team), shown)],
        log=_log(timeline, bots[shown], team, shown, submitting),
        seat_only=True,
        marks=marks,
    )


def held_seats(bots: Sequence[str], team: str) -> list[int]:
    """The seats `team` held among `bots` (a match's names of its seats)."""
    return [s for s, name in enumerate(bots) if plays_as(name, team)]


def held_seat(match_id: str, bots: Sequence[str], team: str, seat: int | None) -> int:
    """`seat` if `team` held it (None: the team's first); NotFoundError, as for a match the
    team did not play, otherwise."""
    held = held_seats(bots, team)
    if not held or (seat is not None and seat not in held):
        raise no_match(match_id)
    return held[0] if seat is None else seat


def _other_seats(held: Sequence[int], shown: int) -> list[tuple[str, str]]:
    return [(f"?seat={s}", f"seat {s}") for s in held if s != shown]


def _log(
    timeline: Timeline, bot: str, team: str, seat: int, submitting: Submitting
) -> DecisionLog | None:
    """What the team's hosted version `bot` in `seat` printed, by decision; None when the seat
    was no hosted version's (a network bot's), or the match was played before lines were kept
    by decision. Only `bot`'s own lines: in a challenge of two of the team's versions, the
    other seat's are the other version's."""
    try:
        _, lines = submitting.decision_log(team, timeline.header.match_id, None, played_by=bot)
    except NotFoundError:
        return None
    movers = [s.seat for s in timeline.steps if s.kind is StepKind.ACTION and s.seat is not None]
    return seat_log(lines, seat, movers)
