"""Serving the site: Hypercorn's trio worker inside the referee's trio run.

Hypercorn is given a shutdown trigger, so it installs no signal handlers of its own: Ctrl-C and
SIGTERM stay the referee's (referee.transport.host, referee.contest.serving), which drains and
then cancels the site with the rest.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import trio
from hypercorn.config import Config
from hypercorn.trio import serve

from referee.errors import CroupierError
from referee.ladder.view import RefereeView
from referee.review.budgets import DEFAULT_BUDGET
from referee.web.site import Site

if TYPE_CHECKING:
    from referee.contest.hosted_wing import HostedWing

log = logging.getLogger("croupier.web")

#: A connection that takes no byte for this long is dropped (see `_listener`).
STALL_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Where the site listens; with both PEM files it speaks HTTPS only. `review_budget`: the
    playouts a decision of a review the desk runs may spend (issue 48.2)."""

    host: str = "127.0.0.1"
    port: int = 0
    tls_cert: Path | None = None
    tls_key: Path | None = None
    review_budget: int = DEFAULT_BUDGET


async def serve_site(
    settings: WebSettings,
    on_listening: Callable[[str], None],
    view: RefereeView,
    wing: HostedWing | None = None,
    *,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the site until cancelled; `on_listening` and `task_status.started` get its URL
    (with the port bound, for port 0). With a contest's hosted `wing`, its desk too."""
    config = Config()
    config.accesslog = None
    config.errorlog = log
    config.graceful_timeout = 1.0
    if settings.tls_cert is not None and settings.tls_key is not None:
        config.certfile = str(settings.tls_cert)
        config.keyfile = str(settings.tls_key)
    site = Site(view, wing, settings.review_budget)
    never = trio.Event()  # the referee cancels the site; a trigger keeps signals the referee's
    async with trio.open_nursery() as nursery:
        nursery.start_soon(site.run)
        try:
            # Hypercorn owns the socket from here
            config.bind = [f"fd://{_listener(settings.host, settings.port).detach()}"]
            binds = await nursery.start(_hypercorn, site, config, never)
        except (OSError, BaseExceptionGroup) as error:
            reason = _bind_error(error)
            if reason is None:
                raise
            raise CroupierError(
                f"the web site cannot listen on {settings.host}:{settings.port}: {reason}"
            ) from None
        url = binds[0]
        on_listening(url)
        task_status.started(url)


async def _hypercorn(
    site: Site,
    config: Config,
    never: trio.Event,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    await serve(
        site.app,  # type: ignore[arg-type]
        config,
        shutdown_trigger=never.wait,
        task_status=task_status,
    )


def _listener(host: str, port: int) -> socket.socket:
    """The site's listening socket. Every connection it accepts inherits TCP_USER_TIMEOUT: one
    that takes no byte for STALL_SECONDS is dropped by the kernel. Hypercorn's writes are
    shielded from cancellation, so a page that never reads would otherwise hold its connection,
    and the referee's shutdown, forever; a browser reconnects an event stream by itself."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if hasattr(socket, "TCP_USER_TIMEOUT"):  # Linux
            stall = int(STALL_SECONDS * 1000)
            listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, stall)
        listener.bind((host, port))
    except OSError:
        listener.close()
        raise
    return listener


def _bind_error(error: BaseException) -> str | None:
    """Why the site could not listen (an OSError from binding, or one from Hypercorn's start,
    which comes in a group), or None when the error is anything else."""
    if isinstance(error, BaseExceptionGroup):
        if len(error.exceptions) != 1:
            return None
        return _bind_error(error.exceptions[0])
    if isinstance(error, OSError):
        return error.strerror[0].lower() + error.strerror[1:] if error.strerror else str(error)
    return None
