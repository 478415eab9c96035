"""A pool of worker processes, as `ladder report` and `ladder verify` use one (issue 24.6).

Spawned, not forked: the caller may hold threads (grpc, a test runner), which a fork would copy
half-alive. A spawned process costs ~0.8 s to import croupier, so callers use a pool only for
work worth that (a few seconds or more).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


@contextmanager
def process_pool(processes: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of `processes` spawned workers; on an error (Ctrl-C included) the work not yet
    started is cancelled instead of awaited."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=processes, mp_context=context) as pool:
        try:
            yield pool
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
