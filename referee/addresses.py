"""Where a server may listen: plaintext on loopback only unless told otherwise, the same rule
for the referee (`croupier serve`) and a web site (`--web HOST:PORT`), checked where any caller
goes through (a command, a contest file, a library user)."""

from __future__ import annotations

from pathlib import Path

from referee.errors import CroupierError

#: Loopback names: what listens there is reached from this machine only.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def check_tls_files(tls_cert: Path | None, tls_key: Path | None) -> None:
    """Both TLS files or neither, each an existing file."""
    if (tls_cert is None) != (tls_key is None):
        raise CroupierError("give both --tls-cert and --tls-key, or neither")
    for path in (tls_cert, tls_key):
        if path is not None and not path.is_file():
            raise CroupierError(f"no such file {str(path)!r}")


def web_address(
    address: str, tls_cert: Path | None, tls_key: Path | None, insecure: bool
) -> tuple[str, int]:
    """--web HOST:PORT as a host and port, refused off loopback without TLS (unless
    --insecure), as the referee's own address is."""
    host, colon, port_text = address.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise CroupierError(f"--web wants HOST:PORT, got {address!r}")
    check_tls_files(tls_cert, tls_key)
    if tls_cert is None and host not in LOOPBACK and not insecure:
        raise CroupierError(
            f"refusing a plaintext web site on {host!r}: give --tls-cert/--tls-key (or --insecure)"
        )
    return host, int(port_text)
