"""croupier: the Python SDK for bots that play on a croupier referee."""

from __future__ import annotations
