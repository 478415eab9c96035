"""The referee's software version, written into every record header."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("croupier")
except PackageNotFoundError:  # running from a source tree that was never installed
    VERSION = "0+unknown"
