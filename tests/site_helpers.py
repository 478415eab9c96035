"""What the contest's and the ladder's live sites share in their tests: a live match's event
stream, read raw, and the check that it carried only what the public may see."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Protocol

from referee.match.records import read_all
from referee.viewer.glyphs import readable


class LiveSite(Protocol):
    web: str

    def live_match(self) -> str: ...


def listen(site: LiveSite) -> tuple[str, list[dict[str, Any]], list[str]]:
    """A live match's event stream, raw and parsed, from its opening to its end; tried until
    the match is still live when the stream opens (it may end meanwhile)."""
    for _ in range(20):
        match_id = site.live_match()
        received, raw = _stream(site.web, match_id)
        if received[0]["kind"] != "gone":
            break
        time.sleep(0.25)  # the site's list of live matches is a snapshot: let it refresh
    return match_id, received, raw


def _stream(web: str, match_id: str) -> tuple[list[dict[str, Any]], list[str]]:
    received: list[dict[str, Any]] = []
    raw: list[str] = []

    def read() -> None:
        with urllib.request.urlopen(f"{web}/events/live/{match_id}", timeout=60) as stream:
            for line in stream:
                text = line.decode()
                raw.append(text)
                if text.startswith("data: "):
                    received.append(json.loads(text[6:]))
                    if received[-1]["kind"] in {"end", "gone"}:
                        return

    listener = threading.Thread(target=read)
    listener.start()
    listener.join(timeout=90)
    assert not listener.is_alive()
    return received, raw


def check_only_public(received: list[dict[str, Any]], raw: list[str], record: Path) -> str:
    """The stream against the match's record: it opened, showed tables and ended; no private
    event (a hand dealt, a peek) and no card in any hand ever shows; the page got every public
    event, in order, with the seats' bots named, and nothing else. Returns the raw stream."""
    kinds = [message["kind"] for message in received]
    assert kinds[0] == "start" and kinds[-1] == "end" and "table" in kinds
    records = read_all(record, strict=True)[0]
    events = [r.event for r in records if r.WhichOneof("line") == "event"]
    private = [event.event.text for event in events if not event.public]
    public = [event.event.text for event in events if event.public]
    assert any(" is dealt " in text for text in private)
    blob = "".join(raw)
    for text in private:
        assert text not in blob
    shown = [
        # a seat's name may hold parentheses itself: "alice (random)"
        re.sub(r"(seat \d+) \((?:[^()]|\([^()]*\))*\)", r"\1", m["text"])
        for m in received
        if m["kind"] == "event"
    ]
    assert shown == [readable("xix", text) for text in public]
    hands = [seat["hand"] for m in received if m["kind"] == "table" for seat in m["seats"]]
    assert any(hands)
    for hand in hands:
        assert all(card["t"] == "" for card in hand)  # backs only
    return blob
