"""The spacing of a job that grows with a ladder or contest (reading every result, refitting
the ratings): at most every `least` seconds, and at most a `share` of the time once it is slow."""

from __future__ import annotations

from referee.spacing import SHARE, Spacing


def test_a_quick_job_runs_every_least_seconds_and_first_at_once() -> None:
    spacing = Spacing(2.0)
    assert spacing.due(0.0)
    spacing.ran(10.0, 10.01)
    assert not spacing.due(11.9)
    assert spacing.due(12.0)
    assert spacing.next_at() == 12.0
    assert spacing.due(11.0, least=1.0)  # a caller may ask for a shorter floor


def test_a_slow_job_is_spaced_to_its_share_of_the_time() -> None:
    spacing = Spacing(2.0)
    spacing.ran(100.0, 101.0)  # a second's work: at most SHARE of the time
    assert spacing.gap() == 1.0 / SHARE == spacing.gap(least=1.0)
    assert not spacing.due(100.0 + 1.0 / SHARE - 0.1)
    assert spacing.due(100.0 + 1.0 / SHARE)
    spacing.ran(130.0, 130.05)  # quick again: back to the floor
    assert spacing.due(132.0)
