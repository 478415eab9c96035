"""A ladder with its web site (`croupier ladder run --web`): both on the referee's one loop.

The site listens first, so a port in use stops the command before the ladder launches a bot.
The ladder fills in the site's `RefereeView` (referee.ladder.view) as it goes: its database once
made, a notification after each commit, its matches live while they are played here.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

import trio

from referee.ladder import LadderObserver, Sprt, Summary, Venue, ladder_view, run_ladder
from referee.ladder.config import LadderConfig
from referee.web.server import WebSettings, serve_site


async def run_ladder_with_site(
    settings: WebSettings,
    on_listening: Callable[[str], None],
    config: LadderConfig,
    sprt_test: Sprt | None = None,
    observer: LadderObserver | None = None,
    venue: Venue | None = None,
    when_over: Callable[[Summary], None] | None = None,
) -> Summary:
    """`run_ladder` with the ladder's site served beside it; `on_listening` gets the site's URL.

    Without `when_over` the site stops with the ladder. With it, once the ladder has run (or
    was complete already) `when_over(summary)` is called and the site stays up, showing the
    final standings and the revealed master seed, until SIGINT or SIGTERM; then this returns
    the summary as usual."""
    view = ladder_view(config)
    async with trio.open_nursery() as nursery:
        await nursery.start(serve_site, settings, on_listening, view)
        summary = await run_ladder(config, sprt_test, observer, venue, view)
        if when_over is not None:
            when_over(summary)
            await _signalled()
        nursery.cancel_scope.cancel()
    return summary


async def _signalled() -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            return
