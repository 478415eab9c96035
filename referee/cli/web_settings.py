"""`--web HOST:PORT` and its TLS files as the web site's settings (checked by
referee.addresses, as the referee's own address is)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from referee.addresses import web_address

if TYPE_CHECKING:
    from referee.web import WebSettings


def web_settings(
    address: str, tls_cert: Path | None, tls_key: Path | None, insecure: bool
) -> WebSettings:
    """--web HOST:PORT, refused off loopback without TLS (unless --insecure), as the referee."""
    from referee.web import WebSettings

    host, port = web_address(address, tls_cert, tls_key, insecure)
    return WebSettings(host=host, port=port, tls_cert=tls_cert, tls_key=tls_key)
