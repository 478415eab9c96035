"""Fair turns at the builds and qualifications that hosted versions share (issue 41.2).

Before, builds took two turns in arrival order: two of one author's builds that slept for their
ten minutes kept every other author's waiting. Now each account holds at most one turn at a
time, and among the accounts that wait, the one that asked first goes first, so that one author
can delay only their own versions. (An account has at most one version waiting anyway: a newer
upload replaces its older waiting one, referee.hosted.pipeline.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio


class Turns:
    """At most `at_once` turns at a time, one per account, the longest waiting first."""

    def __init__(self, at_once: int) -> None:
        self.at_once = at_once
        self._held: set[str] = set()
        self._waiting: list[tuple[str, trio.Event]] = []

    @asynccontextmanager
    async def turn(self, account: str) -> AsyncIterator[None]:
        """Wait for a turn for `account`, and hold it for the block. Cancelled while waiting,
        it gives up its place (or the turn it was given meanwhile)."""
        entry = (account, trio.Event())
        self._waiting.append(entry)
        self._grant()
        try:
            await entry[1].wait()
        except BaseException:
            if entry in self._waiting:
                self._waiting.remove(entry)
            else:  # given the turn as it was cancelled
                self._release(account)
            raise
        try:
            yield
        finally:
            self._release(account)

    def holding(self, account: str) -> bool:
        """Whether `account` holds a turn now."""
        return account in self._held

    def _release(self, account: str) -> None:
        self._held.discard(account)
        self._grant()

    def _grant(self) -> None:
        for entry in list(self._waiting):
            if len(self._held) >= self.at_once:
                return
            account, given = entry
            if account not in self._held:
                self._held.add(account)
                self._waiting.remove(entry)
                given.set()
