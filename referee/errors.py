"""Errors for a user's or a bot's mistake; each names the offending value and its context."""

from __future__ import annotations

from collections.abc import Iterator


class CroupierError(Exception):
    """Base of every error that reports a user's or a bot's mistake, never our own bug."""


class UnknownGameError(CroupierError):
    """A game id that is not registered."""


class InvalidOptionError(CroupierError):
    """A game option that does not exist or has a value out of range."""


class InvalidActionError(CroupierError):
    """A malformed action: it is legal in no position (python-chess's InvalidMoveError)."""


class IllegalActionError(CroupierError):
    """A well-formed action that is not legal here, or a seat acting out of turn."""


class InvalidChanceError(CroupierError):
    """A chance outcome (a deck order, a pick) that the chance node cannot produce."""


class NotFoundError(CroupierError):
    """Something asked for by its id that does not exist, or that is not the asker's to see
    (told apart from a missing one by nobody but its owner)."""


class ConflictError(CroupierError):
    """Something that exists already and belongs to someone else."""


class QuotaError(CroupierError):
    """A quota the organiser set, reached: a count or a size over what is allowed."""


class ForbiddenError(CroupierError):
    """Something the asker may not do, though they may ask: a team's member who is not its
    leader adding or removing members."""


class FrozenError(CroupierError):
    """A change the organiser has stopped: a contest's submissions are frozen."""


class RefusedError(CroupierError):
    """A request the rules refuse as asked (a ranked challenge the organiser does not allow, a
    challenge of a version against itself, an opponent who refuses): not a quota, not a typo."""


class RecordError(CroupierError):
    """A record file that cannot be read, or one that does not replay as recorded."""


class RecordWriteError(CroupierError, OSError):
    """A match record that cannot be written: the file exists, the disk is full, no file
    descriptor is left. An OSError too, with the record's path as its filename."""


def leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    """The errors in a (nested) exception group, as trio's nurseries raise them."""
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            yield from leaves(error)
        else:
            yield error
