"""Structured logs of connections, matches and faults: text for people, JSON lines for machines."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

_STANDARD = set(vars(logging.makeLogRecord({})))
#: What Formatter.format adds to a record.
_MADE = frozenset({"message", "asctime"})


class JsonLines(logging.Formatter):
    """One JSON object per line: time, level, message, and the record's `extra` fields."""

    def format(self, record: logging.LogRecord) -> str:
        fields = {key: value for key, value in vars(record).items() if key not in _STANDARD}
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": record.getMessage(),
            **fields,
        }
        return json.dumps(line, default=str)


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is when a record is emitted, not when it was created
    (so a handler outlives a replaced stderr, as under a test runner's capture)."""

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


class TextLines(logging.Formatter):
    """For people: time, level, message, then the record's `extra` fields as name=value (who,
    which match, from where, why), so a line names the bot an organiser looks for."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        fields = {k: v for k, v in vars(record).items() if k not in _STANDARD and k not in _MADE}
        extra = " ".join(f"{key}={_text(value)}" for key, value in fields.items())
        return f"{super().format(record)} {extra}".rstrip()


def _text(value: object) -> str:
    if isinstance(value, list | tuple):
        value = ",".join(str(item) for item in value)
    text = str(value)
    return json.dumps(text) if any(c.isspace() for c in text) or not text else text


def configure_logging(*, json_lines: bool) -> None:
    """Log the referee's `croupier.*` loggers to stderr."""
    handler = _Stderr()
    handler.setFormatter(JsonLines() if json_lines else TextLines())
    logger = logging.getLogger("croupier")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False
