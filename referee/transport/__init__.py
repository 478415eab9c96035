"""The only package that imports grpc: the host (`host`), the gRPC server (`server`: listening,
health, reflection's descriptors in `reflection`; its limits in `settings`) and its services, the
bots' Play stream (`play`), spectators' Watch (`watch`), authors' uploads (`submissions`) and
challenges (`challenges`), with what those two do alike in `accounts`, and teams and their
events (`desk`); `client` for `croupier watch`, `submit`, `challenge` and `team`.

grpcio has no trio support, so trio hosts the referee and steps grpc.aio's asyncio loop from a
task of its own on the same thread (`host`): the cheapest of the bridges measured
(bench/bridge_designs.py, docs/architecture.md).

May import: `referee.match` (sessions and the lobby that its streams feed), `referee.games` and
the shared modules, grpc. Imported only where a server is started or a gRPC client runs (`make
lint` checks it): the local series and slots, the contest server, the doctor, `croupier watch`.
"""

from __future__ import annotations

from referee.transport.host import run
from referee.transport.server import ListenError, ServerControl, check_free, serve, serve_door
from referee.transport.settings import ServerSettings

__all__ = [
    "ListenError",
    "ServerControl",
    "ServerSettings",
    "check_free",
    "run",
    "serve",
    "serve_door",
]
