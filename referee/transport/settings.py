"""The server's settings: where to listen and every limit the transport holds bots and authors
to, in a module of its own so that each service reads them without importing the server that
routes to it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.match.session import MAX_QUEUED_BYTES_PER_BOT, MAX_QUEUED_MESSAGES

#: How long an upload may go without a message before it is ended (seconds): a client that
#: holds its stream open holds a spool file, and counts against its hourly quota meanwhile.
UPLOAD_IDLE_SECONDS = 30.0
#: How long an upload may take in all (seconds): the largest allowed upload at well under
#: 1 MB/s, so a trickle of bytes cannot hold its spool file for ever.
UPLOAD_TOTAL_SECONDS = 600.0


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Where to listen and the transport's limits, all set explicitly."""

    host: str = "127.0.0.1"
    port: int = 0
    #: Largest message a bot may send; a bigger one ends its stream with RESOURCE_EXHAUSTED.
    max_receive_bytes: int = 64 * 1024
    max_send_bytes: int = 16 * 1024 * 1024
    #: The server pings idle connections to reap bots that vanished without a reset.
    keepalive_ms: int = 10_000
    keepalive_timeout_ms: int = 5_000
    #: Bots may ping this often without being cut off ("too many pings").
    min_client_ping_ms: int = 1_000
    grace_seconds: float = 1.0
    #: Open sessions one bot (token) may hold at once.
    max_sessions_per_token: int = 1000
    #: Messages per second a stream may send unasked on average, and in a burst. A reply to an
    #: ActionRequest the referee sent never counts, however fast the bot (issue 16).
    max_messages_per_second: float = 1000.0
    message_burst: int = 200
    #: Messages a session may hold unread (sent while no request was pending), and bytes all of
    #: one bot's sessions may hold so together; more are dropped and counted (the seat's next
    #: fault says how many), so talking out of turn costs the referee no memory.
    max_queued_messages: int = MAX_QUEUED_MESSAGES
    max_queued_bytes_per_bot: int = MAX_QUEUED_BYTES_PER_BOT
    #: Calls gRPC holds waiting to be accepted while the referee's loop is busy; past this it
    #: refuses them (INTERNAL) before the referee sees them. Its default, about 1,000, refused
    #: 727 of 3,000 bots reconnecting at once to a busy referee (bench/serve_capacity.py).
    max_pending_calls: int = 20_000
    #: How long a new stream may take to send its first message (Hello).
    hello_timeout_seconds: float = 10.0
    #: Log lines one bot (or, before its token is known, one address) may provoke a second.
    log_lines_per_second: int = 5
    #: An upload's longest silence, and its time in all (referee.transport.submissions).
    upload_idle_seconds: float = UPLOAD_IDLE_SECONDS
    upload_seconds: float = UPLOAD_TOTAL_SECONDS
    #: The most members a contest's team may have, the leader counted, as its leader adds
    #: them over the Desk service (referee.transport.desk); None: no cap.
    max_team_size: int | None = 4
    #: PEM files; with them the server speaks TLS only.
    tls_cert: Path | None = None
    tls_key: Path | None = None

    def options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.max_receive_message_length", self.max_receive_bytes),
            ("grpc.max_send_message_length", self.max_send_bytes),
            ("grpc.keepalive_time_ms", self.keepalive_ms),
            ("grpc.keepalive_timeout_ms", self.keepalive_timeout_ms),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", self.min_client_ping_ms),
            ("grpc.http2.max_ping_strikes", 0),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.server.max_pending_requests", self.max_pending_calls),
            ("grpc.server.max_pending_requests_hard_limit", self.max_pending_calls),
            # Two referees on one port would share its connections: the second must fail.
            ("grpc.so_reuseport", 0),
        ]
