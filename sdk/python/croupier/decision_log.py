"""Your bot's own log, each line tagged with the decision it came during, as a hosted bot's is.

    import logging, croupier
    logging.getLogger().addHandler(croupier.DecisionLog("bot-log.jsonl"))

Each logged message becomes JSON Lines `{"match": M, "decision": N, "line": "..."}`, one per
line of the message (a traceback too), so that `croupier replay RECORD --seat S --log
bot-log.jsonl` shows each line beside its decision. The SDK sets the current match and decision
(ActionRequest.match_id and .decision) when a request arrives, before `on_event` and `act`, and
they hold until the next request: a line logged after a reply, or in `on_match_end`, belongs to
the seat's latest decision, as a hosted bot's output does. Before the match's first request the
decision is 0; outside any match nothing is tagged and the handler writes nothing.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import threading
from typing import NamedTuple


class Decision(NamedTuple):
    """The match and the decision a session is in (decision 0: before its first request, or a
    referee older than ActionRequest.decision)."""

    match: str
    decision: int


#: Set by the SDK (croupier.client); per asyncio task, so that each of several sessions tags its
#: own lines. A thread of your own starts without it: run work there with
#: `contextvars.copy_context().run` (asyncio.to_thread copies it already).
current: contextvars.ContextVar[Decision | None] = contextvars.ContextVar(
    "croupier_decision", default=None
)

#: The longest message line written, in characters; a longer one is cut and says so, so that
#: no line of the file is too long for the replay to read.
MAX_LINE_CHARS = 65536


def current_decision() -> Decision | None:
    """The match and decision of the code running now (None outside any match)."""
    return current.get()


class DecisionLog(logging.Handler):
    """A logging handler that appends each record's lines to `path` as JSON Lines tagged with
    the current match and decision (see the module's doc). Records logged outside any match
    are dropped: give another handler for those. The file is opened once, for appending, and
    flushed after every record, so that a bot killed mid-match leaves every line it logged."""

    def __init__(self, path: str | os.PathLike[str], level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._write = threading.Lock()
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def emit(self, record: logging.LogRecord) -> None:
        where = current.get()
        if where is None:
            return
        try:
            text = self.format(record)
            entries = []
            for line in text.splitlines() or [""]:
                if len(line) > MAX_LINE_CHARS:
                    cut = len(line) - MAX_LINE_CHARS
                    line = f"{line[:MAX_LINE_CHARS]}... [{cut} characters cut]"
                entry = {"match": where.match, "decision": where.decision, "line": line}
                entries.append(json.dumps(entry, ensure_ascii=False) + "\n")
            with self._write:
                self._file.write("".join(entries))
                self._file.flush()
        except Exception:  # a logging handler never raises into the bot (logging's own rule)
            self.handleError(record)

    def close(self) -> None:
        with self._write:
            if not self._file.closed:
                self._file.close()
        super().close()
