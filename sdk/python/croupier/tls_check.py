"""Say what a failed connection means when the two ends disagree about TLS.

gRPC reports a plaintext client at a TLS server as "Socket closed", and a TLS client at a
plaintext server or with the wrong CA as a handshake error deep in its detail. After such a
failure, `tls_mismatch` asks the server itself (a TLS ClientHello over plain TCP: a TLS server
answers with a handshake record) and returns one line that names the fix. The referee's
`croupier watch` uses it too, with its own option names.
"""

from __future__ import annotations

import contextlib
import socket
import ssl

#: How long the probe may take: it runs once, after a connection already failed.
PROBE_SECONDS = 3.0

#: TLS record type of a handshake message (RFC 8446, 5.1): the first byte of a ServerHello.
_HANDSHAKE = 0x16

#: Words of a gRPC detail that mean the server's certificate was not trusted.
_UNTRUSTED = ("certificate", "CERTIFICATE_VERIFY_FAILED", "BAD_SIGNATURE", "unable to get")


def _host_port(address: str) -> tuple[str, int] | None:
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit():
        return None
    return host.strip("[]") or "localhost", int(port)


def speaks_tls(address: str, timeout: float = PROBE_SECONDS) -> bool | None:
    """Whether the server at `address` (HOST:PORT) answers a TLS ClientHello with a TLS
    handshake record; None when it cannot be told (no such address, no answer)."""
    target = _host_port(address)
    if target is None:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    outgoing = ssl.MemoryBIO()
    hello = context.wrap_bio(ssl.MemoryBIO(), outgoing, server_hostname=target[0])
    with contextlib.suppress(ssl.SSLWantReadError):  # the ClientHello is written; it waits
        hello.do_handshake()
    try:
        with socket.create_connection(target, timeout=timeout) as connection:
            connection.sendall(outgoing.read())
            answer = connection.recv(1)
    except OSError:
        return None
    if not answer:
        return False  # a plaintext gRPC server closes on bytes that are no HTTP/2 preface
    return answer[0] == _HANDSHAKE


def tls_mismatch(
    address: str, *, tls: bool, detail: str, give_ca: str, drop_tls: str
) -> str | None:
    """One line naming the fix when a connection to `address` failed (UNAVAILABLE, `detail`)
    because the client spoke TLS (`tls`) to a plaintext server, plaintext to a TLS server, or
    TLS with a CA that did not vouch for the server's certificate; else None. `give_ca` says
    how to give the CA certificate (an option or a variable), `drop_tls` how to speak
    plaintext."""
    server_tls = speaks_tls(address)
    if server_tls is None:
        return None
    if server_tls and not tls:
        return f"the server at {address} speaks TLS: {give_ca}"
    if tls and not server_tls:
        return f"the server at {address} speaks plaintext, not TLS: {drop_tls}"
    if tls and any(word.lower() in detail.lower() for word in _UNTRUSTED):
        return (
            f"the server at {address} speaks TLS, but its certificate is not signed by the CA "
            f"given: {give_ca}"
        )
    return None
