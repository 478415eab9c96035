"""The web site of a contest (`croupier serve --web`) or a ladder (`croupier ladder run --web`):
standings, live matches, bots, replays.

A read-only Starlette app served by Hypercorn's trio worker inside the referee's own trio run
(one loop, one thread): it reads the database and the records through a `RefereeView`
(referee.ladder.view), and watches live matches through the same public view as `croupier
watch`. Nothing it serves holds a token.

May import: `referee.ladder` (its view and standings), `referee.viewer` (the replay pages),
`referee.match`, `referee.games` and the shared modules; never transport (it serves HTTP with
Hypercorn, not gRPC), the contest server or the CLI.

- `site`: the routes and static files; `caching`: ETags and 304s; `api`: the public JSON API
  (/api/v1); `snapshot`: the database read into what the pages show, and the standings stream;
  `live`: live and followed matches' event streams, paced; `server`: Hypercorn and TLS;
  `ladders`: a ladder run with its site beside it; `challenges`: the decided ranked challenges,
  and an author's own (with their matches, on the desk); `report`: `croupier ladder report`, a
  ladder's pages written to a folder (the replay viewer's, and `report_index`: the site's
  standings page with the data embedded, which works from disk); `desk`: a contest's author's
  page of their own (/desk), signed in; `desk_replay`: a team's seat replay of its match there (a
  contest's, or one of its challenges'), its bot's lines beside its decisions; `desk_review`:
  a team's review of its own seat there, queued and run off the request path, kept once made.
"""

from __future__ import annotations

from referee.web.ladders import run_ladder_with_site
from referee.web.server import WebSettings, serve_site
from referee.web.site import Site

__all__ = ["Site", "WebSettings", "run_ladder_with_site", "serve_site"]
