"""Live matches played on a Dask cluster, watched on this machine's site: each batch relays
what a spectator may see of its matches (referee.match.live_relay) as Dask events on a topic of
this run, through the scheduler, and this process's Dask client replays them into the site's
LiveMatches. The scheduler keeps only a topic's latest events (Dask's own bound, 1,000 by
default), so a long ladder costs it a few MB at most; a topic outlives its run there, since a
client cannot clear one.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from distributed.client import ClosedClientError

from referee.match.live_relay import Mirror
from referee.match.spectators import LiveMatches


@contextmanager
def watched(client: Any, live: LiveMatches | None) -> Iterator[tuple[str, Mirror | None]]:
    """While the block runs, the topic batches relay on and the mirror their events go to
    (("", None) without a site: nothing is relayed)."""
    if live is None:
        yield "", None
        return
    topic = f"croupier-live-{uuid.uuid4().hex}"
    mirror = Mirror(live)

    def received(event: tuple[float, Any]) -> None:  # on this thread's asyncio loop
        source, relayed = event[1]
        mirror.apply(int(source), relayed)

    client.subscribe_topic(topic, received)
    try:
        yield topic, mirror
    finally:
        # A client whose scheduler is gone for good is closed: what stopped the run says more.
        with contextlib.suppress(ClosedClientError):
            client.unsubscribe_topic(topic)
