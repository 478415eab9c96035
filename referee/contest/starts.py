"""How many matches a contest may still start, shared by its tables here and on a cluster."""

from __future__ import annotations

import trio


class Starts:
    """The matches a contest may still start, shared by its local tables and the cluster's:
    `take` gives the next index, or None once `total` were started (and sets `over`)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.started = 0
        self.over = trio.Event()
        if total is not None and total <= 0:
            self.over.set()

    def take(self) -> int | None:
        if self.total is not None and self.started >= self.total:
            self.over.set()
            return None
        self.started += 1
        if self.total is not None and self.started >= self.total:
            self.over.set()
        return self.started - 1
