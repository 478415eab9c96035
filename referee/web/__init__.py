"""The contest's web site (`croupier serve --web`): standings, live matches, bots, replays.

A read-only Starlette app served by Hypercorn's trio worker inside the referee's own trio run
(one loop, one thread): it reads the contest database and the records, and watches live matches
through the same public view as `croupier watch`. Nothing it serves holds a token.
"""

from __future__ import annotations

from referee.web.server import WebSettings, serve_site
from referee.web.site import Site

__all__ = ["Site", "WebSettings", "serve_site"]
