"""`--web HOST:PORT` and its TLS files, checked as the referee's own address is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from referee.errors import CroupierError

if TYPE_CHECKING:
    from referee.web import WebSettings

#: Addresses a server may listen on in plaintext without --insecure.
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def web_settings(
    address: str, tls_cert: Path | None, tls_key: Path | None, insecure: bool
) -> WebSettings:
    """--web HOST:PORT, refused off loopback without TLS (unless --insecure), as the referee."""
    from referee.web import WebSettings

    host, colon, port_text = address.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise CroupierError(f"--web wants HOST:PORT, got {address!r}")
    if (tls_cert is None) != (tls_key is None):
        raise CroupierError("give both --tls-cert and --tls-key, or neither")
    for path in (tls_cert, tls_key):
        if path is not None and not path.is_file():
            raise CroupierError(f"no such file {str(path)!r}")
    if tls_cert is None and host not in LOOPBACK and not insecure:
        raise CroupierError(
            f"refusing a plaintext web site on {host!r}: give --tls-cert/--tls-key (or --insecure)"
        )
    return WebSettings(host=host, port=int(port_text), tls_cert=tls_cert, tls_key=tls_key)
